// The stand-in for a metrics interface when nobody collects: an object whose methods do
// nothing. Annotate the result with the interface, so the compiler checks none is left out.

/** Each named method ignores its arguments and returns nothing. */
export function ignoringCalls<Name extends string>(names: readonly Name[]): Record<Name, () => void>;
/** Each named method ignores its arguments and returns `result`, e.g. a metric that ignores calls too. */
export function ignoringCalls<Name extends string, Result>(names: readonly Name[], result: Result): Record<Name, () => Result>;
export function ignoringCalls<Name extends string, Result>(names: readonly Name[], result?: Result): Record<Name, () => Result | undefined> {
  const ignore = () => result;
  return Object.fromEntries(names.map((name) => [name, ignore])) as Record<Name, () => Result | undefined>;
}
