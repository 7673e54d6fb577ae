/**
 * Throughput and scale (issue 14, item 5): `jobs` asynchronous Grok jobs with the replica's answer time T on pools of
 * 1, 2 and 4 sessions per provider. Makespan = last `completed_at` − first `created_at` (the service's own
 * timestamps, so polling granularity does not count), compared with the ideal `jobs × T / n`.
 *
 * The sessions are launched first (n concurrent warm-up scrapes), so the figure is the pool's steady throughput.
 */
import { jobState, setAnswerTime, setPoolSize, submitJob, timedScrape, untilPoolIdle } from "./client";
import { percentile, row } from "./figures";
import type { QueueBatches } from "./queue-batches";
import type { BenchStack } from "./stack";
import type { StepLines } from "./step-lines";

export interface ThroughputSettings {
  jobs: number;
  answerMs: number;
  poolSizes: readonly number[];
}

const SCRAPER = "grok";
const TARGET_RATIO = 1.15;
const POLL_MS = 500;

/** What the section reads from the stack's log to explain its figures. */
export interface ThroughputLogs {
  steps: StepLines;
  batches: QueueBatches;
}

export async function benchThroughput(stack: BenchStack, settings: ThroughputSettings, runId: string, logs: ThroughputLogs): Promise<void> {
  console.log(
    `\nThroughput (issue 14 item 5): ${settings.jobs} async ${SCRAPER} jobs, T = ${settings.answerMs} ms, ` +
      `makespan from the jobs' created_at/completed_at`,
  );
  const widths = [8, 12, 10, 8, 9, 8] as const;
  console.log(row(["sessions", "makespan s", "ideal s", "ratio", "failed", "target"], widths));
  const explanations: string[] = [];
  for (const size of settings.poolSizes) {
    await setPoolSize(stack, size);
    // launch the n sessions before timing (default pacing: quick)
    await Promise.all(Array.from({ length: size }, (_, index) => timedScrape(stack, SCRAPER, `bench warm ${runId} ${size} ${index}`)));
    await untilPoolIdle(stack);
    await setAnswerTime(stack, SCRAPER, settings.answerMs);
    let result: { makespanMs: number; failed: number };
    logs.steps.clear();
    logs.batches.clear();
    try {
      result = await runJobs(stack, settings.jobs, `${runId} ${size}`);
    } finally {
      await setAnswerTime(stack, SCRAPER, 0);
    }
    const idealMs = (settings.jobs * settings.answerMs) / size;
    const ratio = result.makespanMs / idealMs;
    console.log(
      row(
        [
          String(size),
          (result.makespanMs / 1000).toFixed(1),
          (idealMs / 1000).toFixed(1),
          ratio.toFixed(2),
          String(result.failed),
          ratio <= TARGET_RATIO && result.failed === 0 ? "met" : "missed",
        ],
        widths,
      ),
    );
    explanations.push(explain(size, settings, result.makespanMs, logs));
  }
  console.log(
    "Why (ratio = hold ÷ T ÷ utilisation): hold = how long a job held its session (lease to release, T included); " +
      "utilisation = Σ hold ÷ (sessions × makespan); batches = the local queue's deliveries (each ends with its slowest job)",
  );
  for (const line of explanations) console.log(line);
}

/** One line per pool size: the per-job session hold (CPU contention shows here) and the pool's idle share. */
function explain(size: number, settings: ThroughputSettings, makespanMs: number, logs: ThroughputLogs): string {
  const holds = logs.steps.sessionHoldMs(SCRAPER);
  const held = holds.reduce((sum, hold) => sum + hold, 0);
  const utilisation = held / (size * makespanMs);
  const batches = logs.batches.list().filter((batch) => batch.acked > 0);
  const sizes = [...new Set(batches.map((batch) => batch.size))].join("/");
  const batchSeconds = batches.map((batch) => batch.durationMs / 1000);
  return (
    `  ${size} session(s): hold p50 ${percentile(holds, 50).toFixed(0)} ms (T + ${(percentile(holds, 50) - settings.answerMs).toFixed(0)}), ` +
    `p95 ${percentile(holds, 95).toFixed(0)} ms over ${holds.length} jobs; utilisation ${(100 * utilisation).toFixed(0)} %; ` +
    `${batches.length} batches of ${sizes || "?"} jobs, ${percentile(batchSeconds, 50).toFixed(1)} s p50 each`
  );
}

async function runJobs(stack: BenchStack, jobs: number, label: string): Promise<{ makespanMs: number; failed: number }> {
  const ids = await Promise.all(
    Array.from({ length: jobs }, (_, index) => submitJob(stack, SCRAPER, `bench throughput ${label} ${index}`)),
  );
  const finished = new Map<string, { status: string; createdAt: number; completedAt: number | null }>();
  const created = new Map<string, number>();
  while (finished.size < ids.length) {
    for (const id of ids) {
      if (finished.has(id)) continue;
      const state = await jobState(stack, id);
      created.set(id, state.createdAt);
      if (state.status !== "pending") finished.set(id, state);
    }
    if (finished.size < ids.length) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const states = [...finished.values()];
  const start = Math.min(...created.values());
  const end = Math.max(...states.map((state) => state.completedAt ?? Number.NaN));
  return { makespanMs: end - start, failed: states.filter((state) => state.status !== "done").length };
}
