// Credentials of a ServiceAccount, for a process that acts as several identities: kube-loom's
// own client asks the TokenRequest API for a short-lived token of the account (creating the
// account if it is missing, as kube-controller-manager's --use-service-account-credentials does),
// and asks again well before the token expires. The API server's audit log then names the
// controller behind each request, and each controller holds only its own RBAC.
import { type Clock, realClock } from "../clock/clock.ts";
import type { KubeClient } from "./client.ts";
import type { ClientConfig } from "./client-config.ts";
import { isAlreadyExists, isNotFound } from "./errors.ts";
import { resources } from "./gvr.ts";
import type { KubeObject } from "./objects.ts";

/** kube-controller-manager asks for one-hour tokens. */
const tokenLifetimeSeconds = 3600;
/** Renew once this share of the lifetime has passed, as client-go's token managers do (80 %). */
const renewAfterShare = 0.8;

interface TokenRequest extends KubeObject {
  status?: { token?: string; expirationTimestamp?: string };
}

export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

export class ServiceAccountTokenSource {
  private token: string | undefined;
  /** Monotonic time after which the token is renewed. */
  private renewAt = 0;
  private pending: Promise<string> | undefined;
  private readonly clock: Clock;

  constructor(
    private readonly client: KubeClient,
    readonly account: ServiceAccountRef,
    clock: Clock = realClock,
  ) {
    this.clock = clock;
  }

  /** The current token, fetched or renewed when due; concurrent callers share one request. */
  async current(): Promise<string> {
    if (this.token && this.clock.monotonic() < this.renewAt) return this.token;
    this.pending ??= this.request().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async request(): Promise<string> {
    const { namespace, name } = this.account;
    const body = { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: tokenLifetimeSeconds } };
    const path = `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`;
    let answer: TokenRequest;
    try {
      answer = await this.client.rest.request<TokenRequest>({ method: "POST", path, body });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await this.createAccount();
      answer = await this.client.rest.request<TokenRequest>({ method: "POST", path, body });
    }
    const token = answer.status?.token;
    if (!token) throw new Error(`TokenRequest for ServiceAccount ${namespace}/${name} returned no token`);
    const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? "");
    const lifetimeMs = Number.isNaN(expiresAt) ? tokenLifetimeSeconds * 1000 : Math.max(0, expiresAt - this.clock.now());
    this.token = token;
    this.renewAt = this.clock.monotonic() + lifetimeMs * renewAfterShare;
    return token;
  }

  private async createAccount(): Promise<void> {
    const { namespace, name } = this.account;
    try {
      await this.client.dynamic.resource(resources.serviceAccounts, namespace).create({ metadata: { name, namespace } });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}

/**
 * The same server as `config`, authenticated as the ServiceAccount only: its client certificate
 * is dropped, since the API server would otherwise identify the request by the certificate.
 */
export function serviceAccountConfig(config: ClientConfig, source: ServiceAccountTokenSource): ClientConfig {
  const { cert: _cert, key: _key, ...tls } = config.tls;
  const { namespace, name } = source.account;
  return {
    ...config,
    tls,
    authenticate: async () => ({ Authorization: `Bearer ${await source.current()}` }),
    source: `${config.source}, as ServiceAccount ${namespace}/${name}`,
  };
}
