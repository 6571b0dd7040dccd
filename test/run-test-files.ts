// Runs every test file with `bun test`, two at a time on two cores: most integration tests spend
// their time waiting on a control plane, so a second lane nearly halves the suite's wall time.
// The unit tests (everything outside test/ and examples/) are one job; each other file is its own job,
// longest first by the previous run's durations (test/job-durations.json in a fresh clone). Each job's output is
// printed whole when it ends. An integration file that fails is run once more, so a broken
// behaviour (fails twice) is told from a timing-dependent one, but a file that passes only on its
// rerun fails the run too unless test/known-flaky.ts lists it with its reason (rerun-policy.ts).
// CI logs often keep only their end, so every failure and rerun is printed again after the
// timings, and the last line is "N passed, N failed", then the files that were rerun. `--skew VERSION` also runs
// the version-skew subset (SKEW_SUBSET: the files whose outcome depends on what the API server of a
// release does) against the API server of another supported release, as extra jobs in the same lanes.
// KUBE_LOOM_TEST_CONTENT_TYPE=application/json runs every kube-loom and client of the suite over JSON.
//   bun test/run-test-files.ts [--jobs N] [--skew VERSION] [file ...]
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type ApiContentType, protobufMediaType } from "../pkg/kube/protobuf/media-types.ts";
import { testContentType, testContentTypeVariable } from "../pkg/testing/test-content-type.ts";
import { selectKubernetesVersion } from "./controlplane/binaries.ts";
import { kubebuilderAssets } from "./controlplane/kubebuilder-assets.ts";
import { knownFlakyFiles } from "./known-flaky.ts";
import { judgeRun } from "./rerun-policy.ts";

const repoRoot = resolve(import.meta.dir, "..");
const durationsFile = join(repoRoot, ".cache", "test-durations.json");
/**
 * The durations of a full run, kept in the repository so that a fresh clone (CI's always is) also
 * starts the longest jobs first: ordered by file size instead, a long soak of a short file started
 * last and kept one lane busy minutes after the other ran dry. Refresh it from a full run's
 * .cache/test-durations.json when the suite's shape changes; a job it lacks is weighed by file size.
 */
const committedDurationsFile = join(repoRoot, "test", "job-durations.json");
const PER_TEST_TIMEOUT_MS = 600_000;

interface Job {
  name: string;
  files: string[];
  /** The Kubernetes release of the job's control plane when it is not the default one. */
  kubeVersion?: string;
}

/**
 * The test files that run again against each --skew release: those whose outcome depends on what
 * the API server of a release does, each with the difference it exercises. A file that only runs
 * controller logic again over APIs every supported release serves alike is not here (leader
 * election over Leases, the ReplicaSet controller's restarts, refusals, lost answers, adoption and
 * ranking, the garbage collector's kinds of cascade and upstream's corner cases: its restart test
 * covers its discovery and deletion propagation on both releases in a third of the time).
 */
const SKEW_SUBSET: Record<string, string> = {
  "test/integration/informer-sync.test.ts": "streaming lists, bookmarks, metadata-only and protobuf answers, as each release serves them",
  "test/integration/informer-watchlist.test.ts": "a server that refuses streaming lists, and the fall back to LIST",
  "test/integration/informer-recovery.test.ts": "the answers to an expired resourceVersion (410) and a restarted API server, which the relist follows",
  "test/integration/informer-large-list.test.ts": "a 50 MiB streaming list as the release sends it, and its Too large resource version answer",
  "test/integration/informer-shards.test.ts": "shardSelector ignored before 1.36: the process filters by shard itself",
  "test/integration/shard-ring.test.ts": "the ring on a server without the shard filter",
  "test/replicaset/scale.test.ts": "the ReplicaSet status fields (terminatingReplicas) that the release's feature gates govern",
  "test/replicaset/read-your-writes.test.ts": "resourceVersions compared as the release promises (KEP-5647 relies on it)",
  "test/garbagecollector/restart.test.ts": "a monitor for every resource the release's discovery lists (the set differs between releases), background and foreground cascades",
};

