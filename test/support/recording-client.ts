// A KubeClient for unit tests whose API server is a function: every request is recorded (method,
// path with query, content type, parsed body) and answered by `answer`, so a test can check
// exactly what a helper sends and how it takes each reply.
import type { ClientConfig } from "../../pkg/kube/client-config.ts";
import { createKubeClient, type KubeClient } from "../../pkg/kube/client.ts";

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. "/api/v1/namespaces/a/configmaps/x?fieldManager=m". */
  path: string;
  contentType: string | null;
  body: unknown;
}

export interface Reply {
  status: number;
  body: unknown;
}

const config: ClientConfig = { server: "https://apiserver.test", tls: {}, authenticate: async () => ({}), namespace: "default", source: "test" };

/** Answers 200 with the request's own body (what a PATCH returns is close enough for most tests). */
export const echo = (request: RecordedRequest): Reply => ({ status: 200, body: request.body ?? {} });

/** An API error reply, as the API server shapes it. */
export function statusReply(code: number, reason: string): Reply {
  return { status: code, body: { kind: "Status", apiVersion: "v1", status: "Failure", reason, code, message: `${reason.toLowerCase()} (test)` } };
}

export async function recordingClient(answer: (request: RecordedRequest) => Reply = echo): Promise<{ client: KubeClient; sent: RecordedRequest[] }> {
  const sent: RecordedRequest[] = [];
  const client = await createKubeClient(config, {
    qps: 0,
    burst: 0,
    timeoutMs: 1_000,
    fetch: async (url, init) => {
      const request = {
        method: init.method ?? "GET",
        path: url.slice(config.server.length),
        contentType: new Headers(init.headers).get("content-type"),
        body: init.body === undefined || init.body === null ? undefined : JSON.parse(String(init.body)),
      };
      sent.push(request);
      const reply = answer(request);
      return new Response(JSON.stringify(reply.body), { status: reply.status, headers: { "content-type": "application/json" } });
    },
  });
  return { client, sent };
}
