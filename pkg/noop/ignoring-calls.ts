// The stand-in for a metrics or observer interface when nobody listens: an object whose methods
// do nothing. Annotate the result with the interface, so the compiler checks none is left out.
// It sits below every package that reports something, so none of them imports pkg/metrics.

/** Each named method ignores its arguments and returns nothing. */
export function ignoringCalls<Name extends string>(names: readonly Name[]): Record<Name, () => void>;
/** Each named method ignores its arguments and returns `result`, e.g. a metric that ignores calls too. */
export function ignoringCalls<Name extends string, Result>(names: readonly Name[], result: Result): Record<Name, () => Result>;
export function ignoringCalls<Name extends string, Result>(names: readonly Name[], result?: Result): Record<Name, () => Result | undefined> {
  const ignore = () => result;
  return Object.fromEntries(names.map((name) => [name, ignore])) as Record<Name, () => Result | undefined>;
}
