// The memory allocator's settings a compiled kube-loom runs with. Bun's allocator (its mimalloc)
// reads them from the environment once, when the process starts, so the executable sets them by
// replacing itself (execve: same pid, same arguments) before it does anything else.
//
// MIMALLOC_PURGE_HOLES_MIN_INTERVAL=1000: Bun gives the free blocks inside pages still in use back
// to the kernel when the event loop sleeps, at most once per this many milliseconds per thread
// (100 by default). A controller's event loop sleeps thousands of times a minute while it works
// (a rate-limited create, its answer, its watch event) and allocates the blocks again at once,
// each a page fault; once a second still gives them back when it idles. Measured in
// bench/README.md ("mimalloc's hole purging").

/** The settings, each kept when the operator's environment already sets it. */
export const allocatorSettings: Readonly<Record<string, string>> = { MIMALLOC_PURGE_HOLES_MIN_INTERVAL: "1000" };

/** What the process needs to know to decide; `process` has all of it. */
export interface ProcessFacts {
  env: Readonly<Record<string, string | undefined>>;
  argv: readonly string[];
  execPath: string;
  /** Set under Bun only. */
  bunVersion: string | undefined;
}

/** The execve that applies the settings: the executable, its argument vector (argv[0] first) and the environment. */
export interface Reexec {
  path: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The re-execution that gives a compiled Bun executable the allocator settings it lacks, or
 * undefined: under Node or Deno (another allocator), for a script run by `bun` (a developer's
 * run, whose command line `bun` owns), and once every setting is in the environment, which is
 * also what stops a second re-execution.
 */
export function allocatorReexec(facts: ProcessFacts): Reexec | undefined {
  // A compiled executable runs its entry from Bun's embedded file system, /$bunfs/.
  if (facts.bunVersion === undefined || !facts.argv[1]?.startsWith("/$bunfs/")) return undefined;
  const missing = Object.entries(allocatorSettings).filter(([name]) => facts.env[name] === undefined);
  if (missing.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(facts.env)) if (value !== undefined) env[name] = value;
  for (const [name, value] of missing) env[name] = value;
  return { path: facts.execPath, args: [facts.execPath, ...facts.argv.slice(2)], env };
}

/**
 * Replaces a compiled kube-loom with itself under the allocator settings when it lacks them;
 * returns when there is nothing to do, or when the runtime refuses the execve (the process then
 * runs on with the allocator's defaults: slower, not wrong).
 */
export function applyAllocatorSettings(): void {
  const reexec = allocatorReexec({ env: process.env, argv: process.argv, execPath: process.execPath, bunVersion: process.versions.bun });
  if (reexec === undefined) return;
  try {
    process.execve?.(reexec.path, reexec.args, reexec.env);
  } catch {
    // Nothing to undo: the image is replaced only when execve succeeds.
  }
}
