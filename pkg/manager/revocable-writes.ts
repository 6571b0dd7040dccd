// The writes a shard ring member sent and has no answer for yet, by the namespace they address. When
// the member stops acting on a namespace (its renew deadline passed, the slot is handed over after
// the drain timeout, it leaves), those still on their way are abandoned, so that none lands after
// another member took the namespace over. A write whose bytes already reached the API server is
// done by then; one held in a proxy or a queue in front of it is dropped with its connection.
import type { WriteTicket } from "../kube/rest-client.ts";

export class RevocableWrites {
  /** The namespace of each write in flight. */
  private readonly inFlight = new Map<AbortController, string>();

  /** A ticket for a write to `namespace`, held until the write settles. */
  admit(namespace: string): WriteTicket {
    const revoke = new AbortController();
    this.inFlight.set(revoke, namespace);
    return { revoked: revoke.signal, settled: () => void this.inFlight.delete(revoke) };
  }

  /** Abandons the writes in flight to the namespaces `lost` names; each rejects with `reason(namespace)`. */
  revoke(lost: (namespace: string) => boolean, reason: (namespace: string) => Error): void {
    for (const [revoke, namespace] of this.inFlight) {
      if (!lost(namespace)) continue;
      this.inFlight.delete(revoke);
      revoke.abort(reason(namespace));
    }
  }
}
