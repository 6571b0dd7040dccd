// Compiled kube-loom binaries as separate processes, electing a leader
// through a real Lease. A probe controller (test/fixtures/leader-probe) appends its identity
// and the time on every reconcile; that record proves no two processes ever act as leader.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeClient } from "../../pkg/kube/client.ts";
import { resources } from "../../pkg/kube/gvr.ts";
import type { KubeObject } from "../../pkg/kube/objects.ts";
import { parseMicroTime } from "../../pkg/kube/micro-time.ts";
import { ControlPlane } from "../controlplane/control-plane.ts";
import { waitUntil } from "../support/eventually.ts";
import { buildKubeLoom, isLeading, KubeLoomProcess } from "../support/kube-loom-binary.ts";
import { TcpProxy } from "../support/tcp-proxy.ts";
import { fastClient } from "./informer-fixtures.ts";

const leaseDurationMs = 15_000;
const retryPeriodMs = 2_000;
/** Process scheduling, cache sync and polling on a busy 2-core machine. */
const slackMs = 3_000;

let controlPlane: ControlPlane;
let admin: KubeClient;
let binary: string;
const processes: KubeLoomProcess[] = [];

beforeAll(async () => {
  [controlPlane, binary] = await Promise.all([ControlPlane.start(), buildKubeLoom("test/fixtures/leader-probe/main.ts")]);
  admin = await fastClient(controlPlane.kubeconfigPath);
}, 300_000);

afterAll(async () => {
  await Promise.all(processes.filter((p) => p.running).map((p) => p.stop("SIGKILL")));
  await controlPlane?.stop();
});

interface ProbeRecord {
  identity: string;
  at: number;
}

function readProbeLog(path: string): ProbeRecord[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [identity, at] = line.split(" ");
      return { identity: identity ?? "", at: Number(at) };
    })
    .sort((a, b) => a.at - b.at);
}

/** Identities in the order they acted; throws if one acted again after another started (two leaders). */
function leadershipTerms(records: ProbeRecord[]): string[] {
  const terms: string[] = [];
  for (const { identity } of records) {
    if (terms.at(-1) === identity) continue;
    if (terms.includes(identity)) throw new Error(`${identity} acted again after another leader: ${terms.join(" → ")} → ${identity}`);
    terms.push(identity);
  }
  return terms;
}

async function startInstance(lease: string, log: string, kubeconfig = controlPlane.kubeconfigPath): Promise<KubeLoomProcess> {
  const instance = await KubeLoomProcess.start({
    binary,
    kubeconfig,
    logDir: join(controlPlane.dir, "kube-loom-logs"),
    name: lease,
    args: ["--controllers=leader-probe", `--leader-probe-log=${log}`, `--leader-elect-resource-name=${lease}`, "--leader-elect-resource-namespace=kube-system"],
  });
  processes.push(instance);
  await instance.waitFor("/readyz");
  return instance;
}

async function leaseSpec(name: string): Promise<{ holderIdentity?: string; renewTime?: string; leaseTransitions?: number }> {
  const lease = await admin.dynamic.resource(resources.leases, "kube-system").get(name);
  return lease.spec ?? {};
}

async function leadershipEvents(lease: string): Promise<string[]> {
  type LeaseEvent = KubeObject & { reason?: string; note?: string; regarding?: { kind?: string; name?: string } };
  const events = await admin.dynamic.resource<LeaseEvent>(resources.events, "kube-system").list({});
  return events.items
    .filter((e) => e.reason === "LeaderElection" && e.regarding?.kind === "Lease" && e.regarding.name === lease)
    .map((e) => e.note ?? "");
}

function probeLog(name: string): string {
  const path = join(controlPlane.dir, `${name}.probe.log`);
  writeFileSync(path, "");
  return path;
}

