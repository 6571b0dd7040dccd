// A burst of events must not wait on a watch's reader. kube-apiserver closes a watcher it cannot
// hand events to for a moment: over an HTTP/2 stream, whose flow-control window a busy reader
// fills at once, a reader busy while 1000 objects were created got 13-61 of them; a watch on its
// own HTTP/1.1 connection takes the burst into its buffers. Against a real API server that check
// also measured the machine's load (59-83 of 1000 under a second suite), so here a loopback server
// sends a watch as kube-apiserver does, as fast as the connection takes it, and tells how far it got.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { createSecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPki, type Pki } from "../../test/controlplane/pki.ts";
import { createKubeClient } from "./client.ts";
import { resources } from "./gvr.ts";

/** A ReplicaSet controller's batch of creates, each event about 2 KB: 2 MB in all. */
const burst = 1000;
const payload = "x".repeat(2_000);

let dir: string;
let pki: Pki;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "busy-watch-reader-"));
  pki = await createPki(dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test(`a watch whose reader is busy while ${burst} objects are created takes the whole burst off the server`, async () => {
  let sent = 0;
  let allSent!: () => void;
  const burstSent = new Promise<void>((resolve) => (allSent = resolve));
  // As kube-apiserver: HTTP/2 offered, a watch answered with JSON lines, each write waiting until the connection took the one before.
  const server = createSecureServer({ cert: pki.apiserverServing.certPem, key: pki.apiserverServing.keyPem, allowHTTP1: true }, async (_req, res) => {
    res.writeHead(200, { "Content-Type": "application/json" });
    for (; sent < burst; sent++) {
      const event = { type: "ADDED", object: { kind: "ConfigMap", apiVersion: "v1", metadata: { name: `cm-${sent}`, namespace: "ns", resourceVersion: String(sent + 1) }, data: { payload } } };
      if (!res.write(`${JSON.stringify(event)}\n`)) await new Promise((resolve) => res.once("drain", resolve));
    }
    allSent();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const config = { server: `https://127.0.0.1:${port}`, tls: { ca: pki.ca.certPem }, authenticate: async () => ({}), namespace: "ns", source: "test" };
  const client = await createKubeClient(config, { qps: 0, burst: 0, timeoutMs: 30_000, contentType: "application/json" });
  const stop = new AbortController();
  try {
    const events = (await client.dynamic.resource(resources.configMaps, "ns").watch({ resourceVersion: "0" }, stop.signal))[Symbol.asyncIterator]();
    // The first event opens the watch; then the reader is busy until the server has sent the burst.
    expect((await events.next()).value).toMatchObject({ type: "ADDED", object: { metadata: { name: "cm-0" } } });
    // Seconds for 2 MB over loopback: the limit only turns a stalled connection into a clear failure.
    let timer: Timer | undefined;
    const stalled = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`the server sent ${sent} of ${burst} events, then waited on the busy reader`), 30_000);
    });
    expect(await Promise.race([burstSent.then(() => ""), stalled])).toBe("");
    clearTimeout(timer);
    let seen = 1;
    while (seen < burst) {
      const next = await events.next();
      if (next.done) break;
      if (next.value.type === "ADDED") seen++;
    }
    expect(seen).toBe(burst);
  } finally {
    stop.abort();
    server.close();
  }
}, 60_000);
