import { describe, expect, test } from "bun:test";
import { OwnWrites, StaleCacheError, type LastSyncedVersion } from "./own-writes.ts";

const pods = { group: "", resource: "pods" };
const replicaSets = { group: "apps", resource: "replicasets" };

class FakeCache implements LastSyncedVersion {
  constructor(public version: string) {}
  lastStoreSyncResourceVersion(): string {
    return this.version;
  }
}

function setUp(podVersion = "100", replicaSetVersion = "100") {
  const podCache = new FakeCache(podVersion);
  const replicaSetCache = new FakeCache(replicaSetVersion);
  const writes = new OwnWrites([
    { ...pods, cache: podCache },
    { ...replicaSets, cache: replicaSetCache },
  ]);
  return { podCache, replicaSetCache, writes };
}

function staleness(writes: OwnWrites, owner: string): StaleCacheError | undefined {
  try {
    writes.ensureCaughtUp(owner);
    return undefined;
  } catch (err) {
    if (err instanceof StaleCacheError) return err;
    throw err;
  }
}

describe("OwnWrites", () => {
  test("a sync waits until the cache has applied the owner's own write", () => {
    const { podCache, writes } = setUp();
    writes.wroteAt("ns/web", "u1", pods, "105");
    const stale = staleness(writes, "ns/web");
    expect(stale).toMatchObject({ resource: pods, wroteVersion: "105", readVersion: "100" });
    expect(stale?.message).toBe("cache of pods is at resourceVersion 100, older than this controller's own write at 105");
    podCache.version = "105";
    expect(staleness(writes, "ns/web")).toBeUndefined();
    // Caught up once: the record is gone, so an older cache (a relist from the watch cache) no longer holds it back.
    podCache.version = "101";
    expect(staleness(writes, "ns/web")).toBeUndefined();
  });

  test("each resource is checked against its own cache; other owners are unaffected", () => {
    const { replicaSetCache, writes } = setUp("200", "100");
    writes.wroteAt("ns/web", "u1", pods, "150");
    writes.wroteAt("ns/web", "u1", replicaSets, "160");
    expect(staleness(writes, "ns/web")?.resource).toEqual(replicaSets);
    expect(staleness(writes, "ns/api")).toBeUndefined();
    replicaSetCache.version = "160";
    expect(staleness(writes, "ns/web")).toBeUndefined();
  });

  test("only the newest write per resource counts", () => {
    const { podCache, writes } = setUp("0");
    writes.wroteAt("ns/web", "u1", pods, "120");
    writes.wroteAt("ns/web", "u1", pods, "110");
    podCache.version = "115";
    expect(staleness(writes, "ns/web")?.wroteVersion).toBe("120");
  });

  test("a write by a new incarnation of the owner replaces the old one's record", () => {
    const { podCache, writes } = setUp("100");
    writes.wroteAt("ns/web", "old", pods, "300");
    writes.wroteAt("ns/web", "new", pods, "105");
    podCache.version = "105";
    expect(staleness(writes, "ns/web")).toBeUndefined();
  });

  test("forget with a UID spares another incarnation's record; without one it forgets whatever is there", () => {
    const { writes } = setUp();
    writes.wroteAt("ns/web", "u1", pods, "500");
    writes.forget("ns/web", "u2");
    expect(staleness(writes, "ns/web")).toBeDefined();
    writes.forget("ns/web", "u1");
    expect(staleness(writes, "ns/web")).toBeUndefined();
    writes.wroteAt("ns/web", "u1", pods, "500");
    writes.forget("ns/web");
    expect(staleness(writes, "ns/web")).toBeUndefined();
  });

  test("a cache that cannot tell its version, or versions that cannot be ordered, hold nothing back", () => {
    const { podCache, writes } = setUp("");
    writes.wroteAt("ns/web", "u1", pods, "500");
    expect(staleness(writes, "ns/web")).toBeUndefined();
    writes.wroteAt("ns/web", "u1", pods, "500");
    podCache.version = "opaque-version";
    expect(staleness(writes, "ns/web")).toBeUndefined();
    writes.wroteAt("ns/web", "u1", pods, "not-a-number");
    podCache.version = "1";
    expect(staleness(writes, "ns/web")).toBeUndefined();
  });

  test("a version that cannot be ordered replaces the recorded one", () => {
    const { podCache, writes } = setUp("100");
    writes.wroteAt("ns/web", "u1", pods, "900");
    writes.wroteAt("ns/web", "u1", pods, "opaque");
    writes.wroteAt("ns/web", "u1", pods, "200");
    podCache.version = "150";
    expect(staleness(writes, "ns/web")?.wroteVersion).toBe("200");
  });
});
