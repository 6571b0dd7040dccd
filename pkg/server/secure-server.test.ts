import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type ConnectionOptions, type PeerCertificate } from "node:tls";
import { createCertificateAuthority, type CertificateAuthority, type IssuedCertificate, issueClientCertificate } from "../../test/controlplane/pki.ts";
import { type SecureServer, serveTls, type TlsSettings } from "./secure-server.ts";
import { generateSelfSignedCertificate } from "./self-signed-certificate.ts";
import { ServingError } from "./serving-error.ts";

const pairFor = (host: string) => generateSelfSignedCertificate({ host, alternateIps: ["127.0.0.1"], alternateDnsNames: [] });
const first = pairFor("first");
const second = pairFor("second");

let dir: string;
let clientCa: CertificateAuthority;
let otherCa: CertificateAuthority;
let alice: IssuedCertificate;
let mallory: IssuedCertificate;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "secure-server-"));
  [clientCa, otherCa] = await Promise.all([createCertificateAuthority(join(dir, "ca"), "clients"), createCertificateAuthority(join(dir, "other"), "other")]);
  [alice, mallory] = await Promise.all([
    issueClientCertificate(clientCa, { user: "alice", groups: ["devs", "ops"] }),
    issueClientCertificate(otherCa, { user: "mallory" }),
  ]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withServer(settings: Partial<TlsSettings>, run: (server: SecureServer) => Promise<void>): Promise<void> {
  const server = await serveTls((_request, peer) => Response.json(peer ?? null), "127.0.0.1", 0, {
    pair: first,
    clientCertificates: settings.clientCa !== undefined,
    clientCa: undefined,
    minVersion: undefined,
    cipherSuites: [],
    curvePreferences: [],
    ...settings,
  });
  try {
    await run(server);
  } finally {
    await server.stop();
  }
}

/** The handshake's outcome: the server certificate's CN, or the error. */
function handshake(port: number, options: ConnectionOptions = {}): Promise<{ cn: string; protocol: string | null } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false, ...options }, () => {
      const certificate: PeerCertificate = socket.getPeerCertificate();
      const cn = certificate.subject?.CN;
      resolve({ cn: Array.isArray(cn) ? (cn[0] ?? "") : (cn ?? ""), protocol: socket.getProtocol() });
      socket.end();
    });
    socket.once("error", (err) => resolve({ error: err.message }));
  });
}

function identitySeen(server: SecureServer, client?: IssuedCertificate): Promise<unknown> {
  const tls = { rejectUnauthorized: false, ...(client ? { cert: client.certPem, key: client.keyPem } : {}) };
  // A fresh connection each time: what a connection negotiated stays with it.
  return fetch(`${server.url}/`, { tls, keepalive: false, headers: { Connection: "close" } } as RequestInit).then((response) => response.json());
}

describe("HTTPS server", () => {
  test("a client certificate from the client CA reaches the handler as CN and Os; others as nobody", async () => {
    await withServer({ clientCa: clientCa.certPem }, async (server) => {
      expect(await identitySeen(server, alice)).toEqual({ commonName: "alice", organizations: ["devs", "ops"] });
      expect(await identitySeen(server, mallory)).toBeNull();
      expect(await identitySeen(server)).toBeNull();
    });
  });

  test("without a client CA, certificates are not asked for", async () => {
    await withServer({}, async (server) => {
      expect(await identitySeen(server, alice)).toBeNull();
    });
  });

  test("a client CA that arrives later (published by the API server) is used from then on", async () => {
    await withServer({ clientCertificates: true }, async (server) => {
      expect(await identitySeen(server, alice)).toBeNull();
      server.update(first, clientCa.certPem);
      expect(await identitySeen(server, alice)).toEqual({ commonName: "alice", organizations: ["devs", "ops"] });
    });
  });

  test("update() serves new connections with the new certificate", async () => {
    await withServer({}, async (server) => {
      expect(await handshake(server.port)).toMatchObject({ cn: expect.stringMatching(/^first@/) });
      server.update(second, undefined);
      expect(await handshake(server.port)).toMatchObject({ cn: expect.stringMatching(/^second@/) });
    });
  });

  test("--tls-min-version refuses older clients", async () => {
    await withServer({ minVersion: "VersionTLS13" }, async (server) => {
      expect(await handshake(server.port, { maxVersion: "TLSv1.2" })).toHaveProperty("error");
      expect(await handshake(server.port)).toMatchObject({ protocol: "TLSv1.3" });
    });
  });

  test.skipIf("Deno" in globalThis)("--tls-cipher-suites limits TLS 1.2 to the named suites", async () => {
    await withServer({ cipherSuites: ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"] }, async (server) => {
      const tls12 = { maxVersion: "TLSv1.2" as const };
      expect(await handshake(server.port, { ...tls12, ciphers: "ECDHE-RSA-AES256-GCM-SHA384" })).toHaveProperty("error");
      expect(await handshake(server.port, { ...tls12, ciphers: "ECDHE-RSA-AES128-GCM-SHA256" })).toMatchObject({ protocol: "TLSv1.2" });
    });
  });

  test("only TLS 1.3 suites named: TLS 1.2 is refused", async () => {
    await withServer({ cipherSuites: ["TLS_AES_128_GCM_SHA256"] }, async (server) => {
      expect(await handshake(server.port, { maxVersion: "TLSv1.2" })).toHaveProperty("error");
    });
  });

  test.skipIf("Deno" in globalThis)("--tls-curve-preferences limits the key exchanges to the named ones (kube-controller-manager 1.36+)", async () => {
    // 24 is Go's CurveP384.
    await withServer({ curvePreferences: [24] }, async (server) => {
      expect(await handshake(server.port, { ecdhCurve: "X25519" })).toHaveProperty("error");
      expect(await handshake(server.port, { ecdhCurve: "P-384" })).toMatchObject({ protocol: "TLSv1.3" });
    });
  });

  test("a port in use is a ServingError naming the address", async () => {
    await withServer({}, async (server) => {
      const second = serveTls(() => new Response(), "127.0.0.1", server.port, {
        pair: first,
        clientCertificates: false,
        clientCa: undefined,
        minVersion: undefined,
        cipherSuites: [],
        curvePreferences: [],
      });
      await expect(second).rejects.toBeInstanceOf(ServingError);
      await expect(second).rejects.toThrow(`cannot serve on 127.0.0.1:${server.port}: the address is already in use`);
    });
  });
});
