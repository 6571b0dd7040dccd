import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assetVariable, findBinaryAssets } from "./binary-assets.ts";

const root = mkdtempSync(join(tmpdir(), "binary-assets-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder holding empty files under the given names. */
function folderWith(name: string, programs: string[]): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const program of programs) writeFileSync(join(dir, program), "");
  return dir;
}

describe("findBinaryAssets, by envtest's rules", () => {
  test("the variable of a program: TEST_ASSET_ and its name in capitals, punctuation as _", () => {
    expect(assetVariable("kube-apiserver")).toBe("TEST_ASSET_KUBE_APISERVER");
    expect(assetVariable("etcd")).toBe("TEST_ASSET_ETCD");
    expect(assetVariable("kubectl")).toBe("TEST_ASSET_KUBECTL");
  });

  test("KUBEBUILDER_ASSETS: the three programs by their names", () => {
    const assets = folderWith("full", ["etcd", "kube-apiserver", "kubectl"]);
    expect(findBinaryAssets({ env: { KUBEBUILDER_ASSETS: assets } })).toEqual({
      etcd: join(assets, "etcd"),
      kubeApiserver: join(assets, "kube-apiserver"),
      kubectl: join(assets, "kubectl"),
    });
  });

  test("TEST_ASSET_* wins over KUBEBUILDER_ASSETS, which wins over the directory option", () => {
    const assets = folderWith("assets", ["etcd", "kube-apiserver"]);
    const own = folderWith("own", ["my-etcd"]);
    const option = folderWith("option", ["etcd", "kube-apiserver"]);
    const found = findBinaryAssets({ directory: option, env: { KUBEBUILDER_ASSETS: assets, TEST_ASSET_ETCD: join(own, "my-etcd") } });
    expect(found).toEqual({ etcd: join(own, "my-etcd"), kubeApiserver: join(assets, "kube-apiserver") });
    expect(findBinaryAssets({ directory: option, env: {} }).kubeApiserver).toBe(join(option, "kube-apiserver"));
  });

  test("without kubectl in the folder, kubectl is left to PATH", () => {
    const assets = folderWith("no-kubectl", ["etcd", "kube-apiserver"]);
    expect(findBinaryAssets({ env: { KUBEBUILDER_ASSETS: assets } }).kubectl).toBeUndefined();
  });

  test("a missing program is one line naming the path, where it came from and what is expected", () => {
    const assets = folderWith("no-apiserver", ["etcd"]);
    expect(() => findBinaryAssets({ env: { KUBEBUILDER_ASSETS: assets } })).toThrow(
      `${join(assets, "kube-apiserver")} does not exist (from KUBEBUILDER_ASSETS): expected etcd and kube-apiserver there; ` +
        "run `export $(npx kube-loom-testing-assets)` to build them and set KUBEBUILDER_ASSETS, " +
        "or set it to a folder holding them, such as `setup-envtest use -p path` prints",
    );
    expect(() => findBinaryAssets({ env: {} })).toThrow("/usr/local/kubebuilder/bin/etcd does not exist (neither TEST_ASSET_ETCD nor KUBEBUILDER_ASSETS is set)");
  });

  test("the command the message suggests is the package's own", () => {
    const { bin } = JSON.parse(readFileSync(join(import.meta.dir, "../../package.json"), "utf8")) as { bin: Record<string, string> };
    const missing = (() => {
      try {
        findBinaryAssets({ env: { KUBEBUILDER_ASSETS: folderWith("empty", []) } });
        return "found";
      } catch (error) {
        return String(error);
      }
    })();
    const suggested = /npx ([\w-]+)/.exec(missing)?.[1] ?? `no npx command in: ${missing}`;
    expect(Object.keys(bin)).toContain(suggested);
    expect(bin[suggested]).toEndWith("pkg/testing/assets-main.js");
  });
});
