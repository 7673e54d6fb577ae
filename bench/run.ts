/**
 * `npm run bench`: figures, not assertions (docs/performance.md explains each one and the targets of issue 14).
 * 1. Parser: the Grok parser on replica bodies (no stack needed).
 * Then, on the bench's own stack (bench/stack.ts: its own ports, state, account and credits; never the dev account):
 * 2. Overhead per scraper over an exact answer time T, with the per-step breakdown.
 * 3. Throughput: async jobs on pools of 1, 2 and 4 sessions, makespan vs ideal.
 * 4. Reuse over sequential scrapes; 5. Chromium memory and open pages before/after many scrapes.
 * 6. The cache path (bench/cache-path.ts, when present).
 * 7. Evidence (bench/evidence.ts): what `X-Evidence: screenshot`, `html`, `stream` and all three add per scraper at the
 *    overhead section's T, the evidence steps, and the files' sizes.
 * Finally the credits the bench's account spent.
 *
 * Knobs (environment): BENCH_ONLY=parser,overhead,throughput,reuse,memory,cache,evidence (default all);
 * BENCH_SCRAPERS=grok,chatgpt (default every scraper); BENCH_RUNS (warm scrapes per scraper, 50);
 * BENCH_ANSWER_MS (T of the overhead section, 1000); BENCH_JOBS (60); BENCH_JOB_ANSWER_MS (T of the throughput
 * section, 3000); BENCH_POOLS=1,2,4; BENCH_BATCH_SIZE (local queue batch, BENCH_JOBS up to 100); BENCH_REUSE_RUNS (100);
 * BENCH_MEMORY_RUNS (200); BENCH_EVIDENCE_RUNS (timed scrapes per evidence setting and scraper, 20); BENCH_VERBOSE=1
 * (wrangler's log).
 */
import { existsSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { REPLICA_PROVIDERS } from "../replicas/server";
import { creditsRemaining } from "./client";
import { benchEvidence } from "./evidence";
import { benchOverhead } from "./overhead";
import { benchParser } from "./parser";
import { benchFootprint, benchReuse } from "./resources";
import { type BenchStack, type LocalBenchStack, startBenchStack } from "./stack";
import { QueueBatches } from "./queue-batches";
import { StepLines } from "./step-lines";
import { benchThroughput } from "./throughput";

const SECTIONS = ["parser", "overhead", "throughput", "reuse", "memory", "cache", "evidence"] as const;
type Section = (typeof SECTIONS)[number];

function isSection(value: string): value is Section {
  return SECTIONS.some((section) => section === value);
}

function listSetting(name: string): string[] | null {
  const value = process.env[name]?.trim();
  return value === undefined || value === "" ? null : value.split(",").map((item) => item.trim());
}

function numberSetting(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

const chosen = listSetting("BENCH_ONLY") ?? [...SECTIONS];
const unknown = chosen.filter((name) => !isSection(name));
if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown section(s) ${unknown.join(", ")}; known: ${SECTIONS.join(", ")}`);
const sections = new Set(chosen.filter(isSection));
const scrapers = listSetting("BENCH_SCRAPERS") ?? REPLICA_PROVIDERS.map((provider) => provider.id);
const runId = Date.now().toString(36);

/** The cache-path bench of bench/cache-path.ts, loaded only when that file exists (it is written separately). */
async function runCachePath(stack: BenchStack): Promise<void> {
  const url = new URL("./cache-path.ts", import.meta.url);
  if (!existsSync(url)) {
    console.log("\nCache path: skipped (bench/cache-path.ts is not there)");
    return;
  }
  const loaded: unknown = await import(url.href);
  const benchCachePath: unknown = typeof loaded === "object" && loaded !== null ? Reflect.get(loaded, "benchCachePath") : undefined;
  if (typeof benchCachePath !== "function") throw new Error("bench/cache-path.ts does not export benchCachePath(stack)");
  await Reflect.apply(benchCachePath, undefined, [stack]);
}

const failedSections: string[] = [];

/** Runs one section; a failure is printed and the bench goes on with the next section (exit status 1 at the end). */
async function section(name: Section, run: () => Promise<void>): Promise<void> {
  if (!sections.has(name)) return;
  try {
    await run();
  } catch (error) {
    failedSections.push(name);
    console.log(`\n${name}: FAILED (${error instanceof Error ? error.message : String(error)})`);
  }
}

async function onStack(stack: LocalBenchStack, lines: StepLines, batches: QueueBatches): Promise<void> {
  const startingCredits = await creditsRemaining(stack);
  const started = Date.now();
  try {
    await section("overhead", () =>
      benchOverhead(stack, lines, {
        scrapers,
        runs: numberSetting("BENCH_RUNS", 50),
        answerMs: numberSetting("BENCH_ANSWER_MS", 1000),
      }),
    );
    await section("throughput", () => {
      const pools = (listSetting("BENCH_POOLS") ?? ["1", "2", "4"]).map(Number).filter((size) => Number.isInteger(size) && size > 0);
      return benchThroughput(
        stack,
        { jobs: numberSetting("BENCH_JOBS", 60), answerMs: numberSetting("BENCH_JOB_ANSWER_MS", 3000), poolSizes: pools },
        runId,
        { steps: lines, batches },
      );
    });
    await section("reuse", () => benchReuse(stack, numberSetting("BENCH_REUSE_RUNS", 100), runId));
    await section("memory", () => benchFootprint(stack, numberSetting("BENCH_MEMORY_RUNS", 200), runId));
    await section("cache", () => runCachePath(stack));
    await section("evidence", () =>
      benchEvidence(
        stack,
        lines,
        { scrapers, runs: numberSetting("BENCH_EVIDENCE_RUNS", 20), answerMs: numberSetting("BENCH_ANSWER_MS", 1000) },
        runId,
      ),
    );
  } finally {
    const spent = startingCredits - (await creditsRemaining(stack).catch(() => Number.NaN));
    console.log(
      `\nCredits: the bench's own account (${stack.accountId}, ${stack.initialCredits} credits granted at start) spent ${spent} ` +
        `(3 per scrape or job); the dev account was not used. Stack time ${((Date.now() - started) / 1000).toFixed(0)} s.`,
    );
  }
}

