/**
 * The hand-written layer over the generated client, for what generators do badly: `scrape()` with a client-side
 * time-out matched to the scrape's own `timeout`, `submit()` + `waitForJob()` polling as the API asks (every 3 seconds),
 * typed errors carrying `detail` and `Retry-After`, and the key sent only in the `X-API-Key` header. Every type comes
 * from the generated part (src/generated/, from the API's OpenAPI document), so a scraper, parameter or field the API
 * adds appears here after `scripts/generate.ts` without any change to this file.
 */
import { type Client, createClient, createConfig } from "./generated/client/index.js";
import type { ScraperId, ScraperQueries, ScraperResponses } from "./generated/scrapers.gen.js";
import type { AccountStatus, JobStatus } from "./generated/types.gen.js";
import { ApiError, ClientTimeoutError, JobFailedError, JobWaitTimeoutError, apiErrorOf } from "./errors.js";

/** The spec's polling guidance: every few seconds, 3 is reasonable, faster than once a second gives no benefit. */
export const DEFAULT_POLL_INTERVAL_MS = 3_000;
const MIN_POLL_INTERVAL_MS = 1_000;
/** Longer than the service's own watchdog for the default `timeout` (about 26 minutes), after which a job has ended. */
const DEFAULT_WAIT_TIMEOUT_MS = 30 * 60_000;
/** The scrape's default `timeout` (seconds) when the query leaves it out. */
const DEFAULT_SCRAPE_TIMEOUT_SECONDS = 300;
/** Time added to the scrape's own `timeout` before the client gives up: the API's 408 should arrive first. */
const CLIENT_TIMEOUT_MARGIN_MS = 15_000;

const API_KEY_HEADER = [{ name: "X-API-Key", type: "apiKey" }] as const;

export interface AnswerScraperClientOptions {
  /** The API's origin, e.g. `https://scraper.example.com` (no trailing path). */
  baseUrl: string;
  /** An API key (`sk_…`); sent in the `X-API-Key` header, never in the URL. */
  apiKey: string;
  /** A `fetch` to use instead of the global one (a proxy agent, a test harness, a service binding). */
  fetch?: typeof fetch;
}

/** Evidence the API keeps of an answer (its `evidence` field, URLs valid 24 hours): sent as the `X-Evidence` header. */
export type EvidenceKind = "screenshot" | "html" | "stream";

/** `X-Evidence` for the kinds asked: none given, no header (the account's default applies); `[]` sends `none`. */
function evidenceHeaders(evidence: readonly EvidenceKind[] | undefined): Record<string, string> | undefined {
  if (evidence === undefined) return undefined;
  return { "X-Evidence": evidence.length === 0 ? "none" : evidence.join(",") };
}

