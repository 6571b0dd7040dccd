import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import type { StatusSnapshot } from "../status/status-snapshot.ts";
import { mountStatusPage, statusDocument } from "./status-page.ts";
import { renderStatus } from "./status-page-render.ts";

const now = 1_800_000_000_000;

const snapshot: StatusSnapshot = {
  generatedAt: now,
  process: { identity: "node-a_1234", version: "v0.1.0", startedAt: now - 125_000 },
  shardRing: undefined,
  leaderElection: {
    lease: "kube-system/kube-loom",
    leading: true,
    holder: "node-a_1234",
    holderSince: now - 60_000,
    lastRenewal: now - 1_000,
    leaseTransitions: 2,
    candidates: [
      { identity: "node-a_1234", self: true, holding: true, firstSeenHolding: now - 60_000, lastSeenHolding: now },
      { identity: "node-b_5678", self: false, holding: false, firstSeenHolding: now - 120_000, lastSeenHolding: now - 61_000 },
    ],
  },
  controllers: [
    {
      name: "replicaset",
      loops: [
        {
          name: "replicaset",
          queue: "replicaset",
          state: "running",
          workers: 5,
          depth: 1,
          adds: 12,
          retries: 1,
          outcomes: { success: 10, error: 1, requeue: 0, requeueAfter: 0, terminalError: 0 },
          ratePerSecond: 0.18,
          p50Seconds: 0.004,
          p99Seconds: 0.25,
          sampleCount: 11,
          slowest: { key: "default/web", seconds: 0.25 },
          inFlight: [{ key: "default/api", seconds: 0.5 }],
          lastErrors: [{ at: now - 5_000, key: "default/web", message: "pods \"web-1\" is forbidden: <quota>", terminal: false }],
        },
      ],
      details: [],
    },
    {
      name: "garbagecollector",
      loops: [],
      details: [{ label: "graph nodes", value: 42 }],
    },
  ],
  informers: [
    { name: "pods.v1", synced: true, objects: 3, resourceVersion: "981", lists: 1, relists: 0, watches: 2, errors: 0, handlerErrors: 0, lastError: undefined },
  ],
  events: [
    {
      at: now - 2_000,
      type: "Normal",
      reason: "SuccessfulCreate",
      regarding: "ReplicaSet default/web",
      note: "Created pod: web-1 <img src=x onerror=alert(1)>",
      reportingController: "replicaset-controller",
      count: 3,
    },
  ],
  eventCounts: {
    written: { create: 4, series: 1 },
    aggregated: 2,
    dropped: { "buffer-full": 0, "spam-filter": 2, invalid: 0, "write-failed": 1, shutdown: 0 },
  },
};

function app(): Hono {
  const hono = new Hono();
  mountStatusPage(hono, { snapshot: async () => snapshot });
  return hono;
}

