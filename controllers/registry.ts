// The controllers built into kube-loom, in start order. Each entry comes from its own folder.
import type { ControllerDescriptor } from "../pkg/manager/controller-descriptor.ts";

export const builtinControllers: readonly ControllerDescriptor[] = [];
