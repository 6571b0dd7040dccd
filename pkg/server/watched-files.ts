// Notices when files change on disk by reading them again every few seconds: a Kubernetes
// Secret volume swaps a symlink rather than writing the file, which file-system events on the
// file itself miss; reading a few kilobytes now and then catches every way of replacing them.
import { readFileSync } from "node:fs";
import { type Poll, pollForChanges } from "./poll-for-changes.ts";

const FILE_POLL_INTERVAL_MS = 5_000;

/**
 * Calls `onChange` with the new contents (in `paths` order) whenever any file differs from what
 * was last seen, starting from `initial`. A failure to read, or an `onChange` that throws (say, a
 * key that does not match the certificate), is reported once per distinct content through
 * `onError`; the caller keeps what it had.
 */
export function watchFiles(
  paths: readonly string[],
  initial: readonly string[],
  onChange: (contents: string[]) => void,
  onError: (err: unknown) => void,
  intervalMs = FILE_POLL_INTERVAL_MS,
): Poll {
  // PEM files never hold a NUL, so the joined text stands for all of them.
  return pollForChanges({
    read: () => paths.map((path) => readFileSync(path, "utf8")).join("\0"),
    initial: initial.join("\0"),
    onChange: (joined) => onChange(joined.split("\0")),
    onError,
    intervalMs,
  });
}
