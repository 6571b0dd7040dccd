// A mistake in how kube-loom was invoked (bad flag, bad value, bad config file): reported as one
// line on stderr with exit code 2, never as a stack trace.
import { ExpectedError } from "../errors/expected-error.ts";

export class UsageError extends ExpectedError {
  override readonly name = "UsageError";
}
