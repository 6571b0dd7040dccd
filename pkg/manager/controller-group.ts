// The enabled controllers, built over the shared machinery. They run only while this process
// leads; each one starts as soon as the caches it reads have synced, and none waits for another.
import { withWriteGuard } from "../kube/client.ts";
import { type CacheSyncSource, describeUnsynced, unsyncedSources, waitForNamedCacheSync } from "../informer/wait-for-cache-sync.ts";
import type { Logger } from "../log/logger.ts";
import type { HealthCheck } from "../health/health-check.ts";
import type { HttpEndpoints } from "../server/http-app.ts";
import type { NamedControllerReport } from "../status/status-board.ts";
import type { ControllerContext, ControllerDescriptor, RunningController } from "./controller-descriptor.ts";
import type { ClientForController } from "./service-account-clients.ts";

export class ControllerGroup {
  private constructor(
    private readonly controllers: ReadonlyMap<string, RunningController>,
    private readonly logger: Logger,
  ) {}

  /**
   * Builds the enabled controllers in order and registers their health checks and debug pages.
   * A controller that cannot run in this cluster says so and is left out.
   */
  static async create(
    enabled: readonly string[],
    descriptors: readonly ControllerDescriptor[],
    context: ControllerContext,
    endpoints: HttpEndpoints,
    clients: {
      /** Under --use-service-account-credentials: each controller's own client. */
      clientFor?: ClientForController | undefined;
      /** With leader election: refuses a controller's write once this process is not sure it leads. */
      writeGuard?: (() => void) | undefined;
    } = {},
  ): Promise<ControllerGroup> {
    const controllers = new Map<string, RunningController>();
    for (const name of enabled) {
      const descriptor = descriptors.find((d) => d.name === name);
      if (!descriptor) throw new Error(`no descriptor for enabled controller "${name}"`);
      const logger = context.logger.child({ controller: name });
      const own = clients.clientFor ? await clients.clientFor(descriptor) : context.client;
      const client = clients.writeGuard ? withWriteGuard(own, clients.writeGuard) : own;
      const controller = await descriptor.create({ ...context, client, logger });
      if (!controller) {
        logger.warn("controller is not started");
        continue;
      }
      if (controller.healthCheck) {
        endpoints.healthz.add(controller.healthCheck);
        endpoints.livez.add(controller.healthCheck);
      }
      endpoints.debugRoutes.push(...(controller.debugRoutes ?? []));
      controllers.set(name, controller);
      logger.info("controller created");
    }
    return new ControllerGroup(controllers, context.logger);
  }

  /** Every cache some controller reads, once. */
  get caches(): CacheSyncSource[] {
    return [...new Set([...this.controllers.values()].flatMap((controller) => controller.informers ?? []))];
  }

  /** The readiness check: fails, naming each unsynced informer and why, until every controller's caches have synced. */
  readinessCheck(): HealthCheck {
    return {
      name: "informer-sync",
      check: () => {
        const unsynced = unsyncedSources(this.caches);
        if (unsynced.length > 0) throw new Error(`informers not synced: ${describeUnsynced(unsynced).join("; ")}`);
      },
    };
  }

  /** Each controller's report for the status page, in start order. */
  statusReports(): NamedControllerReport[] {
    return [...this.controllers].map(([name, controller]) => ({ name, ...(controller.status?.() ?? { loops: [] }) }));
  }

  /** Runs every controller; `stop`: finish in-flight work and return; `abort`: stop at once. */
  async run(stop: AbortSignal, abort: AbortSignal): Promise<void> {
    this.logger.info({ controllers: [...this.controllers.keys()] }, "starting controllers");
    await Promise.all([...this.controllers].map(([name, controller]) => this.runOne(name, controller, stop, abort)));
  }

  private async runOne(name: string, controller: RunningController, stop: AbortSignal, abort: AbortSignal): Promise<void> {
    const logger = this.logger.child({ controller: name });
    if (!(await waitForNamedCacheSync(name, controller.informers ?? [], stop, { logger }))) return;
    if (controller.informers?.length) logger.info("caches synced; reconciling");
    await controller.run(stop, abort).catch((err: unknown) => logger.error({ err }, "controller stopped with an error"));
  }
}
