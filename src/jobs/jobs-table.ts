/**
 * The D1 `jobs` table, the index of asynchronous jobs. Job records live in one Durable Object per job, which cannot be
 * listed; this index is written at submission (one row per job, batch jobs with their batch and item position) so the
 * dashboard and `GET /jobs` can list an account's jobs, `GET /jobs/{id}` can refuse made-up ids without waking a
 * Durable Object, and the consumer can find a job's account for fair turns. Each job's terminal status is copied here
 * by its Durable Object (the source of truth). `GET /jobs` pages by keyset (newest first by `created_at`, then
 * `job_id`) and lists only jobs within their 24-hour retention: older records are gone.
 */
import { base64UrlToBytes, bytesToBase64Url } from "../util/base64";
import { jobSubject, logLine } from "../util/log-line";
import { JOB_RETENTION_MS } from "./job-policy";
import type { JobStatus } from "./job-types";

interface IndexedJob {
  jobId: string;
  accountId: string;
  keyId: string | null;
  scraper: string;
  /** ISO 8601. */
  createdAt: string;
  /** The request that created the job (null or absent for jobs created before jobs carried it). */
  requestId?: string | null;
}

export interface IndexedJobWithKey extends IndexedJob {
  requestId: string | null;
  keyName: string | null;
}

/**
 * Records a submitted job. Never throws: the job has already been charged and is about to run, and a missing row only
 * hides it from the dashboard, which must not turn into a failed (and unrefunded) submission.
 */
export async function recordSubmittedJob(db: D1Database, job: IndexedJob): Promise<void> {
  try {
    await db
      .prepare("INSERT OR IGNORE INTO jobs (job_id, account_id, key_id, scraper, created_at, request_id) VALUES (?, ?, ?, ?, ?, ?)")
      .bind(job.jobId, job.accountId, job.keyId, job.scraper, job.createdAt, job.requestId ?? null)
      .run();
  } catch (error) {
    console.error(logLine(jobSubject(job.requestId ?? null, job.jobId), "jobs index: could not record the job"), error);
  }
}

export async function recentJobs(db: D1Database, accountId: string, limit: number): Promise<IndexedJobWithKey[]> {
  const { results } = await db
    .prepare(
      `SELECT j.job_id, j.account_id, j.key_id, j.scraper, j.created_at, j.request_id, k.name AS key_name
       FROM jobs j LEFT JOIN api_keys k ON k.id = j.key_id
       WHERE j.account_id = ? ORDER BY j.created_at DESC, j.job_id LIMIT ?`,
    )
    .bind(accountId, limit)
    .all<{
      job_id: string;
      account_id: string;
      key_id: string | null;
      scraper: string;
      created_at: string;
      request_id: string | null;
      key_name: string | null;
    }>();
  return results.map((row) => ({
    jobId: row.job_id,
    accountId: row.account_id,
    keyId: row.key_id,
    scraper: row.scraper,
    createdAt: row.created_at,
    requestId: row.request_id,
    keyName: row.key_name,
  }));
}

/**
 * The account a job was submitted by, or null for an id that was never submitted. `GET /jobs/{id}` asks this before
 * waking the job's Durable Object, so a stream of made-up ids creates none; the job consumer asks it for fair turns.
 */
export async function indexedJobAccount(db: D1Database, jobId: string): Promise<string | null> {
  const row = await db.prepare("SELECT account_id FROM jobs WHERE job_id = ?").bind(jobId).first<{ account_id: string }>();
  return row?.account_id ?? null;
}

export async function recordTerminalStatus(db: D1Database, jobId: string, status: Exclude<JobStatus, "pending">, completedAt: number) {
  await db
    .prepare("UPDATE jobs SET status = ?, completed_at = ? WHERE job_id = ?")
    .bind(status, new Date(completedAt).toISOString(), jobId)
    .run();
}

interface BatchJobRow {
  jobId: string;
  batchIndex: number;
}

