// What the differential runner needs from a kind of case (garbage collector, ReplicaSet): how to
// generate one from a seed, apply it step by step to one control plane, read back the outcome,
// describe it, and offer smaller variants of it for shrinking.
import type { KubeClient } from "../../pkg/kube/client.ts";
import type { GroupVersionResource } from "../../pkg/kube/gvr.ts";
import type { SeededRandom } from "../soak/seeded-random.ts";
import type { CaseScope } from "./case-scope.ts";

/** One case on one control plane. */
export interface CaseApplier {
  readonly stepCount: number;
  /** Sends step `index`'s requests; returns one line per operation saying what came of it. */
  applyStep(index: number): Promise<string[]>;
  /** The outcome, one line per object, in a form that does not depend on UIDs or generated names. */
  snapshot(): Promise<string[]>;
}

export interface DifferentialSuite<Case> {
  /** "gc" or "rs": names scopes, flags and report rows. */
  readonly name: string;
  readonly title: string;
  /** --controllers for either peer (kube-loom accepts kube-controller-manager's names). */
  readonly controllers: string;
  /** Resources whose changes count as activity when waiting for quiescence. */
  readonly watched: readonly GroupVersionResource[];
  generate(random: SeededRandom): Case;
  open(client: KubeClient, testCase: Case, scope: CaseScope): CaseApplier;
  /** Variants with one thing less (an operation, an object, an edge), for shrinking. */
  smallerCases(testCase: Case): Case[];
  describe(testCase: Case): string[];
  /** Resolves once the controllers on this control plane visibly act (their caches synced). */
  warmUp(client: KubeClient, scope: CaseScope): Promise<void>;
}
