// States recorded from an audit log, each in force from the moment its write was stored: kept in
// that order (the log is in completion order, which can differ slightly), and looked up as of
// the moment a later request arrived.

export interface TimedState {
  /** When the write that started this state was stored (epoch µs). */
  sinceMicros: number;
}

/** Inserts `state` into `timeline`, kept ordered by sinceMicros. */
export function insertInOrder<T extends TimedState>(timeline: T[], state: T): void {
  let index = timeline.length;
  while (index > 0 && (timeline[index - 1]?.sinceMicros ?? 0) > state.sinceMicros) index--;
  timeline.splice(index, 0, state);
}

/** The state in force at `micros`: the last one that started at or before it. */
export function stateAt<T extends TimedState>(timeline: readonly T[], micros: number): T | undefined {
  let low = 0;
  let high = timeline.length - 1;
  let found: T | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const state = timeline[middle];
    if (state && state.sinceMicros <= micros) {
      found = state;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}
