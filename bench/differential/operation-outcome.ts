// One line per operation a case sends: what it was and what the API server made of it. A missing
// object is an ordinary outcome (an earlier step may have removed it); other errors are recorded
// with their reason, so both sides' lines can be compared and a failing case shows what went wrong.
import { ApiError, isNotFound } from "../../pkg/kube/errors.ts";

export async function outcomeOf(what: string, operation: () => Promise<string>): Promise<string> {
  try {
    return `${what}: ${await operation()}`;
  } catch (err) {
    if (isNotFound(err)) return `${what}: not found`;
    if (err instanceof ApiError) return `${what}: failed with ${err.code} ${err.reason}: ${withoutUids(err.status?.message ?? "")}`;
    return `${what}: failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Messages quote UIDs, which differ between the control planes even when the answers agree. */
function withoutUids(message: string): string {
  return message.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uid>");
}
