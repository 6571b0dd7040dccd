// An HTTPS load client for probes: many GETs of one URL, a fixed number in flight, each on a
// new TLS connection (as curl makes them) or on kept-alive ones, every request bounded by a
// timeout that counts as a hang. It runs in a process of its own (`runHttpsLoadProcess`), so the
// server under test does not share an event loop, or CPU time slices, with its clients.
//   bun test/support/https-load.ts URL REQUESTS CONCURRENCY new|keep-alive TIMEOUT_MS
import { connect, type TLSSocket } from "node:tls";

export type ConnectionMode = "new" | "keep-alive";

export interface LoadSettings {
  url: string;
  requests: number;
  concurrency: number;
  connections: ConnectionMode;
  /** A request without its whole response by then is a hang. */
  timeoutMs: number;
}

export interface LoadResult {
  requests: number;
  /** Answered 200 OK. */
  ok: number;
  /** Another status, a refused or reset connection, a broken response. */
  failures: number;
  /** No whole response within the timeout. */
  hangs: number;
  /** Of the answered requests, in milliseconds, sorted. */
  latenciesMs: number[];
  /** A few of the failures, for the message of a failing test. */
  sampleErrors: string[];
}

type Outcome = { status: number; ms: number } | { error: string } | { hang: true };

/** Runs the load in this process. */
export async function runHttpsLoad(settings: LoadSettings): Promise<LoadResult> {
  const target = new URL(settings.url);
  const result: LoadResult = { requests: settings.requests, ok: 0, failures: 0, hangs: 0, latenciesMs: [], sampleErrors: [] };
  let next = 0;
  const worker = async () => {
    let connection: KeptConnection | undefined;
    while (next < settings.requests) {
      next++;
      let outcome: Outcome;
      if (settings.connections === "new") {
        outcome = await oneRequest(target, settings.timeoutMs, undefined);
      } else {
        connection ??= new KeptConnection(target);
        outcome = await oneRequest(target, settings.timeoutMs, connection);
        if (!("status" in outcome)) {
          connection.close();
          connection = undefined;
        }
      }
      record(result, outcome);
    }
    connection?.close();
  };
  await Promise.all(Array.from({ length: Math.min(settings.concurrency, settings.requests) }, worker));
  result.latenciesMs.sort((a, b) => a - b);
  return result;
}

function record(result: LoadResult, outcome: Outcome): void {
  if ("hang" in outcome) {
    result.hangs++;
    return;
  }
  if ("error" in outcome || outcome.status !== 200) {
    result.failures++;
    const why = "error" in outcome ? outcome.error : `HTTP ${outcome.status}`;
    if (result.sampleErrors.length < 5) result.sampleErrors.push(why);
    return;
  }
  result.ok++;
  result.latenciesMs.push(outcome.ms);
}

function requestBytes(target: URL, keepAlive: boolean): string {
  return `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUser-Agent: https-load\r\nAccept: */*\r\nConnection: ${keepAlive ? "keep-alive" : "close"}\r\n\r\n`;
}

/**
 * One GET: on a new connection when `kept` is undefined (the connection closes after the response),
 * else on `kept`. The timeout covers the TCP connect, the handshake and the whole response.
 */
function oneRequest(target: URL, timeoutMs: number, kept: KeptConnection | undefined): Promise<Outcome> {
  const started = performance.now();
  return new Promise<Outcome>((resolve) => {
    let settled = false;
    let socket: TLSSocket | undefined;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!kept) socket?.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ hang: true }), timeoutMs);
    const parser = new ResponseParser((status) => finish({ status, ms: performance.now() - started }));
    if (kept) {
      kept.send(requestBytes(target, true), parser, (error) => finish({ error }));
      return;
    }
    socket = connect({ host: target.hostname, port: Number(target.port || 443), rejectUnauthorized: false }, () =>
      socket?.write(requestBytes(target, false)),
    );
    socket.on("data", (chunk: Buffer) => parser.feed(chunk));
    socket.once("error", (err) => finish({ error: err.message }));
    socket.once("close", () => finish({ error: "connection closed before a whole response" }));
  });
}

/** A TLS connection that carries one request after another. */
class KeptConnection {
  readonly #socket: TLSSocket;
  #parser: ResponseParser | undefined;
  #onError: ((error: string) => void) | undefined;
  #ready: Promise<void>;

  constructor(target: URL) {
    this.#socket = connect({ host: target.hostname, port: Number(target.port || 443), rejectUnauthorized: false });
    this.#ready = new Promise((resolve) => this.#socket.once("secureConnect", () => resolve()));
    this.#socket.on("data", (chunk: Buffer) => this.#parser?.feed(chunk));
    this.#socket.once("error", (err) => this.#onError?.(err.message));
    this.#socket.once("close", () => this.#onError?.("connection closed before a whole response"));
  }

  send(request: string, parser: ResponseParser, onError: (error: string) => void): void {
    this.#parser = parser;
    this.#onError = onError;
    void this.#ready.then(() => this.#socket.write(request));
  }

  close(): void {
    this.#socket.destroy();
  }
}

/** Reads one HTTP/1.1 response with a Content-Length (what the servers measured send) and reports its status once whole. */
class ResponseParser {
  #buffer = Buffer.alloc(0);
  #done = false;

  constructor(private readonly onComplete: (status: number) => void) {}

  feed(chunk: Buffer): void {
    if (this.#done) return;
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    const headerEnd = this.#buffer.indexOf("\r\n\r\n");
    if (headerEnd < 0) return;
    const head = this.#buffer.subarray(0, headerEnd).toString("latin1");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
    const chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
    const body = this.#buffer.subarray(headerEnd + 4);
    const whole = length !== undefined ? body.length >= Number(length) : chunked ? body.includes("0\r\n\r\n") : true;
    if (!whole) return;
    this.#done = true;
    this.onComplete(status);
  }
}

/** Runs the load in a separate Bun process and returns what it measured. */
export async function runHttpsLoadProcess(settings: LoadSettings): Promise<LoadResult> {
  const child = Bun.spawn(
    [process.execPath, import.meta.path, settings.url, String(settings.requests), String(settings.concurrency), settings.connections, String(settings.timeoutMs)],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`the HTTPS load client exited with ${code}: ${stderr.trim()}`);
  return JSON.parse(stdout) as LoadResult;
}

/** The p-th percentile (0–100) of sorted values; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

if (import.meta.main) {
  const [url, requests, concurrency, connections, timeoutMs] = process.argv.slice(2);
  if (!url || (connections !== "new" && connections !== "keep-alive")) {
    console.error("usage: bun test/support/https-load.ts URL REQUESTS CONCURRENCY new|keep-alive TIMEOUT_MS");
    process.exit(2);
  }
  const result = await runHttpsLoad({
    url,
    requests: Number(requests),
    concurrency: Number(concurrency),
    connections,
    timeoutMs: Number(timeoutMs),
  });
  console.log(JSON.stringify(result));
}
