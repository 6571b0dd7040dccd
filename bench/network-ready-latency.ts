// How long Networks take from create to Ready when many arrive at once, through the compiled
// kube-loom binary against a real control plane and (by default) a real Neutron.
//   ./node_modules/.bin/bun bench/network-ready-latency.ts [--provider=neutron|memory] [--count=100]
//       [--concurrent-network-syncs=5] [--kube-api-qps=20] [--kube-api-burst=30]
// Prints p50/p99/max create→Ready and the provider operations the controller made.
import { parseArgs } from "node:util";
import { ControlPlane } from "../test/controlplane/control-plane.ts";
import { counterTotal, installCrd, kubectlOk, providerOperationsMetric, testClient } from "../test/network/network-fixture.ts";
import { NeutronServer } from "../test/network/neutron-server.ts";
import { measureCreateToReady } from "../test/network/ready-latency.ts";
import { buildKubeLoom, KubeLoomProcess } from "../test/support/kube-loom-binary.ts";

const { values } = parseArgs({
  options: {
    provider: { type: "string", default: "neutron" },
    count: { type: "string", default: "100" },
    "concurrent-network-syncs": { type: "string", default: "5" },
    "kube-api-qps": { type: "string", default: "20" },
    "kube-api-burst": { type: "string", default: "30" },
  },
});
const count = Number(values.count);
if (values.provider !== "neutron" && values.provider !== "memory") throw new Error(`--provider=${values.provider}: use neutron or memory`);
if (!Number.isInteger(count) || count < 1 || count > 4096) throw new Error(`--count=${values.count}: use an integer from 1 to 4096`);

const [controlPlane, neutron, binary] = await Promise.all([
  ControlPlane.start(),
  values.provider === "neutron" ? NeutronServer.start() : undefined,
  buildKubeLoom(),
]);
let kubeLoom: KubeLoomProcess | undefined;
try {
  await kubectlOk(controlPlane, ["create", "namespace", "bench"]);
  await installCrd(controlPlane, { cel: true });
  const providerArgs = neutron
    ? ["--network-provider=neutron", "--neutron-auth-type=noauth", `--neutron-endpoint=${neutron.endpoint}`, "--neutron-project-id=bench"]
    : ["--network-provider=memory"];
  kubeLoom = await KubeLoomProcess.start({
    binary,
    kubeconfig: controlPlane.kubeconfigPath,
    logDir: controlPlane.dir,
    args: [
      "--leader-elect=false",
      "--controllers=network",
      ...providerArgs,
      `--concurrent-network-syncs=${values["concurrent-network-syncs"]}`,
      `--kube-api-qps=${values["kube-api-qps"]}`,
      `--kube-api-burst=${values["kube-api-burst"]}`,
    ],
  });
  await kubeLoom.waitFor("/healthz");
  const latency = await measureCreateToReady(await testClient(controlPlane), "bench", "bench", count, 900_000);
  const metrics = await (await fetch(`${kubeLoom.url}/metrics`)).text();
  const settings = `provider=${values.provider} workers=${values["concurrent-network-syncs"]} kube-api-qps=${values["kube-api-qps"]}`;
  console.log(`${count} Networks (${settings}): create→Ready p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms, max ${latency.maxMs} ms; all Ready after ${latency.totalMs} ms`);
  console.log(`provider operations: ${counterTotal(metrics, providerOperationsMetric)} (${counterTotal(metrics, providerOperationsMetric, 'result="success"')} succeeded)`);
} finally {
  await kubeLoom?.stop();
  await Promise.all([controlPlane.stop(), neutron?.stop()]);
}
