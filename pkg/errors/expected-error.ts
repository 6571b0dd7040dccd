// The one rule for telling the world's failures from kube-loom's bugs.
//
// An expected error is something an operator or the cluster did: a bad flag, an unreachable or
// refusing API server, a port already taken, an unreadable file. Its message says everything
// (what failed and what to do), so it is shown as one line, with no stack trace, which would
// only point into a library. Everything else is a bug and keeps its stack wherever it is logged.
// A new kind of expected failure is a subclass of ExpectedError, and nothing else changes.

/**
 * A failure the world caused, not a bug: logged as its one-line message, without a stack. Subclass it for
 * a controller's own such errors (ApiError and TransportError are ones); any other error keeps its stack in the logs.
 */
export abstract class ExpectedError extends Error {}

export function isExpectedError(err: unknown): err is ExpectedError {
  return err instanceof ExpectedError;
}

/**
 * JavaScript's counterparts of a Go panic (a wrong type, an undefined name, a value out of
 * range) and values thrown that are not errors at all: code that is wrong, not a call that failed.
 */
export function isProgrammingError(err: unknown): boolean {
  if (isExpectedError(err)) return false;
  return err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || !(err instanceof Error);
}

/** The text of any thrown value, for one-line logs. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The first line of a thrown value's text, for a one-line message or condition. Parsers (the
 * yaml package) put a multi-line excerpt after a first line ending in ":", which is dropped too.
 */
export function firstLineOfError(err: unknown): string {
  const message = errorMessage(err);
  return (message.split("\n")[0] ?? message).replace(/:$/, "");
}
