// The one path every request to the API server takes: authentication, client-side rate
// limiting (--kube-api-qps/--kube-api-burst), user agent, timeouts, typed errors and metrics.
import { countBodyBytes } from "./body-bytes.ts";
import type { ClientConfig } from "./client-config.ts";
import { ApiError, DecodeError, TransportError } from "./errors.ts";
import { decodeObjectList } from "./list-decoder.ts";
import type { KubeObject, ObjectList, WatchEvent } from "./objects.ts";
import { decodeEnveloped } from "./protobuf/envelope.ts";
import { kubernetesDecoder } from "./protobuf/kubernetes-decoder.ts";
import { decodeProtobufList } from "./protobuf/list-stream-decoder.ts";
import { type ApiContentType, isProtobufResponse, protobufMediaType } from "./protobuf/media-types.ts";
import type { DecodeOptions } from "./protobuf/message-decoder.ts";
import { ProtobufWatchDecoder } from "./protobuf/watch-stream-decoder.ts";
import type { Fetch } from "./transport.ts";
import { JsonWatchDecoder, type WatchDecoder } from "./watch-decoder.ts";
import { type WatchStream, watchStream } from "./watch-stream.ts";
import { realClock } from "../clock/clock.ts";
import { concatBytes } from "../collections/concat-bytes.ts";
import { errorMessage } from "../errors/expected-error.ts";
import { TimeSlicer } from "../eventloop/time-slicer.ts";

/** A query parameter's value; undefined leaves the parameter out. */
export type QueryValue = string | number | boolean | undefined;

/**
 * Judges a write the moment before it is sent: throws to refuse it. It may return a ticket for the
 * write it lets through (see WriteTicket).
 */
export type WriteGuard = (request: Pick<RestRequest, "method" | "path">) => void | WriteTicket;

/** Told once a write settled: `answered` true when the API server's answer came, false when the request failed or was abandoned without one (it may still reach the server later). */
export type WriteSettled = (answered: boolean) => void;

/** What a WriteGuard attaches to a write it let through. */
export interface WriteTicket {
  /** Told once the write settled. */
  settled?: WriteSettled;
  /**
   * Aborted when the grant ends before the answer came (the write must not land any more: a slot
   * handed over, a membership lost): the request is abandoned, and rejects with the signal's reason.
   */
  revoked?: AbortSignal;
}

/** One HTTP request to the API server. */
export interface RestRequest {
  /** The HTTP method. */
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Absolute path on the server, e.g. /api/v1/namespaces/default/pods. */
  path: string;
  /** Query parameters, encoded by the client. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON unless already a string. */
  body?: unknown;
  /** The body's media type; default application/json. */
  contentType?: string;
  /** The Accept header; default application/json. */
  accept?: string;
  /** Overrides the client's timeout (see RestClientOptions.timeoutMs); null = none. */
  timeoutMs?: number | null;
  /** Aborts the request, and the reading of its body. */
  signal?: AbortSignal;
  /** What to build of the objects of a protobuf answer (a JSON answer is parsed whole). */
  decode?: DecodeOptions;
  /** Told about an answer that could not be decoded, before its DecodeError is thrown (e.g. to ask for JSON next time). */
  onUndecodable?: (error: DecodeError) => void;
}

/** Waits until the client may send its next request. */
export interface RequestThrottle {
  /** Resolves when the next request may go; rejects when `signal` aborts first. */
  take(signal?: AbortSignal): Promise<void>;
}

/** Receives one observation per finished request (rest_client_* metrics). */
export interface RequestObserver {
  /** `code` is the HTTP status, or "<error>" when no answer came. */
  observe(request: { method: string; host: string; code: string; seconds: number }): void;
}

/** What a RestClient is made of. */
export interface RestClientOptions {
  /** The server and its credentials. */
  config: ClientConfig;
  /** The transport. */
  fetch: Fetch;
  /** The client-side rate limit. */
  throttle: RequestThrottle;
  /** The User-Agent header. */
  userAgent: string;
  /**
   * How long a request may make no progress, in ms: the wait for the response headers, then
   * each wait for more of the body (for a small body of declared length, read in one piece: the
   * whole read). A big list that keeps streaming is never cut off; watches use it only until the
   * response headers arrive.
   */
  timeoutMs: number;
  /** Told about every finished request. */
  observer?: RequestObserver;
  /** Called before every request that is not a GET; throws to refuse it (e.g. a leader no longer sure it leads, a shard member that does not own the namespace). */
  writeGuard?: WriteGuard;
  /** The encoding asked for built-in resources (--kube-api-content-type); default protobuf. */
  contentType?: ApiContentType;
}

