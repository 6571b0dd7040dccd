import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { readKubeconfig } from "./kubeconfig-file.ts";

const dir = mkdtempSync(join(tmpdir(), "kubeconfig-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, document: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof document === "string" ? document : stringify(document));
  return path;
}

describe("reading a kubeconfig file", () => {
  test("fields are read under their kubeconfig names, and relative file names are relative to the file", () => {
    const path = write("full", {
      clusters: [{ name: "c", cluster: { server: "https://c:6443", "certificate-authority": "pki/ca.crt", "insecure-skip-tls-verify": true, "tls-server-name": "api" } }],
      users: [
        { name: "u", user: { "client-certificate": "/abs/u.crt", "client-key-data": "a2V5", tokenFile: "token", as: "alice" } },
        { name: "plugin", user: { exec: { command: "get-token", apiVersion: "client.authentication.k8s.io/v1" } } },
        { name: "bare", user: null },
      ],
      contexts: [{ name: "x", context: { cluster: "c", user: "u", namespace: "team" } }],
      "current-context": "x",
    });
    expect(readKubeconfig(path)).toEqual({
      clusters: [{ name: "c", server: "https://c:6443", caFile: join(dir, "pki/ca.crt"), insecureSkipTlsVerify: true, tlsServerName: "api" }],
      users: [
        { name: "u", certFile: "/abs/u.crt", keyData: "a2V5", tokenFile: join(dir, "token"), impersonate: "alice", usesPlugin: false },
        { name: "plugin", usesPlugin: true },
        { name: "bare", usesPlugin: false },
      ],
      contexts: [{ name: "x", cluster: "c", user: "u", namespace: "team" }],
      currentContext: "x",
    });
  });

  test("an empty file is an empty kubeconfig", () => {
    expect(readKubeconfig(write("empty", ""))).toEqual({ clusters: [], users: [], contexts: [], currentContext: "" });
  });

  test("a malformed entry is named by its place in the file", () => {
    expect(() => readKubeconfig(write("no-name", { clusters: [{ cluster: { server: "https://c" } }] }))).toThrow(/^clusters\[0\]\.name: /);
    expect(() => readKubeconfig(write("bad-type", { contexts: [{ name: "x", context: { cluster: "c", namespace: 7 } }] }))).toThrow(
      /^contexts\[0\]\.context\.namespace: .*string/,
    );
    expect(() => readKubeconfig(write("list", "- a\n- b\n"))).toThrow(/^expected a mapping with clusters, users and contexts/);
  });
});
