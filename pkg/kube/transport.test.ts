import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttp11Server } from "node:https";
import { createSecureServer as createHttp2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPki, type Pki } from "../../test/controlplane/pki.ts";
import { isExpectedError } from "../errors/expected-error.ts";
import { createFetch } from "./transport.ts";

/** A TLS server on loopback answering every request with the HTTP version it was made in. */
interface VersionServer {
  url: string;
  close(): Promise<void>;
}

type Listening = { listen(port: number, host: string, ready: () => void): unknown; address(): AddressInfo | string | null; close(done: () => void): unknown };

async function listen(server: Listening): Promise<VersionServer> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/version`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const answerVersion = (req: { httpVersion: string }, res: { end(body: string): void }) => res.end(req.httpVersion);

let dir: string;
let pki: Pki;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "transport-test-"));
  pki = await createPki(dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Bun transport", () => {
  const serving = () => ({ cert: pki.apiserverServing.certPem, key: pki.apiserverServing.keyPem });

  test("speaks HTTP/2 to a server that offers it, as client-go does", async () => {
    const server = await listen(createHttp2Server({ ...serving(), allowHTTP1: true }, answerVersion));
    try {
      const fetch = await createFetch({ ca: pki.ca.certPem }, "bun");
      const response = await fetch(server.url, { method: "GET" });
      expect(await response.text()).toBe("2.0");
    } finally {
      await server.close();
    }
  });

  test("a watch (longLived) gets its own HTTP/1.1 connection even where HTTP/2 is offered", async () => {
    const server = await listen(createHttp2Server({ ...serving(), allowHTTP1: true }, answerVersion));
    try {
      const fetch = await createFetch({ ca: pki.ca.certPem }, "bun");
      expect(await (await fetch(server.url, { method: "GET", longLived: true })).text()).toBe("1.1");
      expect(await (await fetch(server.url, { method: "GET" })).text()).toBe("2.0");
    } finally {
      await server.close();
    }
  });

  test("falls back to HTTP/1.1 for a server that only speaks that, for the request and the ones after", async () => {
    const server = await listen(createHttp11Server(serving(), answerVersion));
    try {
      const fetch = await createFetch({ ca: pki.ca.certPem }, "bun");
      expect(await (await fetch(server.url, { method: "POST", body: "{}" })).text()).toBe("1.1");
      expect(await (await fetch(server.url, { method: "GET" })).text()).toBe("1.1");
    } finally {
      await server.close();
    }
  });
});

describe("Deno transport", () => {
  test("kubeconfig TLS settings Deno cannot take per client are refused in one line, as the user's mistake, not a bug", async () => {
    for (const [tls, field] of [
      [{ insecureSkipVerify: true }, "insecure-skip-tls-verify"],
      [{ serverName: "localhost" }, "tls-server-name"],
    ] as const) {
      const failure = await createFetch(tls, "deno").then(() => undefined, (err: unknown) => err);
      expect(isExpectedError(failure)).toBe(true);
      expect((failure as Error).message).toStartWith(`${field} cannot be set per client on Deno`);
    }
  });
});
