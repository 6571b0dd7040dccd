// Prepares what the client scenarios need on a real control plane, the way a user would:
// a namespace, a ServiceAccount with a Role through kubectl, a token from the TokenRequest API.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
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

  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, token.stdout.trim());
  const execPlugin = join(dir, "exec-credential-plugin.sh");
  const credential = { apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: token.stdout.trim() } };
  writeFileSync(execPlugin, `#!/bin/sh\ncat <<'EOF'\n${JSON.stringify(credential)}\nEOF\n`, { mode: 0o755 });

  return {
    namespace,
    server: controlPlane.server,
    certKubeconfig: controlPlane.kubeconfigPath,
    tokenKubeconfig,
    wrongServerKubeconfig: controlPlane.writeKubeconfig({ server: "https://127.0.0.1:1", path: join(dir, "wrong-server.kubeconfig") }),
    wrongCaKubeconfig,
    serviceAccountDir,
    execPluginKubeconfig: writeUserKubeconfig(join(dir, "exec.kubeconfig"), controlPlane, {
      exec: { apiVersion: "client.authentication.k8s.io/v1", command: execPlugin, interactiveMode: "Never" },
    }),
    tokenFileKubeconfig: writeUserKubeconfig(join(dir, "token-file.kubeconfig"), controlPlane, { tokenFile }),
  };
}

/** A kubeconfig whose user is given as raw kubeconfig fields (exec plugins, token files). */
function writeUserKubeconfig(path: string, controlPlane: ControlPlane, user: Record<string, unknown>): string {
  const name = "user";
  writeFileSync(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name, cluster: { server: controlPlane.server, "certificate-authority": controlPlane.caFile } }],
      users: [{ name, user }],
      contexts: [{ name, context: { cluster: name, user: name } }],
      "current-context": name,
    }),
    { mode: 0o600 },
  );
  return path;
}