describe("leader election between separate kube-loom processes", () => {
  test("exactly one of two instances leads; kill -9 of the leader hands over within lease duration + retry period", async () => {
    const log = probeLog("kill9");
    const first = await startInstance("kill9", log);
    const second = await startInstance("kill9", log);
    await waitUntil(async () => (await isLeading(first)) || (await isLeading(second)), "a leader");
    // Watch for a while: never both.
    for (let i = 0; i < 20; i++) {
      const leading = [await isLeading(first), await isLeading(second)].filter(Boolean);
      expect(leading).toHaveLength(1);
      await Bun.sleep(100);
    }
    const [leader, standby] = (await isLeading(first)) ? [first, second] : [second, first];
    const holder = (await leaseSpec("kill9")).holderIdentity;
    await waitUntil(() => readProbeLog(log).some((r) => r.identity === holder), "the leader's probe records");

    const killedAt = Date.now();
    await leader.stop("SIGKILL");
    await waitUntil(() => readProbeLog(log).some((r) => r.identity !== holder), "the standby acting as leader", 60_000, 50);
    const takeover = (readProbeLog(log).find((r) => r.identity !== holder)?.at ?? Number.NaN) - killedAt;
    console.log(`kill -9 takeover: ${takeover} ms (lease ${leaseDurationMs} ms, retry ${retryPeriodMs} ms)`);
    expect(takeover).toBeLessThan(leaseDurationMs + retryPeriodMs + slackMs);
    expect(await isLeading(standby)).toBe(true);
    expect(leadershipTerms(readProbeLog(log))).toHaveLength(2);
    expect((await leaseSpec("kill9")).leaseTransitions).toBe(1);
    await standby.stop();
  }, 180_000);

  test("SIGTERM: the leader finishes, releases the lease, exits 0; the standby leads within 2 × retry period", async () => {
    const log = probeLog("sigterm");
    const leader = await startInstance("sigterm", log);
    await waitUntil(() => isLeading(leader), "the first instance leading");
    const standby = await startInstance("sigterm", log);
    const leaderIdentity = (await leaseSpec("sigterm")).holderIdentity;

    const terminatedAt = Date.now();
    expect(await leader.stop("SIGTERM")).toBe(0);
    await waitUntil(() => readProbeLog(log).some((r) => r.identity !== leaderIdentity), "the standby acting as leader", 60_000, 20);
    const takeover = (readProbeLog(log).find((r) => r.identity !== leaderIdentity)?.at ?? Number.NaN) - terminatedAt;
    console.log(`SIGTERM takeover: ${takeover} ms (2 × retry period = ${2 * retryPeriodMs} ms)`);
    expect(takeover).toBeLessThan(2 * retryPeriodMs);
    expect(leadershipTerms(readProbeLog(log))).toHaveLength(2);
    expect(leader.logs()).toContain("released lease");
    await standby.stop();
    // Each change of leadership is an events.k8s.io Event about the Lease.
    await waitUntil(async () => (await leadershipEvents("sigterm")).length >= 4, "leadership Events", 30_000, 250);
    const notes = await leadershipEvents("sigterm");
    expect(notes).toContain(`${leaderIdentity} became leader`);
    expect(notes).toContain(`${leaderIdentity} stopped leading`);
  }, 180_000);

  test("a leader cut off from the API server stops acting before its lease could expire and exits non-zero", async () => {
    const log = probeLog("partition");
    const url = new URL(controlPlane.server);
    const proxy = await TcpProxy.start(url.hostname, Number(url.port));
    try {
      const viaProxy = controlPlane.writeKubeconfig({ server: `https://127.0.0.1:${proxy.port}` });
      const leader = await startInstance("partition", log, viaProxy);
      await waitUntil(() => isLeading(leader), "the proxied instance leading");
      const standby = await startInstance("partition", log);
      const leaderIdentity = (await leaseSpec("partition")).holderIdentity ?? "";
      await waitUntil(() => readProbeLog(log).some((r) => r.identity === leaderIdentity), "the leader's probe records");

      // Remember the last renewal the API server saw from the leader, then partition it.
      let lastRenewal = parseMicroTime((await leaseSpec("partition")).renewTime ?? "");
      proxy.pause("blackhole");
      const exitCode = await Promise.race([leader.exited, Bun.sleep(60_000).then(() => "still running" as const)]);
      expect(exitCode).not.toBe("still running");
      expect(exitCode).not.toBe(0);
      expect(leader.logs()).toContain("leaderelection lost");

      await waitUntil(() => readProbeLog(log).some((r) => r.identity !== leaderIdentity), "the standby acting as leader", 60_000, 50);
      const spec = await leaseSpec("partition");
      expect(spec.holderIdentity).not.toBe(leaderIdentity);
      const records = readProbeLog(log);
      const lastByLeader = Math.max(...records.filter((r) => r.identity === leaderIdentity).map((r) => r.at));
      lastRenewal = Math.max(lastRenewal, 0);
      // It stopped acting before the lease it last renewed could expire …
      expect(lastByLeader).toBeLessThan(lastRenewal + leaseDurationMs);
      // … and before the standby started: never two leaders.
      expect(leadershipTerms(records)).toEqual([leaderIdentity, spec.holderIdentity ?? ""]);
      await standby.stop();
    } finally {
      await proxy.stop();
    }
  }, 240_000);
  test("a leader frozen past its lease (SIGSTOP) acts no more once it runs again: the takeover is seen, writes are refused, it exits", async () => {
    const log = probeLog("frozen");
    const first = await startInstance("frozen", log);
    await waitUntil(() => isLeading(first), "the first instance leads");
    const second = await startInstance("frozen", log);
    process.kill(first.pid, "SIGSTOP");
    try {
      await waitUntil(() => isLeading(second), "the second instance takes over", leaseDurationMs + 2 * retryPeriodMs + slackMs + 10_000, 250);
      await Bun.sleep(1_000);
    } finally {
      process.kill(first.pid, "SIGCONT");
    }
    expect(await first.exited).not.toBe(0);
    await Bun.sleep(1_000);
    // The resumed process had reconciles due the moment it woke; none of them acted.
    expect(leadershipTerms(readProbeLog(log))).toHaveLength(2);
  }, 120_000);
});

