// The connection TokenReviews and SubjectAccessReviews go over: --authentication-kubeconfig or
// --authorization-kubeconfig when given, else kube-loom's own connection. Either way with its own
// rate limit (the apiserver library's 200/s, burst 400), so reviews never wait behind the
// controllers' requests, nor they behind a flood of scrapes.
import { loadClientConfig } from "../kube/client-config.ts";
import { createKubeClient, type KubeClient, withRateLimit } from "../kube/client.ts";
import type { RestClient } from "../kube/rest-client.ts";
import { REVIEW_TIMEOUT_MS } from "./delegated-review.ts";

const REVIEW_QPS = 200;
const REVIEW_BURST = 400;
const COMPONENT = "delegated-auth";

export async function delegatedClient(kubeconfig: string | undefined, processClient: KubeClient): Promise<RestClient> {
  if (kubeconfig === undefined) return withRateLimit(processClient, REVIEW_QPS, REVIEW_BURST, COMPONENT).rest;
  const client = await createKubeClient(loadClientConfig({ kubeconfig }), {
    qps: REVIEW_QPS,
    burst: REVIEW_BURST,
    timeoutMs: REVIEW_TIMEOUT_MS,
    program: processClient.program,
    component: COMPONENT,
  });
  return client.rest;
}
