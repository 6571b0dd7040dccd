import { describe, expect, test } from "bun:test";
import { createKubeClient } from "../kube/client.ts";
import type { ClientConfig } from "../kube/client-config.ts";
import { isNotFound } from "../kube/errors.ts";
import type { KubeEvent } from "./event.ts";
import { KubeEventSink } from "./kube-event-sink.ts";

interface SentRequest {
  method: string;
  url: string;
  contentType: string | null;
  body: unknown;
}

const config: ClientConfig = {
  server: "https://apiserver.test",
  tls: {},
  authenticate: async () => ({}),
  namespace: "default",
  source: "test",
};

async function sinkAnswering(status: number, body: unknown) {
  const sent: SentRequest[] = [];
  const client = await createKubeClient(config, {
    qps: 0,
    burst: 0,
    timeoutMs: 1_000,
    fetch: async (url, init) => {
      const headers = new Headers(init.headers);
      sent.push({ method: init.method ?? "GET", url, contentType: headers.get("content-type"), body: JSON.parse(String(init.body)) });
      return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    },
  });
  return { sink: new KubeEventSink(client), sent };
}

const event: KubeEvent = {
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name: "web-1.18ea33d744a1bec0", namespace: "shop" },
  eventTime: "2026-11-21T23:40:01.123000Z",
  reportingController: "kube-loom",
  reportingInstance: "host-1",
  type: "Normal",
  reason: "Synced",
  action: "Sync",
  note: "ok",
  regarding: { apiVersion: "v1", kind: "Pod", namespace: "shop", name: "web-1" },
};

describe("KubeEventSink", () => {
  test("creates Events in their namespace through events.k8s.io/v1", async () => {
    const { sink, sent } = await sinkAnswering(201, event);
    await sink.create(event);
    expect(sent).toEqual([
      { method: "POST", url: "https://apiserver.test/apis/events.k8s.io/v1/namespaces/shop/events", contentType: "application/json", body: event },
    ]);
  });

  test("writes a series as a merge patch", async () => {
    const { sink, sent } = await sinkAnswering(200, event);
    const patch = { series: { count: 3, lastObservedTime: "2026-11-21T23:41:01.123000Z" } };
    await sink.patch(event, patch);
    expect(sent).toEqual([
      {
        method: "PATCH",
        url: "https://apiserver.test/apis/events.k8s.io/v1/namespaces/shop/events/web-1.18ea33d744a1bec0",
        contentType: "application/merge-patch+json",
        body: patch,
      },
    ]);
  });

  test("a missing Event rejects with a 404 ApiError", async () => {
    const status = { kind: "Status", status: "Failure", reason: "NotFound", code: 404, message: "not found" };
    const { sink } = await sinkAnswering(404, status);
    const failure = sink.patch({ ...event, metadata: { namespace: "shop", name: "gone" } }, { series: { count: 2, lastObservedTime: "2026-11-21T23:41:01.123000Z" } });
    expect(await failure.then(() => undefined, (err: unknown) => err)).toSatisfy(isNotFound);
  });
});
