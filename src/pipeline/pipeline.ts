/**
 * The scrape pipeline shared by the synchronous endpoint and the queue consumer: cache lookup, a page from the
 * browser pool, the provider module, the answer checked against the provider's schema, the response object, cache
 * entry and hosted markdown. It never branches on a provider id. It neither charges nor refunds credits (its callers
 * do: src/pipeline/charge.ts, sync-scrape.ts, src/jobs/), though the response states the fixed `credits_used`; and it
 * reads no HTTP request: it throws the service's typed errors (src/errors.ts), which carry the status the HTTP layer sends.
 */
import type { LeasedPageReport } from "../browser/leased-page-report";
import { withScrapePage } from "../browser/page-lease";
import { CaptureRecorder } from "../browser/page/capture/recording";
import { hostedMarkdownUrl, storeHostedMarkdown, storeHostedMarkdownAfterResponse } from "../cache/hosted-markdown";
import { readCachedAnswer, responseCacheKey, writeCachedAnswer } from "../cache/response-cache";
import { CREDITS_PER_REQUEST } from "../credits/ledger";
import { ClientClosedRequestError, NotFoundError, ScrapeTimeoutError, ScraperDriftError, UnexpectedResultError } from "../errors";
import { applySessionToPage } from "../provider-accounts/apply-to-page";
import { withProviderAccount } from "../provider-accounts/with-provider-account";
import { recordDrift } from "../scrapers/drift-log";
import { type AnyProvider, providerById, resolveOrigin, type ScraperId } from "../scrapers/registry";
import { NO_EVIDENCE_REQUEST } from "../evidence/evidence-kinds";
import { type EvidenceView, storeEvidence } from "../evidence/evidence-store";
import { attachFailureEvidence, recordFailureEvidence } from "../evidence/failure-evidence";
import { coalesceScrape } from "./coalesce";
import { evidenceSetOf, type PageEvidence, streamEvidence, takePageEvidence } from "./evidence";
import type { ScrapeAnswer, ScrapeRequest, ScrapeResponse } from "./scrape-request";
import { type ProducedAnswer, provenanceOf, readStoredForm, servedByOf, storedFormOf } from "./served-by";
import { observeCustomerScrape } from "./traffic";
import { logLine, type LogSubject } from "../util/log-line";

/** How long a timed-out scrape may take to release its page and session before the 408 is sent. */
const CLEANUP_GRACE_MS = 3_000;

/** The provider of `scraper` (ids come from validated routes, so a miss is a bug, not a client error). */
export function requireProvider(scraper: ScraperId): AnyProvider {
  const provider = providerById(scraper);
  if (provider === undefined) throw new NotFoundError(`Unknown scraper: ${scraper}.`);
  return provider;
}

/**
 * Runs one scrape within `timeoutSeconds`. On time-out the page work is abandoned (its page and session are released
 * by their own `finally` blocks) and ScrapeTimeoutError is thrown.
 */
export async function runScrape(env: Env, request: ScrapeRequest, timeoutSeconds: number): Promise<ScrapeResponse> {
  // Every customer scrape's outcome and latency feed the public status page (best effort, never fails the scrape).
  return observeCustomerScrape(env, request, () => runScrapeWithin(env, request, timeoutSeconds));
}

async function runScrapeWithin(env: Env, request: ScrapeRequest, timeoutSeconds: number): Promise<ScrapeResponse> {
  const controller = new AbortController();
  const deadline = Date.now() + timeoutSeconds * 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutSeconds * 1000);
  });
  const work = scrapeOrReadCache(env, request, controller.signal, deadline);
  // Settled either way below; never an unhandled rejection.
  work.catch(() => undefined);
  const abandoned = new Promise<"abandoned">((resolve) => {
    if (request.abandoned?.aborted === true) resolve("abandoned");
    request.abandoned?.addEventListener("abort", () => resolve("abandoned"), { once: true });
  });
  try {
    const winner = await Promise.race([work, timedOut, abandoned]);
    if (winner === "abandoned") {
      controller.abort(new ClientClosedRequestError());
      await Promise.race([work.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, CLEANUP_GRACE_MS))]);
      throw new ClientClosedRequestError();
    }
    if (winner !== "timeout") return winner;
    controller.abort(new ScrapeTimeoutError(timeoutSeconds));
    // Give the page work a moment to notice the abort and hand its browser session back within this request.
    await Promise.race([work.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, CLEANUP_GRACE_MS))]);
    throw new ScrapeTimeoutError(timeoutSeconds);
  } finally {
    clearTimeout(timer);
  }
}