interface JobResult {
  passed: number;
  failed: number;
  seconds: number;
  /** What a reader of the last lines needs: each failing test with the error printed above it. */
  failures: string;
  /** The failures of a first run that a second run did not repeat. */
  flakes?: string;
}

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { jobs: { type: "string" }, skew: { type: "string", multiple: true } },
});
const lanes = values.jobs === undefined ? Math.max(2, availableParallelism()) : Number(values.jobs);
if (!Number.isInteger(lanes) || lanes < 1) {
  console.error(`--jobs must be a whole number of at least 1, not "${values.jobs}"`);
  process.exit(2);
}

let contentType: ApiContentType;
try {
  contentType = testContentType();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
if (contentType !== protobufMediaType) console.log(`every kube-loom and client of this run asks for ${contentType} (${testContentTypeVariable})`);

const files = positionals.length > 0 ? positionals.map((file) => relative(repoRoot, resolve(file))) : await allTestFiles();
const skewVersions = (values.skew ?? []).map(selectKubernetesVersion);
const jobs = longestFirst([...groupIntoJobs(files), ...skewVersions.flatMap((version) => skewJobs(files, version))], { ...readDurations(committedDurationsFile), ...readDurations(durationsFile) });
const jobCount = jobs.length;
const filesOfJob = new Map(jobs.map((job) => [job.name, job.files]));
// The examples' tests find the control plane's binaries as envtest users' tests do.
process.env.KUBEBUILDER_ASSETS ??= await kubebuilderAssets();
const started = performance.now();
const results = new Map<string, JobResult>();
await Promise.all(Array.from({ length: Math.min(lanes, jobCount) }, () => runLane(jobs, results)));

writeDurations(results);
console.log(`\n${jobCount} jobs on ${lanes} lanes in ${Math.round((performance.now() - started) / 1000)} s; slowest:`);
for (const [name, result] of [...results].sort((a, b) => b[1].seconds - a[1].seconds).slice(0, 8)) console.log(`  ${result.seconds.toFixed(0).padStart(5)} s  ${name}`);
const verdict = judgeRun(
  [...results].map(([name, result]) => ({ name, files: filesOfJob.get(name) ?? [], passed: result.passed, failed: result.failed, passedOnRerun: result.flakes !== undefined })),
  knownFlakyFiles,
);
for (const rerun of verdict.reruns) {
  const why = rerun.knownFlakyReason === undefined ? "not in test/known-flaky.ts, so it fails the run" : `known flaky: ${rerun.knownFlakyReason}`;
  console.log(`\n----- failed, then passed when run again (${why}): ${rerun.name} -----\n${results.get(rerun.name)?.flakes ?? ""}`);
}
for (const [name, result] of results) if (result.failed > 0) console.log(`\n----- failed in ${name} -----\n${result.failures}`);
console.log(verdict.summary);
process.exit(verdict.passes ? 0 : 1);

async function allTestFiles(): Promise<string[]> {
  const glob = new Bun.Glob("**/*.test.ts");
  const found: string[] = [];
  for await (const file of glob.scan({ cwd: repoRoot })) {
    if (!file.startsWith("node_modules/") && !file.startsWith(".cache/") && !file.includes("/node_modules/")) found.push(file);
  }
  return found.sort();
}

function groupIntoJobs(testFiles: string[]): Job[] {
  const unit = testFiles.filter((file) => !isIntegrationFile(file));
  const integration = testFiles.filter(isIntegrationFile);
  return [...(unit.length > 0 ? [{ name: "unit tests", files: unit }] : []), ...integration.map((file) => ({ name: file, files: [file] }))];
}

function skewJobs(testFiles: string[], kubeVersion: string): Job[] {
  // A renamed or removed file would otherwise leave the subset without a word.
  const missing = Object.keys(SKEW_SUBSET).filter((file) => !existsSync(join(repoRoot, file)));
  if (missing.length > 0) throw new Error(`SKEW_SUBSET names files that do not exist: ${missing.join(", ")}`);
  const subset = testFiles.filter((file) => file in SKEW_SUBSET);
  return subset.map((file) => ({ name: `${file} against ${kubeVersion}`, files: [file], kubeVersion }));
}

function longestFirst(all: Job[], durations: Record<string, number>): Job[] {
  const weight = (job: Job) => durations[job.name] ?? job.files.reduce((sum, file) => sum + statSync(join(repoRoot, file)).size / 1000, 0);
  return [...all].sort((a, b) => weight(b) - weight(a));
}

async function runLane(queue: Job[], results: Map<string, JobResult>): Promise<void> {
  for (let job = queue.shift(); job; job = queue.shift()) results.set(job.name, await runWithOneRetry(job));
}

async function runWithOneRetry(job: Job): Promise<JobResult> {
  const first = await runJob(job);
  if (first.failed === 0 || !job.files.every(isIntegrationFile)) return first;
  console.log(`\n===== ${job.name} failed; running it once more =====`);
  const second = await runJob(job);
  return second.failed === 0 ? { ...second, flakes: first.failures } : second;
}

/** Integration tests live under test/ (and the examples' tests, on a control plane too); unit tests sit next to the code they test. */
function isIntegrationFile(file: string): boolean {
  return file.startsWith("test/") || file.startsWith("examples/");
}

async function runJob(job: Job): Promise<JobResult> {
  const started = performance.now();
  const bun = Bun.spawn([process.execPath, "test", "--timeout", String(PER_TEST_TIMEOUT_MS), ...job.files.map((file) => `./${file}`)], {
    cwd: repoRoot,
    env: job.kubeVersion ? { ...process.env, KUBE_VERSION: job.kubeVersion } : process.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [output, errors, exitCode] = await Promise.all([new Response(bun.stdout).text(), new Response(bun.stderr).text(), bun.exited]);
  const text = output + errors;
  const passed = lastCount(text, /^ *(\d+) pass$/gm);
  // A file that crashes outside a test reports no failing test but exits non-zero: one failure.
  const failed = Math.max(lastCount(text, /^ *(\d+) fail$/gm), exitCode === 0 ? 0 : 1);
  const seconds = (performance.now() - started) / 1000;
  console.log(`\n===== ${job.name}: ${passed} passed, ${failed} failed, ${seconds.toFixed(0)} s =====\n${text.trimEnd()}`);
  return { passed, failed, seconds, failures: failed === 0 ? "" : failureExcerpts(text) };
}

// Bun prints a test's error above its "(fail)" line, so each excerpt runs from the previous test's
// result line down to the "(fail)" line. A file that crashed outside any test gets its last lines.
function failureExcerpts(text: string): string {
  const lines = text.split("\n");
  const excerpts: string[] = [];
  let previousResult = -1;
  lines.forEach((line, index) => {
    if (!/^\((pass|fail|skip|todo)\)/.test(line)) return;
    if (line.startsWith("(fail)")) excerpts.push(lines.slice(Math.max(previousResult + 1, index - 40), index + 1).join("\n"));
    previousResult = index;
  });
  return excerpts.length > 0 ? excerpts.join("\n\n") : lines.slice(-40).join("\n");
}

function lastCount(text: string, pattern: RegExp): number {
  const matches = [...text.matchAll(pattern)];
  return Number(matches.at(-1)?.[1] ?? 0);
}

function readDurations(file: string): Record<string, number> {
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

function writeDurations(latest: Map<string, JobResult>): void {
  const merged = { ...readDurations(durationsFile), ...Object.fromEntries([...latest].map(([name, result]) => [name, Math.round(result.seconds)])) };
  mkdirSync(dirname(durationsFile), { recursive: true });
  writeFileSync(durationsFile, `${JSON.stringify(merged, null, 1)}\n`);
}
