// One review sent to the API server on behalf of an HTTPS request (TokenReview or
// SubjectAccessReview), with the limits that keep a slow or absent API server from holding
// requests: one attempt under a short timeout, and the failure remembered for a moment.
import type { RestClient } from "../kube/rest-client.ts";
import type { Outcome } from "./answer-cache.ts";

/**
 * The apiserver library waits up to 10 s per review and retries with backoff; a Prometheus
 * scrape (10 s by default) would time out first, so kube-loom gives up sooner and answers.
 */
export const REVIEW_TIMEOUT_MS = 5_000;

/** How long a failed review is remembered, so requests during an outage fail fast. */
const FAILED_REVIEW_TTL_MS = 1_000;

/** The cache lifetime of a review's outcome: `answered(value)` for an answer, FAILED_REVIEW_TTL_MS for a failure. */
export function reviewTtl<T>(answered: (value: T) => number): (outcome: Outcome<T>) => number {
  return (outcome) => (outcome.ok ? answered(outcome.value) : FAILED_REVIEW_TTL_MS);
}

/** POSTs a review object to `path` and returns the API server's copy, whose status holds the answer. */
export function postReview<T>(rest: RestClient, path: string, review: object): Promise<T> {
  return rest.request<T>({ method: "POST", path, body: review, timeoutMs: REVIEW_TIMEOUT_MS });
}
