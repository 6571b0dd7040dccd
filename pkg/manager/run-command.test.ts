import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import type { ControllerDescriptor } from "./controller-descriptor.ts";
import { runCommand } from "./run-command.ts";

const probeManager = { name: "probe-manager", version: "0.3.0" };
/** Never built: every test here ends before the controllers are created. */
const idle: ControllerDescriptor = { name: "idle", aliases: [], enabledByDefault: true, flags: [], create: async () => undefined };
let stdout: string[];
let stderr: string[];
let restore: (() => void)[];

beforeEach(() => {
  stdout = [];
  stderr = [];
  const out = spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => stdout.push(String(chunk)) > 0);
  const err = spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => stderr.push(String(chunk)) > 0);
  restore = [() => out.mockRestore(), () => err.mockRestore()];
});

afterEach(() => {
  for (const undo of restore) undo();
});

describe("runCommand for a program of its own", () => {
  test("--version prints its name and version", async () => {
    expect(await runCommand(["--version"], [], probeManager)).toBe(0);
    expect(stdout.join("")).toBe("probe-manager v0.3.0\n");
  });

  test("a usage error is one line that starts with its name, exit code 2", async () => {
    expect(await runCommand(["--bogus"], [], probeManager)).toBe(2);
    expect(stderr.join("")).toBe("probe-manager: unknown flag --bogus (see --help)\n");
  });

  test("two controllers of one name: one line, no stack trace, exit code 2", async () => {
    expect(await runCommand([], [idle, { ...idle }], probeManager)).toBe(2);
    expect(stderr.join("")).toBe('probe-manager: two controllers are named "idle" (entries 1 and 2 of the controller list)\n');
  });

  test("a failure at start is one line that starts with its name, after a log line that says what starts", async () => {
    const code = await runCommand(["--kubeconfig=/nonexistent/kubeconfig", "--secure-port=0"], [idle], probeManager);
    expect(code).toBe(1);
    // The JSON log lines come first on stderr, the line for people last.
    const lines = stderr.join("").trimEnd().split("\n");
    expect(lines.at(-1)).toBe("probe-manager: kubeconfig /nonexistent/kubeconfig (--kubeconfig) not found");
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ msg: "starting probe-manager", version: "v0.3.0", controllers: ["idle"] });
  });

  test("an invalid name is refused before anything runs", async () => {
    await expect(runCommand(["--version"], [], { name: "probe manager", version: "1" })).rejects.toThrow('invalid program name "probe manager"');
    expect(stdout).toEqual([]);
  });
});
