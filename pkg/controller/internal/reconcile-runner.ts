// Runs a controller's workers: each takes a key from the rate-limited workqueue, reconciles
// it, and applies controller-runtime's result rules. The workqueue guarantees that a key is
// never reconciled by two workers at once. What the reconciles did is told to an observer; the
// runner keeps only its own state (see ReconcileLoopSnapshot).
import { realClock, type Clock } from "../../clock/clock.ts";
import { errorMessage, isProgrammingError } from "../../errors/expected-error.ts";
import type { Logger } from "../../log/logger.ts";
import type { HealthCheck } from "../../health/health-check.ts";
import type { NamespaceOwnership } from "../../shardelection/namespace-ownership.ts";
import type { RateLimitingQueue } from "../../workqueue/rate-limiting-queue.ts";
import type { ReconcileLoopSnapshot, ReconcileLoopState } from "../reconcile-loop-snapshot.ts";
import { noopReconcileObserver, type ReconcileObserver, type ReconcileOutcome } from "../reconcile-observer.ts";
import { TerminalError, type Reconciler } from "../reconciler.ts";

const noWorkToEnd = () => undefined;

export interface ReconcileRunnerOptions<K> {
  name: string;
  queue: RateLimitingQueue<K>;
  reconciler: Reconciler<K>;
  workers: number;
  logger: Logger;
  /**
   * Told of every reconcile and of the workers: in kube-loom the reconcile metrics and the status
   * page's activity together (combinedReconcileObserver).
   */
  observer?: ReconcileObserver;
  clock?: Clock;
  /** A reconcile running longer than this makes the health check fail (a wedged worker). */
  wedgedAfterMs?: number;
  /** As one member of a shard ring: which keys this process reconciles now, by their namespace. */
  sharding?: { ownership: NamespaceOwnership; namespaceOf: (key: K) => string } | undefined;
}

export class ReconcileRunner<K> {
  private readonly clock: Clock;
  private readonly observer: ReconcileObserver;
  private readonly wedgedAfterMs: number;
  /** Start time of each reconcile in flight, by worker. */
  private readonly inFlight = new Map<number, { key: K; since: number }>();
  private state: ReconcileLoopState = "idle";
  /** Keys of namespaces this process is about to own: queued again once it does. */
  private readonly parked = new Set<K>();

  constructor(private readonly options: ReconcileRunnerOptions<K>) {
    this.clock = options.clock ?? realClock;
    this.observer = options.observer ?? noopReconcileObserver;
    this.wedgedAfterMs = options.wedgedAfterMs ?? 10 * 60_000;
  }

  /**
   * Runs the workers until `stop` aborts, then stops taking new keys and resolves once the
   * reconciles in flight have finished. `abort` is handed to reconciles for an immediate stop.
   */
  async run(stop: AbortSignal, abort: AbortSignal = stop): Promise<void> {
    const { queue, workers, name } = this.options;
    this.state = "running";
    this.observer.setMaxConcurrentReconciles(name, workers);
    // Shutting the queue down wakes the workers blocked in get().
    const onStop = () => queue.shutDown();
    stop.addEventListener("abort", onStop, { once: true });
    if (stop.aborted) onStop();
    const unsubscribe = this.options.sharding?.ownership.onChange(() => this.unpark());
    try {
      await Promise.all(Array.from({ length: workers }, (_, id) => this.worker(id, stop, abort)));
      this.state = "stopped";
    } catch (err) {
      this.state = "crashed";
      throw err;
    } finally {
      unsubscribe?.();
      stop.removeEventListener("abort", onStop);
    }
  }

  /** Alive while running, failing once a worker crashed or a reconcile is wedged. */
  healthCheck(): HealthCheck {
    return {
      name: this.options.name,
      check: () => {
        if (this.state === "crashed") throw new Error("workers crashed");
        const now = this.clock.monotonic();
        for (const { key, since } of this.inFlight.values()) {
          if (now - since > this.wedgedAfterMs) {
            throw new Error(`reconcile of ${String(key)} running for ${Math.round((now - since) / 1000)}s`);
          }
        }
      },
    };
  }

