// Compares two sides' outcome lines as multisets: what only one side has, line by line, is the
// disagreement (lines are sorted and self-describing, so no alignment is needed).

export interface OutcomeDiff {
  onlyLeft: string[];
  onlyRight: string[];
}

export function diffOutcomes(left: readonly string[], right: readonly string[]): OutcomeDiff {
  const unmatched = new Map<string, number>();
  for (const line of right) unmatched.set(line, (unmatched.get(line) ?? 0) + 1);
  const onlyLeft: string[] = [];
  for (const line of left) {
    const count = unmatched.get(line) ?? 0;
    if (count > 0) unmatched.set(line, count - 1);
    else onlyLeft.push(line);
  }
  const onlyRight = [...unmatched].flatMap(([line, count]) => Array.from({ length: count }, () => line));
  return { onlyLeft: onlyLeft.sort(), onlyRight: onlyRight.sort() };
}

export function agrees(diff: OutcomeDiff): boolean {
  return diff.onlyLeft.length === 0 && diff.onlyRight.length === 0;
}

/** "- <left name>: line" and "+ <right name>: line", for a report. */
export function formatDiff(diff: OutcomeDiff, leftName: string, rightName: string): string[] {
  return [...diff.onlyLeft.map((line) => `- only on ${leftName}: ${line}`), ...diff.onlyRight.map((line) => `+ only on ${rightName}: ${line}`)];
}

/** Whether `other` splits the same way as `diff`, whichever side had which lines. */
export function sameSplit(diff: OutcomeDiff, other: OutcomeDiff): boolean {
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((line, i) => line === b[i]);
  return (same(diff.onlyLeft, other.onlyLeft) && same(diff.onlyRight, other.onlyRight)) || (same(diff.onlyLeft, other.onlyRight) && same(diff.onlyRight, other.onlyLeft));
}
