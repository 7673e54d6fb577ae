/**
 * Collects the Worker's `{"event":"scrape_steps",…}` lines (src/browser/page/step-timings.ts) from wrangler's output, so a
 * bench section can print the median of each step over its scrapes.
 */
import { percentile } from "./figures";

interface StepLine {
  /** The line's subject: for a sync scrape, its request id (`X-Request-Id`, the bench may set its own); else null. */
  requestId: string | null;
  provider: string;
  warmPage: boolean;
  hotPage: boolean;
  outcome: string;
  totalMs: number;
  steps: Map<string, number>;
}

/** `[<subject>] ` right before the JSON (src/util/log-line.ts); a job's subject (`<request id> job <id>`) has spaces. */
const SUBJECT_BEFORE_JSON = /\[([A-Za-z0-9._:-]+)\] $/;

function parseStepLine(line: string): StepLine | null {
  const start = line.indexOf('{"event":"scrape_steps"');
  if (start < 0) return null;
  const requestId = SUBJECT_BEFORE_JSON.exec(line.slice(0, start))?.[1] ?? null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.slice(start));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const provider: unknown = Reflect.get(parsed, "provider");
  const outcome: unknown = Reflect.get(parsed, "outcome");
  const totalMs: unknown = Reflect.get(parsed, "total_ms");
  const steps: unknown = Reflect.get(parsed, "steps");
  if (typeof provider !== "string" || typeof totalMs !== "number" || typeof steps !== "object" || steps === null) return null;
  const byStep = new Map<string, number>();
  for (const [step, value] of Object.entries(steps)) if (typeof value === "number") byStep.set(step, value);
  const warmPage = Reflect.get(parsed, "warm_page") === true;
  const hotPage = Reflect.get(parsed, "hot_page") === true;
  return { requestId, provider, warmPage, hotPage, outcome: typeof outcome === "string" ? outcome : "unknown", totalMs, steps: byStep };
}

export class StepLines {
  private lines: StepLine[] = [];

  /** Feed every line wrangler prints; other lines are ignored. */
  readonly accept = (line: string): void => {
    const parsed = parseStepLine(line);
    if (parsed !== null) this.lines.push(parsed);
  };

  clear(): void {
    this.lines = [];
  }

  /** Per successful scrape of `provider` since the last `clear`: how long it held its session (browser total − lease). */
  sessionHoldMs(provider: string): number[] {
    return this.lines
      .filter((line) => line.provider === provider && line.outcome === "ok")
      .map((line) => line.totalMs - (line.steps.get("lease") ?? 0));
  }

  /**
   * The steps of each successful scrape whose request id is in `requestIds` (ids the bench sent as `X-Request-Id`),
   * by request id. A scrape whose line has not arrived (yet) is absent.
   */
  stepsOfRequests(requestIds: ReadonlySet<string>): Map<string, ReadonlyMap<string, number>> {
    const found = new Map<string, ReadonlyMap<string, number>>();
    for (const line of this.lines) {
      if (line.outcome === "ok" && line.requestId !== null && requestIds.has(line.requestId)) found.set(line.requestId, line.steps);
    }
    return found;
  }

  /**
   * Median per step of the successful scrapes of `provider` since the last `clear`, plus `browser_total` (lease to
   * release) and the shares of scrapes that started from a warm page and from a hot one.
   */
  medianSteps(provider: string): Map<string, number> {
    const mine = this.lines.filter((line) => line.provider === provider && line.outcome === "ok");
    const names: string[] = [];
    for (const line of mine) for (const step of line.steps.keys()) if (!names.includes(step)) names.push(step);
    const medians = new Map<string, number>();
    for (const name of names)
      medians.set(
        name,
        percentile(
          mine.map((line) => line.steps.get(name) ?? 0),
          50,
        ),
      );
    if (mine.length > 0) {
      medians.set(
        "browser_total",
        percentile(
          mine.map((line) => line.totalMs),
          50,
        ),
      );
      medians.set("warm_page_started_%", (100 * mine.filter((line) => line.warmPage).length) / mine.length);
      medians.set("hot_page_started_%", (100 * mine.filter((line) => line.hotPage).length) / mine.length);
    }
    return medians;
  }
}
