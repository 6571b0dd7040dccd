// Errors from talking to the API server, typed so callers can branch on them
// (isNotFound, isConflict, isResourceExpired, …) the way client-go's apierrors package allows.
import { ExpectedError } from "../errors/expected-error.ts";
import type { Status } from "./objects.ts";

/** The API server answered with an HTTP error status; `status` is its metav1.Status body when it sent one. */
export class ApiError extends ExpectedError {
  /** "ApiError". */
  override readonly name = "ApiError";
  /** Made by the clients; a test faking the API server makes one the same way (`ApiError.fromResponse` builds one from a response). */
  constructor(
    /** The HTTP status code, e.g. 404. */
    readonly code: number,
    /** metav1.Status's reason, e.g. "NotFound", "AlreadyExists"; else the usual name of the code. */
    readonly reason: string,
    message: string,
    /** The request's HTTP method. */
    readonly method: string,
    /** The request's path (with its query). */
    readonly path: string,
    /** The response's metav1.Status body, when it sent one. */
    readonly status?: Status,
    /** From the Status's details or the Retry-After header (429, some 5xx). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** Builds the error from an HTTP response's status line and body text. */
  static fromResponse(code: number, body: string, method: string, path: string, retryAfter?: string | null): ApiError {
    let status: Status | undefined;
    try {
      const parsed: unknown = JSON.parse(body);
      if (parsed && typeof parsed === "object" && (parsed as Status).kind === "Status") status = parsed as Status;
    } catch {
      // Not JSON (a proxy's HTML page, a plain-text 502): the text itself becomes the message.
    }
    const reason = status?.reason ?? reasonForCode(code);
    const detail = status?.message ?? (body.trim().slice(0, 200) || `HTTP ${code}`);
    const retry = status?.details?.retryAfterSeconds ?? (retryAfter ? Number(retryAfter) : undefined);
    return new ApiError(code, reason, `${method} ${path}: ${detail} (${code} ${reason})`, method, path, status, retry);
  }

  /** An in-stream watch ERROR event carries a Status instead of an HTTP code. */
  static fromStatus(status: Status, method: string, path: string): ApiError {
    const code = status.code ?? 500;
    const reason = status.reason ?? reasonForCode(code);
    return new ApiError(code, reason, `${method} ${path}: ${status.message ?? reason} (${code} ${reason})`, method, path, status);
  }
}

/** The request never got an HTTP answer: DNS, TCP, TLS, timeout. */
export class TransportError extends ExpectedError {
  /** "TransportError". */
  override readonly name = "TransportError";
  /** Made by the transport; `options.cause` keeps the runtime's own error. */
  constructor(
    message: string,
    /** The API server's URL. */
    readonly server: string,
    /** The runtime's error code, e.g. ECONNREFUSED or SELF_SIGNED_CERT_IN_CHAIN. */
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The API server's answer could not be read: a watch line that is not JSON, a corrupt protobuf
 * frame, a body cut off mid-object, a kind the client has no schema for. Nothing of it is used;
 * the reader starts over as after a broken connection.
 */
export class DecodeError extends ExpectedError {
  /** "DecodeError". */
  override readonly name = "DecodeError";
}

const reasons: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Gone",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

function reasonForCode(code: number): string {
  return reasons[code] ?? "Unknown";
}

const is = (code: number) => (err: unknown): err is ApiError => err instanceof ApiError && err.code === code;

/** 404: the object (or the resource) does not exist. After a delete, the wanted outcome. */
export const isNotFound = is(404);
/** 409: an update carried a stale resourceVersion (or a create's name is taken, see isAlreadyExists). Read again and retry. */
export const isConflict = is(409);
/** 403: RBAC refused the request; retrying will not help until the role changes. */
export const isForbidden = is(403);
/** 422: the object failed validation; `status.details.causes` names the fields. */
export const isInvalid = is(422);
/** 429: the server's priority and fairness asked the client to slow down; `retryAfterSeconds` says for how long. */
export const isTooManyRequests = is(429);
/** 410 Gone, or reason Expired: the requested resourceVersion is too old, relist. */
export const isResourceExpired = (err: unknown): err is ApiError =>
  err instanceof ApiError && (err.code === 410 || err.reason === "Expired" || err.reason === "Gone");
/** A create whose name is taken (409 with reason AlreadyExists). */
export const isAlreadyExists = (err: unknown): err is ApiError => err instanceof ApiError && err.reason === "AlreadyExists";
/** A create refused because its namespace is being deleted (403 with the cause NamespaceTerminating): nothing new can go there. */
export const isNamespaceTerminating = (err: unknown): err is ApiError =>
  err instanceof ApiError && (err.status?.details?.causes ?? []).some((cause) => cause.reason === "NamespaceTerminating");
