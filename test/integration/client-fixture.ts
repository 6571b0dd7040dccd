// Prepares what the client scenarios need on a real control plane, the way a user would:
// a namespace, a ServiceAccount with a Role through kubectl, a token from the TokenRequest API.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ControlPlane } from "../controlplane/control-plane.ts";
import type { ClientFixture } from "./client-scenarios.ts";

const namespace = "client-scenarios";

const rbac = `
apiVersion: v1
kind: Namespace
metadata: { name: ${namespace} }
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: tester, namespace: ${namespace} }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: configmaps-only, namespace: ${namespace} }
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list, watch, create, update, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: tester-configmaps, namespace: ${namespace} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: configmaps-only }
subjects:
- { kind: ServiceAccount, name: tester, namespace: ${namespace} }
`;

export async function prepareClientFixture(controlPlane: ControlPlane): Promise<ClientFixture> {
  const applied = await controlPlane.kubectl(["apply", "-f", "-"], { stdin: rbac });
  if (applied.code !== 0) throw new Error(`kubectl apply failed: ${applied.stderr}`);
  const token = await controlPlane.kubectl(["create", "token", "tester", "-n", namespace, "--duration=1h"]);
  if (token.code !== 0) throw new Error(`kubectl create token failed: ${token.stderr}`);
  const dir = join(controlPlane.dir, "client-fixture");
  mkdirSync(dir, { recursive: true });

  const bearer = { token: token.stdout.trim(), namespace };
  const tokenKubeconfig = controlPlane.writeKubeconfig({ ...bearer, path: join(dir, "token.kubeconfig") });
  const wrongCaKubeconfig = controlPlane.writeKubeconfig({ ...bearer, caPem: controlPlane.pki.otherCa.certPem, path: join(dir, "wrong-ca.kubeconfig") });

  const serviceAccountDir = join(dir, "serviceaccount");
  mkdirSync(serviceAccountDir, { recursive: true });
  writeFileSync(join(serviceAccountDir, "token"), token.stdout.trim());
  writeFileSync(join(serviceAccountDir, "ca.crt"), controlPlane.caPem);
  writeFileSync(join(serviceAccountDir, "namespace"), namespace);

  return {
    namespace,
    server: controlPlane.server,
    certKubeconfig: controlPlane.kubeconfigPath,
    tokenKubeconfig,
    wrongServerKubeconfig: controlPlane.writeKubeconfig({ server: "https://127.0.0.1:1", path: join(dir, "wrong-server.kubeconfig") }),
    wrongCaKubeconfig,
    serviceAccountDir,
  };
}
