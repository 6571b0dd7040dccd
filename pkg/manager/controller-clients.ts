// The client each controller gets: its own ServiceAccount's under
// --use-service-account-credentials (else the process's, its user agent naming the controller as
// that account does), its own rate limit when its descriptor asks for one, and,
// with leader election, a guard that refuses its writes once this process is not sure it leads.
import { type KubeClient, withComponent, withRateLimit, withWriteGuard } from "../kube/client.ts";
import type { WriteGuard } from "../kube/rest-client.ts";
import type { ConnectionOptions } from "../options/options.ts";
import type { ControllerDescriptor } from "./controller-descriptor.ts";
import { type ClientForController, serviceAccountName } from "./service-account-clients.ts";

export interface ControllerClientSources {
  /** The process's client. */
  client: KubeClient;
  connection: Pick<ConnectionOptions, "qps" | "burst">;
  /** Under --use-service-account-credentials: each controller's own identity. */
  clientFor?: ClientForController | undefined;
  /** With leader election: throws unless this process is sure it leads; in a shard ring, unless it holds the namespace. */
  writeGuard?: WriteGuard | undefined;
}

/** A controller's clients: `client` for its work, `identity` (the same account, bare) for its Events, which have a guard of their own. */
export interface ControllerClients {
  client: KubeClient;
  identity: KubeClient;
}

export async function controllerClients(descriptor: ControllerDescriptor, sources: ControllerClientSources): Promise<ControllerClients> {
  const identity = sources.clientFor ? await sources.clientFor(descriptor) : withComponent(sources.client, serviceAccountName(descriptor));
  const guarded = sources.writeGuard ? withWriteGuard(identity, sources.writeGuard) : identity;
  const limit = descriptor.client?.ownRateLimit;
  // The guard sits under the rate limit, so a write that waited for its turn is judged when it is sent.
  const client = limit ? withRateLimit(guarded, limit.qpsFactor * sources.connection.qps, sources.connection.burst) : guarded;
  return { client, identity };
}
