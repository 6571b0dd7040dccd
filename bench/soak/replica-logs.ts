// What the replicas' logs tell after a soak. A stack trace in a kube-loom log means a bug
// (pkg/errors/expected-error.ts): an expected failure is logged as one line. The soak looks for
// them in every replica's log: a JSON log line carrying a "stack", or the "    at …" frames a
// runtime prints for an error nobody caught. And it counts the errors logged by type (a
// DecodeError for each garbage line or corrupt frame that reached a replica's decoder, say).
import { readFileSync } from "node:fs";

/** One stack found: where, and the log line (or frame) that holds it, shortened. */
export interface StackTraceFound {
  path: string;
  line: number;
  excerpt: string;
}

const stackInJson = /"stack":"/;
const uncaughtFrame = /^\s+at .+(:\d+:\d+\)?|\(native\))$/;

export function findStackTraces(paths: readonly string[]): StackTraceFound[] {
  const found: StackTraceFound[] = [];
  for (const path of paths) {
    const lines = readFileSync(path, "utf8").split("\n");
    for (const [index, text] of lines.entries()) {
      // Only the first frame of a printed stack: the frames after it belong to the same trace.
      const firstFrame = uncaughtFrame.test(text) && !uncaughtFrame.test(lines[index - 1] ?? "");
      if (stackInJson.test(text) || firstFrame) found.push({ path, line: index + 1, excerpt: text.length > 400 ? `${text.slice(0, 400)}…` : text });
    }
  }
  return found;
}

const loggedErrorType = /"err":\{"type":"(\w+)"/;

/** Log lines carrying an error, by the error's type. */
export function countLoggedErrors(paths: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const path of paths) {
    for (const text of readFileSync(path, "utf8").split("\n")) {
      const type = loggedErrorType.exec(text)?.[1];
      if (type !== undefined) counts.set(type, (counts.get(type) ?? 0) + 1);
    }
  }
  return counts;
}
