// A mistake in how kube-loom was invoked (bad flag, bad value, bad config file): reported as one
// line on stderr with exit code 2, never as a stack trace.
export class UsageError extends Error {
  override readonly name = "UsageError";
}
