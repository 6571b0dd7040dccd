// /debug/status, a page for a person on call, and /debug/status.json, its data. The page comes
// rendered, so it shows something even without JavaScript; its script fetches the JSON every
// two seconds and renders it again with the same renderer. Everything is inline: the page
// needs nothing from outside the process, so it works from a Pod cut off from the internet.
// Both paths sit behind the same authentication and authorization as /metrics.
import type { Hono } from "hono";
import type { StatusSnapshot } from "../status/status-snapshot.ts";
import { renderStatus } from "./status-page-render.ts";

export interface StatusSource {
  snapshot(): Promise<StatusSnapshot>;
}

const statusPagePath = "/debug/status";
const statusDataPath = "/debug/status.json";

const refreshIntervalMs = 2_000;

export function mountStatusPage(app: Hono, status: StatusSource): void {
  const noStore = { "Cache-Control": "no-store" };
  app.get(statusDataPath, async (c) => c.json(await status.snapshot(), 200, noStore));
  app.get(statusPagePath, async (c) => c.html(statusDocument(await status.snapshot()), 200, noStore));
}

export function statusDocument(snapshot: StatusSnapshot): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kube-loom status</title>
<noscript><meta http-equiv="refresh" content="${refreshIntervalMs / 1000 + 3}"></noscript>
<style>${styles}</style>
</head>
<body>
<header><h1>kube-loom</h1><span id="refresh" class="badge">rendered by the server</span>
<a href="status.json">JSON</a></header>
<main id="status">${renderStatus(snapshot)}</main>
<script>${refreshScript}</script>
</body>
</html>
`;
}

// Re-rendering keeps whichever <details> a person closed closed.
const refreshScript = `
const render = (${renderStatus.toString()});
const main = document.getElementById("status");
const badge = document.getElementById("refresh");
async function refresh() {
  try {
    const response = await fetch("status.json", { cache: "no-store", credentials: "same-origin" });
    if (!response.ok) throw new Error(response.status + " " + response.statusText);
    const snapshot = await response.json();
    const closed = new Set([...main.querySelectorAll("details:not([open])")].map((d) => d.dataset.controller));
    main.innerHTML = render(snapshot);
    for (const d of main.querySelectorAll("details")) if (closed.has(d.dataset.controller)) d.open = false;
    badge.textContent = "live · updated " + new Date(snapshot.generatedAt).toLocaleTimeString();
    badge.className = "badge ok";
  } catch (err) {
    badge.textContent = "refresh failed (" + err.message + "); showing older data";
    badge.className = "badge bad";
  }
  setTimeout(refresh, ${refreshIntervalMs});
}
setTimeout(refresh, ${refreshIntervalMs});
`;

const styles = `
:root { color-scheme: light dark; --fg: #1d232a; --muted: #5d6b78; --line: #d5dbe1; --head: #eef2f5; --ok: #17803d; --warn: #a35f00; --bad: #c22a2a; }
@media (prefers-color-scheme: dark) { :root { --fg: #e3e8ed; --muted: #98a6b3; --line: #39434d; --head: #232b33; --ok: #4fc27a; --warn: #e0a040; --bad: #ff6b6b; } }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0 1.5rem 2rem; }
header { display: flex; align-items: baseline; gap: 1rem; border-bottom: 2px solid var(--line); }
h1 { font-size: 1.4rem; margin: .6rem 0; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 .5rem; }
h2 small, .hint, .empty, .process { color: var(--muted); font-weight: normal; }
h4 { margin: .5rem 0 .2rem; } h5 { margin: .3rem 0 .1rem; }
.process span + span::before { content: " · "; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--head); font-weight: 600; white-space: nowrap; }
td.num { text-align: right; white-space: nowrap; }
td[data-field="at"], td[data-field="from"] { white-space: nowrap; }
td[data-field="name"], td[data-field="regarding"] { overflow-wrap: anywhere; }
code, td[data-field="resource-version"] { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
.ok { color: var(--ok); } .warn { color: var(--warn); } .bad { color: var(--bad); }
.badge { border: 1px solid currentColor; border-radius: .7rem; padding: 0 .5rem; font-size: 12px; }
details { margin: .6rem 0; border-left: 3px solid var(--line); padding-left: .8rem; }
summary { font-weight: 600; cursor: pointer; }
ul { margin: .2rem 0; padding-left: 1.2rem; }
ul.facts { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem 1.2rem; }
`;
