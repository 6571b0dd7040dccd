// A proxy in front of kube-apiserver that ends TLS on its side and so reads each HTTP/1.1
// request line: a test can fault requests of one kind rather than whole connections. It cuts the
// answer to a request it forwarded (the API server did the write; the client sees its connection
// reset) and holds back what the server sends on chosen connections (a watch that lags). For a
// window of time it also answers badly the way an overloaded server or a load balancer does: a
// 429 with Retry-After, a 500 or 503 with a Status body, an answer 5-10 s late, and on watches a
// body cut inside an event, a stream stalled for a while, a line that is not JSON (or, on a
// protobuf watch, a corrupt frame) slipped between two events.
// TcpProxy (tcp-proxy.ts) faults connections only: it cannot tell one request from another.
import { connect, createServer, type Server, type TLSSocket } from "node:tls";
import { gzipSync } from "node:zlib";
import type { ControlPlane } from "../controlplane/control-plane.ts";
import { listenOnEphemeralPort } from "../../pkg/testing/free-ports.ts";
import { asChunk, ChunkedResponseReader } from "./chunked-response-reader.ts";

/** Requests of one kind: the method and a pattern for the path (with its query). */
export interface RequestMatch {
  method: string;
  path: RegExp;
}

/** Every watch request, of any resource. */
export const watchRequests: RequestMatch = { method: "GET", path: /[?&]watch=(true|1)(&|$)/ };

/** Every request of any kind. */
export const anyRequest: RequestMatch = { method: "*", path: /^/ };

/** A certificate and its key, PEM. */
export interface KeyPair {
  certPem: string;
  keyPem: string;
}

export interface RequestFaultProxyOptions {
  /** The API server's URL, https://host:port. */
  target: string;
  /** CA that signed the API server's certificate. */
  caPem: string;
  /** What the proxy shows clients: a certificate for 127.0.0.1 they trust. */
  serving: KeyPair;
  /** What the proxy shows the API server: every request is made as this client. */
  client: KeyPair;
}

/**
 * What a fault window does to each request it picks. The first two answer in the server's
 * stead (or late); the watch faults act on the answer of a watch: "cut-watch" ends it inside an
 * event, "stall-watch" holds its bytes until the window closes, "garbage-watch" slips a line
 * that is not JSON (a corrupt frame on a protobuf watch) between two events.
 */
export type RequestFault =
  | { kind: "status"; code: 429 | 500 | 503 }
  | { kind: "delay"; delayMs: () => number }
  | { kind: "cut-watch" }
  | { kind: "stall-watch" }
  | { kind: "garbage-watch" };

export interface FaultWindowOptions {
  match: RequestMatch;
  fault: RequestFault;
  /** Asked once per matching request (watch faults: also per watch open when the window opens): true to fault it. */
  pick: () => boolean;
}

/** The wire a watch's answer used, by its media type: the name faults are counted under. */
export type WatchWire = "json" | "protobuf";

/** Faults dealt while open; close() ends it. */
export class FaultWindow {
  /** Requests actually faulted, by wire for watch faults ("request" for the others). */
  readonly hits = new Map<WatchWire | "request", number>();
  #open = true;
  /** Delayed requests not sent on yet, each with what sends it. */
  readonly #delays = new Map<ReturnType<typeof setTimeout>, { send: () => void; sent: Promise<void> }>();

  constructor(
    readonly options: FaultWindowOptions,
    private readonly onClose: (window: FaultWindow) => void,
  ) {}

  /**
   * Stops picking requests and releases stalled watches; resolves once every delayed request
   * went on, at its time, or at once when `sendDelayedNow`.
   */
  async close(sendDelayedNow = false): Promise<void> {
    if (this.#open) {
      this.#open = false;
      this.onClose(this);
    }
    const pending = [...this.#delays];
    if (sendDelayedNow) {
      for (const [timer, { send }] of pending) {
        clearTimeout(timer);
        this.#delays.delete(timer);
        send();
      }
    }
    await Promise.all(pending.map(([, { sent }]) => sent));
  }

  hit(as: WatchWire | "request"): void {
    this.hits.set(as, (this.hits.get(as) ?? 0) + 1);
  }

  /** Runs `send` after `ms` (or when the window closes at once). */
  delay(ms: number, send: () => void): void {
    let resolve = () => {};
    const sent = new Promise<void>((done) => (resolve = done));
    const timer = setTimeout(() => {
      this.#delays.delete(timer);
      send();
      resolve();
    }, ms);
    this.#delays.set(timer, {
      send: () => {
        send();
        resolve();
      },
      sent,
    });
  }
}