async function scrapeOrReadCache(env: Env, request: ScrapeRequest, signal: AbortSignal, deadline: number): Promise<ScrapeResponse> {
  const provider = requireProvider(request.scraper);
  const cacheKey = request.accountId === undefined ? null : await responseCacheKey(request.scraper, request.params, request.accountId);
  // Evidence shows the page this request drove: a request asking for it never takes a cached or shared answer.
  const wantsEvidence = (request.evidence?.kinds.length ?? 0) > 0;
  if (cacheKey !== null && !request.params.bypass_cache && !wantsEvidence) {
    const cached = await readCachedAnswer(env.CACHE, cacheKey);
    const hit = cached === null ? null : readStored(provider, cached, request.logSubject);
    if (hit !== null) return finishResponse(env, request, hit, { cached: true });
    // Identical requests in flight share one scrape; a follower's answer counts as a cache hit (src/pipeline/coalesce.ts).
    // What crosses between requests is the stored form: the answer and who produced it, as the cache holds them.
    const shared = await coalesceScrape(
      env,
      cacheKey,
      { signal, deadline, logSubject: request.logSubject },
      async () => storedFormOf(await scrapeFresh(env, request, provider, cacheKey, signal, deadline)),
      (value) => {
        const produced = readStored(provider, value, request.logSubject);
        return produced === null ? null : storedFormOf(produced);
      },
    );
    const produced = readStored(provider, shared.answer, request.logSubject);
    // read from a stored form this request made or checked itself: a miss here is a bug, never a client error
    if (produced === null) throw new UnexpectedResultError();
    return finishResponse(env, request, produced, { cached: shared.followed });
  }
  const fresh = await scrapeFresh(env, request, provider, cacheKey, signal, deadline);
  return finishResponse(env, request, fresh, { cached: false, evidence: fresh.evidence });
}

/** A fresh scrape's answer and the evidence it kept (null when none was asked). */
interface FreshAnswer extends ProducedAnswer {
  evidence: EvidenceView | null;
}

/**
 * One scrape through the browser pool; a valid answer is written to the cache under `cacheKey` and as this request's
 * hosted markdown, with the evidence the request asked for (./evidence.ts). A scrape that fails on the page keeps its
 * screenshot and HTML when the account asks for failure evidence (src/evidence/failure-evidence.ts).
 */
async function scrapeFresh(
  env: Env,
  request: ScrapeRequest,
  provider: AnyProvider,
  cacheKey: string | null,
  signal: AbortSignal,
  deadline: number,
): Promise<FreshAnswer> {
  const origin = resolveOrigin(env, provider, request.params);
  const wanted = request.evidence ?? NO_EVIDENCE_REQUEST;
  const recorder = request.recorder ?? (wanted.kinds.includes("stream") ? new CaptureRecorder() : undefined);
  const wantsPageEvidence = wanted.kinds.includes("screenshot") || wanted.kinds.includes("html");
  const evidenceOwner = { accountId: request.accountId ?? "service", jobId: request.jobId, logSubject: request.logSubject };
  let failurePage: PageEvidence | null = null;
  const endAdmission = await request.admitBrowserWork?.();
  let scraped: { raw: unknown; page: LeasedPageReport; pageEvidence: PageEvidence | null };
  try {
    // with the provider's next signed-in session when it has one; a login wall is retried once (src/provider-accounts/)
    scraped = await withProviderAccount(env, { provider, params: request.params, signal, logSubject: request.logSubject }, (session) =>
      withScrapePage(
        env,
        {
          country: request.params.country,
          provider: provider.id,
          accountId: request.accountId,
          allowedDomains: provider.allowedDomains(origin),
          signal,
          deadline,
          signedIn: session !== null,
          logSubject: request.logSubject,
        },
        async (pageSession, page) => {
          if (session !== null) await applySessionToPage(pageSession.page, session, origin);
          let raw: unknown;
          try {
            raw = await provider.scrape({ pageSession, origin, params: request.params, signal, deadline, recorder });
          } catch (error) {
            // the page as the scrape left it, while it is still there (not when the caller gave up or the time ran out)
            if (wanted.onFailure && !signal.aborted) {
              failurePage = await takePageEvidence(pageSession, ["html", "screenshot"], deadline, request.logSubject);
            }
            throw error;
          }
          const pageEvidence = wantsPageEvidence ? await takePageEvidence(pageSession, wanted.kinds, deadline, request.logSubject) : null;
          return { raw, page, pageEvidence };
        },
      ),
    );
  } catch (error) {
    await endAdmission?.();
    if (error instanceof ScraperDriftError) await recordDrift(env, error, request.logSubject);
    const failed: PageEvidence | null = failurePage;
    if (failed !== null) {
      const view = await storeEvidence(env.EVIDENCE, request.baseUrl, evidenceSetOf(failed, null), evidenceOwner);
      attachFailureEvidence(error, view);
      await recordFailureEvidence(
        env.DB,
        { provider: provider.id, country: request.params.country, accountId: evidenceOwner.accountId, error, evidence: view },
        request.logSubject,
      );
    }
    throw error;
  }
  // The slot goes back while the answer is checked and stored: the slot, the cache entry and the hosted markdown are
  // independent round trips, sent together rather than one after another.
  const admissionEnded = endAdmission?.();
  try {
    const answer = checkedAnswer(provider, scraped.raw, request.logSubject);
    if (answer === null) throw new UnexpectedResultError();
    if (answer.result.trim() === "") throw new UnexpectedResultError();
    const produced: ProducedAnswer = { answer, provenance: provenanceOf(provider, answer, scraped.page, request.attempt ?? 1) };
    // Evidence is stored before the answer goes out, so that its field says truthfully what was kept.
    const stream =
      wanted.kinds.includes("stream") && recorder instanceof CaptureRecorder
        ? streamEvidence(provider, request.params, origin, recorder, answer)
        : null;
    const evidence =
      wanted.kinds.length === 0
        ? Promise.resolve(null)
        : storeEvidence(env.EVIDENCE, request.baseUrl, evidenceSetOf(scraped.pageEvidence ?? emptyPageEvidence(), stream), evidenceOwner);
    // The cache entry and the hosted markdown land after the answer went out when the caller can finish work later
    // (this isolate reads its own pending cache write meanwhile; the /md/ route waits for a document still landing).
    const answerWaitsFor = [publishHostedMarkdown(env, request, answer)];
    if (cacheKey !== null) {
      const cacheWritten = writeCachedAnswer(
        env.CACHE,
        cacheKey,
        storedFormOf(produced),
        Number(env.CACHE_TTL_SECONDS) || 3600,
        request.logSubject,
      );
      if (request.afterResponse === undefined) answerWaitsFor.push(cacheWritten);
      else request.afterResponse(cacheWritten);
    }
    const [kept] = await Promise.all([evidence, ...answerWaitsFor]);
    return { ...produced, evidence: kept };
  } finally {
    await admissionEnded;
  }
}

