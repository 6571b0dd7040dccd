import { expect, test } from "bun:test";
import pino from "pino";
import { shutdownSignal } from "./shutdown-signal.ts";

const pinoInfo = 30;

test("one Ctrl-C that brings SIGINT and then SIGTERM is one shutdown and one log line", () => {
  const messages: unknown[] = [];
  const logger = pino({ level: "debug", base: undefined, timestamp: false }, { write: (line: string) => void messages.push(JSON.parse(line)) });
  const stop = shutdownSignal(logger);
  expect(stop.aborted).toBe(false);

  process.emit("SIGINT", "SIGINT");
  process.emit("SIGTERM", "SIGTERM");

  expect(stop.aborted).toBe(true);
  expect(messages).toEqual([{ level: pinoInfo, signal: "SIGINT", msg: "shutting down" }]);
});
