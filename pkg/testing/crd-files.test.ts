import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readCrdFiles } from "./crd-files.ts";

const root = mkdtempSync(join(tmpdir(), "crd-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const crd = (plural: string, group = "example.com") =>
  [
    "apiVersion: apiextensions.k8s.io/v1",
    "kind: CustomResourceDefinition",
    `metadata: { name: ${plural}.${group} }`,
    `spec: { group: ${group}, scope: Namespaced, names: { kind: K${plural}, plural: ${plural} }, versions: [{ name: v1, served: true, storage: true }] }`,
  ].join("\n");

function write(path: string, text: string): string {
  const file = join(root, path);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe("readCrdFiles", () => {
  test("a folder: its .yaml, .yml and .json files, several documents each, other kinds and files skipped, no subfolders", () => {
    write("crds/a.yaml", `${crd("apples")}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: not-a-crd }\n---\n${crd("pears")}`);
    write("crds/b.yml", crd("plums"));
    write("crds/c.json", JSON.stringify({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "figs.example.com" }, spec: { group: "example.com", names: { kind: "Fig", plural: "figs" }, versions: [] } }));
    write("crds/kustomization.txt", crd("ignored"));
    write("crds/nested/d.yaml", crd("nested"));
    const names = readCrdFiles([join(root, "crds")]).map((found) => found.metadata?.name);
    expect(names.sort()).toEqual(["apples.example.com", "figs.example.com", "pears.example.com", "plums.example.com"]);
  });

  test("a file, and the same CRD twice: the later path's wins", () => {
    const first = write("twice/first.yaml", crd("cherries"));
    const second = write("twice/second.yaml", crd("cherries").replace("scope: Namespaced", "scope: Cluster"));
    const found = readCrdFiles([first, second]);
    expect(found).toHaveLength(1);
    expect(found[0]?.spec.scope).toBe("Cluster");
  });

  test("the repository's own CRD folder", () => {
    expect(readCrdFiles([resolve(import.meta.dir, "../../config/crd")]).map((found) => found.metadata?.name)).toEqual(["networks.samplecrd.k8s.io"]);
  });

  test("a path that does not exist, or holds no CRD, is one line naming it", () => {
    expect(() => readCrdFiles([join(root, "nope")])).toThrow(`CRD path ${join(root, "nope")} does not exist: expected a CRD file or a folder of them`);
    const empty = write("empty/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n");
    expect(() => readCrdFiles([join(empty, "..")])).toThrow(`no CustomResourceDefinition in ${join(empty, "..")}: expected .yaml, .yml or .json files holding some`);
  });
});
