/**
 * What evidence adds to an answer (issue 32, docs/evidence.md): for every scraper, warm sync scrapes with the replica
 * answering in exactly T (the overhead section's T), `runs` without evidence and `runs` with each of `X-Evidence:
 * screenshot`, `html`, `stream` and all three. The settings take turns within every round, in an order that rotates
 * from round to round, so a drift of the machine falls on all of them alike.
 *
 * Printed per scraper and setting: p50/p95 end to end (T included), the added ms (p50 against no evidence), the p50 of
 * the scrape steps `evidence_screenshot` and `evidence_html` (src/pipeline/evidence.ts; the Worker's `scrape_steps`
 * lines, found by the request id the bench sends), and the p50 size of each file (read back from its URL after the
 * scraper's runs, outside the timed part). Then one summary table, and the screenshot's added ms beside its step:
 * what the screenshot costs beyond taking and encoding it is mostly the R2 write. Figures, no assertions.
 */
import { type EvidenceUrls, fileBytes, setAnswerTime, timedEvidenceScrape, timedScrape, untilPoolIdle } from "./client";
import { milliseconds, percentile, row } from "./figures";
import type { BenchStack } from "./stack";
import type { StepLines } from "./step-lines";

export interface EvidenceBenchSettings {
  scrapers: readonly string[];
  /** Timed scrapes per setting and scraper. */
  runs: number;
  /** The replica's exact answer time T (the overhead section's). */
  answerMs: number;
}

/** The `X-Evidence` values compared; `none` is the baseline (the header's way of saying no evidence). */
const SETTINGS = ["none", "screenshot", "html", "stream", "screenshot,html,stream"] as const;
type Setting = (typeof SETTINGS)[number];

const FILE_KINDS = ["screenshot", "html", "stream"] as const;
type FileKind = (typeof FILE_KINDS)[number];

/** How long the section waits for the Worker's last step lines after its last scrape (the log is piped, not awaited). */
const STEP_LINES_GRACE_MS = 3_000;

interface SettingFigures {
  p50: number;
  p95: number;
  failures: number;
  /** Kinds asked for and listed in the response's `missing`. */
  missing: number;
  screenshotStep: number;
  htmlStep: number;
}

interface ScraperEvidence {
  scraper: string;
  settings: Map<Setting, SettingFigures>;
  /** p50 bytes of each kind of file over every setting that kept it. */
  bytes: Map<FileKind, number>;
  /** Step lines found / timed scrapes: the step figures stand on these. */
  stepLinesFound: number;
  scrapes: number;
}

export async function benchEvidence(stack: BenchStack, lines: StepLines, settings: EvidenceBenchSettings, runId: string): Promise<void> {
  console.log(
    `\nEvidence (issue 32): T = ${settings.answerMs} ms set exactly in the replica; ${settings.runs} warm sync scrapes per ` +
      `X-Evidence setting (${SETTINGS.join(" | ")}), interleaved, bypass_cache; end to end = request to last byte (T included)`,
  );
  const results: ScraperEvidence[] = [];
  for (const scraper of settings.scrapers) {
    await setAnswerTime(stack, scraper, settings.answerMs);
    try {
      results.push(await evidenceOf(stack, lines, scraper, settings, runId));
    } finally {
      await setAnswerTime(stack, scraper, 0);
    }
    const last = results.at(-1);
    if (last !== undefined) printScraper(last, settings.runs);
  }
  printSummary(results);
  printScreenshotCost(results);
}

function requestIdOf(runId: string, scraper: string, setting: Setting, round: number): string {
  return `bench-evidence-${runId}-${scraper}-${setting.replaceAll(",", "-")}-${round}`;
}

