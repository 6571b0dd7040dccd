import { expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { WritesInFlight } from "./writes-in-flight.ts";

const leaseMs = 8_000;

test("a leader stepping down hands over only once every write it sent was answered", async () => {
  const clock = new FakeClock();
  const writes = new WritesInFlight(clock);
  expect(await writes.allAnswered(6_000, leaseMs)).toBe(true);
  const first = writes.started();
  const second = writes.started();
  let verdict: boolean | undefined;
  void writes.allAnswered(6_000, leaseMs).then((answered) => (verdict = answered));
  first(true);
  await clock.advance(100);
  expect(verdict).toBeUndefined();
  second(true);
  second(false); // told twice: counted once
  await clock.advance(0);
  expect(verdict).toBe(true);
});

test("a write still out at the deadline, or one that got no answer lately, keeps the Lease until it expires", async () => {
  const clock = new FakeClock();
  const writes = new WritesInFlight(clock);
  writes.started();
  let verdict: boolean | undefined;
  void writes.allAnswered(6_000, leaseMs).then((answered) => (verdict = answered));
  await clock.advance(6_000);
  expect(verdict).toBe(false);

  const quiet = new WritesInFlight(clock);
  quiet.started()(false);
  expect(await quiet.allAnswered(6_000, leaseMs)).toBe(false);
  await clock.advance(leaseMs + 1);
  expect(await quiet.allAnswered(6_000, leaseMs)).toBe(true);
});
