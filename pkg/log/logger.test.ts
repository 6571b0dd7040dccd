import { describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { ExpectedError } from "../errors/expected-error.ts";
import { createLogger, type LogFormat, type Logger } from "./logger.ts";

class WorldFailure extends ExpectedError {
  override readonly name = "WorldFailure";
}

/** A logger whose output is collected; `lines()` splits it as `grep` and `tail` would. */
function capture(format: LogFormat): { logger: Logger; lines: () => string[] } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ format, verbosity: 0, destination });
  return { logger, lines: () => chunks.join("").split("\n").slice(0, -1) };
}

function nestedError(): Error {
  const cause = new Error("connection reset\nby peer");
  return new Error("failed to release lock:\nno response headers", { cause });
}

describe("--log-format=text", () => {
  test("an error with a multi-line message and a cause is one line: err=\"message\", then its stack on the same line", () => {
    const { logger, lines } = capture("text");
    logger.error({ err: nestedError(), lease: "kube-system/kube-loom" }, "failed to release lock");
    logger.info("next entry");
    const [entry, next] = lines();
    expect(lines()).toHaveLength(2);
    expect(entry).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] ERROR: failed to release lock /);
    expect(entry).toContain(String.raw`err="failed to release lock:\nno response headers: connection reset\nby peer"`);
    expect(entry).toContain(String.raw`lease="kube-system/kube-loom"`);
    // The stack is kept for a bug, escaped so that it stays on the line and decodes back exactly.
    const stack = /stack=("(?:[^"\\]|\\.)*")$/.exec(entry ?? "")?.[1] ?? "";
    expect(JSON.parse(stack)).toContain("caused by: Error: connection reset\nby peer");
    expect(next).toMatch(/\] INFO: next entry$/);
  });

  test("an expected error is its message alone, as klog prints err=\"…\"", () => {
    const { logger, lines } = capture("text");
    logger.error({ err: new WorldFailure("API server https://127.0.0.1:1 not healthy\nafter 1s") }, "start-up failed");
    expect(lines()).toEqual([expect.stringMatching(/\] ERROR: start-up failed err="API server https:\/\/127\.0\.0\.1:1 not healthy\\nafter 1s"$/)]);
  });

  test("multi-line messages and values stay on their line; every field is key=value, name included", () => {
    const { logger, lines } = capture("text");
    logger.child({ controller: "replicaset" }).warn({ name: "web", replicas: 3, ready: true, owner: { kind: "Deployment", note: "a\nb" } }, "two\nlines");
    expect(lines()).toEqual([
      expect.stringMatching(
        /\] WARN: two\\nlines controller="replicaset" name="web" replicas=3 ready=true owner=\{"kind":"Deployment","note":"a\\nb"\}$/,
      ),
    ]);
  });

  test("an entry without a message is its fields", () => {
    const { logger, lines } = capture("text");
    logger.info({ signal: "SIGTERM" });
    expect(lines()).toEqual([expect.stringMatching(/\] INFO: signal="SIGTERM"$/)]);
  });
});

describe("--log-format=json", () => {
  test("one JSON object per line, with the bug's stack and the expected error's message alone", () => {
    const { logger, lines } = capture("json");
    logger.error({ err: nestedError() }, "bug");
    logger.error({ err: new WorldFailure("refused") }, "world");
    const [bug, world] = lines().map((line) => JSON.parse(line) as { err: Record<string, unknown> });
    expect(lines()).toHaveLength(2);
    expect(bug?.err.stack).toContain("caused by: Error: connection reset");
    expect(world?.err).toEqual({ type: "WorldFailure", message: "refused" });
  });
});
