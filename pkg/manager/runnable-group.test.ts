import { describe, expect, test } from "bun:test";
import type { CacheSyncSource } from "../informer/wait-for-cache-sync.ts";
import { silentLogger } from "../log/logger.ts";
import { HealthCheckSet } from "../endpoints/health.ts";
import type { Runnable } from "./runnable.ts";
import { RunnableGroup } from "./runnable-group.ts";

function cache(name: string): CacheSyncSource & { synced: boolean } {
  return { name, synced: false, lastListError: undefined, hasSynced() { return this.synced; } };
}

function recording(name: string, started: string[], extra: Partial<Runnable> = {}): Runnable {
  return { name, ...extra, start: async () => void started.push(name) };
}

function group() {
  const endpoints = { healthz: new HealthCheckSet(), livez: new HealthCheckSet(), debugRoutes: [] };
  return { endpoints, runnables: new RunnableGroup(endpoints, silentLogger) };
}

describe("RunnableGroup", () => {
  test("runs the runnables that need leadership only when asked for the leading group, the others only in the other", async () => {
    const { runnables } = group();
    const started: string[] = [];
    runnables.register([recording("controller", started), recording("warmer", started, { needsLeaderElection: false })]);
    await runnables.run(false, new AbortController().signal, new AbortController().signal);
    expect(started).toEqual(["warmer"]);
    await runnables.run(true, new AbortController().signal, new AbortController().signal);
    expect(started).toEqual(["warmer", "controller"]);
  });

  test("readiness: fails before anything is registered, then until every declared cache has synced", () => {
    const { runnables } = group();
    const check = runnables.readinessCheck();
    expect(() => check.check()).toThrow("controllers not built yet");
    const pods = cache("pods.v1");
    runnables.register([recording("a", [], { caches: [pods] }), recording("b", [], { caches: [pods] })]);
    expect(() => check.check()).toThrow("informers not synced: pods.v1");
    pods.synced = true;
    expect(() => check.check()).not.toThrow();
  });

  test("a runnable's health checks join /healthz and /livez, listed by name whatever the registration order", () => {
    const { endpoints, runnables } = group();
    const ok = () => undefined;
    runnables.register([recording("z", [], { healthChecks: [{ name: "z", check: ok }] }), recording("a", [], { healthChecks: [{ name: "a", check: ok }] })]);
    expect(endpoints.healthz.list().map((c) => c.name)).toEqual(["a", "z"]);
    expect(endpoints.livez.list().map((c) => c.name)).toEqual(["a", "z"]);
  });
});
