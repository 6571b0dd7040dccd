// One registered event handler with its own unbounded buffer, drained in order by its own
// async loop: a slow (async) handler only delays itself. client-go's processorListener.
import { TimeSlicer } from "../eventloop/time-slicer.ts";
import type { KubeObject } from "../kube/objects.ts";
import type { DeletedFinalStateUnknown } from "./deltas.ts";
import type { ResourceEventHandler } from "./event-handler.ts";

export type Notification<T extends KubeObject> =
  | { type: "add"; obj: T; isInInitialList: boolean }
  | { type: "update"; oldObj: T; newObj: T }
  | { type: "delete"; obj: T | DeletedFinalStateUnknown<T> };

/** Told when the handler throws or rejects; the listener then goes on with the next notification. */
export type HandlerFailure<T extends KubeObject> = (err: unknown, notification: Notification<T>) => void;

export class ProcessorListener<T extends KubeObject> {
  private buffer: Notification<T>[] = [];
  private head = 0;
  private draining: Promise<void> | undefined;
  private stopped = false;
  /** Initial-list adds not yet handled: the handler has synced when this is 0. */
  private pendingInitial = 0;
  private nextResyncAt: number;

  constructor(
    private readonly handler: ResourceEventHandler<T>,
    /** 0: never resync. */
    readonly resyncPeriodMs: number,
    now: number,
    private readonly onFailure: HandlerFailure<T>,
  ) {
    this.nextResyncAt = now + resyncPeriodMs;
  }

  add(notification: Notification<T>): void {
    if (this.stopped) return;
    if (notification.type === "add" && notification.isInInitialList) this.pendingInitial++;
    this.buffer.push(notification);
    this.draining ??= this.drain();
  }

  /** True when every initial-list add given to this listener has been handled. */
  initialEventsHandled(): boolean {
    return this.pendingInitial === 0;
  }

  /** Whether this handler's resync is due at `now`; if so, schedules the next one. */
  claimResync(now: number): boolean {
    if (this.resyncPeriodMs <= 0 || now < this.nextResyncAt) return false;
    this.nextResyncAt = now + this.resyncPeriodMs;
    return true;
  }

  /** Drops undelivered notifications; resolves once a handler call in progress has returned. */
  stop(): Promise<void> {
    this.stopped = true;
    this.buffer = [];
    this.head = 0;
    return this.draining ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    // Start on a later tick, so handlers never run inside the informer's own processing.
    await Promise.resolve();
    // Synchronous handlers resolve at once: 100,000 notifications would hold up the event loop without slices.
    const slicer = new TimeSlicer();
    while (!this.stopped && this.head < this.buffer.length) {
      const notification = this.buffer[this.head++] as Notification<T>;
      this.compact();
      try {
        // Only an asynchronous handler is awaited: a microtask per notification adds up over a big list.
        const pending = this.deliver(notification);
        if (pending) await pending;
      } catch (err) {
        this.onFailure(err, notification);
      } finally {
        if (notification.type === "add" && notification.isInInitialList) this.pendingInitial--;
      }
      if (slicer.due()) await slicer.yield();
    }
    this.draining = undefined;
  }

  private deliver(notification: Notification<T>): void | Promise<void> {
    switch (notification.type) {
      case "add":
        return this.handler.onAdd?.(notification.obj, notification.isInInitialList);
      case "update":
        return this.handler.onUpdate?.(notification.oldObj, notification.newObj);
      case "delete":
        return this.handler.onDelete?.(notification.obj);
    }
  }

  /** Releases the delivered front of the buffer once it dominates, keeping dequeue O(1) amortized. */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.buffer.length) {
      this.buffer = this.buffer.slice(this.head);
      this.head = 0;
    }
  }
}