describe("status page", () => {
  test("/debug/status.json is the snapshot, never cached", async () => {
    const response = await app().request("/debug/status.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(snapshot)));
  });

  test("/debug/status comes rendered, with everything inline and nothing fetched from elsewhere", async () => {
    const response = await app().request("/debug/status");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/html");
    const html = await response.text();
    expect(html).toContain('<b data-field="leader">node-a_1234</b> <span class="badge ok">this process</span>');
    expect(html).toContain('<tr data-loop="replicaset">');
    expect(html).toContain('<td data-field="adds" class="num">12</td>');
    expect(html).toContain("<code>default/web</code>: pods &quot;web-1&quot; is forbidden: &lt;quota&gt;");
    expect(html).toContain('<tr data-candidate="node-b_5678">');
    expect(html).toContain("<b>42</b>");
    // No script, style sheet, font or image from anywhere: the page must work from a Pod without internet access.
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b[^>]*\b(src|href)=|@import|url\(|https?:\/\//);
    expect(html).toContain('fetch("status.json"');
  });

  test("the Events section counts what the broadcaster wrote, folded into series and dropped, by reason", () => {
    expect(renderStatus(snapshot)).toContain(
      '<p class="warn">written: <b data-field="created">4</b> new, <b data-field="series">1</b> series updates · <b data-field="aggregated">2</b> repeats folded into a series · <b data-field="dropped">3</b> dropped (spam-filter 2, write-failed 1)</p>',
    );
    const none = { written: { create: 0, series: 0 }, aggregated: 0, dropped: { "buffer-full": 0, "spam-filter": 0, invalid: 0, "write-failed": 0, shutdown: 0 } };
    expect(renderStatus({ ...snapshot, eventCounts: none })).toContain('<section id="events"><h2>Recent Events</h2><table>');
  });

  test("what Events, errors and keys say is shown as text, never as markup", () => {
    const html = renderStatus(snapshot);
    expect(html).toContain("Created pod: web-1 &lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain("<img");
  });

  test("the browser re-renders with the same function as the server, from the JSON", () => {
    const document = statusDocument(snapshot);
    const source = document.match(/const render = \(([\s\S]*?)\);\nconst main =/)?.[1];
    expect(source).toBeDefined();
    const browserRender = new Function(`return (${source});`)() as (s: unknown) => string;
    expect(browserRender(JSON.parse(JSON.stringify(snapshot)))).toBe(renderStatus(snapshot));
  });

  test("a sharded informer says how much of the namespaces it holds and who filters them", () => {
    const shard = { ranges: "0x0000000000000000-0x8000000000000000", fraction: 0.5, syncedRanges: "", serverFilters: false, segments: 1 };
    const informers = [{ ...snapshot.informers[0]!, shard }];
    expect(renderStatus({ ...snapshot, informers })).toContain(
      '<td data-field="name">pods.v1<br><small data-field="shard" title="0x0000000000000000-0x8000000000000000">shard 50.0% · filtered here · 1 segment · listing</small></td>',
    );
    expect(renderStatus(snapshot)).not.toContain('data-field="shard"');
  });

  test("before the API server is reached, and without leader election, the page says so", () => {
    const html = renderStatus({ ...snapshot, leaderElection: undefined, controllers: [], informers: [], events: [] });
    expect(html).toContain("Off (--leader-elect=false)");
    expect(html).toContain("No controllers yet (waiting for the API server).");
    expect(html).toContain("No informers yet (waiting for the API server).");
    expect(html).toContain("No Events recorded since start.");
  });

  test("a shard ring member shows the ring in place of the election: members, its slots, ranges and namespaces, and what it caches ahead of a silent member", () => {
    const shardRing = {
      ring: "loom",
      member: "loom-0a1b2c3d",
      members: [
        { name: "loom-0a1b2c3d", self: true, alive: true, silent: false, slots: 85 },
        { name: "loom-9f8e7d6c", self: false, alive: false, silent: false, slots: 100 },
        { name: "loom-5e5e5e5e", self: false, alive: true, silent: true, slots: 90 },
      ],
      slots: 275,
      held: 85,
      draining: 2,
      cachedAhead: 40,
      ranges: ["0x0000000000000000-0x5500000000000000"],
      namespaces: ["team-a", "team-b"],
      handovers: { taken: 85, released: 0 },
    };
    const html = renderStatus({ ...snapshot, leaderElection: undefined, shardRing });
    expect(html).toContain('<section id="shard-ring">');
    expect(html).not.toContain("Leader election");
    expect(html).toContain('<b data-field="held">85</b> of 275 slots, handing 2 over, caching <b data-field="cached-ahead">40</b> more ahead of silent members');
    expect(html).toMatch(/data-member="loom-9f8e7d6c">.*<td data-field="alive" class="bad">no<\/td>/);
    expect(html).toMatch(/data-member="loom-5e5e5e5e">.*<td data-field="alive" class="warn">silent<\/td>/);
    expect(html).toContain("0x0000000000000000-0x5500000000000000");
    expect(html).toContain("team-a, team-b");
  });
});
