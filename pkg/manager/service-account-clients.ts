// --use-service-account-credentials: each controller gets a client of its own that acts as its
// ServiceAccount, in the namespace of the leader election Lease (kube-controller-manager's
// controllers act as kube-system/<controller> the same way). kube-loom's own identity creates
// those accounts and their tokens, and lists and watches for the shared informers.
import { createKubeClient, type KubeClient, type KubeClientOptions } from "../kube/client.ts";
import { serviceAccountConfig, ServiceAccountTokenSource } from "../kube/service-account-token.ts";
import type { ControllerDescriptor } from "./controller-descriptor.ts";

export type ClientForController = (descriptor: ControllerDescriptor) => Promise<KubeClient>;

export function serviceAccountName(descriptor: ControllerDescriptor): string {
  return descriptor.serviceAccountName ?? `${descriptor.name}-controller`;
}

export function serviceAccountClients(client: KubeClient, namespace: string, options: KubeClientOptions): ClientForController {
  return (descriptor) => {
    const source = new ServiceAccountTokenSource(client, { namespace, name: serviceAccountName(descriptor) });
    return createKubeClient(serviceAccountConfig(client.config, source), { ...options, component: serviceAccountName(descriptor) });
  };
}
