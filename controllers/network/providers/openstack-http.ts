// One JSON request to an OpenStack service (Keystone or Neutron), with a timeout. Failures to
// get an answer, and the answers of a proxy or service that is down (502/503/504), become
// ProviderUnavailableError; every other answer goes back to the caller to interpret.
import { ProviderUnavailableError } from "./provider.ts";

export interface OpenStackRequest {
  /** "Neutron" or "Keystone", for messages. */
  service: string;
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface OpenStackResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON (undefined when empty). */
  body: unknown;
}

const unavailableStatuses = new Set([502, 503, 504]);

export async function sendOpenStackRequest(request: OpenStackRequest): Promise<OpenStackResponse> {
  const { service, method, url, timeoutMs, signal } = request;
  const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method,
      headers: { Accept: "application/json", ...(request.body === undefined ? {} : { "Content-Type": "application/json" }), ...request.headers },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: timeout ? AbortSignal.any([signal, timeout]) : signal,
    });
    text = await response.text();
  } catch (err) {
    if (signal.aborted) throw err;
    const reason = timeout?.aborted ? `no answer within ${timeoutMs} ms` : errorText(err);
    throw new ProviderUnavailableError(`${service} ${method} ${pathOf(url)}: ${reason}`, { cause: err });
  }
  const body = parseBody(text);
  if (unavailableStatuses.has(response.status)) {
    throw new ProviderUnavailableError(`${service} ${method} ${pathOf(url)}: HTTP ${response.status} ${describeBody(body)}`.trimEnd());
  }
  return { status: response.status, headers: response.headers, body };
}

/** The error text OpenStack services put in error bodies, or a short excerpt of the body. */
export function describeBody(body: unknown): string {
  if (typeof body === "string") return body.trim().split("\n")[0]?.slice(0, 200) ?? "";
  if (body && typeof body === "object") {
    for (const value of Object.values(body)) {
      // Neutron: {"NeutronError": {"type", "message"}}; Keystone: {"error": {"code", "message"}}.
      if (value && typeof value === "object" && "message" in value && typeof value.message === "string") return value.message;
    }
    return JSON.stringify(body).slice(0, 200);
  }
  return "";
}

function parseBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = "code" in err && typeof err.code === "string" ? ` (${err.code})` : "";
  return `${err.message}${code}`;
}
