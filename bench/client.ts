/**
 * The bench's HTTP calls to its own stack (bench/stack.ts): scrapes, jobs, the operator's pool view and settings, the
 * replicas' pacing control, and the account balance. Answers are read as `unknown` and narrowed here.
 */
import type { BenchStack } from "./stack";

export const BENCH_COUNTRY = "US";

export interface TimedScrape {
  status: number;
  latencyMs: number;
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
}

function numberOf(value: unknown): number {
  return typeof value === "number" ? value : Number.NaN;
}

async function checkedJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

function adminHeaders(stack: BenchStack): Record<string, string> {
  return { Authorization: `Bearer ${stack.adminToken}`, "Content-Type": "application/json" };
}

/** One synchronous scrape (cache bypassed), timed from request to the last byte of the response. */
export async function timedScrape(stack: BenchStack, scraper: string, prompt: string): Promise<TimedScrape> {
  const { status, latencyMs } = await timedScrapeWithBody(stack, scraper, prompt, {});
  return { status, latencyMs };
}

/** The evidence URLs of a response (`evidence`, docs/evidence.md): null when not kept; `missing` counts kinds not kept. */
export interface EvidenceUrls {
  screenshot: string | null;
  html: string | null;
  stream: string | null;
  missing: number;
}

export interface TimedEvidenceScrape extends TimedScrape {
  evidence: EvidenceUrls | null;
}

/**
 * One synchronous scrape (cache bypassed) asking for `evidence` (the `X-Evidence` header's value) under the bench's
 * own request id, so its step line can be told apart (bench/step-lines.ts). Timed like `timedScrape`; the body is
 * read for the evidence URLs only after the clock stopped.
 */
export async function timedEvidenceScrape(
  stack: BenchStack,
  scraper: string,
  prompt: string,
  { evidence, requestId }: { evidence: string; requestId: string },
): Promise<TimedEvidenceScrape> {
  const { status, latencyMs, body } = await timedScrapeWithBody(stack, scraper, prompt, {
    "X-Evidence": evidence,
    "X-Request-Id": requestId,
  });
  return { status, latencyMs, evidence: status === 200 ? evidenceUrlsOf(body) : null };
}

async function timedScrapeWithBody(
  stack: BenchStack,
  scraper: string,
  prompt: string,
  headers: Record<string, string>,
): Promise<TimedScrape & { body: ArrayBuffer }> {
  const query = new URLSearchParams({ prompt, country: BENCH_COUNTRY, bypass_cache: "true" });
  const started = performance.now();
  const response = await fetch(`${stack.baseUrl}/scrapers/${scraper}?${query}`, { headers: { ...headers, "X-API-Key": stack.apiKey } });
  const body = await response.arrayBuffer();
  return { status: response.status, latencyMs: performance.now() - started, body };
}

function evidenceUrlsOf(body: ArrayBuffer): EvidenceUrls | null {
  const parsed: unknown = JSON.parse(new TextDecoder().decode(body));
  const evidence = objectOf(objectOf(parsed).evidence);
  if (Object.keys(evidence).length === 0) return null;
  const urlOf = (value: unknown): string | null => (typeof value === "string" ? value : null);
  return {
    screenshot: urlOf(evidence.screenshot_url),
    html: urlOf(evidence.html_url),
    stream: urlOf(evidence.stream_url),
    missing: Array.isArray(evidence.missing) ? evidence.missing.length : 0,
  };
}

/** The size in bytes of the file at `url` (an evidence URL: no key needed), read whole. */
export async function fileBytes(url: string): Promise<number> {
  const response = await fetch(url);
  const body = await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return body.byteLength;
}

export async function submitJob(stack: BenchStack, scraper: string, prompt: string): Promise<string> {
  const query = new URLSearchParams({ prompt, country: BENCH_COUNTRY, bypass_cache: "true" });
  const response = await fetch(`${stack.baseUrl}/scrapers/${scraper}/jobs?${query}`, {
    method: "POST",
    headers: { "X-API-Key": stack.apiKey },
  });
  const jobId = objectOf(await checkedJson(response, "job submission")).job_id;
  if (typeof jobId !== "string") throw new Error("job submission: no job_id in the answer");
  return jobId;
}

export interface JobState {
  status: string;
  createdAt: number;
  completedAt: number | null;
  /** The scrape's own time (`result.elapsed_ms`: lease to answer), when the job is done. */
  elapsedMs: number | null;
}

export async function jobState(stack: BenchStack, jobId: string): Promise<JobState> {
  const job = objectOf(await checkedJson(await fetch(`${stack.baseUrl}/jobs/${jobId}`), "job status"));
  const completed = job.completed_at;
  return {
    status: typeof job.status === "string" ? job.status : "unknown",
    createdAt: Date.parse(String(job.created_at)),
    completedAt: typeof completed === "string" ? Date.parse(completed) : null,
    elapsedMs: elapsedOf(job.result),
  };
}

function elapsedOf(result: unknown): number | null {
  if (typeof result !== "object" || result === null) return null;
  const elapsed: unknown = Reflect.get(result, "elapsed_ms");
  return typeof elapsed === "number" ? elapsed : null;
}

export interface PoolFigures {
  launches: number;
  reuses: number;
  busy: number;
  sessions: number;
}

export async function poolFigures(stack: BenchStack): Promise<PoolFigures> {
  const body = objectOf(
    await checkedJson(await fetch(`${stack.baseUrl}/admin/pools?country=${BENCH_COUNTRY}`, { headers: adminHeaders(stack) }), "pool view"),
  );
  const pools = Array.isArray(body.pools) ? body.pools : [];
  const pool = objectOf(pools[0]);
  const sessions = Array.isArray(pool.sessions) ? pool.sessions.length : 0;
  return { launches: numberOf(pool.launches ?? 0), reuses: numberOf(pool.reuses ?? 0), busy: numberOf(pool.busy ?? 0), sessions };
}

/** Sessions per provider in the bench's country (POST /admin/pools/{cc}/config). */
export async function setPoolSize(stack: BenchStack, size: number): Promise<void> {
  await checkedJson(
    await fetch(`${stack.baseUrl}/admin/pools/${BENCH_COUNTRY}/config`, {
      method: "POST",
      headers: adminHeaders(stack),
      body: JSON.stringify({ size, launches_per_minute: 1000, queue_limit: 1000 }),
    }),
    "pool settings",
  );
}

/** The replica's exact answer time for one provider (replicas/control.ts `total_ms`; 0 = the default pacing). */
export async function setAnswerTime(stack: BenchStack, provider: string, totalMs: number): Promise<void> {
  const body = { provider, total_ms: totalMs };
  await checkedJson(
    await fetch(`${stack.replicaUrl}/__control/pacing`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }),
    "replica pacing",
  );
}

export async function creditsRemaining(stack: BenchStack): Promise<number> {
  const body = objectOf(await checkedJson(await fetch(`${stack.baseUrl}/account`, { headers: { "X-API-Key": stack.apiKey } }), "account"));
  return numberOf(body.credits_remaining);
}

/** Waits until no session of the bench's pool is busy (a hot page being prepared counts as busy). */
export async function untilPoolIdle(stack: BenchStack, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await poolFigures(stack)).busy > 0) {
    if (Date.now() > deadline) throw new Error("the pool stayed busy");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
