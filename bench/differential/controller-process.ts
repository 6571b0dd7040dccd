// The controller managers compared: kube-controller-manager v1.37 and kube-loom's compiled
// binary, each started against one control plane with the same --controllers list and default
// client limits, and asked for its work-queue activity over its metrics endpoint.
import { join } from "node:path";
import type { ControlPlane } from "../../test/controlplane/control-plane.ts";
import { hasExited, logTail, spawnDaemon, stopDaemon } from "../../test/controlplane/daemon-process.ts";
import { freeLoopbackPorts } from "../../test/controlplane/free-ports.ts";
import { pollUntil } from "../../test/controlplane/poll-until.ts";
import { KubeLoomProcess } from "../../test/support/kube-loom-binary.ts";
import type { ApiContentType } from "../../pkg/kube/protobuf/media-types.ts";
import type { Executables, System } from "../peer-processes.ts";
import { parseQueueActivity, type QueueActivity } from "./queue-metrics.ts";

export type PeerName = System;
export const peerNames: readonly PeerName[] = ["kube-controller-manager", "kube-loom"];

export interface ControllerProcess {
  readonly peer: PeerName;
  readonly logPath: string;
  queueActivity(): Promise<QueueActivity>;
  stop(): Promise<void>;
}

const startTimeoutMs = 120_000;

/** Flags both controller managers take, with the same meaning. */
export interface ControllerSettings {
  /** -v; at 5 and more each logs its garbage collector's every decision. */
  verbosity: number;
  /** --kube-api-content-type; each manager's default (protobuf) when unset. */
  contentType?: ApiContentType;
}

export function startControllerProcess(
  peer: PeerName,
  controlPlane: ControlPlane,
  controllers: string,
  executables: Executables,
  logName: string,
  settings: ControllerSettings = { verbosity: 0 },
): Promise<ControllerProcess> {
  const flags = [`--v=${settings.verbosity}`, ...(settings.contentType === undefined ? [] : [`--kube-api-content-type=${settings.contentType}`])];
  return peer === "kube-loom"
    ? startKubeLoom(controlPlane, controllers, executables.kubeLoom, logName, flags)
    : startKubeControllerManager(controlPlane, controllers, executables.kubeControllerManager, logName, flags);
}

async function startKubeLoom(controlPlane: ControlPlane, controllers: string, binary: string, logName: string, flags: string[]): Promise<ControllerProcess> {
  const process = await KubeLoomProcess.start({
    binary,
    kubeconfig: controlPlane.kubeconfigPath,
    logDir: controlPlane.dir,
    name: logName,
    args: ["--leader-elect=false", `--controllers=${controllers}`, ...flags],
  });
  await process.waitFor("/healthz", startTimeoutMs);
  return {
    peer: "kube-loom",
    logPath: process.logPath,
    queueActivity: () => scrape(`${process.url}/metrics`),
    stop: async () => {
      await process.stop();
    },
  };
}

async function startKubeControllerManager(
  controlPlane: ControlPlane,
  controllers: string,
  binary: string,
  logName: string,
  flags: string[],
): Promise<ControllerProcess> {
  const { port } = await freeLoopbackPorts(["port"] as const);
  const logPath = join(controlPlane.dir, `${logName}.log`);
  const daemon = spawnDaemon(
    [
      binary,
      `--kubeconfig=${controlPlane.kubeconfigPath}`,
      `--controllers=${controllers}`,
      "--leader-elect=false",
      "--use-service-account-credentials=false",
      "--bind-address=127.0.0.1",
      `--secure-port=${port}`,
      // Its metrics are served on the secure port only; without an authentication kubeconfig the
      // scrape is anonymous, which these paths allow.
      "--authentication-skip-lookup",
      "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
      ...flags,
    ],
    logPath,
  );
  const url = `https://127.0.0.1:${port}`;
  const exited = () => (hasExited(daemon) ? `kube-controller-manager exited with ${daemon.exitCode ?? daemon.signalCode}:\n${logTail(logPath)}` : undefined);
  await pollUntil("kube-controller-manager /healthz", performance.now() + startTimeoutMs, exited, async () => {
    const response = await selfSignedGet(`${url}/healthz`);
    await response.arrayBuffer();
    return response.ok;
  });
  return {
    peer: "kube-controller-manager",
    logPath,
    queueActivity: () => scrape(`${url}/metrics`),
    stop: () => stopDaemon(daemon, "SIGTERM", 30_000),
  };
}

async function scrape(url: string): Promise<QueueActivity> {
  const response = await selfSignedGet(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return parseQueueActivity(await response.text());
}

/** kube-controller-manager serves a certificate it made up at start; on loopback there is nothing to verify. */
function selfSignedGet(url: string): Promise<Response> {
  return fetch(url, { tls: { rejectUnauthorized: false } });
}
