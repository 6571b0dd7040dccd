// The HTTPS request path: always-allowed paths (the probes) go straight to the endpoints;
// every other request is authenticated (401 if nobody), then authorized (403 if not allowed,
// 500 if the API server could not be asked, as the apiserver library answers), and only then
// served, without its Authorization header.
//
// Unlike kube-controller-manager, always-allowed paths skip authentication as well, so a probe
// never waits on the API server; and a request without credentials is refused with 401 at once
// instead of being reviewed as system:anonymous.
import type { Logger } from "../log/logger.ts";
import { statusResponse } from "./api-status.ts";
import type { DelegatedAuthenticator } from "./delegated-authentication.ts";
import type { AuthorizationDecision, DelegatedAuthorizer } from "./delegated-authorization.ts";
import type { PeerAwareHandler } from "./secure-server.ts";
import type { FetchHandler } from "./serve.ts";
import { errorMessage } from "../errors/expected-error.ts";

export interface Guards {
  authenticator: DelegatedAuthenticator;
  authorizer: DelegatedAuthorizer;
  logger: Logger;
}

export function guardedHandler(serveEndpoints: FetchHandler, { authenticator, authorizer, logger }: Guards): PeerAwareHandler {
  return async (request, peer) => {
    const path = new URL(request.url).pathname;
    if (authorizer.isAlwaysAllowed(path)) return serveEndpoints(withoutCredentials(request));

    const authentication = await authenticator.authenticate(request, peer);
    if ("rejected" in authentication) {
      logger.debug({ path, reason: authentication.rejected }, "HTTPS request not authenticated");
      return statusResponse(401, "Unauthorized", "Unauthorized");
    }
    const { user } = authentication;
    const verb = request.method.toLowerCase();
    let decision: AuthorizationDecision;
    try {
      decision = await authorizer.authorize(user, path, verb);
    } catch (err) {
      const message = errorMessage(err);
      logger.warn({ path, user: user.username, err: message }, "cannot authorize an HTTPS request: the SubjectAccessReview failed");
      return new Response(`Internal Server Error: ${JSON.stringify(path)}: ${message}\n`, {
        status: 500,
        headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
      });
    }
    if (!decision.allowed) {
      const refusal = `forbidden: User ${JSON.stringify(user.username)} cannot ${verb} path ${JSON.stringify(path)}`;
      return statusResponse(403, "Forbidden", decision.reason ? `${refusal}: ${decision.reason}` : refusal);
    }
    return serveEndpoints(withoutCredentials(request));
  };
}

/** The endpoints never need the caller's token; like the API server, do not hand it on. */
function withoutCredentials(request: Request): Request {
  if (!request.headers.has("authorization")) return request;
  const headers = new Headers(request.headers);
  headers.delete("authorization");
  return new Request(request.url, { method: request.method, headers });
}
