import { describe, expect, test } from "bun:test";
import { durationFlag, intFlag } from "./flag-definition.ts";
import { parseCommandLine, type KnownController, type ParseContext, type ParseOutcome } from "./parse-command-line.ts";
import type { Options } from "./options.ts";
import { runtimeVersion } from "../version.ts";

const concurrentAlphaSyncs = intFlag({
  name: "concurrent-alpha-syncs",
  group: "Alpha controller",
  default: 5,
  min: 1,
  help: "The number of alpha objects that are allowed to sync concurrently.",
});
const betaGracePeriod = durationFlag({ name: "beta-grace-period", group: "Beta controller", default: 60_000, min: 0, help: "Beta's grace." });

const controllers: KnownController[] = [
  { name: "alpha-controller", aliases: ["alpha"], enabledByDefault: true, flags: [concurrentAlphaSyncs] },
  { name: "beta-controller", aliases: [], enabledByDefault: true, flags: [betaGracePeriod] },
  { name: "gamma-controller", aliases: ["gamma"], enabledByDefault: false, flags: [] },
];

function parse(argv: string[], files: Record<string, string> = {}): ParseOutcome {
  const context: ParseContext = {
    controllers,
    program: { name: "kube-loom", version: "0.1.0" },
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      return text;
    },
  };
  return parseCommandLine(argv, context);
}

function run(argv: string[], files?: Record<string, string>): Options {
  const outcome = parse(argv, files);
  if (outcome.kind !== "run") throw new Error(`expected to run, got exit ${outcome.code}: ${outcome.stderr}`);
  return outcome.options;
}

/** The usage error line, after checking it is the only output, on stderr, with exit code 2. */
function usageError(argv: string[], files?: Record<string, string>): string {
  const outcome = parse(argv, files);
  if (outcome.kind !== "exit") throw new Error(`expected a usage error for ${argv.join(" ")}`);
  expect(outcome.code).toBe(2);
  expect(outcome.stdout).toBeUndefined();
  const stderr = outcome.stderr ?? "";
  expect(stderr.endsWith("\n")).toBe(true);
  expect(stderr.trimEnd().split("\n")).toHaveLength(1);
  return stderr.trimEnd();
}

describe("defaults", () => {
  test("follow kube-controller-manager, with kube-loom's lease name", () => {
    const options = run([]);
    expect(options.enabledControllers).toEqual(["alpha-controller", "beta-controller"]);
    expect(options.configFile).toBeUndefined();
    expect(options.minResyncPeriodMs).toBe(12 * 3_600_000);
    expect(options.controllerShutdownTimeoutMs).toBe(10_000);
    expect(options.apiserverWaitTimeoutMs).toBe(60_000);
    expect(options.leaderElection).toEqual({
      enabled: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2000,
      resourceLock: "leases",
      resourceName: "kube-loom",
      resourceNamespace: "kube-system",
    });
    expect(options.serving).toEqual({
      secure: { bindAddress: "0.0.0.0", port: 10257, certKeyFiles: undefined, certDir: undefined, cipherSuites: [], curvePreferences: [], minTlsVersion: undefined },
      insecure: { address: "127.0.0.1", port: 0 },
      authentication: { kubeconfig: undefined, tokenCacheTtlMs: 10_000, clientCaFile: undefined, skipLookup: false },
      authorization: { kubeconfig: undefined, alwaysAllowPaths: ["/healthz", "/readyz", "/livez"], authorizedTtlMs: 10_000, unauthorizedTtlMs: 10_000 },
    });
    expect(options.connection).toEqual({
      kubeconfig: undefined,
      master: undefined,
      context: undefined,
      qps: 20,
      burst: 30,
      requestTimeoutMs: 30_000,
      contentType: "application/vnd.kubernetes.protobuf",
    });
    expect(options.logging).toEqual({ verbosity: 0, format: "json" });
    expect(options.values.get(concurrentAlphaSyncs)).toBe(5);
    expect(options.values.get(betaGracePeriod)).toBe(60_000);
  });
});

