// How Neutron requests are authenticated: a Keystone v3 token (password or application
// credential), cached until shortly before it expires, or nothing at all for a noauth Neutron.
import { type Clock, realClock } from "../../../pkg/clock/clock.ts";
import { describeBody, sendOpenStackRequest } from "./openstack-http.ts";
import { ExpectedError } from "../../../pkg/errors/expected-error.ts";

export interface NeutronSession {
  /** Added to every Neutron request (X-Auth-Token); empty for noauth. */
  headers: Record<string, string>;
  /** Neutron's URL from the token's service catalog (Keystone only). */
  catalogEndpoint?: string;
}

export interface NeutronAuthenticator {
  session(signal: AbortSignal): Promise<NeutronSession>;
  /** Drops a cached token, e.g. after Neutron answered 401. */
  invalidate(): void;
}

/** Keystone refused the credentials: retrying with the same ones will not help. */
export class KeystoneAuthError extends ExpectedError {
  override readonly name = "KeystoneAuthError";
}

export const noAuthentication: NeutronAuthenticator = {
  session: async () => ({ headers: {} }),
  invalidate: () => undefined,
};

export type KeystoneCredentials =
  | {
      type: "password";
      username: string;
      userDomainName: string;
      password: string;
      /** Scope: a project id, or a project name in a domain. */
      projectID?: string;
      projectName?: string;
      projectDomainName?: string;
    }
  | { type: "v3applicationcredential"; applicationCredentialID: string; applicationCredentialSecret: string };

export interface KeystoneAuthOptions {
  /** Keystone's URL, with or without the trailing /v3. */
  authURL: string;
  credentials: KeystoneCredentials;
  /** Catalog endpoint selection. */
  region?: string;
  endpointInterface: string;
  timeoutMs: number;
  clock?: Clock;
}

/** Renew this long before expiry, so a token never runs out during a reconcile. */
const renewBeforeExpiryMs = 5 * 60_000;

interface CachedToken {
  session: NeutronSession;
  renewAt: number;
}

export class KeystoneAuthenticator implements NeutronAuthenticator {
  private readonly clock: Clock;
  private cached: CachedToken | undefined;
  /** One token request at a time: concurrent reconciles wait for the same one. */
  private pending: Promise<CachedToken> | undefined;

  constructor(private readonly options: KeystoneAuthOptions) {
    this.clock = options.clock ?? realClock;
  }

  async session(signal: AbortSignal): Promise<NeutronSession> {
    if (this.cached && this.clock.now() < this.cached.renewAt) return this.cached.session;
    this.pending ??= this.issueToken(signal).finally(() => (this.pending = undefined));
    this.cached = await this.pending;
    return this.cached.session;
  }

  invalidate(): void {
    this.cached = undefined;
  }

  private async issueToken(signal: AbortSignal): Promise<CachedToken> {
    const url = `${keystoneV3URL(this.options.authURL)}/auth/tokens`;
    const response = await sendOpenStackRequest({
      service: "Keystone",
      method: "POST",
      url,
      body: tokenRequestBody(this.options.credentials),
      timeoutMs: this.options.timeoutMs,
      signal,
    });
    const token = response.headers.get("X-Subject-Token");
    if (response.status !== 201 || !token) {
      throw new KeystoneAuthError(`Keystone POST ${url} refused ${describeCredentials(this.options.credentials)}: HTTP ${response.status} ${describeBody(response.body)}`.trimEnd());
    }
    const body = response.body as TokenResponse | undefined;
    const expiresAt = Date.parse(body?.token?.expires_at ?? "");
    const now = this.clock.now();
    const lifetime = Number.isNaN(expiresAt) ? 60 * 60_000 : expiresAt - now;
    const catalogEndpoint = networkEndpoint(body?.token?.catalog ?? [], this.options.region, this.options.endpointInterface);
    return {
      session: { headers: { "X-Auth-Token": token }, ...(catalogEndpoint ? { catalogEndpoint } : {}) },
      // Short-lived tokens are renewed half-way instead.
      renewAt: now + Math.max(lifetime - renewBeforeExpiryMs, lifetime / 2),
    };
  }
}

/** The identity API's v3 root, however the URL was written. */
export function keystoneV3URL(authURL: string): string {
  const trimmed = authURL.replace(/\/+$/, "");
  return trimmed.endsWith("/v3") ? trimmed : `${trimmed}/v3`;
}

/** The body of POST /v3/auth/tokens (Identity API v3, "Password authentication with scoped authorization" and "Authenticating with an Application Credential"). */
function tokenRequestBody(credentials: KeystoneCredentials): unknown {
  if (credentials.type === "v3applicationcredential") {
    return {
      auth: {
        identity: {
          methods: ["application_credential"],
          application_credential: { id: credentials.applicationCredentialID, secret: credentials.applicationCredentialSecret },
        },
      },
    };
  }
  const project = credentials.projectID
    ? { id: credentials.projectID }
    : { name: credentials.projectName, domain: { name: credentials.projectDomainName } };
  return {
    auth: {
      identity: {
        methods: ["password"],
        password: { user: { name: credentials.username, domain: { name: credentials.userDomainName }, password: credentials.password } },
      },
      scope: { project },
    },
  };
}

interface CatalogEntry {
  type?: string;
  endpoints?: { interface?: string; region?: string; region_id?: string; url?: string }[];
}

interface TokenResponse {
  token?: { expires_at?: string; catalog?: CatalogEntry[] };
}

function networkEndpoint(catalog: CatalogEntry[], region: string | undefined, endpointInterface: string): string | undefined {
  const endpoints = catalog.filter((entry) => entry.type === "network").flatMap((entry) => entry.endpoints ?? []);
  return endpoints.find(
    (endpoint) => endpoint.interface === endpointInterface && (!region || endpoint.region_id === region || endpoint.region === region),
  )?.url;
}

function describeCredentials(credentials: KeystoneCredentials): string {
  return credentials.type === "password"
    ? `the password of user ${JSON.stringify(credentials.username)}`
    : `application credential ${JSON.stringify(credentials.applicationCredentialID)}`;
}