async function evidenceOf(
  stack: BenchStack,
  lines: StepLines,
  scraper: string,
  settings: EvidenceBenchSettings,
  runId: string,
): Promise<ScraperEvidence> {
  // Not timed: the session's first scrape (it may launch the browser) and one with every kind (the first screenshot
  // of a session may warm what later ones reuse).
  await timedScrape(stack, scraper, `bench evidence ${runId} ${scraper} first`);
  await timedEvidenceScrape(stack, scraper, `bench evidence ${runId} ${scraper} warm`, {
    evidence: "screenshot,html,stream",
    requestId: `bench-evidence-${runId}-${scraper}-warm`,
  });
  await untilPoolIdle(stack);

  const latencies = new Map<Setting, number[]>(SETTINGS.map((setting) => [setting, []]));
  const requestIds = new Map<Setting, string[]>(SETTINGS.map((setting) => [setting, []]));
  const failures = new Map<Setting, number>(SETTINGS.map((setting) => [setting, 0]));
  const missing = new Map<Setting, number>(SETTINGS.map((setting) => [setting, 0]));
  const kept: EvidenceUrls[] = [];
  for (let round = 0; round < settings.runs; round += 1) {
    for (const setting of rotated(SETTINGS, round)) {
      const requestId = requestIdOf(runId, scraper, setting, round);
      const scrape = await timedEvidenceScrape(stack, scraper, `bench evidence ${runId} ${scraper} ${setting} ${round}`, {
        evidence: setting,
        requestId,
      });
      if (scrape.status !== 200) {
        failures.set(setting, (failures.get(setting) ?? 0) + 1);
        continue;
      }
      latencies.get(setting)?.push(scrape.latencyMs);
      requestIds.get(setting)?.push(requestId);
      if (scrape.evidence !== null) {
        kept.push(scrape.evidence);
        missing.set(setting, (missing.get(setting) ?? 0) + scrape.evidence.missing);
      }
    }
  }

  const everyId = new Set([...requestIds.values()].flat());
  const steps = await stepsOf(lines, everyId);
  const figures = new Map<Setting, SettingFigures>();
  for (const setting of SETTINGS) {
    const mine = (requestIds.get(setting) ?? []).flatMap((id) => {
      const found = steps.get(id);
      return found === undefined ? [] : [found];
    });
    const stepP50 = (step: string) =>
      percentile(
        mine.flatMap((found) => found.get(step) ?? []),
        50,
      );
    const timed = latencies.get(setting) ?? [];
    figures.set(setting, {
      p50: percentile(timed, 50),
      p95: percentile(timed, 95),
      failures: failures.get(setting) ?? 0,
      missing: missing.get(setting) ?? 0,
      screenshotStep: stepP50("evidence_screenshot"),
      htmlStep: stepP50("evidence_html"),
    });
  }
  return { scraper, settings: figures, bytes: await fileSizes(kept), stepLinesFound: steps.size, scrapes: everyId.size };
}

