// Refusals in the shape the API server and kube-controller-manager send them: a v1 Status
// object, so clients that understand Kubernetes errors read ours the same way.

export function statusResponse(code: 401 | 403, reason: "Unauthorized" | "Forbidden", message: string): Response {
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    // The forbidden answer names the (empty) resource it concerns; the unauthorized one does not.
    ...(code === 403 ? { details: {} } : {}),
    code,
  };
  return new Response(`${JSON.stringify(status)}\n`, {
    status: code,
    headers: { "Content-Type": "application/json", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache, private" },
  });
}
