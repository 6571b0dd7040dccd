// Between node:http's request/response objects and the fetch API's, for the servers built on
// node:http (plain HTTP on Node, HTTPS everywhere): the Hono app only speaks fetch.
import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The fetch Request for a node:http request: method, URL and headers. The body is not passed
 * on: every endpoint kube-loom serves is read-only.
 */
export function toFetchRequest(req: IncomingMessage, scheme: "http" | "https", fallbackHost: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const host = req.headers.host ?? fallbackHost;
  return new Request(`${scheme}://${host}${req.url ?? "/"}`, { method: req.method ?? "GET", headers });
}

export async function sendFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(body);
}
