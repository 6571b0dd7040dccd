// kube-apiserver's audit log as the tests' record of who wrote what, and when, as the API server
// saw it: the reader hands over the requests completed since its last call as the file grows,
// with the parts of a Lease write's body that tell who it claims for (its holder, its annotations).
import { closeSync, existsSync, openSync, readSync } from "node:fs";

export interface AuditEvent {
  verb: string;
  user: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  code: number;
  /** The request's User-Agent; each controller of a replica names itself last (`…/generic-garbage-collector`). */
  userAgent?: string;
  /** When the API server received the request, in epoch microseconds. */
  receivedAtMicros: number;
  /** When the API server finished it (for writes: after the write was stored). */
  completedAtMicros: number;
  /** Lease writes only: spec.holderIdentity of the Lease sent. */
  holderIdentity?: string;
  /** Writes logged with their body: metadata.annotations sent (a merge patch sends only those it changes). */
  annotations?: Record<string, string>;
}

interface RawAuditEvent {
  stage?: string;
  verb?: string;
  user?: { username?: string };
  userAgent?: string;
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
  requestObject?: { metadata?: { annotations?: Record<string, string> }; spec?: { holderIdentity?: string } };
}

/** Follows the audit log file: each call returns the complete events appended since the last call. */
export class AuditLogReader {
  #offset = 0;
  #partialLine = "";
  #malformedLines = 0;

  constructor(readonly path: string) {}

  /** Lines that were not audit events (none expected; counted rather than fatal). */
  get malformedLines(): number {
    return this.#malformedLines;
  }

  readNew(): AuditEvent[] {
    if (!existsSync(this.path)) return [];
    const fd = openSync(this.path, "r");
    const chunks: Buffer[] = [];
    try {
      const buffer = Buffer.alloc(1 << 20);
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, this.#offset);
        if (read === 0) break;
        chunks.push(Buffer.from(buffer.subarray(0, read)));
        this.#offset += read;
      }
    } finally {
      closeSync(fd);
    }
    const lines = (this.#partialLine + Buffer.concat(chunks).toString("utf8")).split("\n");
    this.#partialLine = lines.pop() ?? "";
    const events: AuditEvent[] = [];
    for (const line of lines) {
      if (line.trim() === "") continue;
      const event = this.#parse(line);
      if (event) events.push(event);
    }
    return events;
  }

  #parse(line: string): AuditEvent | undefined {
    let raw: RawAuditEvent;
    try {
      raw = JSON.parse(line) as RawAuditEvent;
    } catch {
      this.#malformedLines++;
      return undefined;
    }
    if (raw.stage !== "ResponseComplete") return undefined;
    const receivedAtMicros = parseMicros(raw.requestReceivedTimestamp);
    const completedAtMicros = parseMicros(raw.stageTimestamp);
    if (!raw.verb || !raw.user?.username || receivedAtMicros === undefined || completedAtMicros === undefined) {
      this.#malformedLines++;
      return undefined;
    }
    const ref = raw.objectRef ?? {};
    return {
      verb: raw.verb,
      user: raw.user.username,
      resource: ref.resource ?? "",
      ...(ref.subresource ? { subresource: ref.subresource } : {}),
      ...(ref.namespace ? { namespace: ref.namespace } : {}),
      ...(ref.name ? { name: ref.name } : {}),
      code: raw.responseStatus?.code ?? 0,
      ...(raw.userAgent ? { userAgent: raw.userAgent } : {}),
      receivedAtMicros,
      completedAtMicros,
      ...(raw.requestObject?.spec ? { holderIdentity: raw.requestObject.spec.holderIdentity ?? "" } : {}),
      ...(raw.requestObject?.metadata?.annotations ? { annotations: raw.requestObject.metadata.annotations } : {}),
    };
  }
}

/** RFC 3339 with up to nine fractional digits (audit timestamps carry six) as epoch microseconds. */
export function parseMicros(text: string | undefined): number | undefined {
  const match = text?.match(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/);
  if (!match?.[1]) return undefined;
  const seconds = Date.parse(`${match[1]}Z`);
  if (Number.isNaN(seconds)) return undefined;
  const fraction = Number((match[2] ?? "").padEnd(6, "0").slice(0, 6));
  return seconds * 1000 + fraction;
}

/** Epoch microseconds as ISO time with microseconds, for evidence lines. */
export function formatMicros(micros: number): string {
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return iso.replace(/\.\d{3}Z$/, `.${String(micros % 1_000_000).padStart(6, "0")}Z`);
}