function emptyPageEvidence(): PageEvidence {
  return { files: [], missing: [], capturedAt: Date.now() };
}

/** A cache entry or shared answer read back (src/pipeline/served-by.ts); null when it is not one of this provider's. */
function readStored(provider: AnyProvider, value: unknown, logSubject: LogSubject): ProducedAnswer | null {
  return readStoredForm(value, (fields) => checkedAnswer(provider, fields, logSubject));
}

/** The answer if it matches the provider's declared schema (a parser bug is a 500, never a malformed 200). */
function checkedAnswer(provider: AnyProvider, value: unknown, logSubject: LogSubject): ScrapeAnswer | null {
  const parsed = provider.answer.strict().safeParse(value);
  if (!parsed.success) {
    console.error(logLine(logSubject, `${provider.id} answer does not match its schema`), parsed.error.issues.slice(0, 5));
    return null;
  }
  const { result, result_markdown: markdown, ...rest } = parsed.data;
  if (typeof result !== "string" || !(typeof markdown === "string" || markdown === null)) return null;
  // the common text fields first, then the provider's own, as the spec lists them
  return { result, result_markdown: markdown, ...rest };
}

function hostedMarkdownOf(answer: ScrapeAnswer): string {
  return answer.result_markdown ?? answer.result;
}

/**
 * Writes this request's hosted markdown. A caller that can finish work after responding (the synchronous route) gets
 * its answer first: the KV write was ~10 ms of a fresh answer's overhead and one of a cached answer's three round trips
 * (docs/performance.md). Otherwise (a job, whose result is published when the pipeline returns) it is awaited.
 */
async function publishHostedMarkdown(env: Env, request: ScrapeRequest, answer: ScrapeAnswer): Promise<void> {
  const markdown = hostedMarkdownOf(answer);
  if (request.afterResponse === undefined) {
    await storeHostedMarkdown(env.MARKDOWN, request.jobId, markdown);
    return;
  }
  request.afterResponse(storeHostedMarkdownAfterResponse(env.MARKDOWN, request.jobId, markdown, request.logSubject));
}

/**
 * The response object. An answer this request did not scrape itself (`cached`: read from the cache, or shared by an
 * identical request's scrape) gets its hosted markdown here; a fresh one already has it (scrapeFresh).
 */
async function finishResponse(
  env: Env,
  request: ScrapeRequest,
  { answer, provenance }: ProducedAnswer,
  { cached, evidence = null }: { cached: boolean; evidence?: EvidenceView | null },
): Promise<ScrapeResponse> {
  if (cached) await publishHostedMarkdown(env, request, answer);
  return {
    scraper: request.scraper,
    status: "done",
    job_id: request.jobId,
    prompt: request.params.prompt,
    country: request.params.country,
    ...answer,
    credits_used: CREDITS_PER_REQUEST,
    elapsed_ms: Date.now() - request.startedAt,
    cached,
    markdown_url: hostedMarkdownUrl(request.baseUrl, request.jobId),
    served_by: servedByOf(provenance, cached),
    evidence,
  };
}