describe("command-line forms", () => {
  test("--flag=value and --flag value", () => {
    const options = run(["--kube-api-qps=50", "--kube-api-burst", "80", "--master", "https://10.0.0.1:6443", "--context=ci"]);
    expect(options.connection).toMatchObject({ qps: 50, burst: 80, master: "https://10.0.0.1:6443", context: "ci" });
  });

  test.each<[string[], boolean]>([
    [[], true],
    [["--leader-elect"], true],
    [["--leader-elect=true"], true],
    [["--leader-elect=false"], false],
    [["--leader-elect=0"], false],
    [["--leader-elect=F"], false],
  ])("booleans: %p gives %p", (argv, enabled) => {
    expect(run(argv).leaderElection.enabled).toBe(enabled);
  });

  test("a boolean's value must follow '=', as with pflag", () => {
    expect(usageError(["--leader-elect", "false"])).toBe(
      'kube-loom: unexpected argument "false" after --leader-elect: a boolean flag takes its value after "=", as in --leader-elect=false',
    );
    expect(usageError(["--leader-elect=maybe"])).toBe('kube-loom: invalid value "maybe" for --leader-elect: expected true or false');
  });

  test.each<[string[]]>([[["-v", "3"]], [["-v=3"]], [["-v3"]], [["--v=3"]], [["--v", "3"]]])("verbosity: %p", (argv) => {
    expect(run(argv).logging.verbosity).toBe(3);
  });

  test("integers are bounded to pflag's int32 range, the bound named", () => {
    expect(run(["--kube-api-burst=2147483647"]).connection.burst).toBe(2_147_483_647);
    expect(usageError(["--kube-api-burst=99999999999"])).toBe(
      'kube-loom: invalid value "99999999999" for --kube-api-burst: expected an integer between 0 and 2147483647',
    );
    expect(usageError(["--concurrent-alpha-syncs=2147483648"])).toBe(
      'kube-loom: invalid value "2147483648" for --concurrent-alpha-syncs: expected an integer between 1 and 2147483647',
    );
  });

  test("verbosity is bounded", () => {
    expect(usageError(["-v", "11"])).toBe('kube-loom: invalid value "11" for -v: expected an integer between 0 and 10');
  });

  test("durations are Go duration strings, read as milliseconds", () => {
    const options = run(["--min-resync-period=1m30s", "--controller-shutdown-timeout", "500ms", "--kube-api-timeout=0", "--apiserver-wait-timeout=2h"]);
    expect(options.minResyncPeriodMs).toBe(90_000);
    expect(options.controllerShutdownTimeoutMs).toBe(500);
    expect(options.connection.requestTimeoutMs).toBe(0);
    expect(options.apiserverWaitTimeoutMs).toBe(7_200_000);
    expect(usageError(["--controller-shutdown-timeout=30"])).toBe(
      'kube-loom: invalid value "30" for --controller-shutdown-timeout: expected a duration >= 0s written like 15s, 1m30s, 500ms or 2h',
    );
  });

  test("enum and ip values", () => {
    const options = run(["--log-format=text", "--bind-address", "::"]);
    expect(options.logging.format).toBe("text");
    expect(options.serving.secure.bindAddress).toBe("::");
    expect(usageError(["--log-format=xml"])).toBe('kube-loom: invalid value "xml" for --log-format: expected one of: json, text');
    expect(run(["--kube-api-content-type=application/json"]).connection.contentType).toBe("application/json");
    expect(usageError(["--kube-api-content-type=application/cbor"])).toBe(
      'kube-loom: invalid value "application/cbor" for --kube-api-content-type: expected one of: application/vnd.kubernetes.protobuf, application/json',
    );
    expect(usageError(["--leader-elect-resource-lock=endpoints"])).toBe(
      'kube-loom: invalid value "endpoints" for --leader-elect-resource-lock: expected one of: leases',
    );
    expect(usageError(["--bind-address=localhost"])).toBe(
      'kube-loom: invalid value "localhost" for --bind-address: expected an IP address such as 0.0.0.0 or ::',
    );
  });

  test("numbers are checked", () => {
    expect(usageError(["--kube-api-qps=fast"])).toBe('kube-loom: invalid value "fast" for --kube-api-qps: expected a number > 0');
    expect(usageError(["--kube-api-burst=-1"])).toBe('kube-loom: invalid value "-1" for --kube-api-burst: expected an integer between 0 and 2147483647');
    expect(usageError(["--port=70000"])).toBe('kube-loom: invalid value "70000" for --port: expected an integer between 0 and 65535');
    expect(run(["--port=0"]).serving.insecure.port).toBe(0);
  });

  test("the last of a repeated flag wins, except lists, which append", () => {
    expect(run(["--port=1", "--port=2"]).serving.insecure.port).toBe(2);
    expect(run(["--controllers=alpha", "--controllers", "gamma"]).enabledControllers).toEqual(["alpha-controller", "gamma-controller"]);
  });

  test("a list value may start with '-', as pflag allows", () => {
    expect(run(["--controllers", "-alpha,*"]).enabledControllers).toEqual(["beta-controller"]);
  });

  test("a missing value names the flag and what it expects", () => {
    expect(usageError(["--port"])).toBe("kube-loom: missing value for --port: expected an integer between 0 and 65535");
  });

  test("controllers' own flags are parsed and read back typed", () => {
    const options = run(["--concurrent-alpha-syncs=9", "--beta-grace-period=2m"]);
    const syncs: number = options.values.get(concurrentAlphaSyncs);
    expect(syncs).toBe(9);
    expect(options.values.get(betaGracePeriod)).toBe(120_000);
    expect(usageError(["--concurrent-alpha-syncs=0"])).toBe(
      'kube-loom: invalid value "0" for --concurrent-alpha-syncs: expected an integer between 1 and 2147483647',
    );
  });

  test("reading a flag nobody registered is a bug, not a default", () => {
    const stray = intFlag({ name: "stray", group: "Nowhere", default: 1, help: "" });
    expect(() => run([]).values.get(stray)).toThrow("flag --stray was never registered");
  });
});

