// Builds the enabled controllers, in the order their descriptors are listed (not the order
// --controllers names them), each with its own client, its own Event recorder, its own flags and
// a logger that names it. A controller that cannot run in this cluster says so and is left out.
import type { EventRecorder } from "../events/recorder.ts";
import type { ControllerContext, ControllerDescriptor } from "./controller-descriptor.ts";
import type { KubeClient } from "../kube/client.ts";
import { type ControllerClientSources, controllerClients } from "./controller-clients.ts";
import type { Runnable } from "./runnable.ts";

/** What the controllers share, and where each one's Event recorder comes from. */
export interface SharedControllerContext extends Omit<ControllerContext, "client" | "events"> {
  /**
   * A recorder whose Events carry `reportingController`, held back where the process may not write, and written
   * by `writer`, the controller's own identity (its ServiceAccount under --use-service-account-credentials).
   */
  recorderFor(reportingController: string, writer: KubeClient): EventRecorder;
}

/** The name a controller's Events report, as kube-controller-manager names its controllers' Event sources. */
function reportingControllerOf(descriptor: ControllerDescriptor): string {
  return descriptor.reportingController ?? `${descriptor.name}-controller`;
}

export async function createControllers(
  enabled: readonly string[],
  descriptors: readonly ControllerDescriptor[],
  shared: SharedControllerContext,
  clients: ControllerClientSources,
): Promise<Runnable[]> {
  const { recorderFor, ...context } = shared;
  const created: Runnable[] = [];
  for (const name of enabled) {
    const descriptor = descriptors.find((d) => d.name === name);
    if (!descriptor) throw new Error(`no descriptor for enabled controller "${name}"`);
    const logger = context.logger.child({ controller: name });
    const { client, identity } = await controllerClients(descriptor, clients);
    const events = recorderFor(reportingControllerOf(descriptor), identity);
    const controller = await descriptor.create({ ...context, client, events, logger, values: context.values.only(descriptor.flags) });
    if (!controller) {
      logger.warn("controller is not started");
      continue;
    }
    created.push(controller);
    logger.info("controller created");
  }
  return created;
}
