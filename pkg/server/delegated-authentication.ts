// Who is calling, decided as kube-controller-manager's delegating authenticator decides it: a
// client certificate verified against --client-ca-file names the user (CN) and groups (O);
// otherwise a bearer token is sent to the API server in a TokenReview. Answers are cached for
// --authentication-token-webhook-cache-ttl, keyed by a keyed hash so tokens are never kept.
import { createHmac, randomBytes } from "node:crypto";
import type { RestClient } from "../kube/rest-client.ts";
import { AnswerCache } from "./answer-cache.ts";
import { postReview, reviewTtl } from "./delegated-review.ts";
import type { PeerIdentity } from "./secure-server.ts";
import { errorMessage } from "../errors/expected-error.ts";

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export type AuthenticationResult = { user: UserInfo } | { rejected: string };

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

/** Every authenticated user is in this group; the API server's answers include it, certificates do not. */
const AUTHENTICATED_GROUP = "system:authenticated";

export class DelegatedAuthenticator {
  private readonly answers: AnswerCache<AuthenticationResult>;
  // Random per process, so a cache key reveals nothing about the token.
  private readonly hashKey = randomBytes(32);

  constructor(
    private readonly rest: RestClient,
    cacheTtlMs: number,
  ) {
    this.answers = new AnswerCache({ ttlMs: reviewTtl(() => cacheTtlMs) });
  }

  async authenticate(request: Request, peer: PeerIdentity | undefined): Promise<AuthenticationResult> {
    if (peer) return { user: { username: peer.commonName, groups: withAuthenticatedGroup(peer.organizations) } };
    const token = bearerToken(request.headers.get("authorization"));
    if (token === undefined) return { rejected: "no client certificate and no bearer token" };
    const key = createHmac("sha256", this.hashKey).update(token).digest("base64");
    try {
      return await this.answers.get(key, () => this.review(token));
    } catch (err) {
      return { rejected: `the TokenReview failed: ${errorMessage(err)}` };
    }
  }

  private async review(token: string): Promise<AuthenticationResult> {
    const review = await postReview<{ status?: TokenReviewStatus }>(this.rest, "/apis/authentication.k8s.io/v1/tokenreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenReview",
      spec: { token },
    });
    const status = review.status ?? {};
    if (!status.authenticated || !status.user?.username) {
      return { rejected: `the API server did not accept the token${status.error ? `: ${status.error}` : ""}` };
    }
    const { username, uid, groups, extra } = status.user;
    return { user: { username, groups: withAuthenticatedGroup(groups ?? []), ...(uid ? { uid } : {}), ...(extra ? { extra } : {}) } };
  }
}

/** The token of an `Authorization: Bearer <token>` header, as the apiserver library reads it. */
function bearerToken(header: string | null): string | undefined {
  const [scheme, token] = (header ?? "").trim().split(" ", 2);
  if (scheme?.toLowerCase() !== "bearer" || !token) return undefined;
  return token;
}

function withAuthenticatedGroup(groups: readonly string[]): string[] {
  return groups.includes(AUTHENTICATED_GROUP) ? [...groups] : [...groups, AUTHENTICATED_GROUP];
}
