// A kubeconfig file read into plain typed records. Reading it ourselves (yaml + zod) keeps
// @kubernetes/client-node, whose modules take a few hundred milliseconds to load, off the start
// path; it is loaded only for users with an exec plugin or an auth provider, which it runs.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

export interface KubeconfigCluster {
  name: string;
  server?: string;
  caFile?: string;
  /** certificate-authority-data, still base64. */
  caData?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
}

export interface KubeconfigUser {
  name: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  certFile?: string;
  certData?: string;
  keyFile?: string;
  keyData?: string;
  /** The `as` field: the user to impersonate. */
  impersonate?: string;
  /** An exec credential plugin or an auth provider supplies the credentials. */
  usesPlugin: boolean;
}

export interface KubeconfigContext {
  name: string;
  cluster: string;
  user?: string;
  namespace?: string;
}

export interface Kubeconfig {
  clusters: KubeconfigCluster[];
  users: KubeconfigUser[];
  contexts: KubeconfigContext[];
  /** Empty when the file names none. */
  currentContext: string;
}

const text = z.string().optional();

const name = z.string().min(1);

const clusterEntry = z.object({
  name,
  cluster: z.object({
    server: text,
    "certificate-authority": text,
    "certificate-authority-data": text,
    "insecure-skip-tls-verify": z.boolean().optional(),
    "tls-server-name": text,
  }),
});

const userEntry = z.object({
  name,
  user: z
    .object({
      token: text,
      tokenFile: text,
      username: text,
      password: text,
      "client-certificate": text,
      "client-certificate-data": text,
      "client-key": text,
      "client-key-data": text,
      as: text,
      exec: z.unknown().optional(),
      "auth-provider": z.unknown().optional(),
    })
    .nullish(),
});

const contextEntry = z.object({ name, context: z.object({ cluster: z.string().min(1), user: text, namespace: text }) });

const document = z
  .object({
    clusters: z.array(clusterEntry).nullish(),
    users: z.array(userEntry).nullish(),
    contexts: z.array(contextEntry).nullish(),
    "current-context": text,
  })
  .nullable();

/** Reads and checks a kubeconfig file; throws an Error whose message names the bad field. */
export function readKubeconfig(path: string): Kubeconfig {
  const parsed = document.safeParse(parseYaml(readFileSync(path, "utf8")));
  if (!parsed.success) throw new Error(describeIssue(parsed.error.issues[0]));
  // Relative file names are relative to the kubeconfig's own folder, as kubectl reads them.
  const file = (name: string | undefined) => (name && !isAbsolute(name) ? resolve(dirname(path), name) : name || undefined);
  const data = parsed.data ?? {};
  return {
    clusters: (data.clusters ?? []).map(({ name, cluster }) => ({
      name,
      insecureSkipTlsVerify: cluster["insecure-skip-tls-verify"] ?? false,
      ...defined({
        server: cluster.server,
        caFile: file(cluster["certificate-authority"]),
        caData: cluster["certificate-authority-data"],
        tlsServerName: cluster["tls-server-name"],
      }),
    })),
    users: (data.users ?? []).map(({ name, user }) => ({
      name,
      usesPlugin: Boolean(user?.exec || user?.["auth-provider"]),
      ...defined({
        token: user?.token,
        tokenFile: file(user?.tokenFile),
        username: user?.username,
        password: user?.password,
        certFile: file(user?.["client-certificate"]),
        certData: user?.["client-certificate-data"],
        keyFile: file(user?.["client-key"]),
        keyData: user?.["client-key-data"],
        impersonate: user?.as,
      }),
    })),
    contexts: (data.contexts ?? []).map(({ name, context }) => ({ name, cluster: context.cluster, ...defined({ user: context.user, namespace: context.namespace }) })),
    currentContext: data["current-context"] ?? "",
  };
}

/** e.g. "clusters[0].cluster.server: expected string, received number". */
function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "not a kubeconfig";
  const where = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("").replace(/^\./, "");
  return where ? `${where}: ${issue.message}` : `expected a mapping with clusters, users and contexts (${issue.message})`;
}

/** The entries whose value is set, so optional fields stay absent rather than undefined. */
function defined<T extends Record<string, string | undefined>>(fields: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== "")) as { [K in keyof T]?: string };
}