interface ProxiedConnection {
  client: TLSSocket;
  upstream: TLSSocket;
  /** The last request line the client sent, e.g. "GET /api/v1/pods?watch=true". */
  request: string;
  /** Follows the answer to `request`. */
  answer: ChunkedResponseReader;
  /** Chunks from the server kept from the client while a hold (or a stall) covers this connection. */
  held: Buffer[] | undefined;
  /** The fault window stalling this connection, if one does. */
  stalledBy: FaultWindow | undefined;
  /** A watch fault waiting for the right place in the answer: inside an event's data, or between two events. */
  pendingWatchFault: { kind: "cut-watch" | "garbage-watch"; window: FaultWindow } | undefined;
  /** The client's bytes kept from the server while a delay lasts. */
  delayed: Buffer[] | undefined;
  cutWhenAnswered: boolean;
}

interface PendingCut {
  match: RequestMatch;
  /** Runs as the request is seen, before it is forwarded. */
  beforeForwarding: () => void;
  done: () => void;
}

const requestLine = /^([A-Z]+) (\S+) HTTP\/1\.1\r\n/;

const statusReasons = { 429: ["Too Many Requests", "TooManyRequests"], 500: ["Internal Server Error", "InternalError"], 503: ["Service Unavailable", "ServiceUnavailable"] } as const;

export class RequestFaultProxy {
  readonly #connections = new Set<ProxiedConnection>();
  readonly #cuts: PendingCut[] = [];
  readonly #holds = new Set<RequestMatch>();
  readonly #windows = new Set<FaultWindow>();
  readonly #requests: string[] = [];