/** The index rows of a batch's jobs, in one statement (D1 binds at most 100 values, so they travel as one JSON array). */
export async function recordBatchJobs(
  db: D1Database,
  batch: { batchId: string; accountId: string; keyId: string; scraper: string; createdAt: string; requestId: string },
  jobs: readonly BatchJobRow[],
): Promise<void> {
  await db
    .prepare(
      `INSERT OR IGNORE INTO jobs (job_id, account_id, key_id, scraper, created_at, batch_id, request_id, batch_index)
       SELECT json_extract(value, '$.id'), ?1, ?2, ?3, ?4, ?5, ?7, json_extract(value, '$.index') FROM json_each(?6)`,
    )
    .bind(
      batch.accountId,
      batch.keyId,
      batch.scraper,
      batch.createdAt,
      batch.batchId,
      JSON.stringify(jobs.map((job) => ({ id: job.jobId, index: job.batchIndex }))),
      batch.requestId,
    )
    .run();
}

interface ListedJob {
  jobId: string;
  status: JobStatus;
  scraper: string;
  batchId: string | null;
  createdAt: string;
  completedAt: string | null;
}

interface JobListQuery {
  accountId: string;
  status?: JobStatus;
  scraper?: string;
  limit: number;
  /** The position after which the page starts, from a previous page's `nextCursor`. */
  after?: JobCursor;
}

interface JobCursor {
  createdAt: string;
  jobId: string;
}

interface ListedRow {
  job_id: string;
  status: JobStatus;
  scraper: string;
  batch_id: string | null;
  created_at: string;
  completed_at: string | null;
}

export async function listJobs(
  db: D1Database,
  query: JobListQuery,
  now = Date.now(),
): Promise<{ jobs: ListedJob[]; next: JobCursor | null }> {
  const retainedSince = new Date(now - JOB_RETENTION_MS).toISOString();
  // One more row than asked says whether another page follows.
  const { results } = await db
    .prepare(
      `SELECT job_id, status, scraper, batch_id, created_at, completed_at FROM jobs
       WHERE account_id = ?1 AND created_at >= ?2
         AND (?3 IS NULL OR status = ?3) AND (?4 IS NULL OR scraper = ?4)
         AND (?5 IS NULL OR created_at < ?5 OR (created_at = ?5 AND job_id < ?6))
       ORDER BY created_at DESC, job_id DESC LIMIT ?7`,
    )
    .bind(
      query.accountId,
      retainedSince,
      query.status ?? null,
      query.scraper ?? null,
      query.after?.createdAt ?? null,
      query.after?.jobId ?? null,
      query.limit + 1,
    )
    .all<ListedRow>();
  const page = results.slice(0, query.limit).map(
    (row): ListedJob => ({
      jobId: row.job_id,
      status: row.status,
      scraper: row.scraper,
      batchId: row.batch_id,
      createdAt: row.created_at,
      completedAt: row.completed_at,
    }),
  );
  const last = page.at(-1);
  return { jobs: page, next: results.length > query.limit && last !== undefined ? { createdAt: last.createdAt, jobId: last.jobId } : null };
}

/** Opaque to clients: base64url of the position. Its content is only ever compared within the caller's own jobs. */
export function encodeJobCursor(cursor: JobCursor): string {
  return bytesToBase64Url(new TextEncoder().encode(JSON.stringify([cursor.createdAt, cursor.jobId])));
}

export function decodeJobCursor(text: string): JobCursor | null {
  const bytes = base64UrlToBytes(text);
  if (bytes === null) return null;
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [createdAt, jobId] = value;
    if (typeof createdAt !== "string" || typeof jobId !== "string" || Number.isNaN(Date.parse(createdAt))) return null;
    return { createdAt, jobId };
  } catch {
    return null;
  }
}

interface BatchJobStatus {
  jobId: string;
  status: JobStatus;
}

/** A batch's jobs in item order, with their status. */
export async function batchJobStatuses(db: D1Database, batchId: string): Promise<BatchJobStatus[]> {
  const { results } = await db
    .prepare("SELECT job_id, status FROM jobs WHERE batch_id = ? ORDER BY batch_index")
    .bind(batchId)
    .all<{ job_id: string; status: JobStatus }>();
  return results.map((row) => ({ jobId: row.job_id, status: row.status }));
}