describe("--controller-shutdown-timeout and the deprecated --shutdown-grace-period", () => {
  const outcomeOf = (argv: string[], files?: Record<string, string>) => {
    const outcome = parse(argv, files);
    if (outcome.kind !== "run") throw new Error(`expected to run, got exit ${outcome.code}: ${outcome.stderr}`);
    return { timeoutMs: outcome.options.controllerShutdownTimeoutMs, warnings: outcome.warnings };
  };
  const deprecation = "kube-loom: --shutdown-grace-period is deprecated: use --controller-shutdown-timeout (default 10s; there 0 means no limit)";

  test("kube-controller-manager 1.35's flag: 10s by default, 0 waits without a limit", () => {
    expect(outcomeOf([])).toEqual({ timeoutMs: 10_000, warnings: [] });
    expect(outcomeOf(["--controller-shutdown-timeout=1m"])).toEqual({ timeoutMs: 60_000, warnings: [] });
    expect(outcomeOf(["--controller-shutdown-timeout=0"])).toEqual({ timeoutMs: undefined, warnings: [] });
  });

  test("the old name still works, with its own 0 (abandon in-flight work at once), and one warning however often it is given", () => {
    expect(outcomeOf(["--shutdown-grace-period=5s", "--shutdown-grace-period=7s"])).toEqual({ timeoutMs: 7000, warnings: [deprecation] });
    expect(outcomeOf(["--shutdown-grace-period=0"])).toEqual({ timeoutMs: 0, warnings: [deprecation] });
    expect(outcomeOf(["--config=/c.yaml"], { "/c.yaml": "shutdown-grace-period: 3s\n" })).toEqual({ timeoutMs: 3000, warnings: [deprecation] });
  });

  test("given both, the new name wins", () => {
    expect(outcomeOf(["--shutdown-grace-period=5s", "--controller-shutdown-timeout=20s"])).toEqual({ timeoutMs: 20_000, warnings: [deprecation] });
  });

  test("--help lists the new name only, as pflag hides deprecated flags", () => {
    const outcome = parse(["--help"]);
    const help = outcome.kind === "exit" ? (outcome.stdout ?? "") : "";
    expect(help).toContain("      --controller-shutdown-timeout duration");
    expect(help).toContain("(default 10s)");
    expect(help).not.toContain("--shutdown-grace-period");
  });
});

