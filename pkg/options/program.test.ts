import { describe, expect, test } from "bun:test";
import { stringFlag } from "./flag-definition.ts";
import { parseCommandLine, type KnownController, type ParseOutcome } from "./parse-command-line.ts";
import { type Program, resolveProgram } from "./program.ts";

const oldFlag = stringFlag({ name: "old-mode", group: "Probe", default: "", help: "Old.", deprecated: "use --mode" });
const controllers: KnownController[] = [{ name: "probe", aliases: [], enabledByDefault: true, flags: [oldFlag] }];
const probeManager: Program = { name: "probe-manager", version: "2.3.0" };

function parse(argv: string[], program: Program = probeManager): ParseOutcome {
  return parseCommandLine(argv, { controllers, program });
}

function runLease(argv: string[], program: Program = probeManager): { resourceName: string; resourceNamespace: string } {
  const outcome = parse(argv, program);
  if (outcome.kind !== "run") throw new Error(`expected to run, got exit ${outcome.code}: ${outcome.stderr}`);
  return outcome.options.leaderElection;
}

describe("a program built on kube-loom names itself", () => {
  test("in --help: the usage line, the description, the Lease default and its own connection", () => {
    const outcome = parse(["--help"]);
    if (outcome.kind !== "exit") throw new Error("expected --help to exit");
    expect(outcome.stdout).toStartWith("probe-manager runs Kubernetes controllers in one process: ");
    expect(outcome.stdout).toContain("\nUsage:\n  probe-manager [flags]\n");
    expect(outcome.stdout).toMatch(/--leader-elect-resource-name string +Name of the Lease the election is held on\. \(default "probe-manager"\)/);
    expect(outcome.stdout).toContain("--authentication-kubeconfig string                  kubeconfig of an API server that may create tokenreviews.authentication.k8s.io, asked who a bearer token belongs to. Empty: the API server and credentials probe-manager works with.\n");
    expect(outcome.stdout).toContain("Empty: the API server and credentials probe-manager works with.\n      --authorization-webhook-cache-authorized-ttl");
  });

  test("in --help, with a description of its own", () => {
    const outcome = parse(["--help"], { ...probeManager, description: "probe-manager probes leadership." });
    if (outcome.kind !== "exit") throw new Error("expected --help to exit");
    expect(outcome.stdout).toStartWith("probe-manager probes leadership.\n\nUsage:\n  probe-manager [flags]\n");
  });

  test("in --version, with or without the v", () => {
    expect(parse(["--version"])).toEqual({ kind: "exit", code: 0, stdout: "probe-manager v2.3.0\n" });
    expect(parse(["--version"], { name: "probe-manager", version: "v2.3.0" })).toEqual({ kind: "exit", code: 0, stdout: "probe-manager v2.3.0\n" });
  });

  test("before usage errors and deprecation warnings", () => {
    expect(parse(["--foo"])).toEqual({ kind: "exit", code: 2, stderr: "probe-manager: unknown flag --foo (see --help)\n" });
    const outcome = parse(["--old-mode=x"]);
    expect(outcome.kind === "run" && outcome.warnings).toEqual(["probe-manager: --old-mode is deprecated: use --mode"]);
  });
});

describe("the Lease a program elects on", () => {
  test("is named after the program by default, in kube-system", () => {
    expect(runLease([])).toMatchObject({ resourceName: "probe-manager", resourceNamespace: "kube-system" });
  });

  test("is the program's leaseName and leaseNamespace when it gives them", () => {
    const program = { ...probeManager, leaseName: "probe-manager.example.com", leaseNamespace: "probes" };
    expect(runLease([], program)).toMatchObject({ resourceName: "probe-manager.example.com", resourceNamespace: "probes" });
  });

  test("is still the operator's choice on the command line", () => {
    const lease = runLease(["--leader-elect-resource-name=other", "--leader-elect-resource-namespace=default"]);
    expect(lease).toMatchObject({ resourceName: "other", resourceNamespace: "default" });
  });

  test("of one program does not leak into another parsed in the same process", () => {
    expect(runLease([])).toMatchObject({ resourceName: "probe-manager" });
    expect(runLease([], { name: "kube-loom", version: "0.1.0" })).toMatchObject({ resourceName: "kube-loom" });
    expect(runLease([])).toMatchObject({ resourceName: "probe-manager" });
  });
});

describe("resolveProgram", () => {
  test("fills in the defaults and spells the version with a v", () => {
    const { description, ...rest } = resolveProgram({ name: "probe-manager", version: "2.3.0" });
    expect(rest).toEqual({ name: "probe-manager", version: "v2.3.0", leaseName: "probe-manager", leaseNamespace: "kube-system" });
    expect(description).toStartWith("probe-manager runs Kubernetes controllers in one process: ");
  });

  test.each([
    [{ name: "probe manager", version: "1" }, 'invalid program name "probe manager": expected a word without spaces, "/" or parentheses'],
    [{ name: "", version: "1" }, 'invalid program name "": expected a word without spaces, "/" or parentheses'],
    [{ name: "probe-manager", version: "" }, 'invalid version "" for probe-manager: expected a word without spaces, "/" or parentheses, such as 1.2.0'],
    [{ name: "probe-manager", version: "v" }, 'invalid version "v" for probe-manager: expected a word without spaces, "/" or parentheses, such as 1.2.0'],
    [
      { name: "Probe_Manager", version: "1" },
      'program name "Probe_Manager" cannot name the default Lease: expected at most 253 lowercase letters, digits, "-" and ".", starting and ending with a letter or digit, or pass a leaseName',
    ],
    [{ name: "probe-manager", version: "1", leaseName: "-probe" }, 'invalid leaseName "-probe": expected at most 253 lowercase letters, digits, "-" and ".", starting and ending with a letter or digit'],
    [
      { name: "probe-manager", version: "1", leaseNamespace: "a.b" },
      'leaseNamespace "a.b" is not a valid namespace: expected at most 63 lowercase letters, digits and "-", starting and ending with a letter or digit',
    ],
  ])("refuses %o in one line", (program, message) => {
    expect(() => resolveProgram(program)).toThrow(message);
  });

  test("a name that is no Lease name is fine with a leaseName", () => {
    expect(resolveProgram({ name: "Probe_Manager", version: "1", leaseName: "probe-manager" }).leaseName).toBe("probe-manager");
  });
});
