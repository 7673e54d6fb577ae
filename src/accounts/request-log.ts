/**
 * The account's request log (D1 `request_log`, migrations/0016): one row per customer request that ran a scrape or
 * submitted work (a synchronous scrape, a job, a batch), whichever surface carried it (the API, MCP, the dashboard's
 * playground), for the dashboard's Requests page (docs/dashboard.md). Requests refused before they reach the charge
 * (invalid parameters, an unknown or revoked key, a rate limit) are not logged: they have no account yet, or they are
 * a flood that must not cost a write each; their error body carries the request id all the same.
 *
 * Rows are written after the response (the callers hand the write to `waitUntil`) and a failed write is logged, never
 * thrown: the log serves support, it must never fail or slow the request it describes. Kept for 30 days, deleted by the
 * 10-minute Cron Trigger (pruneRequestLog): a time bound, not a count per account, so "what happened on the 3rd" has
 * the same answer for every account, and the sweep is one indexed delete instead of a count on every write.
 */
import { toServiceError } from "../errors";
import { logLine, type LogSubject, requestSubject, serviceSubject } from "../util/log-line";

export const REQUEST_LOG_RETENTION_DAYS = 30;
const REQUEST_LOG_RETENTION_MS = REQUEST_LOG_RETENTION_DAYS * 86_400_000;
/** Rows deleted per statement by the sweep, and statements per sweep: a larger backlog is taken by the next sweeps. */
const PRUNE_CHUNK = 5_000;
const PRUNE_CHUNKS_PER_SWEEP = 10;
const SWEEP_SUBJECT = serviceSubject("request log sweep");

export type RequestKind = "sync" | "job" | "batch";
export const REQUEST_KINDS: readonly RequestKind[] = ["sync", "job", "batch"];
/** Where the request came in: the HTTP API, an MCP tool call, the dashboard's playground. */
export type RequestSurface = "api" | "mcp" | "dashboard";
/** `done`: answered (sync); `queued`: the job or batch was accepted; `replayed`: an Idempotency-Key answered an earlier one. */
export type RequestOutcome = "done" | "failed" | "queued" | "replayed";

/** What the caller of a scrape or a submission knows of the request that asked for it. */
export interface RequestOrigin {
  requestId: string;
  surface: RequestSurface;
  /** ms since epoch: when the request arrived (the latency is counted from it). */
  startedAt: number;
  /** The request's `executionCtx.waitUntil`: the log row is written after the response. */
  afterResponse(work: Promise<void>): void;
}

export interface RequestLogEntry extends Omit<RequestOrigin, "afterResponse"> {
  accountId: string;
  keyId: string | null;
  kind: RequestKind;
  scraper: string | null;
  statusCode: number;
  outcome: RequestOutcome;
  errorCode: string | null;
  latencyMs: number;
  /** Credits this request charged, net of what it refunded before answering. */
  credits: number;
  jobId: string | null;
  batchId: string | null;
  itemCount: number | null;
}

/** What a request's own caller says of it; the origin adds the rest. */
type RequestReport = Omit<RequestLogEntry, keyof RequestOrigin | "latencyMs">;

/** Hands the request's row to `afterResponse`: the response never waits for it, and it never fails the request. */
function logRequest(db: D1Database, origin: RequestOrigin, report: RequestReport): void {
  const { afterResponse, ...fields } = origin;
  const entry: RequestLogEntry = { ...fields, ...report, latencyMs: Date.now() - origin.startedAt };
  afterResponse(recordRequest(db, entry, requestSubject(origin.requestId)));
}

/** What a request's result says of it: its status, outcome and net credits, and the job or batch it created. */
type ResultReport = Pick<RequestReport, "statusCode" | "outcome" | "credits"> & Partial<Pick<RequestReport, "jobId" | "batchId">>;
/** What is known of the request before it runs (a sync scrape's job id included); ids not given are null. */
type FixedReport = Omit<RequestReport, "statusCode" | "outcome" | "credits" | "errorCode" | "jobId" | "batchId"> &
  Partial<Pick<RequestReport, "jobId" | "batchId">>;

/**
 * Runs `work` and logs the request either way: what `reportOf` says of its result, or the failure's status and code
 * with nothing charged. The error is rethrown as it came; the row is written after the response (`logRequest`).
 */
export async function withRequestLog<T>(
  db: D1Database,
  origin: RequestOrigin,
  fixed: FixedReport,
  work: () => Promise<T>,
  reportOf: (result: T) => ResultReport,
): Promise<T> {
  const ids = { jobId: null, batchId: null };
  let result: T;
  try {
    result = await work();
  } catch (error) {
    logRequest(db, origin, { ...ids, ...fixed, ...failureOf(error), outcome: "failed", credits: 0 });
    throw error;
  }
  logRequest(db, origin, { ...ids, ...fixed, ...reportOf(result), errorCode: null });
  return result;
}

/** The status code and error code a failure answers with (src/errors.ts: the status the HTTP layer sends). */
function failureOf(error: unknown): { statusCode: number; errorCode: string } {
  const failure = toServiceError(error);
  return { statusCode: failure.status, errorCode: failure.code };
}

