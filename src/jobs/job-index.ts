/**
 * The D1 jobs index as the job features use it: each job's terminal status (written by its Durable Object, the source
 * of truth), rows of batch jobs, and `GET /jobs`'s keyset pages (newest first by `created_at`, then `job_id`). Only jobs
 * within their 24-hour retention are listed: older records are gone.
 */
import { base64UrlEncode } from "../util/crypto";
import { JOB_RETENTION_MS } from "./job-policy";
import type { JobStatus } from "./job-types";

export async function recordTerminalStatus(db: D1Database, jobId: string, status: Exclude<JobStatus, "pending">, completedAt: number) {
  await db
    .prepare("UPDATE jobs SET status = ?, completed_at = ? WHERE job_id = ?")
    .bind(status, new Date(completedAt).toISOString(), jobId)
    .run();
}

export interface BatchJobRow {
  jobId: string;
  batchIndex: number;
}

/** The index rows of a batch's jobs, in one statement (D1 binds at most 100 values, so they travel as one JSON array). */
export async function recordBatchJobs(
  db: D1Database,
  batch: { batchId: string; accountId: string; keyId: string; scraper: string; createdAt: string },
  jobs: readonly BatchJobRow[],
): Promise<void> {
  await db
    .prepare(
      `INSERT OR IGNORE INTO jobs (job_id, account_id, key_id, scraper, created_at, batch_id, batch_index)
       SELECT json_extract(value, '$.id'), ?1, ?2, ?3, ?4, ?5, json_extract(value, '$.index') FROM json_each(?6)`,
    )
    .bind(
      batch.accountId,
      batch.keyId,
      batch.scraper,
      batch.createdAt,
      batch.batchId,
      JSON.stringify(jobs.map((job) => ({ id: job.jobId, index: job.batchIndex }))),
    )
    .run();
}

export interface ListedJob {
  jobId: string;
  status: JobStatus;
  scraper: string;
  batchId: string | null;
  createdAt: string;
  completedAt: string | null;
}

export interface JobListQuery {
  accountId: string;
  status?: JobStatus;
  scraper?: string;
  limit: number;
  /** The position after which the page starts, from a previous page's `nextCursor`. */
  after?: JobCursor;
}

export interface JobCursor {
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
  return base64UrlEncode(new TextEncoder().encode(JSON.stringify([cursor.createdAt, cursor.jobId])));
}

export function decodeJobCursor(text: string): JobCursor | null {
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const value: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0))));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [createdAt, jobId] = value;
    if (typeof createdAt !== "string" || typeof jobId !== "string" || Number.isNaN(Date.parse(createdAt))) return null;
    return { createdAt, jobId };
  } catch {
    return null;
  }
}

export interface BatchJobStatus {
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
