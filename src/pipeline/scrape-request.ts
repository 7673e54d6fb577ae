/**
 * What a scrape is asked and what it answers: the pipeline's contract with its callers (the synchronous route, the queue
 * consumer, the canaries, the capture endpoint) and with the traffic observer that wraps it. Its own module so that the
 * observer and the callers need not import the pipeline for its types.
 */
import type { ScrapeRecorder } from "../browser/page/capture/recording";
import type { EvidenceRequest } from "../evidence/evidence-kinds";
import type { ScrapeParams } from "../params/common-params";
import type { ScraperId } from "../scrapers/registry";
import type { LogSubject } from "../util/log-line";

export interface ScrapeRequest {
  scraper: ScraperId;
  /** Validated parameters of that scraper (the common ones plus its own). */
  params: ScrapeParams;
  /** The sync request's or the job's id; also names the hosted markdown. */
  jobId: string;
  /** Public origin of this API, for `markdown_url`. */
  baseUrl: string;
  /**
   * Who the scrape's log lines are about: the request that asked for it (a synchronous scrape), the job and the
   * request that created it (a job attempt), or what the service itself is doing (a canary, a capture).
   */
  logSubject: LogSubject;
  /** When the caller's request started (ms since epoch), for `elapsed_ms`. */
  startedAt: number;
  /** The job's attempt number (src/jobs/job-attempts.ts), for `served_by.attempt`; a synchronous scrape's is 1 (absent). */
  attempt?: number;
  /** Aborted when a synchronous caller disconnects: the scrape then stops at once (and its credits are restored). */
  abandoned?: AbortSignal;
  /**
   * The account the scrape is for: its cache entries are its own, and the browser pool shares fairly between accounts.
   * Omitted only by internal callers (tests); their scrapes neither read nor write the cache.
   */
  accountId?: string;
  /**
   * The evidence this scrape keeps (src/evidence/, docs/evidence.md); none when absent. Asking for any kind makes the
   * scrape a fresh one: a cached or shared answer has no page of its own to show.
   */
  evidence?: EvidenceRequest;
  /** Set by the capture endpoint: the provider reports its parser's inputs here (src/capture-files/). */
  recorder?: ScrapeRecorder;
  /**
   * Called right before the scrape needs a browser (never for a cache hit or a request served by an identical
   * request's scrape); resolves to the function that ends the admission, or throws a ServiceError to refuse. Synchronous
   * scrapes hold one of the account's request slots this way (src/limits/request-slot.ts).
   */
  admitBrowserWork?: () => Promise<() => Promise<void>>;
  /**
   * Hands over work that must finish but need not hold the answer back (the response cache entry, the status page's
   * record of this scrape); the synchronous route passes its execution context's `waitUntil`. Without it that work is
   * awaited before returning.
   */
  afterResponse?: (work: Promise<void>) => void;
}

export type { ScrapeAnswer } from "./scrape-answer";
export type ScrapeResponse = Record<string, unknown> & { job_id: string; result: string };
