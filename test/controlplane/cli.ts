// Runs the test control plane by hand, in the foreground, until SIGINT/SIGTERM.
//
//   bun test/controlplane/cli.ts [--dir <path>] [--print-env]
//
// Prints `KUBECONFIG=<path>` and `KUBE_LOOM_SERVER=<url>` on stdout once ready (progress goes
// to stderr). --print-env prints `export …` lines instead. The process stays in the
// foreground, so `eval "$(…)"` would block; from a script, read the lines from a file:
//
//   bun test/controlplane/cli.ts --print-env > "$tmp/env" & cp_pid=$!
//   until grep -q KUBE_LOOM_CONTROLPLANE_PID "$tmp/env"; do kill -0 $cp_pid || exit 1; sleep 1; done
//   eval "$(cat "$tmp/env")"; kubectl get ns; kill $cp_pid; wait $cp_pid
//
// --dir keeps the state (kubeconfig, logs, PKI, etcd data) in a fixed folder, kept on exit;
// without it everything lives in a fresh /dev/shm folder that is removed on exit.
import { parseArgs } from "node:util";
import { ensureBinaries } from "./binaries.ts";
import { ControlPlane } from "./control-plane.ts";

const { values: flags } = parseArgs({
  options: {
    dir: { type: "string" },
    "print-env": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (flags.help) {
  console.log("usage: bun test/controlplane/cli.ts [--dir <path>] [--print-env]");
  process.exit(0);
}

const startedAt = performance.now();
const binaries = await ensureBinaries();
const controlPlane = await ControlPlane.start({ binaries, ...(flags.dir === undefined ? {} : { dir: flags.dir }) });

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
const environment = {
  KUBECONFIG: controlPlane.kubeconfigPath,
  KUBE_LOOM_SERVER: controlPlane.server,
  KUBE_LOOM_CONTROLPLANE_PID: String(process.pid),
};
// One write, so a script polling the output file never sees half of it.
process.stdout.write(
  flags["print-env"]
    ? Object.entries(environment).map(([name, value]) => `export ${name}=${shellQuote(value)}\n`).join("")
    : `KUBECONFIG=${environment.KUBECONFIG}\nKUBE_LOOM_SERVER=${environment.KUBE_LOOM_SERVER}\n`,
);
console.error(
  `control plane ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s; state in ${controlPlane.dir}; ` +
    `logs: ${controlPlane.apiserverLogPath}, ${controlPlane.etcdLogPath}. Ctrl-C to stop.`,
);

const signal = await new Promise<NodeJS.Signals>((resolve) => {
  // The timer keeps the event loop alive while we wait; the signal handlers alone may not.
  const keepAlive = setInterval(() => {}, 1 << 30);
  for (const name of ["SIGINT", "SIGTERM"] as const) {
    process.on(name, () => {
      clearInterval(keepAlive);
      resolve(name);
    });
  }
});
console.error(`${signal}: stopping the control plane`);
await controlPlane.stop();
process.exit(0);
