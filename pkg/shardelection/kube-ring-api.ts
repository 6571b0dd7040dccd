// RingApi on coordination.k8s.io/v1 Leases. Member Leases carry the ring's label and are renewed
// like a leader's; the table is an annotation of the Lease named after the ring.
import { type KubeClient, withRateLimit } from "../kube/client.ts";
import type { ResourceClient } from "../kube/dynamic-client.ts";
import { isAlreadyExists, isConflict, isNotFound } from "../kube/errors.ts";
import { apiVersionOf, resources } from "../kube/gvr.ts";
import { type LeaseRequester, leaseRequester, type WireLease } from "../kube/lease-requests.ts";
import { formatMicroTime } from "../kube/micro-time.ts";
import { MembershipLostError, type RingApi, type SlotTableVersion } from "./ring-api.ts";
import { decodeSlotTable, emptySlotTable, encodeSlotTable, legacyPlaceholder, legacySlotTableAnnotation, type SlotTable, slotTableAnnotation } from "./slot-table.ts";

const mergePatch = "application/merge-patch+json";

/** The label every Lease of a ring carries: members and table alike; the value is the ring's name. */
export const ringLabel = "sharding.kube-loom.io/ring";
/** Tells the table Lease from the member Leases. */
export const ringRoleLabel = "sharding.kube-loom.io/role";

export interface KubeRingApiOptions {
  client: KubeClient;
  qps: number;
  burst: number;
  namespace: string;
  ring: string;
  identity: string;
  leaseDurationMs: number;
  /** Each request may take this long: a renewal must not outlive the renew deadline. */
  requestTimeoutMs: number;
}

export class KubeRingApi implements RingApi {
  private readonly leases: ResourceClient<WireLease>;
  private readonly send: LeaseRequester;

  constructor(private readonly options: KubeRingApiOptions) {
    // Its own rate limit, as leader election has: a renewal must not queue behind the informers' lists.
    const client = withRateLimit(options.client, options.qps, options.burst, "shard-ring");
    this.leases = client.dynamic.resource<WireLease>(resources.leases, options.namespace);
    this.send = leaseRequester(client, options.requestTimeoutMs);
  }

  async createMember(name: string, signal?: AbortSignal): Promise<string> {
    const now = formatMicroTime(Date.now());
    const lease: WireLease = {
      apiVersion: apiVersionOf(resources.leases),
      kind: "Lease",
      metadata: { name, namespace: this.options.namespace, labels: { [ringLabel]: this.options.ring, [ringRoleLabel]: "member" } },
      spec: { holderIdentity: this.options.identity, leaseDurationSeconds: this.leaseSeconds(), acquireTime: now, renewTime: now },
    };
    const created = await this.send({ method: "POST", path: this.leases.collectionPath(), body: lease }, signal);
    return created.metadata?.resourceVersion ?? "";
  }

  async renewMember(name: string, resourceVersion: string, signal?: AbortSignal): Promise<string> {
    // A resourceVersion in a merge patch is a precondition: the patch fails with 409 if the Lease moved on.
    const patch = { metadata: { resourceVersion }, spec: { renewTime: formatMicroTime(Date.now()) } };
    try {
      const renewed = await this.send({ method: "PATCH", path: this.leases.itemPath(name), body: patch, contentType: mergePatch }, signal);
      return renewed.metadata?.resourceVersion ?? "";
    } catch (err) {
      // 404: deleted by a member that found it expired; 409: written by someone else.
      if (isNotFound(err) || isConflict(err)) throw new MembershipLostError(name);
      throw err;
    }
  }

  async deleteMember(name: string, resourceVersion: string | undefined): Promise<boolean> {
    const body = { kind: "DeleteOptions", apiVersion: "v1", ...(resourceVersion ? { preconditions: { resourceVersion } } : {}) };
    try {
      await this.send({ method: "DELETE", path: this.leases.itemPath(name), body });
      return true;
    } catch (err) {
      if (isNotFound(err)) return true;
      if (isConflict(err)) return false;
      throw err;
    }
  }

  async memberExists(name: string): Promise<boolean> {
    try {
      await this.send({ method: "GET", path: this.leases.itemPath(name) });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async readTable(): Promise<SlotTableVersion> {
    try {
      return tableOf(await this.send({ method: "GET", path: this.leases.itemPath(this.options.ring) }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const lease: WireLease = {
      apiVersion: apiVersionOf(resources.leases),
      kind: "Lease",
      metadata: {
        name: this.options.ring,
        namespace: this.options.namespace,
        labels: { [ringLabel]: this.options.ring, [ringRoleLabel]: "slot-table" },
        annotations: this.tableAnnotations(emptySlotTable()),
      },
      spec: {},
    };
    try {
      return tableOf(await this.send({ method: "POST", path: this.leases.collectionPath(), body: lease }));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      return tableOf(await this.send({ method: "GET", path: this.leases.itemPath(this.options.ring) }));
    }
  }

  async writeTable(table: SlotTable, resourceVersion: string): Promise<string | undefined> {
    const patch = { metadata: { resourceVersion, annotations: this.tableAnnotations(table) } };
    try {
      const written = await this.send({ method: "PATCH", path: this.leases.itemPath(this.options.ring), body: patch, contentType: mergePatch });
      return written.metadata?.resourceVersion ?? "";
    } catch (err) {
      if (isConflict(err)) return undefined;
      throw err;
    }
  }

  /** The table, and the placeholder that keeps members of the 256-slot format from taking anything (see legacySlotTableAnnotation). */
  private tableAnnotations(table: SlotTable): Record<string, string> {
    return { [slotTableAnnotation]: encodeSlotTable(table), [legacySlotTableAnnotation]: legacyPlaceholder(this.options.ring) };
  }

  private leaseSeconds(): number {
    return Math.max(1, Math.round(this.options.leaseDurationMs / 1000));
  }
}


/** The table a ring Lease holds; throws SlotTableError when it cannot be read. */
export function tableOf(lease: WireLease): SlotTableVersion {
  return { table: decodeSlotTable(lease.metadata?.annotations), resourceVersion: lease.metadata?.resourceVersion ?? "" };
}