/**
 * Requests to any path of the API server, each authenticated, rate-limited, timed out when it makes no
 * progress, and counted; an HTTP error status throws ApiError, no answer throws TransportError.
 * Reached as `client.rest`, for what the dynamic client does not cover (e.g. /version, a subresource's custom verb).
 *
 * @hideconstructor
 */
export class RestClient {
  /** The server's base URL, e.g. https://10.0.0.1:6443. */
  readonly server: string;
  /** The encoding asked for built-in resources; custom resources are always JSON. */
  readonly contentType: ApiContentType;
  private readonly host: string;

  constructor(private readonly options: RestClientOptions) {
    this.server = options.config.server;
    this.contentType = options.contentType ?? protobufMediaType;
    this.host = new URL(this.server).host;
  }

  /** The same server, credentials and settings behind another rate limiter (client-go: one client per controller). */
  withThrottle(throttle: RequestThrottle, userAgent = this.options.userAgent): RestClient {
    return new RestClient({ ...this.options, throttle, userAgent });
  }

  /** The same client under another User-Agent. */
  withUserAgent(userAgent: string): RestClient {
    return new RestClient({ ...this.options, userAgent });
  }

  /** The same client, refusing every write that `guard` throws for. */
  withWriteGuard(guard: WriteGuard): RestClient {
    return new RestClient({ ...this.options, writeGuard: guard });
  }

  /** Sends a request and returns the decoded body, JSON or protobuf (undefined for an empty body). */
  async request<T>(request: RestRequest): Promise<T> {
    // The body is read here, not through send()'s Response: wrapping the stream again cost a
    // few promise turns per request, about a twentieth of a Pod create's CPU.
    const { response, deadline } = await this.start(request);
    if (isProtobufResponse(response.headers.get("Content-Type"))) {
      const bytes = await this.wholeBytes(request, response, deadline);
      if (bytes.length === 0) return undefined as T;
      return this.decodeBody(request, () => decodeEnveloped(kubernetesDecoder(), bytes, request.decode)) as T;
    }
    const text = await this.wholeText(request, response, deadline);
    if (text.length === 0) return undefined as T;
    return this.decodeBody(request, () => JSON.parse(text) as unknown) as T;
  }

  /**
   * GETs a collection, decoding its items while the body streams in: a big list is never held
   * as one string, and the timeout only ends it when the transfer stalls.
   */
  async list<T extends KubeObject>(request: Omit<RestRequest, "method" | "body" | "contentType">): Promise<ObjectList<T>> {
    const get: RestRequest = { ...request, method: "GET" };
    const { response, deadline } = await this.start(get);
    try {
      const chunks = this.bodyChunks(get, response, deadline);
      if (isProtobufResponse(response.headers.get("Content-Type"))) return await decodeProtobufList<T>(kubernetesDecoder(), chunks, request.decode);
      return await decodeObjectList<T>(chunks);
    } catch (err) {
      if (err instanceof TransportError || request.signal?.aborted) throw err;
      throw this.undecodable(get, err);
    }
  }

  /** Sends a request and hands back the response with an unread body; errors are already thrown. */
  async send(request: RestRequest): Promise<Response> {
    const { response, deadline } = await this.start(request);
    const chunks = this.bodyChunks(request, response, deadline);
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await chunks.return(undefined);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /** Opens a watch; the events end when the server closes the stream or `signal` aborts. */
  async watch<T extends KubeObject>(request: Omit<RestRequest, "method" | "timeoutMs">, signal: AbortSignal): Promise<WatchStream<T>> {
    // The timeout covers only the wait for response headers: a watch stays open for minutes
    // and the reflector's own watchdog notices a silent one. Like client-go, a watch takes no
    // token: it is one long request, and throttling it only delays every informer's sync.
    const get: RestRequest = { ...request, method: "GET", query: { ...request.query, watch: true }, signal };
    const { response, deadline } = await this.start(get, false);
    deadline?.stop();
    if (!response.body) throw new TransportError(`watch ${request.path}: response has no body`, this.server, undefined);
    const decoder: WatchDecoder<T> = isProtobufResponse(response.headers.get("Content-Type"))
      ? new ProtobufWatchDecoder<T>(kubernetesDecoder(), request.decode)
      : new JsonWatchDecoder<T>();
    return watchStream(() => this.watchBatches(get, response, decoder, signal));
  }

  /**
   * The events of a watch body, a batch per slice of the body. Read through bodyChunks, as a
   * list is: a connection broken mid-stream is a TransportError; what cannot be decoded is a
   * DecodeError; the caller's abort ends it quietly.
   */
  private async *watchBatches<T extends KubeObject>(
    request: RestRequest,
    response: Response,
    decoder: WatchDecoder<T>,
    signal: AbortSignal,
  ): AsyncGenerator<readonly WatchEvent<T>[]> {
    // A streaming list delivers its whole collection as events, often in big chunks already
    // buffered: decoded a slice at a time, and the event loop let through between slices.
    const slicer = new TimeSlicer();
    try {
      for await (const chunk of this.bodyChunks(request, response, undefined)) {
        for (let offset = 0; offset < chunk.length; offset += watchSliceBytes) {
          const events = decoder.push(chunk.subarray(offset, offset + watchSliceBytes));
          if (events.length > 0) yield events;
          if (slicer.due()) await slicer.yield();
        }
      }
      const rest = decoder.end();
      if (rest.length > 0) yield rest;
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof TransportError || (err instanceof Error && err.name === "AbortError")) throw err;
      throw this.undecodable(request, err);
    }
  }

