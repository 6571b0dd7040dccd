// HTTPS under probe load: GETs of /healthz, 100 in flight, each on a new TLS connection (as curl
// and the kubelet's probes make them) and then on kept-alive ones, against kube-loom and
// kube-controller-manager v1.37, each serving --secure-port on loopback with its self-signed RSA
// certificate, one at a time on the same API server. The client runs in a process of its own; a
// request without its response after 10 s counts as hung. Rounds interleaved; failures and hangs
// are summed over the rounds, latencies are the median of each round's percentile.
//   bun bench/https-load.ts [--rounds 3] [--requests 3000] [--concurrency 100] [--kube-loom BINARY]
// --kube-loom runs that executable instead of one built from this tree (to compare two builds).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureBinaries } from "../test/controlplane/binaries.ts";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { type DaemonProcess, hasExited, logTail, spawnDaemon, stopDaemon } from "../test/controlplane/daemon-process.ts";
import { freeLoopbackPorts } from "../test/controlplane/free-ports.ts";
import { buildKubeLoom } from "../test/support/kube-loom-binary.ts";
import { type ConnectionMode, type LoadResult, percentile, runHttpsLoad, runHttpsLoadProcess } from "../test/support/https-load.ts";
import { printTable } from "./print-table.ts";
import { median, ratio } from "./statistics.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    requests: { type: "string", default: "3000" },
    concurrency: { type: "string", default: "100" },
    "kube-loom": { type: "string" },
  },
});
const rounds = wholeNumber("--rounds", values.rounds);
const requests = wholeNumber("--requests", values.requests);
const concurrency = wholeNumber("--concurrency", values.concurrency);
const HANG_MS = 10_000;

type System = "kube-controller-manager" | "kube-loom";
const systems: System[] = ["kube-controller-manager", "kube-loom"];
const modes: ConnectionMode[] = ["new", "keep-alive"];

const [binaries, kubeLoom] = await Promise.all([
  ensureBinaries({ withControllerManager: true }),
  values["kube-loom"] === undefined ? buildKubeLoom() : Promise.resolve(values["kube-loom"]),
]);
const controlPlane = await ControlPlane.start({ binaries });
const logDir = mkdtempSync(join(tmpdir(), "bench-https-load-"));
const results = new Map<string, LoadResult[]>();

try {
  for (let round = 1; round <= rounds; round++) {
    for (const system of systems) {
      const server = await startServer(system);
      try {
        for (const mode of modes) {
          const result = await runHttpsLoadProcess({ url: `${server.url}/healthz`, requests, concurrency, connections: mode, timeoutMs: HANG_MS });
          results.set(`${system} ${mode}`, [...(results.get(`${system} ${mode}`) ?? []), result]);
          console.error(
            `round ${round} ${system} ${mode}: ${result.failures} failed, ${result.hangs} hung, p50 ${percentile(result.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(result.latenciesMs, 99).toFixed(1)} ms`,
          );
        }
      } finally {
        await stopDaemon(server.daemon, "SIGTERM", 30_000);
      }
    }
  }
  printResults();
} finally {
  await controlPlane.stop();
  rmSync(logDir, { recursive: true, force: true });
}

interface Server {
  daemon: DaemonProcess;
  url: string;
}

async function startServer(system: System): Promise<Server> {
  const { securePort, port } = await freeLoopbackPorts(["securePort", "port"] as const);
  const kubeconfig = controlPlane.kubeconfigPath;
  const common = [`--kubeconfig=${kubeconfig}`, "--leader-elect=false", "--bind-address=127.0.0.1", `--secure-port=${securePort}`];
  const command =
    system === "kube-loom"
      ? [kubeLoom, ...common, "--controllers=replicaset", `--port=${port}`]
      : [
          binaries.kubeControllerManager,
          ...common,
          "--controllers=ttl-controller",
          `--authentication-kubeconfig=${kubeconfig}`,
          `--authorization-kubeconfig=${kubeconfig}`,
        ];
  const logPath = join(logDir, `${system}-${securePort}.log`);
  const daemon = spawnDaemon(command, logPath);
  const url = `https://127.0.0.1:${securePort}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (hasExited(daemon)) throw new Error(`${system} exited with ${daemon.exitCode}:\n${logTail(logPath)}`);
    const probe = await runHttpsLoad({ url: `${url}/healthz`, requests: 1, concurrency: 1, connections: "new", timeoutMs: 2_000 });
    if (probe.ok === 1) return { daemon, url };
    await Bun.sleep(200);
  }
  throw new Error(`${system}: /healthz not 200 after 60 s:\n${logTail(logPath)}`);
}

function printResults(): void {
  const rows = [["system", "connections", "requests", "concurrency", "failures", "hangs", "p50 ms", "p99 ms", "p50 / KCM", "p99 / KCM"]];
  for (const mode of modes) {
    const p = (system: System, q: number) => median((results.get(`${system} ${mode}`) ?? []).map((r) => percentile(r.latenciesMs, q)));
    for (const system of systems) {
      const runs = results.get(`${system} ${mode}`) ?? [];
      const sum = (pick: (r: LoadResult) => number) => String(runs.reduce((total, r) => total + pick(r), 0));
      rows.push([
        system,
        mode,
        sum((r) => r.requests),
        String(concurrency),
        sum((r) => r.failures),
        sum((r) => r.hangs),
        p(system, 50).toFixed(1),
        p(system, 99).toFixed(1),
        ratio(p(system, 50), p("kube-controller-manager", 50)),
        ratio(p(system, 99), p("kube-controller-manager", 99)),
      ]);
    }
  }
  printTable(rows);
}

function wholeNumber(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`${flag}: ${JSON.stringify(value)} is not a whole number of at least 1`);
    process.exit(2);
  }
  return n;
}
