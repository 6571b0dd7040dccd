// What the soak runs against: a real etcd + kube-apiserver (auditing the replicas' writes), the
// Network CRD, the namespaces the workload uses, an admin client for the driver and the
// observer, and the compiled kube-loom.
import { chmodSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { ControlPlane } from "../../test/controlplane/control-plane.ts";
import { ensureNamespace, fastClient } from "../../test/integration/informer-fixtures.ts";
import { installCrd } from "../../test/network/network-fixture.ts";
import { buildKubeLoom } from "../../test/support/kube-loom-binary.ts";
import { auditApiserverArgs } from "./audit-policy.ts";

export const soakNamespaces = { replicaSets: "soak-replicasets", trees: "soak-owner-trees", networks: "soak-networks" } as const;

export interface SoakCluster {
  controlPlane: ControlPlane;
  admin: KubeClient;
  binary: string;
  auditLogPath: string;
}

export async function startSoakCluster(options: { logDir: string; watchCache: boolean; auditedUsers: readonly string[] }): Promise<SoakCluster> {
  const auditLogPath = join(options.logDir, "audit.log");
  const extraApiserverArgs = [
    ...auditApiserverArgs(join(options.logDir, "audit-policy.yaml"), auditLogPath, options.auditedUsers),
    ...(options.watchCache ? [] : ["--watch-cache=false"]),
  ];
  const [controlPlane, sharedBinary] = await Promise.all([ControlPlane.start({ extraApiserverArgs }), buildKubeLoom()]);
  try {
    // Other test processes rebuild the shared binary; a replica restarted mid-soak must run the same code.
    const binary = join(controlPlane.dir, "kube-loom");
    copyFileSync(sharedBinary, binary);
    chmodSync(binary, 0o755);
    const admin = await fastClient(controlPlane.kubeconfigPath);
    await installCrd(controlPlane, { cel: true });
    for (const namespace of Object.values(soakNamespaces)) await ensureNamespace(admin, namespace);
    return { controlPlane, admin, binary, auditLogPath };
  } catch (err) {
    await controlPlane.stop();
    throw err;
  }
}
