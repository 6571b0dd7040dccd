// What the soak counts while it runs: faults injected (and those skipped, e.g. a leader fault
// while none leads), workload operations (and how many the API refused or could not take during
// a fault), and violations with the evidence for each.

export interface Violation {
  type: string;
  /** Seconds since the soak started, on the monotonic clock. */
  atSeconds: number;
  evidence: string;
}

/** How many violations of one type keep their evidence; the rest are only counted. */
const evidencePerType = 20;

export class SoakTally {
  /** Faults injected, by type. */
  readonly faults = new Map<string, number>();
  /** For faults dealt to requests (the fault proxy's windows): how many requests each type faulted. */
  readonly faultedRequests = new Map<string, number>();
  /** Faults that found nothing to act on, by type: not injected, so not in `faults`. */
  readonly skippedFaults = new Map<string, number>();
  readonly operations = new Map<string, { ok: number; failed: number; lastError?: string }>();
  /** Outcomes that look like violations but are races upstream accepts too; counted, not failed. */
  readonly allowed = new Map<string, number>();
  readonly violationCounts = new Map<string, number>();
  readonly violations: Violation[] = [];
  readonly #startedAt = performance.now();

  /** Seconds since the soak started. */
  elapsedSeconds(): number {
    return (performance.now() - this.#startedAt) / 1000;
  }

  /** `requests`: for a window of the fault proxy, how many requests it faulted. */
  fault(type: string, requests?: number): void {
    this.faults.set(type, (this.faults.get(type) ?? 0) + 1);
    if (requests !== undefined) this.faultedRequests.set(type, (this.faultedRequests.get(type) ?? 0) + requests);
    console.error(`[soak ${this.elapsedSeconds().toFixed(1)}s] fault: ${type}${requests === undefined ? "" : ` (${requests} requests)`}`);
  }

  faultSkipped(type: string, why: string): void {
    this.skippedFaults.set(type, (this.skippedFaults.get(type) ?? 0) + 1);
    console.error(`[soak ${this.elapsedSeconds().toFixed(1)}s] fault skipped: ${type} (${why})`);
  }

  /** `error`: why it failed (the API server was down, a connection was cut, …); undefined when it succeeded. */
  operation(type: string, error?: unknown): void {
    const counts = this.operations.get(type) ?? { ok: 0, failed: 0 };
    if (error === undefined) counts.ok++;
    else {
      counts.failed++;
      counts.lastError = error instanceof Error ? error.message : String(error);
    }
    this.operations.set(type, counts);
  }

  allow(type: string, evidence: string): void {
    this.allowed.set(type, (this.allowed.get(type) ?? 0) + 1);
    console.error(`[soak ${this.elapsedSeconds().toFixed(1)}s] allowed, ${type}: ${evidence}`);
  }

  violation(type: string, evidence: string): void {
    const count = (this.violationCounts.get(type) ?? 0) + 1;
    this.violationCounts.set(type, count);
    if (count > evidencePerType) return;
    const violation = { type, atSeconds: this.elapsedSeconds(), evidence };
    this.violations.push(violation);
    console.error(`[soak ${violation.atSeconds.toFixed(1)}s] VIOLATION ${type}: ${evidence}`);
  }

  get violationTotal(): number {
    let total = 0;
    for (const count of this.violationCounts.values()) total += count;
    return total;
  }
}
