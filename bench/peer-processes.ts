// The two controller managers the speed benchmarks compare, started alike: only the controllers
// being measured, no leader election and nothing served (the benchmarks read logs and /proc).
import { ensureBinaries } from "../test/controlplane/binaries.ts";
import { buildKubeLoom } from "../test/support/kube-loom-binary.ts";
import type { Comparison } from "./comparison.ts";
import type { Samples } from "./statistics.ts";

export type System = "kube-controller-manager" | "kube-loom";

export interface Executables {
  kubeControllerManager: string;
  kubeLoom: string;
}

export interface PeerProcess {
  system: System;
  /** The command line against a control plane's kubeconfig, `extra` flags last. */
  command(kubeconfig: string, extra?: readonly string[]): string[];
  /** The log line written once the garbage collector's monitors synced (or it stopped waiting). */
  monitorsSynced: RegExp;
}

/**
 * Builds (or finds) both executables. `controllers`: each system's own names for the same
 * controllers, as its --controllers flag takes them.
 */
export async function buildPeerProcesses(controllers: Record<System, string>): Promise<PeerProcess[]> {
  const [binaries, kubeLoom] = await Promise.all([ensureBinaries({ withControllerManager: true }), buildKubeLoom()]);
  return peerProcesses({ kubeControllerManager: binaries.kubeControllerManager, kubeLoom }, controllers);
}

function peerProcesses(executables: Executables, controllers: Record<System, string>): PeerProcess[] {
  const peer = (system: System, executable: string, ownFlags: string[], monitorsSynced: RegExp): PeerProcess => ({
    system,
    command: (kubeconfig, extra = []) => [
      executable,
      `--kubeconfig=${kubeconfig}`,
      `--controllers=${controllers[system]}`,
      "--leader-elect=false",
      "--secure-port=0",
      ...ownFlags,
      ...extra,
    ],
    monitorsSynced,
  });
  return [
    peer("kube-controller-manager", executables.kubeControllerManager, [], /resource monitors (have synced|could not be synced)/),
    // kube-loom would also serve plain HTTP on loopback by default.
    peer("kube-loom", executables.kubeLoom, ["--port=0"], /resource monitors (have synced|synced in time)/),
  ];
}

/**
 * One table row from the samples of `figure`: both systems, and the limit where one was measured.
 * `samples` may hold figures of others too (a shard ring's), which the row leaves out.
 */
export function comparisonOf(samples: Samples<string>, scenario: string, figure: string, extra: Partial<Comparison> = {}): Comparison {
  const limit = samples.of(figure, "limit");
  return {
    scenario,
    upstream: samples.of(figure, "kube-controller-manager"),
    kubeLoom: samples.of(figure, "kube-loom"),
    ...(limit.length > 0 ? { limit } : {}),
    ...extra,
  };
}
