// kube-controller-manager's leader election identity: the hostname tells people which pod
// leads, the UUID keeps two processes on one host (or a restarted pod) apart.
import { hostname } from "node:os";

export function leaderElectionIdentity(host: string = hostname()): string {
  return `${host}_${crypto.randomUUID()}`;
}
