// Reads CustomResourceDefinitions from files the way envtest does: a path is a file or a folder
// (its files, not its subfolders); only .yaml, .yml and .json files are read; a file may hold
// several documents; documents of other kinds are skipped. Unlike envtest, a missing path or a
// path without any CRD is an error: it is almost always a typo in a test.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { V1CustomResourceDefinition } from "@kubernetes/client-node";
import type { Wire } from "../kube/objects.ts";

/** An apiextensions.k8s.io/v1 CustomResourceDefinition, as the API server stores it. */
export type CustomResourceDefinition = Wire<V1CustomResourceDefinition>;

const CRD_EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

/** Every CRD under `paths`; a CRD named twice is taken from the path that comes last. */
export function readCrdFiles(paths: readonly string[]): CustomResourceDefinition[] {
  const byName = new Map<string, CustomResourceDefinition>();
  for (const path of paths) {
    const found = filesAt(path).flatMap(crdsInFile);
    if (found.length === 0) throw new Error(`no CustomResourceDefinition in ${path}: expected .yaml, .yml or .json files holding some`);
    for (const crd of found) byName.set(crd.metadata?.name ?? "", crd);
  }
  return [...byName.values()];
}

function filesAt(path: string): string[] {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch {
    throw new Error(`CRD path ${path} does not exist: expected a CRD file or a folder of them`);
  }
  if (!isFolder) return [path];
  return readdirSync(path)
    .filter((name) => CRD_EXTENSIONS.has(extname(name)))
    .sort()
    .map((name) => join(path, name))
    .filter((file) => statSync(file).isFile());
}

function crdsInFile(file: string): CustomResourceDefinition[] {
  const documents = parseAllDocuments(readFileSync(file, "utf8"));
  const crds: CustomResourceDefinition[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message ?? "invalid YAML"}`);
    const object: unknown = document.toJS();
    if (isCrd(object)) crds.push(object);
  }
  return crds;
}

function isCrd(object: unknown): object is CustomResourceDefinition {
  if (typeof object !== "object" || object === null) return false;
  const candidate = object as Partial<CustomResourceDefinition>;
  return candidate.kind === "CustomResourceDefinition" && Boolean(candidate.spec?.group) && Boolean(candidate.spec?.names?.kind);
}
