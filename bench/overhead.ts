/**
 * Overhead per scraper (issue 14, item 1): the replica's answer time is set to exactly T (`total_ms`), then the first
 * scrape of the scraper (which may launch a browser session) and `runs` warm sequential sync scrapes are timed end to
 * end; overhead = latency − T. The per-step breakdown is the median of each step over the warm scrapes, from the
 * Worker's structured `scrape_steps` lines (src/browser/page/step-timings.ts).
 */
import { BENCH_COUNTRY, setAnswerTime, timedScrape, untilPoolIdle } from "./client";
import { milliseconds, percentile, row } from "./figures";
import type { StepLines } from "./step-lines";
import type { BenchStack } from "./stack";

export interface OverheadSettings {
  scrapers: readonly string[];
  runs: number;
  answerMs: number;
}

/** Reach of the issue: warm p50 ≤ 150 ms, p95 ≤ 250 ms, first ≤ 2 s of overhead. */
const TARGET = { p50: 150, p95: 250, first: 2000 } as const;

interface ScraperOverhead {
  scraper: string;
  first: number;
  p50: number;
  p95: number;
  failures: number;
  steps: Map<string, number>;
}

export async function benchOverhead(stack: BenchStack, lines: StepLines, settings: OverheadSettings): Promise<void> {
  console.log(
    `\nOverhead per scraper (issue 14 item 1): answer time T = ${settings.answerMs} ms set exactly in the replica; ` +
      `first + ${settings.runs} warm sequential sync scrapes, country ${BENCH_COUNTRY}, bypass_cache`,
  );
  const results: ScraperOverhead[] = [];
  for (const scraper of settings.scrapers) {
    await setAnswerTime(stack, scraper, settings.answerMs);
    try {
      results.push(await overheadOf(stack, lines, scraper, settings));
    } finally {
      await setAnswerTime(stack, scraper, 0);
    }
    const last = results.at(-1);
    if (last !== undefined) printRow(last, settings.runs);
  }
  console.log(
    "page lead: median of the provider page's own time from the scrape's last action (navigation, click, key) to its " +
      "answer request (step page_before_request: its script, a session or token it fetches first). It is part of the " +
      "overhead above, because T starts at the answer request.",
  );
  printBreakdown(results);
}

const WIDTHS = [16, 11, 11, 11, 7, 9, 12] as const;

function printHeader(): void {
  console.log(row(["scraper", "first ms", "p50 ms", "p95 ms", "fails", "targets", "page lead"], WIDTHS));
}

let headerPrinted = false;

function printRow(result: ScraperOverhead, runs: number): void {
  if (!headerPrinted) {
    printHeader();
    headerPrinted = true;
  }
  const met = result.p50 <= TARGET.p50 && result.p95 <= TARGET.p95 && result.first <= TARGET.first && result.failures === 0;
  console.log(
    row(
      [
        result.scraper,
        `+${milliseconds(result.first)}`,
        `+${milliseconds(result.p50)}`,
        `+${milliseconds(result.p95)}`,
        `${result.failures}/${runs + 1}`,
        met ? "met" : "missed",
        milliseconds(result.steps.get("page_before_request") ?? Number.NaN),
      ],
      WIDTHS,
    ),
  );
}

async function overheadOf(stack: BenchStack, lines: StepLines, scraper: string, settings: OverheadSettings): Promise<ScraperOverhead> {
  let failures = 0;
  const first = await timedScrape(stack, scraper, `bench overhead ${scraper} first`);
  if (first.status !== 200) failures += 1;
  await untilPoolIdle(stack);
  lines.clear();
  const warm: number[] = [];
  for (let index = 0; index < settings.runs; index += 1) {
    const scrape = await timedScrape(stack, scraper, `bench overhead ${scraper} ${index}`);
    if (scrape.status === 200) warm.push(scrape.latencyMs - settings.answerMs);
    else failures += 1;
  }
  return {
    scraper,
    first: first.latencyMs - settings.answerMs,
    p50: percentile(warm, 50),
    p95: percentile(warm, 95),
    failures,
    steps: lines.medianSteps(scraper),
  };
}

/** Medians per step (ms) of every scraper, one column per scraper; "answer" includes the replica's T. */
function printBreakdown(results: readonly ScraperOverhead[]): void {
  const stepNames: string[] = [];
  for (const result of results) for (const step of result.steps.keys()) if (!stepNames.includes(step)) stepNames.push(step);
  if (stepNames.length === 0) {
    console.log("(no per-step timings were logged: is SCRAPE_STEP_TIMINGS=1 reaching the Worker?)");
    return;
  }
  console.log("\nWhere the time goes: median ms per step over the warm scrapes (answer = waiting for the answer, T included)");
  const widths = [22, ...results.map((result) => Math.max(8, result.scraper.length))];
  console.log(row(["step", ...results.map((result) => result.scraper)], widths));
  for (const step of stepNames) {
    console.log(row([step, ...results.map((result) => milliseconds(result.steps.get(step) ?? Number.NaN))], widths));
  }
}
