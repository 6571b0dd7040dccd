// The controllers built into kube-loom, in start order. Each entry comes from its own folder.
import type { ControllerDescriptor } from "../pkg/manager/controller-descriptor.ts";
import { networkControllerDescriptor } from "./network/descriptor.ts";
import { garbageCollectorDescriptor } from "./garbagecollector/descriptor.ts";
import { replicaSetControllerDescriptor } from "./replicaset/descriptor.ts";

/** Every controller kube-loom ships: replicaset, garbagecollector and network. Spread it into `runCommand`'s list to keep them. */
export const builtinControllers: readonly ControllerDescriptor[] = [
  replicaSetControllerDescriptor,
  garbageCollectorDescriptor,
  networkControllerDescriptor,
];
