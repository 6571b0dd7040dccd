// The sharded mode's table: each ring variant (the API server filtering, or each replica) beside
// the singleton kube-loom and kube-controller-manager of the same run, with the ratio to the
// singleton and each goal of the sharded mode marked met (✓) or not (✗). Figures per replica show the
// worst replica of every round (the largest RSS, the most CPU or bytes); the others, medians.
import { describeMachine } from "../machine.ts";
import type { System } from "../peer-processes.ts";
import { printTable } from "../print-table.ts";
import { median, ratio } from "../statistics.ts";
import type { BenchContext } from "./context.ts";
import { ringLeaseSeconds } from "./ring-round.ts";
import type { RingVariant } from "./ring-variant.ts";

interface RingRow {
  scenario: string;
  /** The ring's figure. */
  figure: string;
  /** The singleton's figure to compare with, if it has one. */
  singleton?: string;
  /** Worst replica (largest value) rather than the median. */
  worst?: boolean;
  format: (value: number) => string;
  goal?: { text: string; met(ring: number, singleton: number): boolean };
}

const seconds = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} s`;
const mebibytes = (value: number) => `${value.toFixed(0)} MiB`;
const received = (value: number) => `${value.toFixed(1)} MiB`;
const cpu = (value: number) => `${value.toFixed(2)} CPU s`;
const share = (value: number) => `${(value * 100).toFixed(1)} %`;
const count = (value: number) => value.toFixed(0);

function atMostTimesSingleton(factor: number): RingRow["goal"] {
  return { text: `≤ ${factor}×`, met: (ring, singleton) => ring <= factor * singleton };
}

function atMost(limit: number, text: string): RingRow["goal"] {
  return { text, met: (ring) => ring <= limit };
}

function rows(replicas: number): RingRow[] {
  const joinRow = (members: number, what: string): RingRow => ({
    scenario: `join ${members - 1} → ${members} (${what}): namespaces whose holder changed`,
    figure: `join ${members} moved`,
    format: share,
    goal: atMost(1.2 / members, `≤ 1.2/${members} = ${share(1.2 / members)}`),
  });
  return [
    { scenario: "exec → monitors synced (slowest replica)", figure: "ring synced", singleton: "synced", worst: true, format: seconds },
    { scenario: "exec → ring settled (every slot held where assigned)", figure: "ring settled", format: seconds },
    { scenario: "seeded namespaces held, per replica (most)", figure: "ring namespaces", worst: true, format: count },
    { scenario: "RSS once idle, per replica (largest)", figure: "idle rss", singleton: "idle rss", worst: true, format: mebibytes, goal: atMostTimesSingleton(0.4) },
    { scenario: "idle CPU per replica (most)", figure: "idle cpu", singleton: "idle cpu", worst: true, format: (v) => `${v.toFixed(2)} CPU s/min`, goal: atMostTimesSingleton(0.4) },
    { scenario: "received from exec to the idle window's end, per replica (most)", figure: "received to idle", singleton: "received to idle", worst: true, format: received },
    { scenario: "burst up (every ReplicaSet +10 %)", figure: "burst up", singleton: "burst up", format: seconds, goal: atMostTimesSingleton(0.5) },
    { scenario: "same: controller CPU, all replicas", figure: "burst up cpu", singleton: "burst up cpu", format: cpu },
    { scenario: "same: received per replica (most)", figure: "burst up received", singleton: "burst up received", worst: true, format: received },
    { scenario: "burst down (back)", figure: "burst down", singleton: "burst down", format: seconds, goal: atMostTimesSingleton(0.5) },
    { scenario: "same: controller CPU, all replicas", figure: "burst down cpu", singleton: "burst down cpu", format: cpu },
    { scenario: "same: received per replica (most)", figure: "burst down received", singleton: "burst down received", worst: true, format: received },
    { scenario: "kill -9 of a replica: namespaces it held", figure: "kill namespaces", format: count },
    { scenario: "same: → first reconcile in the first of them", figure: "kill first", format: seconds },
    {
      scenario: "same: → first reconcile in the last of them",
      figure: "kill last",
      worst: true,
      format: seconds,
      goal: atMost(ringLeaseSeconds + 2, `≤ lease ${ringLeaseSeconds} s + 2 s`),
    },
    joinRow(replicas, "replacing the killed one"),
    joinRow(replicas + 1, "one more"),
  ];
}

export function printRingResults(ctx: BenchContext, variants: readonly RingVariant[], replicas: number): void {
  const systems: System[] = ["kube-controller-manager", "kube-loom"];
  const header = ["scenario", ...systems, ...variants.flatMap((variant) => [`${variant} (×${replicas})`, "/ kube-loom", "goal"])];
  const lines = [header];
  for (const row of rows(replicas)) {
    // One process per round for a system: its median, as in the singleton's own table.
    const of = (who: System | RingVariant, figure: string | undefined, worst: boolean) => {
      const values = figure === undefined ? [] : ctx.samples.of(figure, who);
      return values.length === 0 ? undefined : worst ? Math.max(...values) : median(values);
    };
    const cell = (value: number | undefined) => (value === undefined ? "" : row.format(value));
    const singleton = of("kube-loom", row.singleton, false);
    lines.push([
      row.scenario,
      ...systems.map((system) => cell(of(system, row.singleton, false))),
      ...variants.flatMap((variant) => {
        const value = of(variant, row.figure, row.worst ?? false);
        const met = value === undefined || !row.goal ? "" : row.goal.met(value, singleton ?? Number.NaN) ? "✓" : "✗";
        return [cell(value), value === undefined ? "" : ratio(value, singleton), row.goal ? `${row.goal.text} ${met}` : ""];
      }),
    ]);
  }
  console.log(
    `shard ring of ${replicas} kube-loom replicas (--shard-ring, default lease ${ringLeaseSeconds} s), each with the singleton's client limits; ` +
      `per-replica rows: the worst replica of all rounds; bytes: what kube-apiserver sent each process through its own proxy (TLS records)`,
  );
  console.log(describeMachine());
  printTable(lines);
}
