/**
 * Where a scrape's milliseconds go, step by step (lease, connect, page, navigation, typing, answer…), so the benchmark
 * can print a breakdown (docs/performance.md). The browser layer opens one log per scrape and hands it over in the
 * scrape's page session (src/browser/page/page-session.ts); the navigation engine and the capture layer add their
 * steps to the log of the session they drive, so a provider times only steps of its own (Gemini's `snapshot`).
 * Steps with the same name add up; the order is the order of first occurrence.
 *
 * The log is written as one structured line (`{"event":"scrape_steps",…}`) only when the Worker variable
 * `SCRAPE_STEP_TIMINGS` is "1" (the benchmark's stack sets it): in production it would be one more line per scrape.
 */
import { logLine, type LogSubject } from "../../util/log-line";

export class StepLog {
  private readonly steps = new Map<string, number>();
  private readonly startedAt = performance.now();
  /** Whether the scrape started from a warm page (src/browser/warm-page.ts). */
  warm = false;
  /** Whether that page was hot: already on the provider's landing page (src/browser/hot-page.ts). */
  hot = false;
  /** When the scrape last acted on the page (epoch ms): a navigation that loaded, a click or a key about to be sent. */
  lastPageActionAt: number | null = null;

  record(step: string, milliseconds: number): void {
    this.steps.set(step, (this.steps.get(step) ?? 0) + milliseconds);
  }

  async time<T>(step: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.record(step, performance.now() - started);
    }
  }

  /** Notes that the scrape acts on the page now (navigation loaded, click or key being sent). */
  markPageAction(): void {
    this.lastPageActionAt = Date.now();
  }

  /**
   * Step `page_before_request`: from the scrape's last action on the page to the page starting the answer request
   * (`requestStartedAt`, the page's clock). That is the provider page's own work in between (its script, a session it
   * opens, a token it fetches first), which the replica's exact answer time T does not include. Both clocks are this
   * machine's in the benchmark, the only place the log is written.
   */
  recordPageLead(requestStartedAt: number): void {
    if (this.lastPageActionAt === null) return;
    this.record("page_before_request", Math.max(0, requestStartedAt - this.lastPageActionAt));
  }

  /** Whole milliseconds per step, plus the total since the log was opened. */
  summary(): { total_ms: number; steps: Record<string, number> } {
    const steps: Record<string, number> = {};
    for (const [step, milliseconds] of this.steps) steps[step] = Math.round(milliseconds);
    return { total_ms: Math.round(performance.now() - this.startedAt), steps };
  }
}

/**
 * `SCRAPE_STEP_TIMINGS=1` (set only by the benchmark's stack, so not among the declared vars). Takes any object, so
 * modules that Node code imports too (replicas, unit tests) need no Workers `Env` type.
 */
export function stepTimingsEnabled(env: object): boolean {
  return Reflect.get(env, "SCRAPE_STEP_TIMINGS") === "1";
}

export function writeStepLog(
  fields: { provider: string; country: string; outcome: "ok" | "error" },
  log: StepLog,
  logSubject?: LogSubject,
): void {
  const line = JSON.stringify({ event: "scrape_steps", ...fields, warm_page: log.warm, hot_page: log.hot, ...log.summary() });
  console.log(logLine(logSubject, line));
}
