// Makes every informer relist, the way a real cluster makes them: kube-apiserver restarts and
// the resourceVersions its clients resume from have gone. While it is down, one write straight to
// etcd moves the store's revision past anything a client has seen and a compaction drops the
// history, so the new watch cache (which starts at the revision it lists at) and etcd itself both
// answer a watch from an old resourceVersion with 410 Gone, and the client has to list again.
import type { KubeClient } from "../../pkg/kube/client.ts";
import { isResourceExpired } from "../../pkg/kube/errors.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { ControlPlane } from "../../test/controlplane/control-plane.ts";

/** Restarts kube-apiserver with every older resourceVersion expired; returns once it serves again. */
export async function restartApiserverExpiringWatches(controlPlane: ControlPlane, client: KubeClient): Promise<void> {
  const before = await latestPodResourceVersion(client);
  await controlPlane.stopApiserver({ signal: "SIGTERM" });
  await etcdPut(controlPlane.etcdUrl, "/kube-loom-bench/relist", String(Date.now()));
  await controlPlane.compactEtcd();
  await controlPlane.startApiserver();
  await expectExpired(client, before);
}

async function latestPodResourceVersion(client: KubeClient): Promise<string> {
  const page = await client.dynamic.resource(resources.pods).list({ limit: 1 });
  return page.metadata?.resourceVersion ?? "";
}

async function etcdPut(etcdUrl: string, key: string, value: string): Promise<void> {
  const response = await fetch(`${etcdUrl}/v3/kv/put`, { method: "POST", body: JSON.stringify({ key: btoa(key), value: btoa(value) }) });
  if (!response.ok) throw new Error(`etcd put ${key} failed with HTTP ${response.status}: ${await response.text()}`);
}

/** Proves the mechanism each time: a watch of Pods from the last resourceVersion before the restart gets 410. */
async function expectExpired(client: KubeClient, resourceVersion: string): Promise<void> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 30_000);
  try {
    const events = await client.dynamic.resource(resources.pods).watch({ resourceVersion }, stop.signal);
    for await (const event of events) {
      if (event.type === "ERROR" && event.object.code === 410) return;
      throw new Error(`a watch of Pods from resourceVersion ${resourceVersion} after the restart got ${event.type}, expected 410 Gone`);
    }
  } catch (err) {
    if (isResourceExpired(err)) return;
    throw err;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  throw new Error(`a watch of Pods from resourceVersion ${resourceVersion} after the restart ended without 410 Gone`);
}