export interface ScrapeOptions {
  /** Evidence to keep of this answer (`["screenshot"]`); `[]` turns the account's default off; omitted, it applies. */
  evidence?: readonly EvidenceKind[];
  /**
   * How long `scrape()` waits before throwing ClientTimeoutError. Default: the scrape's `timeout` (300 s unless set)
   * plus 15 s, so the API's own 408 (nothing charged) normally arrives first.
   */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Between status requests; default 3000 ms (at least 1000). */
  pollIntervalMs?: number;
  /** Give up (JobWaitTimeoutError) after this long; default 30 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A submitted job: what `submit()` returns and `waitForJob()` takes. */
export interface SubmittedJob<S extends ScraperId> {
  job_id: string;
  status: "pending";
  scraper: S;
  /** The account's balance after the submission was charged (`X-Credits-Remaining`). */
  creditsRemaining: number | undefined;
}

/** A job that ended `done`, with its scraper's complete answer. */
export type CompletedJob<S extends ScraperId> = Omit<JobStatus, "status" | "result" | "error"> & {
  status: "done";
  result: ScraperResponses[S];
};

/** The job's `result` is its scraper's answer (the API stores the exact response of the synchronous endpoint). */
function isAnswerOf<S extends ScraperId>(scraper: S, result: unknown): result is ScraperResponses[S] {
  return typeof result === "object" && result !== null && "scraper" in result && result.scraper === scraper;
}

function creditsRemainingOf(response: Response): number | undefined {
  const header = response.headers.get("X-Credits-Remaining");
  return header === null ? undefined : Number(header);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export class AnswerScraperClient {
  /**
   * The generated client, configured with the base URL, the key and `fetch`: pass it to any generated operation for
   * the endpoints this class does not wrap, e.g. `listJobs({ client: scraper.raw })`.
   */
  readonly raw: Client;

  constructor(options: AnswerScraperClientOptions) {
    this.raw = createClient(
      createConfig({
        baseUrl: options.baseUrl.replace(/\/+$/, ""),
        // Operations accept the key in the header or the query; only the header is used, so it stays out of URLs and logs.
        auth: (scheme) => (scheme.in === "query" ? undefined : options.apiKey),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      }),
    );
  }

  /** One request; the parsed body of a 2xx with its response, or the typed ApiError of anything else. */
  private async send<T>(request: {
    method: "GET" | "POST";
    url: string;
    query?: Record<string, unknown>;
    headers?: Record<string, string>;
    authenticated: boolean;
    signal?: AbortSignal;
  }): Promise<{ data: T; response: Response }> {
    const { data, error, response } = await this.raw.request<{ 200: T; 202: T }, unknown, false>({
      method: request.method,
      url: request.url,
      ...(request.query === undefined ? {} : { query: request.query }),
      ...(request.headers === undefined ? {} : { headers: request.headers }),
      security: request.authenticated ? API_KEY_HEADER : [],
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      parseAs: "json",
    });
    // No response: the request itself failed (network, abort); its own error says why.
    if (response === undefined) throw error;
    if (!response.ok || data === undefined) throw apiErrorOf(response, error);
    return { data, response };
  }

  /**
   * Scrapes synchronously: submits `query.prompt` to `scraper` and resolves with its complete answer (3 credits,
   * charged only on success). Throws ApiError subclasses for the API's errors and ClientTimeoutError after `timeoutMs`.
   */
  async scrape<S extends ScraperId>(scraper: S, query: ScraperQueries[S], options: ScrapeOptions = {}): Promise<ScraperResponses[S]> {
    const timeoutSeconds = typeof query.timeout === "number" ? query.timeout : DEFAULT_SCRAPE_TIMEOUT_SECONDS;
    const timeoutMs = options.timeoutMs ?? timeoutSeconds * 1000 + CLIENT_TIMEOUT_MARGIN_MS;
    const controller = new AbortController();
    const signal = options.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, options.signal]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A race rather than only the signal: a `fetch` that ignores aborts (some harnesses and bindings) still times out.
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ClientTimeoutError(timeoutMs);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    });
    try {
      const request = this.send<ScraperResponses[S]>({
        method: "GET",
        url: `/scrapers/${scraper}`,
        query,
        headers: evidenceHeaders(options.evidence),
        authenticated: true,
        signal,
      });
      const { data } = await Promise.race([request, timedOut]);
      return data;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Submits an asynchronous job (3 credits, charged now and restored if the job fails); poll it with `waitForJob()`. */
  async submit<S extends ScraperId>(
    scraper: S,
    query: ScraperQueries[S],
    options: { signal?: AbortSignal; evidence?: readonly EvidenceKind[] } = {},
  ): Promise<SubmittedJob<S>> {
    const { data, response } = await this.send<{ job_id: string; status: "pending" }>({
      method: "POST",
      url: `/scrapers/${scraper}/jobs`,
      query,
      headers: evidenceHeaders(options.evidence),
      authenticated: true,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return { job_id: data.job_id, status: data.status, scraper, creditsRemaining: creditsRemainingOf(response) };
  }

  /** A job's current status (no key needed; the key is not sent). */
  async getJob(jobId: string, options: { signal?: AbortSignal } = {}): Promise<JobStatus> {
    const { data } = await this.send<JobStatus>({
      method: "GET",
      url: `/jobs/${encodeURIComponent(jobId)}`,
      authenticated: false,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return data;
  }

  /**
   * Polls a job every `pollIntervalMs` (3 s) until it ends: resolves with the answer when `done`, throws JobFailedError
   * when `failed` (its credits were restored), JobWaitTimeoutError after `timeoutMs`. Submit a batch first, then wait.
   */
  async waitForJob<S extends ScraperId>(job: { job_id: string; scraper: S }, options: WaitOptions = {}): Promise<CompletedJob<S>> {
    const interval = Math.max(MIN_POLL_INTERVAL_MS, options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await sleep(Math.min(interval, Math.max(0, deadline - Date.now())), options.signal);
      const status = await this.getJob(job.job_id, options.signal === undefined ? {} : { signal: options.signal });
      if (status.status === "failed") throw new JobFailedError(job.job_id, status.error ?? "The job failed.");
      if (status.status === "done") {
        const { result, error: _error, ...rest } = status;
        if (!isAnswerOf(job.scraper, result)) {
          throw new ApiError(200, `Job ${job.job_id} is done but its result is not a ${job.scraper} answer.`, undefined);
        }
        return { ...rest, status: "done", result };
      }
      if (Date.now() >= deadline) throw new JobWaitTimeoutError(job.job_id, timeoutMs);
    }
  }

  /** The account's balance and usage (free; counts towards the key's rate limit). */
  async account(options: { signal?: AbortSignal } = {}): Promise<AccountStatus> {
    const { data } = await this.send<AccountStatus>({
      method: "GET",
      url: "/account",
      authenticated: true,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return data;
  }
}