  /**
   * The whole response body, under the same deadline and errors as bodyChunks. A body that declares
   * a small length (an object's, a Status) is taken in one piece: the runtime then hands it over
   * without building a stream for JavaScript to read, and the deadline covers the whole read.
   */
  private async wholeBytes(request: RestRequest, response: Response, deadline: ProgressDeadline | undefined): Promise<Uint8Array> {
    const declared = smallDeclaredLength(response);
    if (declared !== undefined) return this.inOnePiece(request, deadline, declared, async () => new Uint8Array(await response.arrayBuffer()));
    return this.streamedBytes(request, response, deadline);
  }

  /** The whole response body as UTF-8 text, read as wholeBytes reads it (a small one as text at once: JSON.parse wants a string). */
  private async wholeText(request: RestRequest, response: Response, deadline: ProgressDeadline | undefined): Promise<string> {
    const declared = smallDeclaredLength(response);
    if (declared !== undefined) return this.inOnePiece(request, deadline, declared, () => response.text());
    return utf8.decode(await this.streamedBytes(request, response, deadline));
  }

  /** A large or undeclared body, gathered from its stream chunk by chunk. */
  private async streamedBytes(request: RestRequest, response: Response, deadline: ProgressDeadline | undefined): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.bodyChunks(request, response, deadline)) chunks.push(chunk);
    return chunks.length === 1 ? (chunks[0] as Uint8Array) : concatBytes(chunks);
  }

  private async inOnePiece<B>(request: RestRequest, deadline: ProgressDeadline | undefined, length: number, read: () => Promise<B>): Promise<B> {
    deadline?.readingWhole();
    try {
      const body = await read();
      countBodyBytes(length);
      return body;
    } catch (err) {
      throw this.transportError(request, err);
    } finally {
      deadline?.stop();
    }
  }

  /** Sends the request under a progress deadline, armed now and re-armed when the headers arrive. */
  private async start(request: RestRequest, throttled = true): Promise<{ response: Response; deadline: ProgressDeadline | undefined }> {
    const timeoutMs = request.timeoutMs === undefined ? this.options.timeoutMs : request.timeoutMs;
    const deadline = timeoutMs ? new ProgressDeadline(timeoutMs) : undefined;
    try {
      const response = await this.exchange(request, anySignal([request.signal, deadline?.signal]), deadline, throttled);
      deadline?.headersArrived();
      return { response, deadline };
    } catch (err) {
      deadline?.stop();
      throw err;
    }
  }

  /** The response body, each chunk pushing the deadline back; a broken or stalled transfer throws a TransportError. */
  private async *bodyChunks(request: RestRequest, response: Response, deadline: ProgressDeadline | undefined): AsyncGenerator<Uint8Array> {
    if (!response.body) {
      deadline?.stop();
      return;
    }
    const reader = response.body.getReader();
    let finished = false;
    try {
      for (;;) {
        const next = await reader.read().catch((err: unknown) => {
          throw this.transportError(request, err);
        });
        if (next.done) {
          finished = true;
          return;
        }
        deadline?.progress();
        countBodyBytes(next.value.length);
        yield next.value;
      }
    } finally {
      deadline?.stop();
      // Left early (a decoding error, the consumer gave up): close the connection.
      if (!finished) await reader.cancel().catch(() => undefined);
    }
  }

  /**
   * Sends the request; an answer that asks to be retried (429, or a 5xx with Retry-After) is
   * waited out and sent again, up to maxRetries times, as client-go does: each retry waits
   * for the rate limiter again and, for a write, asks the write guard again.
   */
  private async exchange(
    request: RestRequest,
    signal: AbortSignal | undefined,
    deadline: ProgressDeadline | undefined,
    throttled: boolean,
  ): Promise<Response> {
    for (let retries = 0; ; retries++) {
      const response = await this.sendOnce(request, signal, throttled);
      if (response.status < 400) return response;
      deadline?.headersArrived();
      const waitSeconds = retries < maxRetries ? retryAfterSeconds(response) : undefined;
      // A wait the request's timeout would cut short is not begun: the server's answer says more than a timeout would.
      if (waitSeconds === undefined || (deadline !== undefined && waitSeconds * 1000 >= deadline.ms)) {
        const text = await errorBodyText(response);
        throw ApiError.fromResponse(response.status, text, request.method, request.path, response.headers.get("Retry-After"));
      }
      await response.body?.cancel().catch(() => undefined);
      await realClock.sleep(waitSeconds * 1000, signal).catch((err: unknown) => {
        throw this.transportError(request, err);
      });
      deadline?.progress();
    }
  }

  private async sendOnce(request: RestRequest, signal: AbortSignal | undefined, throttled: boolean): Promise<Response> {
    if (throttled) await this.options.throttle.take(signal);
    const url = this.server + request.path + queryString(request.query);
    const headers: Record<string, string> = {
      ...(await this.options.config.authenticate()),
      "User-Agent": this.options.userAgent,
      Accept: request.accept ?? "application/json",
      // Never compressed, as kube-controller-manager asks (it disables compression): gzip costs the
      // API server CPU per byte (a 1.37 server compresses streaming lists and big LISTs for a client
      // that accepts it), and fetch would accept it by default.
      "Accept-Encoding": "identity",
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      body = typeof request.body === "string" ? request.body : JSON.stringify(request.body);
      headers["Content-Type"] = request.contentType ?? "application/json";
    }
    // Asked last, right before sending: leadership can end while a write waits for a token.
    const ticket = request.method === "GET" ? undefined : this.options.writeGuard?.(request);
    const revocation = ticket?.revoked && new Revocation(ticket.revoked, signal);
    const started = performance.now();
    let response: Response;
    try {
      const longLived = request.query?.watch === true; // a watch: see TransportInit
      response = await this.options.fetch(url, { method: request.method, headers, body, signal: revocation?.signal ?? signal, redirect: "manual", longLived });
    } catch (err) {
      ticket?.settled?.(false);
      this.observe(request.method, "<error>", started);
      if (revocation?.revoked) throw revocation.reason;
      throw this.transportError(request, err);
    } finally {
      revocation?.end();
    }
    ticket?.settled?.(true);
    this.observe(request.method, String(response.status), started);
    return response;
  }

  /** A DecodeError naming the request, told to its onUndecodable. */
  private undecodable(request: RestRequest, err: unknown): DecodeError {
    const error = err instanceof DecodeError ? err : new DecodeError(`${request.method} ${request.path}${queryString(request.query)}: ${errorMessage(err)}`, { cause: err });
    request.onUndecodable?.(error);
    return error;
  }

  /** Runs a body decoder; what it throws is a DecodeError naming the request. */
  private decodeBody<T>(request: RestRequest, decode: () => T): T {
    try {
      return decode();
    } catch (err) {
      throw this.undecodable(request, err);
    }
  }

  private observe(method: string, code: string, started: number): void {
    this.options.observer?.observe({ method, host: this.host, code, seconds: (performance.now() - started) / 1000 });
  }

  private transportError(request: RestRequest, err: unknown): Error {
    if (err instanceof Error && err.name === "AbortError" && !(err instanceof TransportError)) return err;
    const code = errorCode(err);
    const what = describeFailure(code, err);
    return new TransportError(`${request.method} ${this.server}${request.path}: ${what}`, this.server, code, { cause: err });
  }
}

