import { describe, expect, test } from "bun:test";
import type { CacheSyncSource } from "../informer/wait-for-cache-sync.ts";
import { silentLogger } from "../log/logger.ts";
import { HealthCheckSet } from "../endpoints/health.ts";
import { RunnableGroup } from "./runnable-group.ts";

const pods: CacheSyncSource = { name: "pods.v1", lastListError: undefined, hasSynced: () => false };
const never = new AbortController().signal;

function standby(warmStandby: boolean): RunnableGroup {
  const group = new RunnableGroup({ healthz: new HealthCheckSet(), livez: new HealthCheckSet(), debugRoutes: [] }, silentLogger, { warmStandby });
  group.register([{ name: "controller", caches: [pods], start: async () => undefined }]);
  return group;
}

describe("RunnableGroup readiness on a standby", () => {
  test("warm standby: not ready until the caches have synced, leading or not", () => {
    expect(() => standby(true).readinessCheck().check()).toThrow("informers not synced: pods.v1");
  });

  test("no warm standby: ready while standing by (no informer runs), then judged on its caches once leading", async () => {
    const group = standby(false);
    const check = group.readinessCheck();
    expect(() => check.check()).not.toThrow();
    await group.run(true, never, never);
    expect(() => check.check()).toThrow("informers not synced: pods.v1");
  });
});
