// Builds the enabled controllers, in the order --controllers lists them, each with its own
// client, its own flags and a logger that names it. A controller that cannot run in this cluster
// says so and is left out.
import type { ControllerContext, ControllerDescriptor } from "./controller-descriptor.ts";
import { type ControllerClientSources, controllerClient } from "./controller-clients.ts";
import type { Runnable } from "./runnable.ts";

export async function createControllers(
  enabled: readonly string[],
  descriptors: readonly ControllerDescriptor[],
  context: Omit<ControllerContext, "client">,
  clients: ControllerClientSources,
): Promise<Runnable[]> {
  const created: Runnable[] = [];
  for (const name of enabled) {
    const descriptor = descriptors.find((d) => d.name === name);
    if (!descriptor) throw new Error(`no descriptor for enabled controller "${name}"`);
    const logger = context.logger.child({ controller: name });
    const client = await controllerClient(descriptor, clients);
    const controller = await descriptor.create({ ...context, client, logger, values: context.values.only(descriptor.flags) });
    if (!controller) {
      logger.warn("controller is not started");
      continue;
    }
    created.push(controller);
    logger.info("controller created");
  }
  return created;
}
