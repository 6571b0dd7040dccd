// The fault proxy's share of the soak's faults, dealt beside the process faults (ChaosMonkey):
// for a window at a time, every running replica's RequestFaultProxy answers badly. Requests get
// a 429 with Retry-After: 1, a 500 or a 503 with a Status body, or an answer 5-10 s late (15 %
// of them); watches (30 % of those open or opened in the window) are cut inside an event,
// stalled, or get a line that is not JSON (a corrupt frame on a protobuf watch). The kinds come
// from a shuffled deck of their own, so a short run sees each. A window counts as a fault only
// when it faulted at least one request; how many it faulted is counted too.
import { realClock } from "../../pkg/clock/clock.ts";
import { anyRequest, type FaultWindow, type RequestFault, watchRequests, type WatchWire } from "../../test/support/request-fault-proxy.ts";
import { FaultPacer } from "./fault-pacer.ts";
import type { SeededRandom } from "./seeded-random.ts";
import type { ProxyChaosOptions } from "./soak-options.ts";
import type { SoakFleet } from "./soak-fleet.ts";
import type { SoakTally } from "./soak-tally.ts";

type ProxyFault = "429" | "500" | "503" | "delay" | "watch-cut" | "watch-stall" | "watch-garbage";

const kinds: readonly ProxyFault[] = ["429", "500", "503", "delay", "watch-cut", "watch-stall", "watch-garbage"];

/** Shares of requests (answer faults) and of watches (watch faults) a window picks (bench/README.md, soak.ts). */
const requestShare = 0.15;
const watchShare = 0.3;
const delayMs = { min: 5_000, max: 10_000 };

/** How each fault is named in the report, by the wire of the watch it was dealt to (none: a request fault, or a window that faulted nothing). */
function label(fault: ProxyFault, wire?: WatchWire): string {
  const on = wire === "protobuf" ? " (protobuf)" : wire === "json" ? " (JSON)" : "";
  switch (fault) {
    case "429":
      return "proxy: 429 Retry-After 1";
    case "500":
    case "503":
      return `proxy: ${fault} Status`;
    case "delay":
      return "proxy: answer 5-10 s late";
    case "watch-cut":
      return `proxy: watch cut ${wire === "protobuf" ? "mid-frame" : wire === "json" ? "mid-line" : "mid-event"}${on}`;
    case "watch-stall":
      return `proxy: watch stalled${on}`;
    case "watch-garbage":
      return `proxy: ${wire === "protobuf" ? "corrupt frame" : wire === "json" ? "garbage line" : "garbage"} in a watch${on}`;
  }
}

export class ProxyChaos {
  readonly #pacer: FaultPacer<ProxyFault>;

  constructor(
    private readonly fleet: SoakFleet,
    private readonly random: SeededRandom,
    private readonly tally: SoakTally,
    private readonly options: ProxyChaosOptions,
  ) {
    this.#pacer = new FaultPacer(random, options.meanGapMs, () => [...kinds]);
  }

  /** Monotonic ms when the last window closed (and every delayed request went on). */
  get lastFaultEndedAt(): number {
    return this.#pacer.lastFaultEndedAt;
  }

  /** Deals windows until `signal` aborts, which closes the window in progress. */
  run(signal: AbortSignal): Promise<void> {
    return this.#pacer.run(signal, (fault) => this.#deal(fault, signal));
  }

  /** One window on every running replica; the soak's end closes it early (delayed requests go on at once). */
  async #deal(fault: ProxyFault, signal: AbortSignal): Promise<void> {
    const isWatchFault = fault.startsWith("watch-");
    const share = isWatchFault ? watchShare : requestShare;
    const windows: FaultWindow[] = [];
    // The first request (or watch) a window sees is always picked, so a quiet window still deals its kind.
    let picked = 0;
    const pick = () => {
      const yes = picked === 0 || this.random.chance(share);
      if (yes) picked++;
      return yes;
    };
    const match = isWatchFault ? watchRequests : anyRequest;
    for (const replica of this.fleet.running) windows.push(replica.faultProxy.openFaultWindow({ match, fault: this.#requestFault(fault), pick }));
    const { min, max } = this.options.watchStallMs;
    await realClock.sleep(fault === "watch-stall" ? this.random.int(min, max) : this.options.windowMs, signal).catch(() => undefined);
    await Promise.all(windows.map((window) => window.close(signal.aborted)));
    const hits = new Map<string, number>();
    for (const window of windows) {
      for (const [as, count] of window.hits) {
        const name = label(fault, as === "request" ? undefined : as);
        hits.set(name, (hits.get(name) ?? 0) + count);
      }
    }
    if (hits.size === 0) return this.tally.faultSkipped(label(fault), "no request to fault in the window");
    for (const [name, count] of hits) this.tally.fault(name, count);
  }

  #requestFault(fault: ProxyFault): RequestFault {
    switch (fault) {
      case "429":
      case "500":
      case "503":
        return { kind: "status", code: Number(fault) as 429 | 500 | 503 };
      case "delay":
        return { kind: "delay", delayMs: () => this.random.int(delayMs.min, delayMs.max) };
      case "watch-cut":
        return { kind: "cut-watch" };
      case "watch-stall":
        return { kind: "stall-watch" };
      case "watch-garbage":
        return { kind: "garbage-watch" };
    }
  }
}
