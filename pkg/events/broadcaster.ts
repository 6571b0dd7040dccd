// Owns the path from recorders to the API server, like client-go's events.k8s.io broadcaster: recorders drop Events
// into a bounded buffer and return at once; one writer loop drains it, folds repeats into series, applies the old
// correlator's per-object spam filter and writes with a few retries. Every write, series updates included, happens
// in that one loop, so no two writes about the same Event can race.
import { type Clock, type Timer, realClock } from "../clock/clock.ts";
import { ApiError, isAlreadyExists, isNamespaceTerminating, isNotFound } from "../kube/errors.ts";
import { type Logger, silentLogger } from "../log/logger.ts";
import type { KubeEvent } from "./event.ts";
import type { EventSink } from "./event-sink.ts";
import { type EventDropReason, type EventObserver, type EventWrite, noopEventObserver } from "./event-observer.ts";
import {
  type EventDetails,
  type EventRecorder,
  type EventSource,
  EventNameSuffixes,
  defaultReportingController,
  makeEvent,
} from "./recorder.ts";
import { SeriesTracker, type TrackedEvent, seriesOf } from "./series-tracker.ts";
import { EventSpamFilter } from "./spam-filter.ts";

export interface EventBroadcasterOptions {
  sink: EventSink;
  /** reportingInstance of every Event: the manager's identity. */
  reportingInstance: string;
  clock?: Clock;
  logger?: Logger;
  /** Told of every Event recorded, written, folded into a series or dropped: e.g. the status page. */
  observer?: EventObserver;
  /** Events waiting to be written; more are dropped (client-go: maxQueuedEvents). */
  bufferSize?: number;
  /** How often grown series are written. */
  seriesFlushIntervalMs?: number;
  /** Attempts per write before it is given up. */
  maxWriteAttempts?: number;
  /** Wait between attempts, plus up to 25 % jitter so managers do not retry in lockstep. */
  retryDelayMs?: number;
  /** How long `shutdown` may spend writing what is left. */
  shutdownTimeoutMs?: number;
}

const defaultEventBroadcasterOptions = {
  bufferSize: 1000,
  // client-go writes the second observation at once and refreshes every 30 minutes; a 30 s batch keeps
  // counts fresh while costing at most one write per series per interval.
  seriesFlushIntervalMs: 30_000,
  // client-go tries 12 times, 10 s apart; an Event is not worth holding the writer that long.
  maxWriteAttempts: 3,
  retryDelayMs: 2_000,
  shutdownTimeoutMs: 5_000,
} as const;

const retryJitter = 0.25;

interface BufferedEvent {
  event: KubeEvent;
  observedAt: number;
}

type State = "idle" | "running" | "draining" | "stopped";

export class EventBroadcaster {
  private readonly sink: EventSink;
  private readonly reportingInstance: string;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly observer: EventObserver;
  private readonly bufferSize: number;
  private readonly seriesFlushIntervalMs: number;
  private readonly maxWriteAttempts: number;
  private readonly retryDelayMs: number;
  private readonly shutdownTimeoutMs: number;

  private readonly buffer: BufferedEvent[] = [];
  private readonly nameSuffixes = new EventNameSuffixes();
  private readonly series = new SeriesTracker();
  private readonly spamFilter: EventSpamFilter;
  /** Aborted when the shutdown deadline passes: retry waits end and the loop stops. */
  private readonly stopWriting = new AbortController();
  private state: State = "idle";
  private loop: Promise<void> | undefined;
  private wakeLoop: (() => void) | undefined;
  private seriesFlushTimer: Timer | undefined;
  private seriesFlushDue = false;
  private shutdownDone: Promise<void> | undefined;

  constructor(options: EventBroadcasterOptions) {
    const defaults = defaultEventBroadcasterOptions;
    this.sink = options.sink;
    this.reportingInstance = options.reportingInstance;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
    this.observer = options.observer ?? noopEventObserver;
    this.bufferSize = options.bufferSize ?? defaults.bufferSize;
    this.seriesFlushIntervalMs = options.seriesFlushIntervalMs ?? defaults.seriesFlushIntervalMs;
    this.maxWriteAttempts = options.maxWriteAttempts ?? defaults.maxWriteAttempts;
    this.retryDelayMs = options.retryDelayMs ?? defaults.retryDelayMs;
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? defaults.shutdownTimeoutMs;
    this.spamFilter = new EventSpamFilter(this.clock);
  }

  /** A recorder whose Events carry `reportingController`. Usable before `start`: Events wait in the buffer. */
  newRecorder(reportingController: string = defaultReportingController): EventRecorder {
    const source = { reportingController, reportingInstance: this.reportingInstance };
    return {
      eventf: (regarding, related, type, reason, action, note) =>
        this.record({ regarding, related, type, reason, action, note }, source),
    };
  }

  /** Starts the writer loop; `signal` aborting is the same as calling `shutdown`. */
  start(signal?: AbortSignal): void {
    if (this.state !== "idle") return;
    this.state = "running";
    this.loop = this.run().catch((err: unknown) => this.logger.error({ err }, "Event writer stopped unexpectedly"));
    signal?.addEventListener("abort", () => void this.shutdown(), { once: true });
    if (signal?.aborted) void this.shutdown();
  }

  /** Stops taking Events and writes what is buffered (and grown series) for at most the shutdown timeout. */
  shutdown(): Promise<void> {
    this.shutdownDone ??= this.drain();
    return this.shutdownDone;
  }

