// Writes self-contained kubeconfig files (certificates embedded, so they can be copied anywhere).
import { Buffer } from "node:buffer";
import { writeFileSync } from "node:fs";
import { stringify } from "yaml";

const KUBECONFIG_NAME = "kube-loom-test";

/** A client certificate, or a bearer token (e.g. a ServiceAccount's from `kubectl create token`). */
export type KubeconfigCredentials = { clientCertPem: string; clientKeyPem: string } | { token: string };

export interface KubeconfigContents {
  server: string;
  caPem: string;
  credentials: KubeconfigCredentials;
  /** Cluster, user and context name; defaults to `kube-loom-test`. */
  name?: string;
  /** The context's default namespace. */
  namespace?: string;
}

export function writeKubeconfig(path: string, contents: KubeconfigContents): void {
  const name = contents.name ?? KUBECONFIG_NAME;
  const base64 = (pem: string) => Buffer.from(pem).toString("base64");
  const { credentials } = contents;
  const user =
    "token" in credentials
      ? { token: credentials.token }
      : { "client-certificate-data": base64(credentials.clientCertPem), "client-key-data": base64(credentials.clientKeyPem) };
  const kubeconfig = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: contents.server, "certificate-authority-data": base64(contents.caPem) } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name, ...(contents.namespace ? { namespace: contents.namespace } : {}) } }],
    "current-context": name,
  };
  // 0600: it holds a private key or a token.
  writeFileSync(path, stringify(kubeconfig), { mode: 0o600 });
}