/** `items` starting at `round` (mod its length): each setting follows a different one from round to round. */
function rotated<T>(items: readonly T[], round: number): T[] {
  const start = round % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

/** The step lines of `requestIds`, waiting a little for lines still in wrangler's pipe. */
async function stepsOf(lines: StepLines, requestIds: ReadonlySet<string>): Promise<Map<string, ReadonlyMap<string, number>>> {
  const deadline = Date.now() + STEP_LINES_GRACE_MS;
  let found = lines.stepsOfRequests(requestIds);
  while (found.size < requestIds.size && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    found = lines.stepsOfRequests(requestIds);
  }
  return found;
}

/** p50 bytes of each kind over the kept files, read back one at a time (after the timed scrapes, so they are not disturbed). */
async function fileSizes(kept: readonly EvidenceUrls[]): Promise<Map<FileKind, number>> {
  const sizes = new Map<FileKind, number>();
  for (const kind of FILE_KINDS) {
    const bytes: number[] = [];
    for (const urls of kept) {
      const url = urls[kind];
      if (url !== null) bytes.push(await fileBytes(url));
    }
    sizes.set(kind, percentile(bytes, 50));
  }
  return sizes;
}

function added(result: ScraperEvidence, setting: Setting): number {
  const baseline = result.settings.get("none")?.p50 ?? Number.NaN;
  return (result.settings.get(setting)?.p50 ?? Number.NaN) - baseline;
}

function signed(value: number): string {
  return Number.isFinite(value) ? `${value >= 0 ? "+" : ""}${Math.round(value)}` : "–";
}

function kib(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 1024).toFixed(1)}` : "–";
}

const SCRAPER_WIDTHS = [24, 8, 8, 9, 7, 8, 10, 10] as const;

function printScraper(result: ScraperEvidence, runs: number): void {
  console.log(
    `\n${result.scraper}: files p50 screenshot ${kib(result.bytes.get("screenshot") ?? Number.NaN)} KiB, HTML ` +
      `${kib(result.bytes.get("html") ?? Number.NaN)} KiB, stream ${kib(result.bytes.get("stream") ?? Number.NaN)} KiB; ` +
      `step lines found for ${result.stepLinesFound}/${result.scrapes} timed scrapes`,
  );
  console.log(row(["X-Evidence", "p50 ms", "p95 ms", "added ms", "fails", "missing", "shot step", "html step"], SCRAPER_WIDTHS));
  for (const setting of SETTINGS) {
    const figures = result.settings.get(setting);
    if (figures === undefined) continue;
    console.log(
      row(
        [
          setting,
          milliseconds(figures.p50),
          milliseconds(figures.p95),
          setting === "none" ? "" : signed(added(result, setting)),
          `${figures.failures}/${runs}`,
          String(figures.missing),
          milliseconds(figures.screenshotStep),
          milliseconds(figures.htmlStep),
        ],
        SCRAPER_WIDTHS,
      ),
    );
  }
}

const SUMMARY_WIDTHS = [16, 8, 8, 8, 8, 8, 9, 9, 11, 9, 10] as const;

function printSummary(results: readonly ScraperEvidence[]): void {
  console.log(
    "\nEvidence summary: added ms = p50 end to end with the setting − p50 without evidence; steps = p50 of the " +
      "scrape steps in the screenshot-only and HTML-only settings; sizes = p50 over every file kept",
  );
  console.log(
    row(
      ["scraper", "no ev.", "+shot", "+html", "+stream", "+all", "shot step", "html step", "shot KiB", "html KiB", "stream KiB"],
      SUMMARY_WIDTHS,
    ),
  );
  for (const result of results) {
    console.log(
      row(
        [
          result.scraper,
          milliseconds(result.settings.get("none")?.p50 ?? Number.NaN),
          signed(added(result, "screenshot")),
          signed(added(result, "html")),
          signed(added(result, "stream")),
          signed(added(result, "screenshot,html,stream")),
          milliseconds(result.settings.get("screenshot")?.screenshotStep ?? Number.NaN),
          milliseconds(result.settings.get("html")?.htmlStep ?? Number.NaN),
          kib(result.bytes.get("screenshot") ?? Number.NaN),
          kib(result.bytes.get("html") ?? Number.NaN),
          kib(result.bytes.get("stream") ?? Number.NaN),
        ],
        SUMMARY_WIDTHS,
      ),
    );
  }
}

const COST_WIDTHS = [16, 16, 22, 14] as const;

/** Issue 32: "the screenshot must not delay the answer by more than the time it takes to encode". */
function printScreenshotCost(results: readonly ScraperEvidence[]): void {
  console.log(
    "\nThe screenshot's delay beside its taking and encoding: added ms (screenshot only, p50) and the `evidence_screenshot` " +
      "step (p50: measuring the page, Chromium's capture and encoding, the picture's transfer to the Worker); the rest is " +
      "what follows before the answer goes out, mostly the R2 write, plus run-to-run noise",
  );
  console.log(row(["scraper", "added ms", "evidence_screenshot", "rest ms"], COST_WIDTHS));
  for (const result of results) {
    const delay = added(result, "screenshot");
    const step = result.settings.get("screenshot")?.screenshotStep ?? Number.NaN;
    console.log(row([result.scraper, signed(delay), milliseconds(step), signed(delay - step)], COST_WIDTHS));
  }
}