  /** Its state, the queue's depth and the keys in the workers' hands, for the status page. */
  status(): ReconcileLoopSnapshot {
    const { name, queue, workers } = this.options;
    const now = this.clock.monotonic();
    const inFlight = [...this.inFlight.values()]
      .map(({ key, since }) => ({ key: String(key), seconds: (now - since) / 1000 }))
      .sort((a, b) => b.seconds - a.seconds);
    return { name, queue: queue.name, state: this.state, workers, depth: queue.len(), inFlight };
  }

  private async worker(id: number, stop: AbortSignal, abort: AbortSignal): Promise<void> {
    const { queue } = this.options;
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      if (stop.aborted) {
        // Graceful stop: keys still queued are left for the next leader's resync.
        queue.done(next.item);
        return;
      }
      const end = this.beginOrPark(next.item);
      if (end === undefined) {
        queue.done(next.item);
        continue;
      }
      this.inFlight.set(id, { key: next.item, since: this.clock.monotonic() });
      this.observer.setActiveWorkers(this.options.name, this.inFlight.size);
      try {
        await this.reconcileOne(next.item, abort);
      } finally {
        end();
        this.inFlight.delete(id);
        this.observer.setActiveWorkers(this.options.name, this.inFlight.size);
        queue.done(next.item);
      }
    }
  }

  /**
   * Whether this process reconciles `key` now, with the call that ends that piece of work. A key of
   * a namespace another member owns is dropped (that member's informers queue it there); one of a
   * namespace about to be owned here waits aside until it is.
   */
  private beginOrPark(key: K): (() => void) | undefined {
    const sharding = this.options.sharding;
    if (!sharding) return noWorkToEnd;
    const namespace = sharding.namespaceOf(key);
    const end = sharding.ownership.begin(namespace);
    if (end) return end;
    this.options.queue.forget(key);
    if (sharding.ownership.verdict(namespace) === "wait") this.parked.add(key);
    return undefined;
  }

  private unpark(): void {
    const sharding = this.options.sharding;
    if (!sharding) return;
    for (const key of this.parked) {
      const verdict = sharding.ownership.verdict(sharding.namespaceOf(key));
      if (verdict === "wait") continue;
      this.parked.delete(key);
      if (verdict === "act") this.options.queue.add(key);
    }
  }

  private async reconcileOne(key: K, abort: AbortSignal): Promise<void> {
    const { queue, reconciler, logger, name } = this.options;
    const started = this.clock.monotonic();
    const seconds = () => (this.clock.monotonic() - started) / 1000;
    try {
      const result = await reconciler.reconcile(key, abort);
      if (result && "requeue" in result) {
        queue.addRateLimited(key);
        this.finished(key, "requeue", seconds());
      } else if (result && result.requeueAfterMs > 0) {
        queue.forget(key);
        queue.addAfter(key, result.requeueAfterMs);
        this.finished(key, "requeue_after", seconds());
      } else {
        queue.forget(key);
        this.finished(key, "success", seconds());
      }
    } catch (err) {
      if (abort.aborted) return;
      if (terminalIn(err)) {
        queue.forget(key);
        logger.warn({ controller: name, key: String(key), err: errorMessage(err) }, "reconcile failed permanently; not retrying");
        this.finished(key, "terminal_error", seconds(), err);
        return;
      }
      if (isProgrammingError(err)) {
        this.observer.panicked(name);
        // `throw undefined` would leave no trace in the line at all.
        logger.error({ controller: name, key: String(key), err: err ?? String(err) }, "reconcile threw unexpectedly; retrying with backoff");
      } else {
        logger.info(
          { controller: name, key: String(key), err: errorMessage(err), requeues: queue.numRequeues(key) },
          "reconcile failed; retrying with backoff",
        );
      }
      queue.addRateLimited(key);
      this.finished(key, "error", seconds(), err);
    }
  }

  private finished(key: K, outcome: ReconcileOutcome, seconds: number, error?: unknown): void {
    this.observer.finished(this.options.name, key, outcome, seconds, error);
  }
}

/** True when `err`, or an error in its chain of causes, is a TerminalError (as controller-runtime's errors.Is finds one wrapped). */
function terminalIn(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if (e instanceof TerminalError) return true;
  return false;
}
