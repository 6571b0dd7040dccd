import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasExited, logTail, spawnDaemon, stopDaemon } from "./daemon-process.ts";

const dir = mkdtempSync(join(tmpdir(), "daemon-process-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("spawnDaemon", () => {
  test("output goes to the log; the exit code is reported", async () => {
    const log = join(dir, "echo.log");
    const daemon = spawnDaemon(["sh", "-c", "echo hello; exit 3"], log);
    expect(daemon.pid).toBeGreaterThan(0);
    expect(await daemon.exited).toBe(3);
    expect(daemon.exitCode).toBe(3);
    expect(hasExited(daemon)).toBe(true);
    expect(logTail(log)).toEndWith("hello");
  });

  test("stopped by a signal: exited says 128 + its number, as a shell does", async () => {
    const daemon = spawnDaemon(["sleep", "60"], join(dir, "sleep.log"));
    await stopDaemon(daemon, "SIGTERM");
    expect(await daemon.exited).toBe(143);
    expect(daemon.signalCode).toBe("SIGTERM");
    expect(daemon.exitCode).toBeNull();
  });

  test("a program that does not exist exits at once, and the log says why", async () => {
    const log = join(dir, "missing.log");
    const daemon = spawnDaemon([join(dir, "no-such-program")], log);
    expect(await daemon.exited).not.toBe(0);
    expect(hasExited(daemon)).toBe(true);
    expect(logTail(log)).toContain("no-such-program");
  });
});
