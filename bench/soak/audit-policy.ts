// The soak's audit policy: only the kube-loom replicas' writes are logged, Lease writes with their
// body (the holder or the slot table they claim), so the log is the record the invariants are
// judged from, without the noise of every read.
import { writeFileSync } from "node:fs";

/**
 * The policy: Lease writes of `users` at Request level, their other writes (Events aside) at
 * Metadata, nothing else. `users` may include the workload's own user: its writes are evidence.
 */
export function auditPolicyYaml(users: readonly string[]): string {
  const userList = JSON.stringify(users);
  return [
    "apiVersion: audit.k8s.io/v1",
    "kind: Policy",
    "omitStages: [RequestReceived, ResponseStarted]",
    "rules:",
    "  - level: None",
    "    verbs: [get, list, watch]",
    "  - level: Request",
    `    users: ${userList}`,
    "    resources: [{ group: coordination.k8s.io, resources: [leases] }, { group: apps, resources: [replicasets] }]",
    "  - level: RequestResponse",
    `    users: ${userList}`,
    "    verbs: [create]",
    '    resources: [{ group: "", resources: [pods] }]',
    "  - level: None",
    '    resources: [{ group: "", resources: [events] }, { group: events.k8s.io, resources: [events] }]',
    "  - level: Metadata",
    `    users: ${userList}`,
    "  - level: None",
    "",
  ].join("\n");
}

/** Writes the policy next to the log and returns the kube-apiserver flags that enable it. */
export function auditApiserverArgs(policyPath: string, logPath: string, users: readonly string[]): string[] {
  writeFileSync(policyPath, auditPolicyYaml(users));
  // Blocking mode (the log backend's default, spelled out): a write is logged before it is answered.
  return [`--audit-policy-file=${policyPath}`, `--audit-log-path=${logPath}`, "--audit-log-format=json", "--audit-log-mode=blocking"];
}