  private record(details: EventDetails, source: EventSource): void {
    const about = { reason: details.reason, object: details.regarding?.metadata?.name };
    if (this.state === "draining" || this.state === "stopped") return this.drop("shutdown", about);
    if (this.buffer.length >= this.bufferSize) return this.drop("buffer-full", about);
    try {
      const observedAt = this.clock.now();
      const event = makeEvent(details, source, observedAt, this.nameSuffixes.next(observedAt));
      this.buffer.push({ event, observedAt });
      this.observer.recorded(event, observedAt);
      this.wake();
    } catch (err) {
      // Recording must never fail the controller: an object no Event can be built for is dropped instead.
      this.drop("invalid", about, err);
    }
  }

  private drop(reason: EventDropReason, about: { reason: string; object: string | undefined }, err?: unknown): void {
    this.observer.dropped(reason);
    this.logger.debug({ dropReason: reason, eventReason: about.reason, object: about.object, err }, "Dropped event");
  }

  private wake(): void {
    const wakeLoop = this.wakeLoop;
    this.wakeLoop = undefined;
    wakeLoop?.();
  }

  private async run(): Promise<void> {
    while (!this.stopWriting.signal.aborted) {
      if (this.seriesFlushDue) {
        this.seriesFlushDue = false;
        await this.flushSeries();
        this.series.expire(this.clock.now());
        if (this.series.size > 0) this.armSeriesFlush();
        continue;
      }
      const next = this.buffer.shift();
      if (next) {
        await this.process(next);
        continue;
      }
      if (this.state === "draining") {
        await this.flushSeries();
        return;
      }
      await new Promise<void>((resolve) => (this.wakeLoop = resolve));
    }
  }

  private async process({ event, observedAt }: BufferedEvent): Promise<void> {
    if (this.series.countRepeat(event, observedAt)) {
      this.observer.aggregated();
      return;
    }
    // Only new Event objects cost the API server anything, so repeats folded into a series above take no token.
    if (!this.spamFilter.allows(event)) return this.drop("spam-filter", aboutEvent(event));
    this.series.track(event, observedAt);
    this.armSeriesFlush();
    const written = await this.writeWithRetries(event, "create", () => this.sink.create(event), isTransient);
    this.countWrite(written, "create");
  }

  private async flushSeries(): Promise<void> {
    for (const entry of this.series.takeUnwrittenSeries()) {
      if (this.stopWriting.signal.aborted) return;
      const written = await this.writeWithRetries(entry.event, "series", () => this.writeSeries(entry), isTransientOrRace);
      this.countWrite(written, "series");
    }
  }

  private async writeSeries(entry: TrackedEvent): Promise<void> {
    const { event } = entry;
    const series = seriesOf(entry);
    try {
      await this.sink.patch(event, { series });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The Event expired on the server (or its creation failed): write it again, series and all.
      await this.sink.create({ ...event, series });
    }
  }

  private countWrite(written: boolean, write: EventWrite): void {
    if (written) this.observer.written(write);
    else this.observer.dropped("write-failed");
  }

  private async writeWithRetries(
    event: KubeEvent,
    write: EventWrite,
    attempt: () => Promise<void>,
    retryable: (err: unknown) => boolean,
  ): Promise<boolean> {
    const context = { write, event: `${event.metadata.namespace}/${event.metadata.name}`, eventReason: event.reason };
    for (let attempts = 1; ; attempts++) {
      try {
        await attempt();
        return true;
      } catch (err) {
        const retry = retryable(err) && attempts < this.maxWriteAttempts && !this.stopWriting.signal.aborted;
        // A lost Event is worth an error line (client-go logs it so too); a retry is not. Nor is an
        // Event about an object in a namespace being deleted, where nothing new may be created (the
        // controllers' own deletions there are what it reports): client-go's recorder drops it quietly.
        if (!retry) {
          if (isNamespaceTerminating(err)) this.logger.debug({ ...context, err }, "Event refused: its namespace is being deleted");
          else this.logger.error({ ...context, attempts, err }, "Unable to write event, giving up");
          return false;
        }
        this.logger.debug({ ...context, attempts, err }, "Unable to write event, will retry");
      }
      const delay = this.retryDelayMs * (1 + Math.random() * retryJitter);
      try {
        await this.clock.sleep(delay, this.stopWriting.signal);
      } catch {
        return false;
      }
    }
  }

  private armSeriesFlush(): void {
    if (this.seriesFlushTimer || this.state !== "running") return;
    this.seriesFlushTimer = this.clock.setTimer(this.seriesFlushIntervalMs, () => {
      this.seriesFlushTimer = undefined;
      this.seriesFlushDue = true;
      this.wake();
    });
  }

  private async drain(): Promise<void> {
    this.state = "draining";
    this.seriesFlushTimer?.cancel();
    this.seriesFlushTimer = undefined;
    if (this.loop) {
      this.wake();
      const deadline = this.clock.setTimer(this.shutdownTimeoutMs, () =>
        this.stopWriting.abort(new Error("event broadcaster shutdown deadline passed")),
      );
      const deadlinePassed = new Promise<void>((resolve) => this.stopWriting.signal.addEventListener("abort", () => resolve()));
      await Promise.race([this.loop, deadlinePassed]);
      deadline.cancel();
    }
    this.stopWriting.abort(new Error("event broadcaster stopped"));
    this.state = "stopped";
    for (const { event } of this.buffer.splice(0)) this.drop("shutdown", aboutEvent(event));
  }
}

function aboutEvent(event: KubeEvent): { reason: string; object: string | undefined } {
  return { reason: event.reason, object: event.regarding.name };
}

/** Worth another try: no answer at all, throttling, or a server-side failure. Other API errors will not go away. */
function isTransient(err: unknown): boolean {
  return !(err instanceof ApiError) || err.code === 429 || err.code >= 500;
}

/** For series: the Event was recreated between our 404 and our create, so patching it again will work. */
function isTransientOrRace(err: unknown): boolean {
  return isTransient(err) || isAlreadyExists(err);
}
