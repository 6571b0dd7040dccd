// A debug page a controller offers under /debug/controllers/. A package of its own, as the
// health check is, so that a controller or a runnable that offers one depends on this type only,
// not on the HTTP app (pkg/endpoints) that serves it.

/** A read-only debug page under /debug/controllers/<controller>/<path>. */
export interface DebugRoute {
  /** The first path segment after /debug/controllers/, usually the controller's name. */
  controller: string;
  /** The rest of the path, e.g. "graph" or "graph.json". */
  path: string;
  /** Answers a GET; served behind the same authentication and authorization as /metrics. */
  handler(request: Request): Response | Promise<Response>;
}
