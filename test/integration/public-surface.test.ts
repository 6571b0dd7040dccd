// kube-loom's public surface, compared byte for byte with the files under golden/: the --help and
// --version text, the metric families /metrics declares (# HELP and # TYPE lines), and the status
// code and content type of every path the HTTP server answers, with the health-check names each
// health endpoint lists. Refactoring the manager, the builder or the controllers must leave all of
// it unchanged; a failure prints a diff against the golden file.
//
// When a change to the surface is deliberate, regenerate the golden files and commit them together
// with that change:
//   UPDATE_GOLDEN=1 ./node_modules/.bin/bun test test/integration/public-surface.test.ts
//
// One kube-loom process (run from source, all built-in controllers, leader election on) against
// one control plane with the Network CRD installed, scraped only once it leads and /readyz is 200.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { installCrd } from "../network/network-fixture.ts";
import { waitUntil } from "../support/eventually.ts";
import { KubeLoomProcess } from "../support/kube-loom-binary.ts";

const repoRoot = resolve(import.meta.dir, "../..");
const goldenDir = join(import.meta.dir, "golden");
const updating = process.env.UPDATE_GOLDEN === "1";
const bun = join(repoRoot, "node_modules/.bin/bun");
const kubeLoomCommand = [bun, join(repoRoot, "cmd/kube-loom/main.ts")];

let controlPlane: ControlPlane;
let kubeLoom: KubeLoomProcess;

beforeAll(async () => {
  controlPlane = await ControlPlane.start();
  // Installed first, so the network controller starts with the others instead of waiting for it.
  await installCrd(controlPlane, { cel: true });
  kubeLoom = await KubeLoomProcess.start({
    binary: bun,
    launcher: kubeLoomCommand,
    kubeconfig: controlPlane.kubeconfigPath,
    logDir: controlPlane.dir,
    https: true,
    args: ["--leader-elect=true"],
  });
  await kubeLoom.waitFor("/readyz", 120_000);
  await waitUntil(async () => /^leader_election_master_status\{name="kube-loom"\} 1$/m.test(await (await fetch(`${kubeLoom.url}/metrics`)).text()), "kube-loom to lead", 60_000, 250);
  // Leading and synced: every controller is running, so every metric family is declared.
  await kubeLoom.waitFor("/readyz", 60_000);
}, 300_000);

afterAll(async () => {
  await kubeLoom?.stop();
  await controlPlane?.stop();
});

/** Compares `actual` with golden/`name`, or writes it there under UPDATE_GOLDEN=1. */
function expectGolden(name: string, actual: string): void {
  const path = join(goldenDir, name);
  if (updating) {
    mkdirSync(goldenDir, { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`no golden file ${path}; create it with UPDATE_GOLDEN=1`);
  const expected = readFileSync(path, "utf8");
  if (actual === expected) return;
  throw new Error(
    `${name} differs from the golden file (- golden, + now). If the change is deliberate, run with UPDATE_GOLDEN=1 and commit the golden file with it.\n${lineDiff(expected, actual)}`,
  );
}

/** The changed lines of `after` against `before`, with two lines of context around each change. */
function lineDiff(before: string, after: string, context = 2): string {
  const a = before.split("\n");
  const b = after.split("\n");
  // Longest common subsequence, from the ends, so the walk below reads forwards.
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const lines: { mark: " " | "-" | "+"; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ mark: " ", text: a[i]! });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1]![j]! >= common[i]![j + 1]!)) lines.push({ mark: "-", text: a[i++]! });
    else lines.push({ mark: "+", text: b[j++]! });
  }
  const near = (index: number) => lines.slice(Math.max(0, index - context), index + context + 1).some((line) => line.mark !== " ");
  const shown: string[] = [];
  lines.forEach((line, index) => {
    if (!near(index)) {
      if (shown.at(-1) !== "@@") shown.push("@@");
      return;
    }
    shown.push(`${line.mark}${line.text}`);
  });
  return shown.join("\n");
}

async function runKubeLoom(args: string[]): Promise<{ code: number; stdout: string }> {
  const child = Bun.spawn([...kubeLoomCommand, ...args], { stdout: "pipe", stderr: "ignore" });
  const [code, stdout] = await Promise.all([child.exited, new Response(child.stdout).text()]);
  return { code, stdout };
}

