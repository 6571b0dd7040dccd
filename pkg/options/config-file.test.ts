import { describe, expect, test } from "bun:test";
import { intFlag } from "./flag-definition.ts";
import { parseCommandLine, type KnownController, type ParseOutcome } from "./parse-command-line.ts";
import type { Options } from "./options.ts";

const concurrentAlphaSyncs = intFlag({ name: "concurrent-alpha-syncs", group: "Alpha controller", default: 5, min: 1, help: "" });
const controllers: KnownController[] = [
  { name: "alpha-controller", aliases: ["alpha"], enabledByDefault: true, flags: [concurrentAlphaSyncs] },
  { name: "network", aliases: [], enabledByDefault: true, flags: [] },
];

const PATH = "/etc/kube-loom/config.yaml";

function parseWithFile(text: string, argv: string[] = []): ParseOutcome {
  return parseCommandLine([`--config=${PATH}`, ...argv], {
    controllers,
    program: { name: "kube-loom", version: "0.1.0" },
    readFile: (path) => {
      if (path !== PATH) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      return text;
    },
  });
}

function run(text: string, argv?: string[]): Options {
  const outcome = parseWithFile(text, argv);
  if (outcome.kind !== "run") throw new Error(`expected to run, got: ${outcome.stderr}`);
  return outcome.options;
}

function usageError(text: string, argv?: string[]): string {
  const outcome = parseWithFile(text, argv);
  if (outcome.kind !== "exit") throw new Error("expected a usage error");
  expect(outcome.code).toBe(2);
  expect((outcome.stderr ?? "").trimEnd().split("\n")).toHaveLength(1);
  return (outcome.stderr ?? "").trimEnd();
}

