import { expect, test } from "bun:test";
import { FakeClock } from "../clock/fake-clock.ts";
import { LeaseCandidates } from "./lease-candidates.ts";

test("candidates: this process always, and every holder seen, with when it was first and last seen holding", async () => {
  const clock = new FakeClock();
  const start = clock.now();
  const candidates = new LeaseCandidates("me", clock);
  expect(candidates.list()).toEqual([{ identity: "me", self: true, holding: false, firstSeenHolding: undefined, lastSeenHolding: undefined }]);

  candidates.holderChanged("other");
  await clock.advance(10_000);
  candidates.holderChanged("");
  await clock.advance(1_000);
  candidates.holderChanged("me");
  await clock.advance(5_000);

  expect(candidates.list()).toEqual([
    { identity: "me", self: true, holding: true, firstSeenHolding: start + 11_000, lastSeenHolding: start + 16_000 },
    { identity: "other", self: false, holding: false, firstSeenHolding: start, lastSeenHolding: start + 10_000 },
  ]);
});
