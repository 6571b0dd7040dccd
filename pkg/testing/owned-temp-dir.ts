// Temp folders for control planes, in RAM (/dev/shm) where available. Each one holds ~120 MB
// (etcd preallocates its WAL), so folders of processes that died without cleaning up are
// swept away by the next run.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isProcessAlive } from "./process-alive.ts";

const PREFIX = "kube-loom-cp-";
const OWNER_PID_FILE = "owner.pid";

const removeOnExit = new Set<string>();
process.on("exit", () => {
  for (const dir of removeOnExit) rmSync(dir, { recursive: true, force: true });
});

export function createOwnedTempDir(): string {
  const root = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  removeAbandonedDirs(root);
  const dir = mkdtempSync(join(root, PREFIX));
  writeFileSync(join(dir, OWNER_PID_FILE), String(process.pid));
  removeOnExit.add(dir);
  return dir;
}

export function removeOwnedTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  removeOnExit.delete(dir);
}

function removeAbandonedDirs(root: string): void {
  for (const name of readdirSync(root)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(root, name);
    const ownerPid = readOwnerPid(dir);
    // No pid file yet means another process is still creating it: leave it alone.
    if (ownerPid !== undefined && !isProcessAlive(ownerPid)) rmSync(dir, { recursive: true, force: true });
  }
}

function readOwnerPid(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, OWNER_PID_FILE), "utf8"));
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
