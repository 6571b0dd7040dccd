// A lock file beside a binary being built, so two processes (two test runs, or a test run and
// a kube-loom-testing-assets command) do not both spend minutes on the same go build: the second one waits, then
// finds the binary. Builds are safe without it (each writes its own partial file and renames),
// so the rare race of two processes clearing the same stale lock only costs a duplicate build.
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { isProcessAlive } from "./process-alive.ts";

const POLL_INTERVAL_MS = 1_000;
const REPORT_INTERVAL_MS = 15_000;
// The pid is written right after the file is created; an empty lock older than this is debris.
const EMPTY_LOCK_GRACE_MS = 10_000;

/** Runs `work` holding `lockPath`, first waiting (and saying so through `log`) while a live process holds it. */
export async function withBuildLock<T>(lockPath: string, log: (message: string) => void, work: () => Promise<T>): Promise<T> {
  await acquire(lockPath, log);
  try {
    return await work();
  } finally {
    rmSync(lockPath, { force: true });
  }
}

async function acquire(lockPath: string, log: (message: string) => void): Promise<void> {
  let lastReport = Number.NEGATIVE_INFINITY;
  for (;;) {
    if (tryCreate(lockPath)) return;
    const holder = lockHolder(lockPath);
    if (holder === "released") continue;
    if (holder === "dead") {
      rmSync(lockPath, { force: true });
      continue;
    }
    if (performance.now() - lastReport >= REPORT_INTERVAL_MS) {
      log(`waiting for ${holder === "starting" ? "another process" : `process ${holder}`}, which holds ${lockPath}`);
      lastReport = performance.now();
    }
    await sleep(POLL_INTERVAL_MS);
  }
}

function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, "wx");
  } catch (error) {
    if (hasErrorCode(error, "EEXIST")) return false;
    throw error;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The live pid holding the lock; "starting" while its pid is not written yet; "dead" for a stale lock. */
function lockHolder(lockPath: string): number | "starting" | "dead" | "released" {
  let text: string;
  let ageMs: number;
  try {
    text = readFileSync(lockPath, "utf8").trim();
    ageMs = Date.now() - statSync(lockPath).mtimeMs;
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return "released"; // between our attempt and this read
    throw error;
  }
  if (text === "") return ageMs > EMPTY_LOCK_GRACE_MS ? "dead" : "starting";
  const pid = Number(text);
  return Number.isSafeInteger(pid) && pid > 0 && isProcessAlive(pid) ? pid : "dead";
}

function hasErrorCode(error: unknown, code: string): boolean {
  return error instanceof Error && "code" in error && error.code === code;
}
