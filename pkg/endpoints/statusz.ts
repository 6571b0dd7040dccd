// /statusz, as kube-controller-manager serves it since 1.36 (ComponentStatusz, on by default):
// when the process started, how long it has run, what it runs on, its version, the Kubernetes
// version it emulates, and the other top-level paths it serves. Text for people, or a
// config.k8s.io Statusz for programs (see zpage-forms.ts). It sits behind the same
// authentication and authorization as /metrics; upstream's bootstrap RBAC grants it to the
// system:monitoring group.
import type { Hono } from "hono";
import { negotiateZpage, notAcceptableResponse, randomZpageDelimiter, structuredResponse, zpageTextResponse } from "./zpage-forms.ts";

/** What /statusz says about the process. */
export interface ComponentFacts {
  /** metadata.name and the text's title: "kube-loom". */
  name: string;
  /** Epoch milliseconds. */
  startedAt: number;
  /** "0.1.0". */
  binaryVersion: string;
  /** major.minor of the Kubernetes release whose behaviour it follows. */
  emulationVersion: string;
  /** In the field upstream fills with its Go version: "Bun 1.4.5". */
  runtimeVersion: string;
}

const statuszPath = "/statusz";

/** Call after every other route is mounted or, like the controllers' debug pages, matched by a mounted pattern. */
export function mountStatusz(app: Hono, facts: ComponentFacts): void {
  app.get(statuszPath, (c) => {
    const form = negotiateZpage(c.req.raw, "Statusz");
    if (form.form === "not-acceptable") return notAcceptableResponse(form);
    const status = statusz(facts, listedPaths(app), Date.now());
    if (form.form === "structured") return structuredResponse(form, "Statusz", status);
    return zpageTextResponse(`${facts.name} statusz`, statuszText(facts, status, randomZpageDelimiter()));
  });
}

/** The Statusz object without kind and apiVersion (the negotiated version adds them). */
export function statusz(facts: ComponentFacts, paths: readonly string[], now: number) {
  // Whole seconds, as upstream reads the start from the process table.
  const startSeconds = Math.floor(facts.startedAt / 1000);
  return {
    metadata: { name: facts.name },
    startTime: new Date(startSeconds * 1000).toISOString().replace(".000Z", "Z"),
    uptimeSeconds: Math.max(0, Math.floor(now / 1000) - startSeconds),
    goVersion: facts.runtimeVersion,
    binaryVersion: facts.binaryVersion,
    emulationVersion: facts.emulationVersion,
    paths: [...paths],
  };
}

function statuszText(facts: ComponentFacts, status: ReturnType<typeof statusz>, delimiter: string): string {
  const lines: [string, string][] = [
    ["Started", unixDate(new Date(status.startTime))],
    ["Up", uptime(status.uptimeSeconds)],
    ["Runtime version", facts.runtimeVersion],
    ["Binary version", facts.binaryVersion],
    ["Emulation version", facts.emulationVersion],
    ["Paths", status.paths.join(" ")],
  ];
  return `\n${lines.map(([key, value]) => `${key}${delimiter} ${value}\n`).join("")}`;
}

/** The first segment of every route but /statusz, sorted: "/debug", "/healthz", … */
function listedPaths(app: Hono): string[] {
  const segments = app.routes.map((route) => `/${route.path.split("/")[1] ?? ""}`).filter((path) => path !== "/" && path !== statuszPath);
  return [...new Set(segments)].sort();
}

/** "0 hr 05 min 09 sec". */
function uptime(seconds: number): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${Math.floor(seconds / 3600)} hr ${pad(Math.floor(seconds / 60) % 60)} min ${pad(seconds % 60)} sec`;
}

/** Go's time.UnixDate layout, in UTC: "Fri May  1 09:05:03 UTC 2026". */
function unixDate(date: Date): string {
  const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][date.getUTCDay()];
  const month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][date.getUTCMonth()];
  const time = date.toISOString().slice(11, 19);
  return `${day} ${month} ${String(date.getUTCDate()).padStart(2, " ")} ${time} UTC ${date.getUTCFullYear()}`;
}