describe("--controllers", () => {
  test.each<[string, string[]]>([
    ["*", ["alpha-controller", "beta-controller"]],
    ["*,-beta-controller", ["alpha-controller"]],
    ["*,gamma", ["alpha-controller", "beta-controller", "gamma-controller"]],
    ["beta-controller", ["beta-controller"]],
  ])("%p", (list, enabled) => {
    expect(run([`--controllers=${list}`]).enabledControllers).toEqual(enabled);
  });

  test("an unknown controller is a usage error naming it", () => {
    expect(usageError(["--controllers=*,-bogus"])).toBe(
      'kube-loom: "bogus" is not in the list of known controllers (known: alpha-controller, beta-controller, gamma-controller)',
    );
  });

  test("a selection that enables no controller is a usage error saying what -x means", () => {
    expect(usageError(["--controllers=-beta-controller"])).toBe(
      'kube-loom: --controllers=-beta-controller enables no controller: "-x" only disables x; to run every other controller use --controllers=*,-beta-controller',
    );
    expect(usageError(["--controllers="])).toBe(
      "kube-loom: --controllers= enables no controller: name the controllers to run, or use --controllers=* for every on-by-default one",
    );
  });
});

describe("--shard-ring", () => {
  test("a ring replaces the election, whose timings and namespace it keeps", () => {
    const options = run(["--shard-ring=loom", "--leader-elect-lease-duration=30s"]);
    expect(options.sharding).toEqual({ ring: "loom" });
    expect(options.leaderElection.enabled).toBe(false);
    expect(options.leaderElection.leaseDurationMs).toBe(30_000);
    expect(run([]).sharding).toBeUndefined();
  });

  test("a name that cannot prefix a Lease's name, and timings that do not fit, are usage errors", () => {
    expect(usageError(["--shard-ring=Loom_1"])).toBe(
      'kube-loom: --shard-ring "Loom_1" is not a valid ring name: expected lowercase letters, digits and "-", starting and ending with a letter or digit, at most 54 characters',
    );
    // Checked with the election off as well: the ring's members renew by the same rules.
    expect(usageError(["--shard-ring=loom", "--leader-elect=false", "--leader-elect-lease-duration=5s"])).toContain("must be less than");
    expect(usageError(["--shard-ring=loom", "--leader-elect=false", "--leader-elect-resource-namespace=BAD"])).toStartWith(
      'kube-loom: invalid value "BAD" for --leader-elect-resource-namespace: expected a namespace',
    );
  });
});

describe("leader election validation", () => {
  test("the lease duration must exceed the renew deadline", () => {
    expect(usageError(["--leader-elect-lease-duration=5s"])).toBe(
      "kube-loom: --leader-elect-renew-deadline (10s) must be less than --leader-elect-lease-duration (5s)",
    );
    expect(usageError(["--leader-elect-lease-duration=10s"])).toContain("must be less than");
  });

  test("the renew deadline must exceed 1.2 times the retry period", () => {
    expect(usageError(["--leader-elect-retry-period=9s"])).toBe(
      "kube-loom: --leader-elect-renew-deadline (10s) must be greater than 1.2 times --leader-elect-retry-period (9s), that is more than 10.8s",
    );
    // Exactly 1.2 times is not enough (client-go compares with <=).
    expect(usageError(["--leader-elect-renew-deadline=2.4s"])).toContain("must be greater than 1.2 times");
    expect(run(["--leader-elect-renew-deadline=2401ms"]).leaderElection.renewDeadlineMs).toBe(2401);
  });

  test("each duration must be positive, the lease at least a second", () => {
    expect(usageError(["--leader-elect-retry-period=0s"])).toBe(
      'kube-loom: invalid value "0s" for --leader-elect-retry-period: expected a duration > 0s written like 15s, 1m30s, 500ms or 2h',
    );
    expect(usageError(["--leader-elect-lease-duration=500ms"])).toContain("expected a duration >= 1s");
  });

  test("the lock's name and namespace are required", () => {
    expect(usageError(["--leader-elect-resource-name="])).toBe(
      "kube-loom: --leader-elect-resource-name must not be empty when --leader-elect is on",
    );
  });

  test("the Lease's name must be an object name, its namespace a namespace name", () => {
    expect(usageError(["--leader-elect-resource-name=Bad_Name"])).toBe(
      'kube-loom: invalid value "Bad_Name" for --leader-elect-resource-name: expected a Lease name: at most 253 lowercase letters, digits, "-" and ".", starting and ending with a letter or digit',
    );
    expect(usageError(["--leader-elect-resource-name=a".padEnd(291, "a")])).toStartWith('kube-loom: invalid value "aaa');
    expect(usageError(["--leader-elect-resource-namespace=BAD"])).toBe(
      'kube-loom: invalid value "BAD" for --leader-elect-resource-namespace: expected a namespace: at most 63 lowercase letters, digits and "-", starting and ending with a letter or digit',
    );
    expect(usageError(["--leader-elect-resource-namespace=kube.system"])).toContain("expected a namespace");
    expect(run(["--leader-elect-resource-name=my.lease-1", "--leader-elect-resource-namespace=ops-2"]).leaderElection).toMatchObject({
      resourceName: "my.lease-1",
      resourceNamespace: "ops-2",
    });
  });

  test("nothing is checked when leader election is off", () => {
    const options = run(["--leader-elect=false", "--leader-elect-lease-duration=5s", "--leader-elect-resource-name=", "--leader-elect-resource-namespace=BAD"]);
    expect(options.leaderElection.enabled).toBe(false);
  });
});