/** Records one request; never throws (a failure is logged under the request's id). */
export async function recordRequest(db: D1Database, entry: RequestLogEntry, subject: LogSubject): Promise<void> {
  try {
    await db
      .prepare(
        `INSERT INTO request_log (request_id, account_id, key_id, surface, kind, scraper, status_code, outcome, error_code,
           latency_ms, credits, job_id, batch_id, item_count, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        entry.requestId,
        entry.accountId,
        entry.keyId,
        entry.surface,
        entry.kind,
        entry.scraper,
        entry.statusCode,
        entry.outcome,
        entry.errorCode,
        Math.max(0, Math.round(entry.latencyMs)),
        entry.credits,
        entry.jobId,
        entry.batchId,
        entry.itemCount,
        new Date(entry.startedAt).toISOString(),
      )
      .run();
  } catch (error) {
    console.error(logLine(subject, "request log: could not record the request"), error);
  }
}

export interface LoggedRequest {
  entryId: number;
  requestId: string;
  surface: RequestSurface;
  kind: RequestKind;
  scraper: string | null;
  statusCode: number;
  outcome: RequestOutcome;
  errorCode: string | null;
  latencyMs: number;
  credits: number;
  jobId: string | null;
  batchId: string | null;
  itemCount: number | null;
  /** The job's status now (from the jobs index), for a job request; null otherwise or once the job is gone. */
  jobStatus: "pending" | "done" | "failed" | null;
  keyName: string | null;
  /** ISO 8601 as stored. */
  createdAt: string;
}

interface LoggedRow {
  entry_id: number;
  request_id: string;
  surface: RequestSurface;
  kind: RequestKind;
  scraper: string | null;
  status_code: number;
  outcome: RequestOutcome;
  error_code: string | null;
  latency_ms: number;
  credits: number;
  job_id: string | null;
  batch_id: string | null;
  item_count: number | null;
  job_status: "pending" | "done" | "failed" | null;
  key_name: string | null;
  created_at: string;
}

interface RequestPageQuery {
  accountId: string;
  kind?: RequestKind;
  limit: number;
  /** The page starts after this entry (the previous page's `nextBefore`). */
  before?: number;
}

/** The account's requests, newest first, one page at a time (keyset on `entry_id`, which grows with time). */
export async function listRequests(
  db: D1Database,
  query: RequestPageQuery,
  now = Date.now(),
): Promise<{ requests: LoggedRequest[]; nextBefore: number | null }> {
  const retainedSince = new Date(now - REQUEST_LOG_RETENTION_MS).toISOString();
  // One more row than asked says whether another page follows.
  const { results } = await db
    .prepare(
      `SELECT r.entry_id, r.request_id, r.surface, r.kind, r.scraper, r.status_code, r.outcome, r.error_code, r.latency_ms,
              r.credits, r.job_id, r.batch_id, r.item_count, r.created_at, j.status AS job_status, k.name AS key_name
       FROM request_log r
         LEFT JOIN jobs j ON j.job_id = r.job_id
         LEFT JOIN api_keys k ON k.id = r.key_id
       WHERE r.account_id = ?1 AND r.created_at >= ?2 AND (?3 IS NULL OR r.kind = ?3) AND (?4 IS NULL OR r.entry_id < ?4)
       ORDER BY r.entry_id DESC LIMIT ?5`,
    )
    .bind(query.accountId, retainedSince, query.kind ?? null, query.before ?? null, query.limit + 1)
    .all<LoggedRow>();
  const page = results.slice(0, query.limit).map(
    (row): LoggedRequest => ({
      entryId: row.entry_id,
      requestId: row.request_id,
      surface: row.surface,
      kind: row.kind,
      scraper: row.scraper,
      statusCode: row.status_code,
      outcome: row.outcome,
      errorCode: row.error_code,
      latencyMs: row.latency_ms,
      credits: row.credits,
      jobId: row.job_id,
      batchId: row.batch_id,
      itemCount: row.item_count,
      jobStatus: row.job_status,
      keyName: row.key_name,
      createdAt: row.created_at,
    }),
  );
  const last = page.at(-1);
  return { requests: page, nextBefore: results.length > query.limit && last !== undefined ? last.entryId : null };
}

/**
 * Deletes rows past their retention, a chunk per statement, at most PRUNE_CHUNKS_PER_SWEEP statements. Never throws: a
 * sweep that fails is logged and the next one catches up, and the cron's other work still runs.
 */
export async function pruneRequestLog(db: D1Database, now = Date.now()): Promise<void> {
  const cutoff = new Date(now - REQUEST_LOG_RETENTION_MS).toISOString();
  try {
    for (let chunk = 0; chunk < PRUNE_CHUNKS_PER_SWEEP; chunk += 1) {
      const { meta } = await db
        .prepare(
          "DELETE FROM request_log WHERE entry_id IN (SELECT entry_id FROM request_log WHERE created_at < ? ORDER BY created_at LIMIT ?)",
        )
        .bind(cutoff, PRUNE_CHUNK)
        .run();
      if (meta.changes < PRUNE_CHUNK) return;
    }
  } catch (error) {
    console.error(logLine(SWEEP_SUBJECT, "could not delete expired rows"), error);
  }
}
