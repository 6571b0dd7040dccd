// client-node on Bun sends no client certificate (Bun ignores its TLS options), so benchmarks
// that run it as a peer give it a cluster-admin ServiceAccount token instead, and its CA through
// NODE_EXTRA_CA_CERTS.
import type { ControlPlane } from "../test/controlplane/control-plane.ts";

/** Writes a kubeconfig with a 2-hour cluster-admin token for client-node. */
export async function clientNodeKubeconfig(cp: ControlPlane): Promise<string> {
  const setup = `
apiVersion: v1
kind: ServiceAccount
metadata: { name: bench, namespace: default }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: bench-admin }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin }
subjects: [{ kind: ServiceAccount, name: bench, namespace: default }]
`;
  await cp.kubectl(["apply", "-f", "-"], { stdin: setup });
  const token = (await cp.kubectl(["create", "token", "bench", "--duration=2h"])).stdout.trim();
  return cp.writeKubeconfig({ token });
}
