// The runtime settings a compiled kube-loom runs with. Bun reads them from the environment once,
// when the process starts, so the executable sets them by replacing itself (execve: same pid, same
// arguments) before it does anything else.
//
// MIMALLOC_PURGE_HOLES_MIN_INTERVAL=1000: Bun's allocator gives the free blocks inside pages still
// in use back to the kernel when the event loop sleeps, at most once per this many milliseconds per
// thread (100 by default). A controller's event loop sleeps thousands of times a minute while it
// works (a rate-limited create, its answer, its watch event) and allocates the blocks again at once,
// each a page fault; once a second still gives them back when it idles. Measured in bench/README.md
// ("mimalloc's hole purging").
//
// BUN_IDLE_GC_SECONDS=0: Bun runs a full collection once the program has been quiet for 30 s (and
// after 2 and 10 minutes), in which JavaScriptCore drops compiled code that has not run since the
// previous one; at the second it also pages out the executable's embedded modules. A controller is
// quiet between bursts, and each burst paid for it on every thread: a 0 → 1000 Pod scale-up a
// minute after the sync cost 0.86× the CPU without them. Bun's collection timer, which collects
// while the heap grows, stays on. Measured in bench/README.md ("Bun's idle collections").

/** The settings, each kept when the operator's environment already sets it. */
export const runtimeSettings: Readonly<Record<string, string>> = { MIMALLOC_PURGE_HOLES_MIN_INTERVAL: "1000", BUN_IDLE_GC_SECONDS: "0" };

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
 * The re-execution that gives a compiled Bun executable the runtime settings it lacks, or
 * undefined: under Node or Deno (settings Bun alone reads), for a script run by `bun` (a developer's
 * run, whose command line `bun` owns), and once every setting is in the environment, which is
 * also what stops a second re-execution.
 */
export function runtimeReexec(facts: ProcessFacts): Reexec | undefined {
  // A compiled executable runs its entry from Bun's embedded file system, /$bunfs/.
  if (facts.bunVersion === undefined || !facts.argv[1]?.startsWith("/$bunfs/")) return undefined;
  const missing = Object.entries(runtimeSettings).filter(([name]) => facts.env[name] === undefined);
  if (missing.length === 0) return undefined;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(facts.env)) if (value !== undefined) env[name] = value;
  for (const [name, value] of missing) env[name] = value;
  return { path: facts.execPath, args: [facts.execPath, ...facts.argv.slice(2)], env };
}

/**
 * Replaces a compiled kube-loom with itself under the runtime settings when it lacks them;
 * returns when there is nothing to do, or when the runtime refuses the execve (the process then
 * runs on with the runtime's defaults: slower, not wrong).
 */
export function applyRuntimeSettings(): void {
  const reexec = runtimeReexec({ env: process.env, argv: process.argv, execPath: process.execPath, bunVersion: process.versions.bun });
  if (reexec === undefined) return;
  try {
    process.execve?.(reexec.path, reexec.args, reexec.env);
  } catch {
    // Nothing to undo: the image is replaced only when execve succeeds.
  }
}