const utf8 = new TextDecoder();

/** The largest declared body read in one piece (see wholeBytes): a Pod's answer is 2–5 KiB. */
const wholeReadBytes = 64 * 1024;

/** A response's declared Content-Length when it is at most wholeReadBytes; undefined for a larger or undeclared one. */
function smallDeclaredLength(response: Response): number | undefined {
  const declared = response.headers.get("Content-Length");
  if (declared === null || !/^\d+$/.test(declared)) return undefined;
  const length = Number(declared);
  return length <= wholeReadBytes ? length : undefined;
}

/** How much of a watch body is decoded before its events go on: about 60 ConfigMaps of 1 KiB, or 250 objects' metadata. */
const watchSliceBytes = 64 * 1024;

const tlsCodes = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_SIGNATURE_FAILURE",
]);

function describeFailure(code: string | undefined, err: unknown): string {
  const detail = causeMessages(err);
  if (code === "TimeoutError") {
    const timeout = progressTimeoutIn(err);
    return timeout ? `request timed out: ${timeout.message}` : "request timed out";
  }
  if ((code && tlsCodes.has(code)) || /certificate/i.test(detail)) {
    return `TLS certificate verification failed (${code ?? detail}): the server's certificate is not signed by the configured certificate authority`;
  }
  if (code === "ConnectionRefused" || code === "ECONNREFUSED") return "connection refused (is the API server running?)";
  return code ? `${detail} (${code})` : detail;
}

