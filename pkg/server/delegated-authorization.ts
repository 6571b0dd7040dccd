// Whether a user may do this to this path, decided as kube-controller-manager's delegating
// authorizer decides it: system:masters may do anything, the --authorization-always-allow-paths
// need nobody, and everything else is a SubjectAccessReview with non-resource attributes (the
// path and the lower-cased HTTP method as verb), whose answer is cached for the authorized or
// unauthorized TTL.
import type { RestClient } from "../kube/rest-client.ts";
import { AnswerCache } from "./answer-cache.ts";
import type { UserInfo } from "./delegated-authentication.ts";
import { postReview, reviewTtl } from "./delegated-review.ts";

export type AuthorizationDecision = { allowed: true } | { allowed: false; reason: string };

export interface DelegatedAuthorizerOptions {
  alwaysAllowPaths: readonly string[];
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

interface SubjectAccessReviewStatus {
  allowed?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** The API server lets this group do anything, so asking it would only cost a request. */
const PRIVILEGED_GROUP = "system:masters";

export class DelegatedAuthorizer {
  private readonly answers: AnswerCache<AuthorizationDecision>;
  private readonly exactPaths: Set<string>;
  private readonly pathPrefixes: string[];

  constructor(
    private readonly rest: RestClient,
    options: DelegatedAuthorizerOptions,
  ) {
    this.answers = new AnswerCache({
      ttlMs: reviewTtl((decision) => (decision.allowed ? options.authorizedTtlMs : options.unauthorizedTtlMs)),
    });
    // Matched without the leading "/", which is optional in the flag.
    const paths = options.alwaysAllowPaths.map((path) => path.replace(/^\//, ""));
    this.exactPaths = new Set(paths.filter((path) => !path.endsWith("*")));
    this.pathPrefixes = paths.filter((path) => path.endsWith("*")).map((path) => path.slice(0, -1));
  }

  /** Paths served to anyone, with neither authentication nor authorization. */
  isAlwaysAllowed(path: string): boolean {
    const relative = path.replace(/^\//, "");
    return this.exactPaths.has(relative) || this.pathPrefixes.some((prefix) => relative.startsWith(prefix));
  }

  /** Throws when the API server could not be asked. */
  async authorize(user: UserInfo, path: string, verb: string): Promise<AuthorizationDecision> {
    if (user.groups.includes(PRIVILEGED_GROUP) || this.isAlwaysAllowed(path)) return { allowed: true };
    const spec = {
      nonResourceAttributes: { path, verb },
      user: user.username,
      groups: user.groups,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.extra ? { extra: user.extra } : {}),
    };
    return this.answers.get(JSON.stringify(spec), () => this.review(spec));
  }

  private async review(spec: object): Promise<AuthorizationDecision> {
    const review = await postReview<{ status?: SubjectAccessReviewStatus }>(this.rest, "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec,
    });
    const status = review.status ?? {};
    if (status.allowed) return { allowed: true };
    return { allowed: false, reason: status.reason ?? status.evaluationError ?? "" };
  }
}
