import { describe, expect, test } from "bun:test";
import { isExpectedError } from "../errors/expected-error.ts";
import { ApiError, DecodeError, TransportError, isNotFound } from "./errors.ts";
import { RestClient } from "./rest-client.ts";
import type { Fetch } from "./transport.ts";

function client(fetch: Fetch, observed: string[] = [], timeoutMs = 1000): RestClient {
  return new RestClient({
    config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({ Authorization: "Bearer t" }), namespace: "default", source: "test" },
    fetch,
    throttle: { take: async () => undefined },
    userAgent: "kube-loom/test",
    timeoutMs,
    observer: { observe: ({ method, code }) => void observed.push(`${method} ${code}`) },
  });
}

/** A 200 response whose body arrives in `pieces` parts `intervalMs` apart, failing as a real fetch does when `signal` aborts. */
function trickle(text: string, pieces: number, intervalMs: number, signal: AbortSignal | null | undefined): Response {
  const bytes = new TextEncoder().encode(text);
  const size = Math.ceil(bytes.length / pieces);
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (offset >= bytes.length) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      if (signal?.aborted) return controller.error(signal.reason);
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
  return new Response(body, { status: 200 });
}

describe("RestClient", () => {
  test("sends authentication, user agent, query and JSON body", async () => {
    let seen: { url: string; init: RequestInit } | undefined;
    const rest = client(async (url, init) => {
      seen = { url, init };
      return new Response('{"ok":true}', { status: 201 });
    });
    const result = await rest.request<{ ok: boolean }>({ method: "POST", path: "/api/v1/namespaces/d/configmaps", query: { dryRun: "All", skip: undefined }, body: { a: 1 } });
    expect(result).toEqual({ ok: true });
    expect(seen?.url).toBe("https://api.example:6443/api/v1/namespaces/d/configmaps?dryRun=All");
    expect(seen?.init.headers).toMatchObject({ Authorization: "Bearer t", "User-Agent": "kube-loom/test", "Content-Type": "application/json" });
    expect(seen?.init.body).toBe('{"a":1}');
  });

  test("asks for bodies uncompressed, as kube-controller-manager does: a 1.37 API server gzips streaming lists and big LISTs for a client that accepts it", async () => {
    const asked: (string | null)[] = [];
    const rest = client(async (_url, init) => {
      asked.push(new Headers(init.headers).get("Accept-Encoding"));
      return new Response("{}", { status: 200 });
    });
    await rest.request({ method: "GET", path: "/api/v1/pods" });
    await rest.request({ method: "POST", path: "/api/v1/namespaces/d/pods", body: {} });
    await rest.watch({ path: "/api/v1/pods" }, new AbortController().signal);
    expect(asked).toEqual(["identity", "identity", "identity"]);
  });

  test("a write guard refuses writes before they are sent, and lets reads through", async () => {
    const sent: string[] = [];
    const guarded = client(async (_url, init) => {
      sent.push(String(init.method));
      return new Response("{}", { status: 200 });
    }).withWriteGuard(() => {
      throw new Error("not leading");
    });
    await guarded.request({ method: "GET", path: "/api/v1/namespaces/d/pods" });
    await expect(guarded.request({ method: "POST", path: "/api/v1/namespaces/d/pods", body: {} })).rejects.toThrow("not leading");
    await expect(guarded.request({ method: "DELETE", path: "/api/v1/namespaces/d/pods/a" })).rejects.toThrow("not leading");
    expect(sent).toEqual(["GET"]);
  });

  test("a write guard hears how each write it let through settled: answered, or failed without an answer", async () => {
    const settled: boolean[] = [];
    let fail = false;
    const guarded = client(async () => {
      if (fail) throw new TypeError("socket closed");
      return new Response("{}", { status: 409 });
    }).withWriteGuard(() => ({ settled: (answered) => void settled.push(answered) }));
    await guarded.request({ method: "GET", path: "/api/v1/namespaces/d/pods" }).catch(() => undefined);
    await guarded.request({ method: "POST", path: "/api/v1/namespaces/d/pods", body: {} }).catch(() => undefined);
    fail = true;
    await guarded.request({ method: "DELETE", path: "/api/v1/namespaces/d/pods/a" }).catch(() => undefined);
    expect(settled).toEqual([true, false]);
  });

  test("a write whose ticket is revoked before the answer came is abandoned, and rejects with the revocation's reason", async () => {
    const revoke = new AbortController();
    const sentSignals: (AbortSignal | undefined)[] = [];
    const guarded = client(async (_url, init) => {
      sentSignals.push(init.signal ?? undefined);
      // The answer never comes on its own: a proxy holds the request.
      return new Promise<Response>((_resolve, reject) => init.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    }).withWriteGuard(() => ({ revoked: revoke.signal }));
    const write = guarded.request({ method: "POST", path: "/api/v1/namespaces/d/pods", body: {} });
    await Bun.sleep(5);
    revoke.abort(new Error("namespace d handed over"));
    await expect(write).rejects.toThrow("namespace d handed over");
    expect(sentSignals).toHaveLength(1);
  });

  test("the write guard is asked again after the rate limiter's wait: leadership can end during it", async () => {
    let leading = true;
    let release: () => void = () => undefined;
    const sent: string[] = [];
    const rest = new RestClient({
      config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
      fetch: async (_url, init) => {
        sent.push(String(init.method));
        return new Response("{}", { status: 201 });
      },
      throttle: { take: () => new Promise<void>((resolve) => (release = resolve)) },
      userAgent: "kube-loom/test",
      timeoutMs: 1000,
    }).withWriteGuard(() => {
      if (!leading) throw new Error("not leading");
    });
    const write = rest.request({ method: "POST", path: "/api/v1/namespaces/d/configmaps", body: {} });
    await Bun.sleep(0);
    leading = false;
    release();
    await expect(write).rejects.toThrow("not leading");
    expect(sent).toEqual([]);
  });

  test("an error status becomes an ApiError with the server's reason and message", async () => {
    const status = { kind: "Status", status: "Failure", reason: "NotFound", code: 404, message: 'configmaps "x" not found' };
    const observed: string[] = [];
    const rest = client(async () => new Response(JSON.stringify(status), { status: 404 }), observed);
    const err = await rest.request({ method: "GET", path: "/api/v1/namespaces/d/configmaps/x" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(isNotFound(err)).toBe(true);
    expect((err as ApiError).message).toBe('GET /api/v1/namespaces/d/configmaps/x: configmaps "x" not found (404 NotFound)');
    expect(observed).toEqual(["GET 404"]);
  });

  test("a non-JSON error body (a proxy's page) still gives a clear ApiError", async () => {
    const rest = client(async () => new Response("<html>bad gateway</html>", { status: 502 }));
    const err = (await rest.request({ method: "GET", path: "/version" }).catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe(502);
    expect(err.message).toContain("<html>bad gateway</html>");
  });

  test("a connection failure becomes a TransportError naming the server", async () => {
    const rest = client(async () => {
      throw Object.assign(new Error("connect failed"), { code: "ECONNREFUSED" });
    });
    const err = (await rest.request({ method: "GET", path: "/version" }).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toBe("GET https://api.example:6443/version: connection refused (is the API server running?)");
  });

  test("a request that outlives its timeout is aborted and reported as a timeout", async () => {
    const rest = client((_url, init) => new Promise((_resolve, reject) => init.signal?.addEventListener("abort", () => reject(init.signal?.reason))));
    const err = (await rest.request({ method: "GET", path: "/slow", timeoutMs: 20 }).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toBe("GET https://api.example:6443/slow: request timed out: no response headers within 20 ms");
  });

  test("a body that keeps streaming is read to the end, however long it takes in all", async () => {
    const items = Array.from({ length: 12 }, (_, i) => ({ metadata: { name: `cm-${i}` } }));
    const text = JSON.stringify({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "5" }, items });
    // 12 pieces 25 ms apart: 300 ms in all against a 100 ms timeout, never 100 ms without data.
    const rest = client((_url, init) => Promise.resolve(trickle(text, 12, 25, init.signal)), [], 100);
    expect(await rest.request({ method: "GET", path: "/api/v1/configmaps" })).toEqual(JSON.parse(text));
    const list = await rest.list({ path: "/api/v1/configmaps" });
    expect(list.items.map((item) => item.metadata?.name)).toEqual(items.map((item) => item.metadata.name));
    expect(list.metadata?.resourceVersion).toBe("5");
  });

  test("an object's body is read whole: split in the middle of a character, empty, or broken off", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ metadata: { name: "café-ü" } }));
    const cut = bytes.indexOf(0xc3) + 1; // between the two bytes of "é"
    const inPieces = (pieces: Uint8Array[], failure?: Error, headers: Record<string, string> = {}) => {
      let next = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const piece = pieces[next++];
          if (piece) controller.enqueue(piece);
          else if (failure) controller.error(failure);
          else controller.close();
        },
      });
      return new Response(body, { status: 200, headers: { "Content-Type": "application/json", ...headers } });
    };
    const split = client(async () => inPieces([bytes.slice(0, cut), bytes.slice(cut)]));
    expect(await split.request({ method: "GET", path: "/api/v1/namespaces/a/pods/p" })).toEqual({ metadata: { name: "café-ü" } });
    expect(await client(async () => inPieces([])).request({ method: "DELETE", path: "/api/v1/namespaces/a/pods/p" })).toBeUndefined();
    const reset = Object.assign(new TypeError("The socket connection was closed unexpectedly"), { code: "ECONNRESET" });
    for (const headers of [{}, { "Content-Length": String(bytes.length) }] as Record<string, string>[]) {
      const broken = client(async () => inPieces([bytes.slice(0, cut)], reset, headers));
      const err = await broken.request({ method: "GET", path: "/api/v1/namespaces/a/pods/p" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransportError);
      expect((err as Error).message).toContain("ECONNRESET");
    }
  });

  test("a small body of declared length is read in one piece, within the timeout or not at all", async () => {
    const text = JSON.stringify({ metadata: { name: "cm", labels: { a: "b" } } });
    const declared = (response: Response) => new Response(response.body, { status: 200, headers: { "Content-Length": String(text.length) } });
    const quick = client((_url, init) => Promise.resolve(declared(trickle(text, 3, 5, init.signal))), [], 100);
    expect(await quick.request({ method: "GET", path: "/api/v1/namespaces/a/configmaps/cm" })).toEqual(JSON.parse(text));
    // 12 pieces 25 ms apart never go 100 ms without data, but the whole body takes 300 ms.
    const slow = client((_url, init) => Promise.resolve(declared(trickle(text, 12, 25, init.signal))), [], 100);
    const err = (await slow.request({ method: "GET", path: "/api/v1/namespaces/a/configmaps/cm" }).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toBe("GET https://api.example:6443/api/v1/namespaces/a/configmaps/cm: request timed out: the response's body not complete within 100 ms");
  });

  test("a body that stalls for the timeout is aborted and reported as a stall", async () => {
    const rest = client((_url, init) => Promise.resolve(trickle('{"items":[{"a":1},{"b":2}]}', 2, 200, init.signal)), [], 50);
    const err = (await rest.list({ path: "/api/v1/configmaps" }).catch((e: unknown) => e)) as TransportError;
    expect(err).toBeInstanceOf(TransportError);
    expect(err.message).toBe("GET https://api.example:6443/api/v1/configmaps: request timed out: the response stalled: no data for 50 ms");
  });

  test("a malformed list body names the request", async () => {
    const rest = client(async () => new Response('{"items":[1]}'));
    const err = (await rest.list({ path: "/api/v1/configmaps" }).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe("GET /api/v1/configmaps: list response: an element of items is not an object");
  });

  test("every request waits for the shared throttle", async () => {
    const order: string[] = [];
    const rest = new RestClient({
      config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
      fetch: async (url) => {
        order.push(`fetch ${new URL(url).pathname}`);
        return new Response("{}");
      },
      throttle: {
        take: async () => {
          order.push("take");
        },
      },
      userAgent: "t",
      timeoutMs: 1000,
    });
    await rest.request({ method: "GET", path: "/a" });
    await rest.request({ method: "GET", path: "/b" });
    expect(order).toEqual(["take", "fetch /a", "take", "fetch /b"]);
  });

  test("a watch opens without waiting for the throttle, as client-go leaves watches out of its rate limit", async () => {
    const rest = new RestClient({
      config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
      fetch: async () => new Response('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n'),
      // Out of tokens for good: only an unthrottled request gets through.
      throttle: { take: () => new Promise<void>(() => undefined) },
      userAgent: "t",
      timeoutMs: 1000,
    });
    const events = [];
    for await (const event of await rest.watch({ path: "/api/v1/configmaps" }, new AbortController().signal)) events.push(event);
    expect(events).toEqual([{ type: "ADDED", object: { metadata: { name: "a" } } }]);
  });

  describe("a body that is not what it should be is an expected error naming the request", () => {
    /** A watch body that sends `lines` and then breaks, as a reset connection does. */
    function breakingBody(lines: string, failure?: Error): Response {
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent) return failure ? controller.error(failure) : controller.close();
          sent = true;
          controller.enqueue(new TextEncoder().encode(lines));
        },
      });
      return new Response(body, { status: 200, headers: { "Content-Type": "application/json;stream=watch" } });
    }

    async function watchError(response: Response): Promise<unknown> {
      const events = await client(async () => response).watch({ path: "/api/v1/pods" }, new AbortController().signal);
      try {
        for await (const _ of events) {
          // draining until the error
        }
      } catch (err) {
        return err;
      }
      return undefined;
    }

    test("a watch line that is not JSON", async () => {
      const err = await watchError(breakingBody('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\nthis is not JSON\n'));
      expect(err).toBeInstanceOf(DecodeError);
      expect(isExpectedError(err)).toBe(true);
      expect((err as Error).message).toBe('GET /api/v1/pods?watch=true: watch event is not JSON: "this is not JSON"');
    });

    test("a connection reset in the middle of a watch body is a TransportError, as one before the answer", async () => {
      const reset = Object.assign(new TypeError("The socket connection was closed unexpectedly"), { code: "ECONNRESET" });
      const err = await watchError(breakingBody('{"type":"ADDED","object":{"metadata":', reset));
      expect(err).toBeInstanceOf(TransportError);
      expect((err as Error).message).toContain("GET https://api.example:6443/api/v1/pods");
      expect((err as Error).message).toContain("ECONNRESET");
    });

    test("a list cut mid-object, a 200 with an empty body, a corrupt protobuf body", async () => {
      const answer = (text: string | Uint8Array<ArrayBuffer>, contentType = "application/json") => async () => new Response(text, { status: 200, headers: { "Content-Type": contentType } });
      const listError = (fetch: Fetch) => client(fetch).list({ path: "/api/v1/pods" }).catch((err: unknown) => err);
      for (const err of [
        await listError(answer('{"kind":"PodList","items":[{"metadata":{"name":"a"}},{"meta')),
        await listError(answer("")),
        await listError(answer(new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x7f]), "application/vnd.kubernetes.protobuf")),
      ]) {
        expect(err).toBeInstanceOf(DecodeError);
        expect((err as Error).message).toStartWith("GET /api/v1/pods: ");
        expect((err as Error).message).not.toContain("\n");
      }
    });
  });

  describe("an answer that asks to be retried is waited out and sent again, as client-go does", () => {
    const answer = (status: number, retryAfter?: string) => new Response(JSON.stringify({ kind: "Status", code: status, message: `status ${status}` }), {
      status,
      headers: { "Content-Type": "application/json", ...(retryAfter === undefined ? {} : { "Retry-After": retryAfter }) },
    });

    test("429 and 5xx with Retry-After are sent again; the rate limiter and the write guard are asked each time", async () => {
      const answers = [answer(429, "0"), answer(503, "0"), new Response('{"ok":true}', { status: 201 })];
      let tokens = 0;
      let guarded = 0;
      const rest = new RestClient({
        config: { server: "https://api.example:6443", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" },
        fetch: async () => answers.shift() ?? answer(500),
        throttle: { take: async () => void tokens++ },
        userAgent: "kube-loom/test",
        timeoutMs: 1000,
        writeGuard: () => void guarded++,
      });
      expect(await rest.request({ method: "POST", path: "/api/v1/namespaces/d/pods", body: {} })).toEqual({ ok: true });
      expect([tokens, guarded]).toEqual([3, 3]);
    });

    test("without Retry-After, or past ten retries, the error is thrown", async () => {
      let sent = 0;
      const noHeader = client(async () => {
        sent++;
        return answer(500);
      });
      await expect(noHeader.request({ method: "GET", path: "/api/v1/pods" })).rejects.toMatchObject({ code: 500 });
      expect(sent).toBe(1);
      sent = 0;
      const always = client(async () => {
        sent++;
        return answer(429, "0");
      });
      await expect(always.request({ method: "GET", path: "/api/v1/pods" })).rejects.toMatchObject({ code: 429, retryAfterSeconds: 0 });
      expect(sent).toBe(11);
    });

    test("a wait as long as the request's timeout is not begun: the server's answer is thrown", async () => {
      let sent = 0;
      const longWait = client(async () => {
        sent++;
        return answer(429, "30");
      }, [], 1000);
      await expect(longWait.request({ method: "GET", path: "/api/v1/pods" })).rejects.toMatchObject({ code: 429, retryAfterSeconds: 30 });
      expect(sent).toBe(1);
    });

    test("the wait ends when the request is aborted", async () => {
      const stop = new AbortController();
      const pending = client(async () => answer(429, "60")).request({ method: "GET", path: "/api/v1/pods", signal: stop.signal, timeoutMs: null });
      setTimeout(() => stop.abort(), 20);
      await expect(pending).rejects.toBeDefined();
    });
  });
});
