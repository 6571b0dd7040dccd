// What every measurement of the scale benchmark works with.
import { join } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { ControlPlane } from "../../test/controlplane/control-plane.ts";
import { TcpProxy } from "../../test/support/tcp-proxy.ts";
import type { PeerProcess, System } from "../peer-processes.ts";
import type { Samples } from "../statistics.ts";
import type { ClusterShape } from "./shape.ts";
import { ManagerProcess } from "./manager-process.ts";
import type { RingVariant } from "./ring-variant.ts";

/** Whose figure a sample is: one controller manager, or each replica of a shard ring. */
export type Measured = System | RingVariant;

export interface BenchContext {
  controlPlane: ControlPlane;
  /** The benchmark's own client (high QPS), never either controller manager's. */
  client: KubeClient;
  shape: ClusterShape;
  /** Client limits every controller manager process gets, each its own. */
  clientFlags: readonly string[];
  idleSeconds: number;
  /** Where each controller manager process writes its log. */
  logDir: string;
  samples: Samples<Measured>;
  /** Part of every name this run gives an object, a Lease or a log, so runs on one kept cluster do not collide. */
  runId: string;
  progress(line: string): void;
}

/** Generous bounds: at 100,000 Pods a sync takes tens of seconds on 2 cores, more on a busy machine. */
export const syncTimeoutMs = 600_000;
export const settleMinMs = 10_000;
export const settleMaxMs = 120_000;

/** A short name for object and lease names. */
export function tagOf(system: System): string {
  return system === "kube-loom" ? "loom" : "kcm";
}

/** Starts a controller manager behind a byte-counting proxy of its own (see manager-process.ts). */
export async function startManager(ctx: BenchContext, peer: PeerProcess, run: string, extraFlags: readonly string[] = []): Promise<ManagerProcess> {
  const proxy = await TcpProxy.start("127.0.0.1", Number(new URL(ctx.controlPlane.server).port));
  const kubeconfig = ctx.controlPlane.writeKubeconfig({ server: `https://127.0.0.1:${proxy.port}`, path: join(ctx.logDir, `${run}.kubeconfig`) });
  return ManagerProcess.start(peer, kubeconfig, proxy, join(ctx.logDir, `${run}.log`), [...ctx.clientFlags, ...extraFlags]);
}
