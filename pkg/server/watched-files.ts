// Notices when files change on disk by reading them again every few seconds: a Kubernetes
// Secret volume swaps a symlink rather than writing the file, which file-system events on the
// file itself miss; reading a few kilobytes now and then catches every way of replacing them.
import { readFileSync } from "node:fs";
import { errorMessage } from "../errors/expected-error.ts";

const FILE_POLL_INTERVAL_MS = 5_000;

export interface FileWatch {
  stop(): void;
}

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
): FileWatch {
  let seen = initial.join("\0");
  let lastReadError: string | undefined;
  const timer = setInterval(() => {
    let contents: string[];
    try {
      contents = paths.map((path) => readFileSync(path, "utf8"));
      lastReadError = undefined;
    } catch (err) {
      const message = errorMessage(err);
      if (message !== lastReadError) onError(err);
      lastReadError = message;
      return;
    }
    const joined = contents.join("\0");
    if (joined === seen) return;
    seen = joined;
    try {
      onChange(contents);
    } catch (err) {
      onError(err);
    }
  }, intervalMs);
  // Never the reason the process stays alive.
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
