import { describe, expect, test } from "bun:test";
import type { EventRecorder } from "../events/recorder.ts";
import { NotLeadingError } from "../leaderelection/leader-elector.ts";
import { obj } from "../../test/support/objects.ts";
import { leaderOnlyEvents } from "./leader-only-events.ts";

describe("leaderOnlyEvents", () => {
  test("passes Events on while this process leads and drops them while it does not", () => {
    const reasons: string[] = [];
    const recorder: EventRecorder = { eventf: (_regarding, _related, _type, reason) => void reasons.push(reason) };
    let leading = false;
    const events = leaderOnlyEvents(recorder, () => {
      if (!leading) throw new NotLeadingError("standby");
    });
    events.eventf(obj("ns/a"), undefined, "Warning", "WhileStandby", "Observe", "dropped");
    leading = true;
    events.eventf(obj("ns/a"), undefined, "Normal", "WhileLeading", "Observe", "sent");
    expect(reasons).toEqual(["WhileLeading"]);
  });
});
