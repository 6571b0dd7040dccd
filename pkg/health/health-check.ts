// One named check behind /healthz, /livez or /readyz. A package of its own so that whatever
// offers a check (the leader elector, a reconcile runner, a controller) depends on this
// interface only, not on the HTTP server that serves it.

/** A check /healthz, /livez or /readyz runs, e.g. a controller's workers not being stuck. */
export interface HealthCheck {
  /** Its subpath, e.g. /healthz/<name>; unique in the process. */
  name: string;
  /** Throws (or rejects) when unhealthy; the message is shown only on the check's own subpath. */
  check(): void | Promise<void>;
}