console.log(
  `Machine: ${cpus().length} CPU (${cpus()[0]?.model ?? "unknown"}), ${(totalmem() / 1024 ** 3).toFixed(1)} GiB; Node ${process.version}`,
);
if (sections.has("parser")) benchParser();
if ([...sections].some((section) => section !== "parser")) {
  const lines = new StepLines();
  const batches = new QueueBatches();
  console.log("\nStarting the bench's own stack (wrangler dev on 8870–8879, state in .cache/bench-state)…");
  // The local queue hands its consumer one batch at a time and a batch ends with its slowest job, so every job of the
  // throughput section goes in one batch (at most 100, the platform's largest batch): the pool is what is measured.
  const batchSize = numberSetting("BENCH_BATCH_SIZE", Math.min(100, numberSetting("BENCH_JOBS", 60)));
  const stack = await startBenchStack({
    verbose: process.env.BENCH_VERBOSE === "1",
    onLogLine: (line) => {
      lines.accept(line);
      batches.accept(line);
    },
    consumerBatchSize: batchSize,
    variables: {
      SCRAPE_STEP_TIMINGS: "1",
      // the bench's account must be limited by the pool only, not by its fair-sharing or request-rate limits
      ACCOUNT_MAX_RUNNING_JOBS: String(Math.max(32, batchSize)),
      ACCOUNT_MAX_CONCURRENT_REQUESTS: String(Math.max(32, batchSize)),
      KEY_REQUESTS_PER_MINUTE: "100000",
      ACCOUNT_REQUESTS_PER_MINUTE: "100000",
      BROWSER_LAUNCHES_PER_MINUTE: "1000",
    },
  });
  try {
    await onStack(stack, lines, batches);
  } finally {
    await stack.stop();
  }
}
if (failedSections.length > 0) {
  console.log(`\nSections that failed: ${failedSections.join(", ")}`);
  process.exitCode = 1;
}