  private constructor(
    private readonly server: Server,
    private readonly options: RequestFaultProxyOptions,
    /** https://127.0.0.1:<port>, for a kubeconfig. */
    readonly url: string,
  ) {
    server.on("secureConnection", (client: TLSSocket) => this.#accept(client));
  }

  static async start(options: RequestFaultProxyOptions): Promise<RequestFaultProxy> {
    const server = createServer({ cert: options.serving.certPem, key: options.serving.keyPem });
    const port = await listenOnEphemeralPort(server);
    return new RequestFaultProxy(server, options, `https://127.0.0.1:${port}`);
  }

  /** A proxy in front of the control plane's API server, presenting its serving certificate and acting as `client` (default: its admin). */
  static inFrontOf(controlPlane: ControlPlane, client: KeyPair = controlPlane.pki.admin): Promise<RequestFaultProxy> {
    const { pki } = controlPlane;
    return RequestFaultProxy.start({ target: controlPlane.server, caPem: pki.ca.certPem, serving: pki.apiserverServing, client });
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  /**
   * The next request matching `match` is forwarded, and its connection closed as soon as the
   * answer starts, so the client never reads it. `beforeForwarding` runs just before the request
   * goes on (e.g. to hold a watch). Resolves once the answer was cut.
   */
  cutNextAnswer(match: RequestMatch, beforeForwarding: () => void = () => undefined): Promise<void> {
    return new Promise((resolve) => this.#cuts.push({ match, beforeForwarding, done: resolve }));
  }

  /**
   * Keeps what the server sends on connections whose last request matches `match` (those open
   * now and those opened meanwhile) from their clients, until the returned function is called.
   */
  holdAnswers(match: RequestMatch): () => void {
    this.#holds.add(match);
    for (const connection of this.#connections) if (matches(match, connection.request)) connection.held ??= [];
    return () => {
      this.#holds.delete(match);
      for (const connection of this.#connections) this.#releaseIfFree(connection);
    };
  }

  /**
   * Faults the requests `options.pick` chooses among those matching `options.match`, from now
   * until the window is closed. Watch faults also pick among the watches open now.
   */
  openFaultWindow(options: FaultWindowOptions): FaultWindow {
    const window = new FaultWindow(options, (closed) => this.#closeWindow(closed));
    this.#windows.add(window);
    if (isWatchFault(options.fault)) {
      for (const connection of this.#connections) {
        if (matches(options.match, connection.request) && options.pick()) this.#startWatchFault(connection, window);
      }
    }
    return window;
  }

  /** How many requests matching `match` came through so far. */
  requestCount(match: RequestMatch): number {
    return this.#requests.filter((request) => matches(match, request)).length;
  }

  async stop(): Promise<void> {
    for (const window of this.#windows) void window.close(true);
    for (const connection of this.#connections) this.#close(connection);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #accept(client: TLSSocket): void {
    const target = new URL(this.options.target);
    const upstream = connect({
      host: target.hostname,
      port: Number(target.port),
      ca: this.options.caPem,
      cert: this.options.client.certPem,
      key: this.options.client.keyPem,
    });
    const connection: ProxiedConnection = {
      client,
      upstream,
      request: "",
      answer: new ChunkedResponseReader(),
      held: undefined,
      stalledBy: undefined,
      pendingWatchFault: undefined,
      delayed: undefined,
      cutWhenAnswered: false,
    };
    this.#connections.add(connection);
    for (const socket of [client, upstream]) {
      socket.on("error", () => this.#close(connection));
      socket.on("close", () => this.#close(connection));
    }
    client.on("data", (chunk: Buffer) => this.#fromClient(connection, chunk));
    upstream.on("data", (chunk: Buffer) => this.#fromServer(connection, chunk));
  }

  #fromClient(connection: ProxiedConnection, chunk: Buffer): void {
    const line = requestLine.exec(chunk.subarray(0, 4096).toString("latin1"));
    if (line) {
      if (this.#newRequest(connection, `${line[1]} ${line[2]}`, chunk) === "answered") return;
    }
    if (connection.delayed) connection.delayed.push(chunk);
    else connection.upstream.write(chunk);
  }

  /** Books a new request on `connection`; "answered" when a fault answered it in the server's stead. */
  #newRequest(connection: ProxiedConnection, request: string, chunk: Buffer): "answered" | "forward" {
    connection.request = request;
    connection.answer = new ChunkedResponseReader();
    connection.pendingWatchFault = undefined;
    connection.stalledBy = undefined;
    this.#requests.push(request);
    connection.held = [...this.#holds].some((hold) => matches(hold, request)) ? (connection.held ?? []) : undefined;
    const cutAt = this.#cuts.findIndex((cut) => matches(cut.match, request));
    if (cutAt >= 0) {
      const [cut] = this.#cuts.splice(cutAt, 1);
      cut?.beforeForwarding();
      connection.cutWhenAnswered = true;
      connection.upstream.once("close", () => cut?.done());
    }
    for (const window of this.#windows) {
      const { fault, match, pick } = window.options;
      if (!matches(match, request) || !pick()) continue;
      if (fault.kind === "status") {
        window.hit("request");
        this.#answerInstead(connection, fault.code);
        return "answered";
      }
      if (fault.kind === "delay") {
        if (connection.delayed) continue;
        window.hit("request");
        this.#delay(connection, window, fault.delayMs(), chunk);
        return "answered";
      }
      this.#startWatchFault(connection, window);
    }
    return "forward";
  }

  #startWatchFault(connection: ProxiedConnection, window: FaultWindow): void {
    const { fault } = window.options;
    if (fault.kind === "stall-watch") {
      if (connection.stalledBy) return;
      connection.stalledBy = window;
      connection.held ??= [];
      // Counted once the stall holds back something the client would have read.
      return;
    }
    // Garbage goes in at once when the answer rests between two chunks (a quiet watch), else at the next place between two.
    if (fault.kind === "garbage-watch" && connection.answer.contentType !== "" && connection.answer.betweenChunks) return this.#injectGarbage(connection, window);
    if (fault.kind === "cut-watch" || fault.kind === "garbage-watch") connection.pendingWatchFault ??= { kind: fault.kind, window };
  }

  /** Answers the request with `code` and a Status body, then closes the connection (its body, if any, is never read). */
  #answerInstead(connection: ProxiedConnection, code: 429 | 500 | 503): void {
    const [text, reason] = statusReasons[code];
    const body = JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `the fault proxy answered ${code} in the API server's stead`,
      reason,
      code,
    });
    const headers = [`HTTP/1.1 ${code} ${text}`, "Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close"];
    if (code === 429) headers.push("Retry-After: 1");
    this.#connections.delete(connection);
    connection.upstream.destroy();
    connection.client.end(`${headers.join("\r\n")}\r\n\r\n${body}`);
  }

  /** Keeps the request (and whatever the client sends after it) from the server for `ms`. */
  #delay(connection: ProxiedConnection, window: FaultWindow, ms: number, chunk: Buffer): void {
    connection.delayed = [chunk];
    window.delay(ms, () => {
      const delayed = connection.delayed ?? [];
      connection.delayed = undefined;
      if (this.#connections.has(connection)) for (const piece of delayed) connection.upstream.write(piece);
    });
  }

  #fromServer(connection: ProxiedConnection, chunk: Buffer): void {
    if (connection.cutWhenAnswered) return this.#close(connection);
    const piece = connection.answer.read(chunk);
    const pending = connection.pendingWatchFault;
    if (pending && connection.answer.contentType !== "") {
      const wire: WatchWire = connection.answer.contentType.includes("protobuf") ? "protobuf" : "json";
      if (pending.kind === "cut-watch") {
        const inside = piece.data.find(([start, end]) => end - start >= 2);
        if (inside) {
          pending.window.hit(wire);
          this.#toClient(connection, chunk.subarray(0, inside[0] + Math.floor((inside[1] - inside[0]) / 2)));
          // end(), not destroy(): the client reads the event's first half, then the connection ends.
          this.#connections.delete(connection);
          connection.upstream.destroy();
          connection.client.end();
          return;
        }
      } else {
        const at = piece.boundaries[0];
        if (at !== undefined) {
          this.#toClient(connection, chunk.subarray(0, at));
          this.#injectGarbage(connection, pending.window);
          return this.#toClient(connection, chunk.subarray(at));
        }
      }
    }
    this.#toClient(connection, chunk);
  }

  /** Sends the client, between two chunks of its answer, a line that is not JSON or a corrupt frame. */
  #injectGarbage(connection: ProxiedConnection, window: FaultWindow): void {
    const wire: WatchWire = connection.answer.contentType.includes("protobuf") ? "protobuf" : "json";
    window.hit(wire);
    connection.pendingWatchFault = undefined;
    const garbage = wire === "protobuf" ? corruptFrame : garbageLine;
    // A compressed body gets a gzip member of its own: raw bytes between two members would be skipped by the client's gunzip, unseen.
    this.#toClient(connection, asChunk(connection.answer.contentEncoding.includes("gzip") ? gzipSync(garbage) : garbage));
  }

  #toClient(connection: ProxiedConnection, bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (connection.held) {
      if (connection.stalledBy && connection.held.length === 0) connection.stalledBy.hit(connection.answer.contentType.includes("protobuf") ? "protobuf" : "json");
      connection.held.push(bytes);
    } else connection.client.write(bytes);
  }

  #closeWindow(window: FaultWindow): void {
    this.#windows.delete(window);
    for (const connection of this.#connections) {
      if (connection.pendingWatchFault?.window === window) connection.pendingWatchFault = undefined;
      if (connection.stalledBy !== window) continue;
      connection.stalledBy = undefined;
      this.#releaseIfFree(connection);
    }
  }

  /** Lets the held bytes of `connection` through unless a hold or a stall still covers it. */
  #releaseIfFree(connection: ProxiedConnection): void {
    if (connection.held === undefined || connection.stalledBy || [...this.#holds].some((hold) => matches(hold, connection.request))) return;
    for (const chunk of connection.held) connection.client.write(chunk);
    connection.held = undefined;
  }

  #close(connection: ProxiedConnection): void {
    if (!this.#connections.delete(connection)) return;
    connection.client.destroy();
    connection.upstream.destroy();
  }
}

function isWatchFault(fault: RequestFault): boolean {
  return fault.kind === "cut-watch" || fault.kind === "stall-watch" || fault.kind === "garbage-watch";
}

function matches(match: RequestMatch, request: string): boolean {
  const space = request.indexOf(" ");
  return (match.method === "*" || request.slice(0, space) === match.method) && match.path.test(request.slice(space + 1));
}

/** What a JSON watch gets slipped between two events. */
const garbageLine = new TextEncoder().encode("this is not JSON: the fault proxy put it here\n");

/**
 * What a protobuf watch gets: a well-framed metav1.WatchEvent of type ADDED whose object is the
 * "k8s\0" envelope followed by bytes that are no protobuf message (wire type 7 does not exist).
 */
const corruptFrame = (() => {
  const raw = [0x6b, 0x38, 0x73, 0x00, 0x0f, 0xff, 0xff, 0xff];
  const rawExtension = [0x0a, raw.length, ...raw];
  const event = [0x0a, 5, ...new TextEncoder().encode("ADDED"), 0x12, rawExtension.length, ...rawExtension];
  return new Uint8Array([0, 0, 0, event.length, ...event]);
})();