describe("secure serving and delegated auth", () => {
  test("certificate and key files come as a pair", () => {
    expect(run(["--tls-cert-file=/c.crt", "--tls-private-key-file=/c.key"]).serving.secure.certKeyFiles).toEqual({ certFile: "/c.crt", keyFile: "/c.key" });
    expect(usageError(["--tls-cert-file=/c.crt"])).toBe(
      "kube-loom: --tls-cert-file needs its partner: give both --tls-cert-file and --tls-private-key-file, or neither for a self-signed certificate",
    );
    expect(usageError(["--tls-private-key-file=/c.key"])).toStartWith("kube-loom: --tls-private-key-file needs its partner");
  });

  test("cipher suites and TLS versions by Go's names", () => {
    const secure = run(["--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256", "--tls-min-version=VersionTLS12"]).serving.secure;
    expect(secure.cipherSuites).toEqual(["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"]);
    expect(secure.minTlsVersion).toBe("VersionTLS12");
    expect(usageError(["--tls-cipher-suites=ECDHE-RSA-AES128-GCM-SHA256"])).toBe(
      'kube-loom: unknown cipher suite "ECDHE-RSA-AES128-GCM-SHA256" in --tls-cipher-suites (see --help for the names)',
    );
    expect(usageError(["--tls-min-version=TLSv1.2"])).toBe(
      'kube-loom: invalid value "TLSv1.2" for --tls-min-version: expected one of: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13',
    );
  });

  test("--tls-curve-preferences takes Go's CurveID numbers, checked as kube-controller-manager 1.36 checks them", () => {
    expect(run(["--tls-curve-preferences=29,23"]).serving.secure.curvePreferences).toEqual([29, 23]);
    expect(run(["--config=/c.yaml"], { "/c.yaml": "tls-curve-preferences: [24]\n" }).serving.secure.curvePreferences).toEqual([24]);
    expect(usageError(["--tls-curve-preferences=X25519"])).toBe(
      'kube-loom: invalid value "X25519" for --tls-curve-preferences: expected a comma-separated list of integers',
    );
    expect(usageError(["--tls-curve-preferences=29,29"])).toBe("kube-loom: cannot use --tls-curve-preferences=29,29: curve ID 29 is given twice");
    expect(usageError(["--tls-curve-preferences=0"])).toBe("kube-loom: cannot use --tls-curve-preferences=0: curve ID 0 is out of range (1-65535)");
    expect(usageError(["--tls-curve-preferences=30"])).toStartWith("kube-loom: cannot use --tls-curve-preferences=30: curve ID 30 is not one Go's crypto/tls knows");
  });

  test("always-allowed paths take a * only at the end", () => {
    expect(run(["--authorization-always-allow-paths=/healthz,/debug/*"]).serving.authorization.alwaysAllowPaths).toEqual(["/healthz", "/debug/*"]);
    expect(usageError(["--authorization-always-allow-paths=/a*/b"])).toBe(
      'kube-loom: invalid path "/a*/b" in --authorization-always-allow-paths: only a trailing * is allowed',
    );
  });
});

