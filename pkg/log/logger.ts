// Structured logs with pino. JSON by default (for log pipelines), `text` for people.
// `-v N` follows klog's convention: higher N, more detail.
import pino, { type Logger as PinoLogger } from "pino";
import { isExpectedError } from "../errors/expected-error.ts";
import { textLines } from "./text-format.ts";

/**
 * A pino logger: `logger.info({ key }, "message")`. A controller's (`SetupContext.logger`) carries its name, and
 * follows --log-format and -v (debug from -v 4, trace from -v 6).
 */
export type Logger = PinoLogger;

/** Expected errors are logged by type and message alone; bugs keep their stack. */
function serializeError(err: unknown): unknown {
  if (isExpectedError(err)) return { type: err.name, message: err.message };
  return pino.stdSerializers.err(err as Error);
}

export type LogFormat = "json" | "text";

export interface LoggerOptions {
  format: LogFormat;
  /** klog-style verbosity: 0–3 info, 4–5 debug, ≥6 trace. */
  verbosity: number;
  /** Where lines go; stderr keeps stdout free for command output. */
  destination?: NodeJS.WritableStream;
}

export function levelForVerbosity(verbosity: number): pino.Level {
  if (verbosity >= 6) return "trace";
  if (verbosity >= 4) return "debug";
  return "info";
}

export function createLogger(options: LoggerOptions): Logger {
  const level = levelForVerbosity(options.verbosity);
  const destination = options.destination ?? process.stderr;
  // A plain stream, not a worker-thread transport, so it also works inside a `bun build --compile`
  // single executable.
  const stream = options.format === "text" ? textLines(destination) : destination;
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime, serializers: { err: serializeError } }, stream);
}

/** A logger that drops everything: the default for library code and unit tests. */
export const silentLogger: Logger = pino({ level: "silent" });
