// The HTTPS server under the load probes and scrapes put on it: 3,000 GETs, 100 in flight, from a
// client in another process, each on a new TLS connection (as curl and the kubelet's probes make
// them) or on kept-alive ones; every one must be answered. A request without its response after
// 10 s counts as hung: a probe that hangs gets a healthy Pod restarted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type TLSSocket } from "node:tls";
import { type CertificateAuthority, createCertificateAuthority } from "../../test/controlplane/pki.ts";
import { type ConnectionMode, runHttpsLoad, runHttpsLoadProcess } from "../../test/support/https-load.ts";
import { type SecureServer, serveTls } from "./secure-server.ts";
import { generateSelfSignedCertificate } from "./self-signed-certificate.ts";

const REQUESTS = 3_000;
const CONCURRENCY = 100;
const HANG_MS = 10_000;

let dir: string;
let clientCa: CertificateAuthority;
let server: SecureServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "secure-server-load-"));
  clientCa = await createCertificateAuthority(join(dir, "ca"), "clients");
  // As kube-loom serves by default: a self-signed RSA pair, client certificates asked for.
  const pair = generateSelfSignedCertificate({ host: "localhost", alternateIps: ["127.0.0.1"], alternateDnsNames: [] });
  server = await serveTls(() => new Response("ok"), "127.0.0.1", 0, {
    pair,
    clientCertificates: true,
    clientCa: clientCa.certPem,
    minVersion: undefined,
    cipherSuites: [],
    curvePreferences: [],
  });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("HTTPS under load", () => {
  for (const connections of ["new", "keep-alive"] satisfies ConnectionMode[]) {
    test(`${REQUESTS} requests, ${CONCURRENCY} at a time, ${connections === "new" ? "each on a new connection" : "on kept-alive connections"}: every one answered`, async () => {
      const result = await runHttpsLoadProcess({ url: `${server.url}/healthz`, requests: REQUESTS, concurrency: CONCURRENCY, connections, timeoutMs: HANG_MS });
      expect({ ok: result.ok, failures: result.failures, hangs: result.hangs, sampleErrors: result.sampleErrors }).toEqual({
        ok: REQUESTS,
        failures: 0,
        hangs: 0,
        sampleErrors: [],
      });
    }, 300_000);
  }

  test("300 idle connections (handshake done, nothing sent) do not keep a probe from being answered", async () => {
    const idle = await Promise.all(Array.from({ length: 300 }, () => openIdle(server.port)));
    try {
      const probe = await runHttpsLoad({ url: `${server.url}/healthz`, requests: 1, concurrency: 1, connections: "new", timeoutMs: HANG_MS });
      expect({ ok: probe.ok, sampleErrors: probe.sampleErrors }).toEqual({ ok: 1, sampleErrors: [] });
      expect(idle.every((socket) => !socket.destroyed)).toBe(true);
    } finally {
      for (const socket of idle) socket.destroy();
    }
  }, 120_000);
});

/** A TLS connection with its handshake done and no request sent. */
function openIdle(port: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => resolve(socket));
    socket.once("error", reject);
  });
}