describe("usage errors", () => {
  test("an unknown flag", () => {
    expect(usageError(["--foo"])).toBe("kube-loom: unknown flag --foo (see --help)");
    expect(usageError(["--foo=bar"])).toBe("kube-loom: unknown flag --foo (see --help)");
    expect(usageError(["-x"])).toBe("kube-loom: unknown flag -x (see --help)");
    expect(usageError(["-leader-elect=false"])).toBe("kube-loom: unknown flag -leader-elect (see --help)");
  });

  test("the first problem in argv order is the one reported", () => {
    expect(usageError(["--port=x", "--foo"])).toBe('kube-loom: invalid value "x" for --port: expected an integer between 0 and 65535');
  });

  test("a positional argument, also after --", () => {
    expect(usageError(["run"])).toBe('kube-loom: unexpected argument "run": only flags are accepted (see --help)');
    expect(usageError(["--", "--port=1"])).toBe('kube-loom: unexpected argument "--port=1": only flags are accepted (see --help)');
  });

  test("empty arguments are ignored, as kube-controller-manager does", () => {
    expect(run(["", "--port=1", ""]).serving.insecure.port).toBe(1);
  });
});

describe("--help and --version", () => {
  test.each([["--help"], ["-h"], ["--help=true"]])("%p prints usage to stdout and exits 0", (flag) => {
    const outcome = parse([flag]);
    expect(outcome.kind).toBe("exit");
    if (outcome.kind !== "exit") return;
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toBeUndefined();
    const groups = [...(outcome.stdout ?? "").matchAll(/^(\S.*) flags:$/gm)].map((match) => match[1]);
    expect(groups).toEqual(["Generic", "Leader election", "Sharding", "Secure serving", "Insecure serving", "Authentication", "Authorization", "Misc", "Logs", "Alpha controller", "Beta controller", "Global"]);
    expect(outcome.stdout).toContain("\nUsage:\n  kube-loom [flags]\n");
  });

  test("--help wins over an invalid config file, which is not even read", () => {
    expect(parse(["--config=/missing.yaml", "--help"])).toMatchObject({ kind: "exit", code: 0 });
  });

  test("--version", () => {
    expect(parse(["--version"])).toEqual({ kind: "exit", code: 0, stdout: "kube-loom v0.1.0\n" });
    const prefixed = parseCommandLine(["--version"], { controllers, program: { name: "kube-loom", version: "v2.0.0" } });
    expect(prefixed).toEqual({ kind: "exit", code: 0, stdout: "kube-loom v2.0.0\n" });
  });

  test("--version=raw prints the full version info; a word it does not know is a usage error", () => {
    const raw = ["name: kube-loom", "version: v0.1.0", "emulatedKubernetesVersion: 1.37", `runtime: ${runtimeVersion()}`, `platform: ${process.platform}/${process.arch}`];
    expect(parse(["--version=raw"])).toEqual({ kind: "exit", code: 0, stdout: `${raw.join("\n")}\n` });
    expect(parse(["--version=true"])).toEqual({ kind: "exit", code: 0, stdout: "kube-loom v0.1.0\n" });
    expect(parse(["--version=false"]).kind).toBe("run");
    expect(usageError(["--version=full"])).toBe('kube-loom: invalid value "full" for --version: expected true, false or raw');
  });

  test("--help=false does not print help", () => {
    expect(parse(["--help=false"]).kind).toBe("run");
  });
});

describe("registration", () => {
  // The program's author's mistake, yet refused like a bad flag: one line, exit 2, and --help does not list "dup, dup".
  test.each([[[]], [["--help"]]])("two controllers of one name are a usage error, also for %p", (argv) => {
    const dup = { name: "dup", aliases: [], enabledByDefault: true, flags: [] };
    const outcome = parseCommandLine(argv, { controllers: [dup, { ...dup }], program: { name: "my-manager", version: "1" } });
    expect(outcome).toEqual({ kind: "exit", code: 2, stderr: 'my-manager: two controllers are named "dup" (entries 1 and 2 of the controller list)\n' });
  });

  test("two flags with one name is a bug in kube-loom", () => {
    const clash = intFlag({ name: "port", group: "Alpha controller", default: 1, help: "" });
    const clashing = [{ name: "delta-controller", aliases: [], enabledByDefault: true, flags: [clash] }];
    expect(() => parseCommandLine([], { controllers: clashing, program: { name: "kube-loom", version: "1" } })).toThrow("flag --port is registered twice");
  });
});