/** "fetch failed" alone says nothing; the runtimes put the real reason in the cause chain. */
function causeMessages(err: unknown): string {
  const messages: string[] = [];
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    messages.push(e instanceof Error ? e.message : String(e));
    if (typeof e !== "object") break;
  }
  return messages.join(": ");
}

function progressTimeoutIn(err: unknown): ProgressTimeout | undefined {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) if (e instanceof ProgressTimeout) return e;
  return undefined;
}

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code) return code;
    if ((e as Error).name === "TimeoutError") return "TimeoutError";
  }
  return undefined;
}

/** Why a ProgressDeadline aborted a request. */
class ProgressTimeout extends DOMException {
  constructor(message: string) {
    super(message, "TimeoutError");
  }
}

/**
 * Aborts a request that makes no progress for `ms`: first while waiting for the response
 * headers, then while waiting for more of the body. One timer per period, whatever the
 * number of chunks: it re-arms itself for whatever is left after the last progress.
 */
class ProgressDeadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastProgress = performance.now();
  private waitingFor = "no response headers within";

  constructor(
    /** How long the request may go without progress. */
    readonly ms: number,
  ) {
    this.arm(ms);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  headersArrived(): void {
    this.waitingFor = "the response stalled: no data for";
    this.progress();
  }

  progress(): void {
    this.lastProgress = performance.now();
  }

  /** The body is read in one piece from now on: no progress is seen until it is all there. */
  readingWhole(): void {
    this.waitingFor = "the response's body not complete within";
    this.progress();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      const idle = performance.now() - this.lastProgress;
      if (idle < this.ms) return this.arm(this.ms - idle);
      this.controller.abort(new ProgressTimeout(`${this.waitingFor} ${this.ms} ms`));
    }, ms);
  }
}

/** client-go's default: a request the server asks to retry is sent at most this many more times. */
const maxRetries = 10;

/** The seconds a 429, or a 5xx with Retry-After, asks to wait before sending again; undefined for any other answer. */
function retryAfterSeconds(response: Response): number | undefined {
  if (response.status !== 429 && response.status < 500) return undefined;
  const header = response.headers.get("Retry-After");
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/** An error response's body as text: a protobuf Status is turned into its JSON, which ApiError reads. */
async function errorBodyText(response: Response): Promise<string> {
  if (!isProtobufResponse(response.headers.get("Content-Type"))) return response.text().catch(() => "");
  const bytes = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
  try {
    return JSON.stringify(decodeEnveloped(kubernetesDecoder(), bytes));
  } catch {
    return "";
  }
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length <= 1 ? present[0] : AbortSignal.any(present);
}

/**
 * The signal a guarded write is sent with: the caller's, and its ticket's revocation until the
 * answer's headers came. Revoking after that would only cut the body of a write already done.
 */
class Revocation {
  private readonly controller = new AbortController();
  private readonly onRevoked = () => this.controller.abort(this.revokedBy.reason);

  constructor(
    private readonly revokedBy: AbortSignal,
    callers: AbortSignal | undefined,
  ) {
    if (revokedBy.aborted) this.onRevoked();
    else revokedBy.addEventListener("abort", this.onRevoked, { once: true });
    this.signal = callers ? AbortSignal.any([callers, this.controller.signal]) : this.controller.signal;
  }

  readonly signal: AbortSignal;

  get revoked(): boolean {
    return this.controller.signal.aborted;
  }

  get reason(): unknown {
    return this.controller.signal.reason;
  }

  end(): void {
    this.revokedBy.removeEventListener("abort", this.onRevoked);
  }
}
