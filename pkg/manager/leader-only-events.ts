// The Events a controller records reach the API server only while this process leads: a
// standby's controllers see the same changes as the leader's (their caches are warm), and what
// they would report about them is the leader's to write, as every other write is.
import type { EventRecorder } from "../events/recorder.ts";
import { NotLeadingError } from "../leaderelection/leader-elector.ts";

/** `events`, minus the Events recorded while `assertLeading` throws NotLeadingError: those are dropped. */
export function leaderOnlyEvents(events: EventRecorder, assertLeading: () => void): EventRecorder {
  return {
    eventf(regarding, related, type, reason, action, note) {
      try {
        assertLeading();
      } catch (err) {
        if (err instanceof NotLeadingError) return;
        throw err;
      }
      events.eventf(regarding, related, type, reason, action, note);
    },
  };
}
