// OpenStack Networking API v2.0 over HTTP: JSON in and out, authenticated by the session's
// headers, Neutron's error bodies turned into NeutronApiError.
import type { NeutronAuthenticator } from "./keystone-auth.ts";
import { describeBody, sendOpenStackRequest, type OpenStackRequest } from "./openstack-http.ts";
import { ExpectedError } from "../../../pkg/errors/expected-error.ts";

export interface NeutronClientOptions {
  /** Neutron's URL (e.g. http://127.0.0.1:9696); empty: take it from Keystone's catalog. */
  endpoint: string;
  auth: NeutronAuthenticator;
  timeoutMs: number;
}

/** Neutron answered with an error: `type` is its NeutronError type, e.g. "SubnetNotFound". */
export class NeutronApiError extends ExpectedError {
  override readonly name = "NeutronApiError";
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export const isNeutronNotFound = (err: unknown): boolean => err instanceof NeutronApiError && err.status === 404;

export class NeutronClient {
  constructor(private readonly options: NeutronClientOptions) {}

  get<T>(path: string, signal: AbortSignal): Promise<T> {
    return this.request<T>("GET", path, undefined, signal);
  }

  post<T>(path: string, body: unknown, signal: AbortSignal): Promise<T> {
    return this.request<T>("POST", path, body, signal);
  }

  put<T>(path: string, body: unknown, signal: AbortSignal): Promise<T> {
    return this.request<T>("PUT", path, body, signal);
  }

  async delete(path: string, signal: AbortSignal): Promise<void> {
    await this.request<unknown>("DELETE", path, undefined, signal);
  }

  /** `path` is relative to /v2.0, e.g. "networks?tags=x". A 401 gets one retry with a fresh token. */
  private async request<T>(method: OpenStackRequest["method"], path: string, body: unknown, signal: AbortSignal): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const session = await this.options.auth.session(signal);
      const url = `${apiRoot(this.options.endpoint || session.catalogEndpoint)}/${path}`;
      const response = await sendOpenStackRequest({
        service: "Neutron",
        method,
        url,
        headers: session.headers,
        body,
        timeoutMs: this.options.timeoutMs,
        signal,
      });
      if (response.status === 401 && attempt === 1) {
        this.options.auth.invalidate();
        continue;
      }
      if (response.status >= 200 && response.status < 300) return response.body as T;
      const type = neutronErrorType(response.body) ?? `HTTP${response.status}`;
      const route = `${method} /v2.0/${path.split("?")[0]}`;
      throw new NeutronApiError(response.status, type, `Neutron ${route}: ${type}: ${describeBody(response.body)} (HTTP ${response.status})`);
    }
  }
}

/** The v2.0 root under Neutron's URL, whether or not the URL (or catalog entry) already ends in /v2.0. */
function apiRoot(endpoint: string | undefined): string {
  if (!endpoint) throw new Error("no Neutron endpoint: set --neutron-endpoint, or use Keystone with a network service in its catalog");
  const trimmed = endpoint.replace(/\/+$/, "");
  return trimmed.endsWith("/v2.0") ? trimmed : `${trimmed}/v2.0`;
}

function neutronErrorType(body: unknown): string | undefined {
  if (!body || typeof body !== "object" || !("NeutronError" in body)) return undefined;
  const error = body.NeutronError;
  return error && typeof error === "object" && "type" in error && typeof error.type === "string" ? error.type : undefined;
}
