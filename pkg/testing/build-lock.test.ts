import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withBuildLock } from "./build-lock.ts";

describe("withBuildLock", () => {
  let dir: string;
  let lockPath: string;
  const messages: string[] = [];
  const log = (message: string) => messages.push(message);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "build-lock-"));
    lockPath = join(dir, "binary.lock");
    messages.length = 0;
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("a second holder waits until the first one is done, saying whom it waits for", async () => {
    const order: string[] = [];
    let finishFirst = () => {};
    const first = withBuildLock(lockPath, log, async () => {
      order.push("first started");
      await new Promise<void>((resolve) => (finishFirst = resolve));
      order.push("first done");
    });
    const second = withBuildLock(lockPath, log, async () => {
      order.push("second started");
    });
    await Bun.sleep(50);
    expect(order).toEqual(["first started"]);
    expect(messages[0]).toContain(`process ${process.pid}`);
    finishFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(["first started", "first done", "second started"]);
    expect(existsSync(lockPath)).toBe(false);
  });

  test("a lock left by a process that died is taken over", async () => {
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    writeFileSync(lockPath, String(dead.pid));
    expect(await withBuildLock(lockPath, log, async () => "built")).toBe("built");
    expect(messages).toEqual([]);
  });

  test("the lock is released when the work fails", async () => {
    await expect(withBuildLock(lockPath, log, async () => Promise.reject(new Error("go build failed")))).rejects.toThrow("go build failed");
    expect(existsSync(lockPath)).toBe(false);
  });
});
