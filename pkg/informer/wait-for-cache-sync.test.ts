import { describe, expect, test } from "bun:test";
import pino from "pino";
import { FakeClock } from "../clock/fake-clock.ts";
import { describeUnsynced, waitForNamedCacheSync, type CacheSyncSource } from "./wait-for-cache-sync.ts";

function source(name: string): CacheSyncSource & { synced: boolean; lastListError: unknown } {
  return { name, synced: false, lastListError: undefined, hasSynced() { return this.synced; } };
}

function capturingLogger() {
  const lines: { msg: string; waitingFor?: string[] }[] = [];
  return { lines, logger: pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) }) };
}

describe("waitForNamedCacheSync", () => {
  test("waits with no time limit, says every 30 s what for and why, and resolves once all have synced", async () => {
    const clock = new FakeClock();
    const { lines, logger } = capturingLogger();
    const pods = source("pods.v1");
    const replicaSets = source("replicasets.v1.apps");
    replicaSets.synced = true;
    pods.lastListError = new Error('pods is forbidden: User "x" cannot list resource "pods"');
    let result: boolean | undefined;
    void waitForNamedCacheSync("replicaset", [replicaSets, pods], new AbortController().signal, { clock, logger }).then((r) => (result = r));

    await clock.advance(10 * 60_000);
    expect(result).toBeUndefined();
    expect(lines).toHaveLength(20);
    expect(lines[0]?.waitingFor).toEqual(['pods.v1 (last error: pods is forbidden: User "x" cannot list resource "pods")']);

    pods.synced = true;
    await clock.advance(100);
    expect(result).toBe(true);
  });

  test("an abort ends the wait with false", async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    let result: boolean | undefined;
    void waitForNamedCacheSync("x", [source("a")], stop.signal, { clock }).then((r) => (result = r));
    await clock.advance(1_000);
    stop.abort();
    await clock.advance(100);
    expect(result).toBe(false);
  });

  test("a source never listed says so", () => {
    expect(describeUnsynced([source("configmaps.v1")])).toEqual(["configmaps.v1 (not listed yet)"]);
  });
});