/** Status and content type, over plain HTTP and over HTTPS without credentials. */
async function probe(path: string, init: { method?: string; accept?: string } = {}): Promise<string> {
  const request = (base: string, extra: object = {}) =>
    fetch(`${base}${path}`, { method: init.method ?? "GET", headers: init.accept ? { Accept: init.accept } : {}, ...extra } as RequestInit);
  const plain = await request(kubeLoom.url);
  await plain.arrayBuffer();
  // Only the status matters over HTTPS: secure-serving.test.ts checks the certificate.
  const secure = await request(kubeLoom.secureUrl ?? "", { tls: { rejectUnauthorized: false } });
  await secure.arrayBuffer();
  const what = `${init.method ?? "GET"} ${path}${init.accept ? ` (Accept: ${init.accept})` : ""}`;
  return `${what}: http ${plain.status} ${plain.headers.get("content-type") ?? "(none)"}; https anonymous ${secure.status}`;
}

/** The check names `/<endpoint>?verbose` lists, sorted: "[+]name ok" lines. */
async function checkNames(endpoint: string): Promise<string[]> {
  const body = await (await fetch(`${kubeLoom.url}/${endpoint}?verbose`)).text();
  return [...body.matchAll(/^\[[+-]\](\S+) /gm)].map((match) => match[1]!).sort();
}

describe("kube-loom's public surface matches the golden files", () => {
  test("--help and --version", async () => {
    const help = await runKubeLoom(["--help"]);
    expect(help.code).toBe(0);
    expectGolden("help.txt", help.stdout);
    const version = await runKubeLoom(["--version"]);
    expect(version.code).toBe(0);
    expectGolden("version.txt", version.stdout);
  });

  test("the metric families on /metrics", async () => {
    const body = await (await fetch(`${kubeLoom.url}/metrics`)).text();
    const declarations = [...new Set(body.split("\n").filter((line) => line.startsWith("# HELP ") || line.startsWith("# TYPE ")))].sort();
    expectGolden("metrics.txt", `${declarations.join("\n")}\n`);
  });

  test("the HTTP paths: status, content type, and the health checks each health endpoint lists", async () => {
    const zpage = (kind: string) => `application/json;as=${kind};v=v1beta1;g=config.k8s.io`;
    const lines: string[] = [];
    for (const endpoint of ["healthz", "livez", "readyz"]) {
      const names = await checkNames(endpoint);
      lines.push(`/${endpoint} checks: ${names.join(" ")}`);
      for (const path of [`/${endpoint}`, `/${endpoint}?verbose`, ...names.map((name) => `/${endpoint}/${name}`), `/${endpoint}/no-such-check`]) {
        lines.push(await probe(path));
      }
    }
    for (const path of [
      "/metrics",
      "/debug/status",
      "/debug/status.json",
      "/debug/controllers/garbagecollector/graph",
      "/debug/controllers/garbagecollector/no-such-page",
      "/debug/controllers/no-such-controller/graph",
      "/debug/pprof/",
      "/configz",
      "/",
      "/no-such-path",
    ]) {
      lines.push(await probe(path));
    }
    for (const [path, kind] of [["/statusz", "Statusz"], ["/flagz", "Flagz"]] as const) {
      lines.push(await probe(path), await probe(path, { accept: zpage(kind) }), await probe(path, { accept: "application/xml" }));
    }
    lines.push(await probe("/healthz", { method: "POST" }), await probe("/metrics", { method: "POST" }));
    // What /statusz says the process serves, and which flags /flagz shows (their values vary by run).
    const statusz = (await (await fetch(`${kubeLoom.url}/statusz`, { headers: { Accept: zpage("Statusz") } })).json()) as { paths: string[] };
    lines.push(`/statusz paths: ${statusz.paths.join(" ")}`);
    const flagz = (await (await fetch(`${kubeLoom.url}/flagz`, { headers: { Accept: zpage("Flagz") } })).json()) as { flags: Record<string, string> };
    lines.push(`/flagz flags: ${Object.keys(flagz.flags).sort().join(" ")}`);
    expectGolden("endpoints.txt", `${lines.join("\n")}\n`);
  }, 60_000);
});