describe("--config", () => {
  test("sets flags by name, with YAML types or strings", () => {
    const options = run(
      [
        "kube-api-qps: 50",
        'kube-api-burst: "60"',
        "leader-elect: false",
        "leader-elect-lease-duration: 30s",
        "v: 4",
        "log-format: text",
        "concurrent-alpha-syncs: 12",
        "kubeconfig: /etc/kube/admin.conf",
      ].join("\n"),
    );
    expect(options.configFile).toBe(PATH);
    expect(options.connection).toMatchObject({ qps: 50, burst: 60, kubeconfig: "/etc/kube/admin.conf" });
    expect(options.leaderElection).toMatchObject({ enabled: false, leaseDurationMs: 30_000 });
    expect(options.logging).toEqual({ verbosity: 4, format: "text" });
    expect(options.values.get(concurrentAlphaSyncs)).toBe(12);
  });

  test.each(['controllers: ["*", "-network"]', 'controllers: "*,-network"', "controllers:\n  - '*'\n  - -network"])(
    "a list as YAML or comma-separated: %p",
    (text) => {
      expect(run(text).enabledControllers).toEqual(["alpha-controller"]);
    },
  );

  test("flags on the command line win over the file", () => {
    const options = run("kube-api-qps: 50\nkube-api-burst: 60\ncontrollers: [alpha]", ["--kube-api-qps=70", "--controllers=*"]);
    expect(options.connection).toMatchObject({ qps: 70, burst: 60 });
    expect(options.enabledControllers).toEqual(["alpha-controller", "network"]);
  });

  test("the file's values go through cross-flag validation too", () => {
    expect(usageError("leader-elect-renew-deadline: 20s")).toBe(
      "kube-loom: --leader-elect-renew-deadline (20s) must be less than --leader-elect-lease-duration (15s)",
    );
    expect(usageError("controllers: [bogus]")).toBe('kube-loom: "bogus" is not in the list of known controllers (known: alpha-controller, network)');
  });

  test("an empty file sets nothing", () => {
    expect(run("").connection.qps).toBe(20);
    expect(run("# only a comment\n").connection.qps).toBe(20);
  });

  test("an unknown key is an error naming it", () => {
    expect(usageError("kube-api-qps: 5\nkube-api-qsp: 5")).toBe(
      `kube-loom: unknown key "kube-api-qsp" in config file ${PATH}: keys are flag names without dashes (see --help)`,
    );
  });

  test.each(["config", "help", "version"])("%p cannot be set from the file", (key) => {
    expect(usageError(`${key}: true`)).toStartWith(`kube-loom: unknown key "${key}" in config file ${PATH}`);
  });

  test("a bad value names the key, the file and what was expected", () => {
    expect(usageError("kube-api-qps: fast")).toBe(
      `kube-loom: invalid value "fast" for kube-api-qps in config file ${PATH}: expected a number > 0`,
    );
    expect(usageError("leader-elect: yes")).toBe(`kube-loom: invalid value "yes" for leader-elect in config file ${PATH}: expected true or false`);
    expect(usageError("min-resync-period: 60")).toStartWith(
      `kube-loom: invalid value 60 for min-resync-period in config file ${PATH}: expected a duration`,
    );
  });

  test("a bad value is shown as it is: NaN and infinities by name, a list inside itself without looping", () => {
    expect(usageError("kube-api-qps: 1e400")).toBe(`kube-loom: invalid value Infinity for kube-api-qps in config file ${PATH}: expected a number > 0`);
    expect(usageError("kube-api-qps: .nan")).toBe(`kube-loom: invalid value NaN for kube-api-qps in config file ${PATH}: expected a number > 0`);
    expect(usageError("kube-api-burst: -.inf")).toStartWith(`kube-loom: invalid value -Infinity for kube-api-burst in config file ${PATH}: expected an integer`);
    expect(usageError("controllers: [.nan, {a: 1}]")).toBe(
      `kube-loom: invalid value [NaN,{"a":1}] for controllers in config file ${PATH}: expected a comma-separated list`,
    );
    expect(usageError("controllers: &a [*a]")).toBe(
      `kube-loom: invalid value [<cycle>] for controllers in config file ${PATH}: expected a comma-separated list`,
    );
  });

  test("a bad value in the file is reported even when the command line overrides it", () => {
    expect(usageError("kube-api-qps: fast", ["--kube-api-qps=5"])).toContain("for kube-api-qps in config file");
  });

  test("a missing file names the path", () => {
    const outcome = parseCommandLine(["--config=/nowhere.yaml"], { controllers, program: { name: "kube-loom", version: "1" }, readFile: () => {
      throw new Error("ENOENT: no such file or directory, open '/nowhere.yaml'");
    } });
    expect(outcome).toEqual({
      kind: "exit",
      code: 2,
      stderr: "kube-loom: cannot read config file /nowhere.yaml: ENOENT: no such file or directory, open '/nowhere.yaml'\n",
    });
  });

  test("the default reader reads the real file system", () => {
    const outcome = parseCommandLine(["--config=/nonexistent/kube-loom.yaml"], { controllers, program: { name: "kube-loom", version: "1" } });
    expect(outcome).toMatchObject({ kind: "exit", code: 2 });
    if (outcome.kind === "exit") expect(outcome.stderr).toStartWith("kube-loom: cannot read config file /nonexistent/kube-loom.yaml: ");
  });

  test("bad YAML names the path, on one line", () => {
    expect(usageError("kube-api-qps: [1,\n  2")).toStartWith(`kube-loom: invalid YAML in config file ${PATH}: `);
    expect(usageError("port: 1\nport: 2")).toBe(`kube-loom: invalid YAML in config file ${PATH}: Map keys must be unique at line 2, column 1`);
  });

  test("the document must be a mapping", () => {
    expect(usageError("- kube-api-qps: 5")).toBe(`kube-loom: config file ${PATH} must be a mapping from flag names to values`);
    expect(usageError("just text")).toBe(`kube-loom: config file ${PATH} must be a mapping from flag names to values`);
  });
});
