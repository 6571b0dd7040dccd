import { describe, expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import type { KubeEvent } from "./event.ts";
import { EventSpamFilter } from "./spam-filter.ts";

function eventAbout(name: string, reportingController = "kube-loom"): KubeEvent {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: `${name}.1`, namespace: "ns" },
    eventTime: "2026-11-21T23:40:01.123000Z",
    reportingController,
    reportingInstance: "host-1",
    type: "Normal",
    reason: "Synced",
    action: "Sync",
    note: "ok",
    regarding: { apiVersion: "v1", kind: "Pod", namespace: "ns", name, uid: `uid-${name}` },
  };
}

const allowedOf = (filter: EventSpamFilter, event: KubeEvent, times: number) =>
  Array.from({ length: times }, () => filter.allows(event)).filter(Boolean).length;

describe("EventSpamFilter", () => {
  test("allows a burst per source and object, then refills one per interval", async () => {
    const clock = new FakeClock();
    const filter = new EventSpamFilter(clock, { burst: 3, refillIntervalMs: 60_000, maxTrackedObjects: 10 });
    expect(allowedOf(filter, eventAbout("a"), 5)).toBe(3);
    expect(allowedOf(filter, eventAbout("b"), 5)).toBe(3);
    expect(allowedOf(filter, eventAbout("a", "other-controller"), 5)).toBe(3);
    await clock.advance(59_999);
    expect(filter.allows(eventAbout("a"))).toBe(false);
    await clock.advance(1);
    expect(allowedOf(filter, eventAbout("a"), 5)).toBe(1);
  });

  test("forgets the least recently used object beyond its capacity", () => {
    const filter = new EventSpamFilter(new FakeClock(), { burst: 1, refillIntervalMs: 60_000, maxTrackedObjects: 2 });
    expect(filter.allows(eventAbout("a"))).toBe(true);
    expect(filter.allows(eventAbout("b"))).toBe(true);
    expect(filter.allows(eventAbout("a"))).toBe(false);
    expect(filter.allows(eventAbout("c"))).toBe(true); // evicts b, the least recently used
    expect(filter.allows(eventAbout("a"))).toBe(false);
    expect(filter.allows(eventAbout("b"))).toBe(true);
  });
});
