// The runnables of a process (controller-runtime's runnable groups): registered once the API
// server is reachable, each with the health checks and debug pages it declares; those that
// need leadership run while this process leads, the others from the start on every replica.
// /readyz fails until they are registered and every cache they read has synced; with the
// informers started only once this process leads (no warm standby), a standby has no cache to
// wait for and is ready, as kube-controller-manager's standby is healthy.
import type { HealthCheck } from "../health/health-check.ts";
import { describeUnsynced, unsyncedSources, type CacheSyncSource } from "../informer/wait-for-cache-sync.ts";
import type { Logger } from "../log/logger.ts";
import type { HttpEndpoints } from "../endpoints/http-app.ts";
import type { NamedControllerReport } from "../status/status-board.ts";
import type { Runnable } from "./runnable.ts";

export interface RunnableGroupOptions {
  /** The caches fill before this process leads (--leader-elect-warm-standby); false: only once it leads. Default true. */
  warmStandby?: boolean;
}

export class RunnableGroup {
  private readonly runnables: Runnable[] = [];
  private registered = false;
  private leading = false;
  private readonly warmStandby: boolean;

  constructor(
    private readonly endpoints: Pick<HttpEndpoints, "healthz" | "livez" | "debugRoutes">,
    private readonly logger: Logger,
    options: RunnableGroupOptions = {},
  ) {
    this.warmStandby = options.warmStandby ?? true;
  }

  /** Adds every runnable with its checks and pages; the readiness check judges their caches from now on. */
  register(runnables: readonly Runnable[]): void {
    for (const runnable of runnables) {
      this.endpoints.healthz.add(...(runnable.healthChecks ?? []));
      this.endpoints.livez.add(...(runnable.healthChecks ?? []));
      this.endpoints.debugRoutes.push(...(runnable.debugRoutes ?? []));
      this.runnables.push(runnable);
    }
    this.registered = true;
  }

  /** Every cache some runnable reads, once. */
  get caches(): CacheSyncSource[] {
    return [...new Set(this.runnables.flatMap((runnable) => runnable.caches ?? []))];
  }

  /**
   * /readyz: fails, naming each unsynced informer and why, until every runnable's caches have
   * synced; without a warm standby only from the moment this process leads, the informers
   * running only from then on.
   */
  readinessCheck(): HealthCheck {
    return {
      name: "informer-sync",
      check: () => {
        if (!this.registered) throw new Error("controllers not built yet (waiting for the API server)");
        if (!this.warmStandby && !this.leading) return;
        const unsynced = unsyncedSources(this.caches);
        if (unsynced.length > 0) throw new Error(`informers not synced: ${describeUnsynced(unsynced).join("; ")}`);
      },
    };
  }

  /** Each runnable's report for the status page, in registration order. */
  statusReports(): NamedControllerReport[] {
    return this.runnables.map((runnable) => ({ name: runnable.name, ...(runnable.status?.() ?? { loops: [] }) }));
  }

  /** Runs the runnables that need leadership (`leading`) or those that do not; resolves when all have returned. */
  async run(leading: boolean, stop: AbortSignal, abort: AbortSignal): Promise<void> {
    const chosen = this.runnables.filter((runnable) => (runnable.needsLeaderElection ?? true) === leading);
    if (leading) {
      this.leading = true;
      this.logger.info({ controllers: chosen.map((runnable) => runnable.name) }, "starting controllers");
    }
    await Promise.all(chosen.map((runnable) => this.runOne(runnable, stop, abort)));
  }

  private async runOne(runnable: Runnable, stop: AbortSignal, abort: AbortSignal): Promise<void> {
    const logger = this.logger.child({ controller: runnable.name });
    await runnable.start(stop, abort).catch((err: unknown) => logger.error({ err }, "controller stopped with an error"));
  }
}
