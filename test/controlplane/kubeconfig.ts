// Writes self-contained kubeconfig files (certificates embedded, so they can be copied anywhere).
import { writeFileSync } from "node:fs";
import { stringify } from "yaml";

export const KUBECONFIG_NAME = "kube-loom-test";

export interface KubeconfigContents {
  server: string;
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** Cluster, user and context name; defaults to `kube-loom-test`. */
  name?: string;
}

export function writeKubeconfig(path: string, contents: KubeconfigContents): void {
  const name = contents.name ?? KUBECONFIG_NAME;
  const base64 = (pem: string) => Buffer.from(pem).toString("base64");
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: contents.server, "certificate-authority-data": base64(contents.caPem) } }],
    users: [
      {
        name,
        user: {
          "client-certificate-data": base64(contents.clientCertPem),
          "client-key-data": base64(contents.clientKeyPem),
        },
      },
    ],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  };
  // 0600: it holds a private key.
  writeFileSync(path, stringify(kubeconfig), { mode: 0o600 });
}
