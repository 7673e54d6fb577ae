/**
 * One scrape's page and what the scrape learns about it as it goes, in one object the browser layer creates with the
 * page lease (src/browser/page-lease.ts) and hands to the provider in its scrape context; the provider passes it
 * on to the capture layer and the navigation engine it drives. It holds:
 * - the step log (src/browser/page/step-timings.ts): the engine and the capture layer time their steps into it;
 * - the hot-page state (src/browser/page/hot-page-state.ts): the capture rules and landing this scrape started with (the next
 *   scrape's page repeats them) and, on a hot page, how far its hook's claim and its landing skip went;
 * - the answer-started signal: the capture layer raises it when the page sent its answer request, and the browser
 *   layer then prepares the next scrape's page (src/browser/warm-page.ts).
 * Why an object and not maps keyed by the page: the state lives and dies with the scrape that owns it, is visible in
 * every signature that uses it, and a session built around a stub page exercises it without a pool or a browser.
 */
import type { Page } from "@cloudflare/puppeteer";
import { type ClaimablePage, type HotMark, HotPageState } from "./hot-page-state";
import { StepLog } from "./step-timings";
import type { LogSubject } from "../../util/log-line";

export interface PageSessionOptions {
  /** The scrape's step log (the browser layer's, which also timed the lease); a new one when absent. */
  steps?: StepLog;
  /** The hook's mark when the page is a hot page handed over by the previous scrape (src/browser/warm-page.ts). */
  hotMark?: HotMark | null;
  /** Whose scrape this is (the request's or the job's id): the page's log lines start with it. */
  logSubject?: LogSubject;
}

/** `SessionPage` is the page the scrape drives: a puppeteer Page, or in unit tests a stub with what the session uses. */
export class PageSession<SessionPage extends ClaimablePage = Page> {
  readonly steps: StepLog;
  readonly hotPage: HotPageState;
  readonly logSubject: LogSubject | undefined;
  private answerStartListener: (() => void) | null = null;

  constructor(
    readonly page: SessionPage,
    options: PageSessionOptions = {},
  ) {
    this.steps = options.steps ?? new StepLog();
    this.hotPage = new HotPageState(page, options.hotMark ?? null);
    this.logSubject = options.logSubject;
  }

  /** Runs `listener` (once) when the page has started the request for its answer; replaces an earlier listener. */
  whenAnswerRequestStarts(listener: () => void): void {
    this.answerStartListener = listener;
  }

  /** Called by the capture layer when the page started the answer request: from here on the scrape only waits. */
  answerRequestStarted(): void {
    const listener = this.answerStartListener;
    this.answerStartListener = null;
    listener?.();
  }
}
