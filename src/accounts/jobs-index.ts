/**
 * Which asynchronous jobs an account submitted. Job records live in one Durable Object per job, which cannot be
 * listed; this D1 index is written at submission so the dashboard can list recent jobs and ask each one its status.
 */

export interface IndexedJob {
  jobId: string;
  accountId: string;
  keyId: string | null;
  scraper: string;
  /** ISO 8601. */
  createdAt: string;
}

export interface IndexedJobWithKey extends IndexedJob {
  keyName: string | null;
}

/**
 * Records a submitted job. Never throws: the job has already been charged and is about to run, and a missing row only
 * hides it from the dashboard, which must not turn into a failed (and unrefunded) submission.
 */
export async function recordSubmittedJob(db: D1Database, job: IndexedJob): Promise<void> {
  try {
    await db
      .prepare("INSERT OR IGNORE INTO jobs (job_id, account_id, key_id, scraper, created_at) VALUES (?, ?, ?, ?, ?)")
      .bind(job.jobId, job.accountId, job.keyId, job.scraper, job.createdAt)
      .run();
  } catch (error) {
    console.error(`jobs index: could not record job ${job.jobId}`, error);
  }
}

export async function recentJobs(db: D1Database, accountId: string, limit: number): Promise<IndexedJobWithKey[]> {
  const { results } = await db
    .prepare(
      `SELECT j.job_id, j.account_id, j.key_id, j.scraper, j.created_at, k.name AS key_name
       FROM jobs j LEFT JOIN api_keys k ON k.id = j.key_id
       WHERE j.account_id = ? ORDER BY j.created_at DESC, j.job_id LIMIT ?`,
    )
    .bind(accountId, limit)
    .all<{ job_id: string; account_id: string; key_id: string | null; scraper: string; created_at: string; key_name: string | null }>();
  return results.map((row) => ({
    jobId: row.job_id,
    accountId: row.account_id,
    keyId: row.key_id,
    scraper: row.scraper,
    createdAt: row.created_at,
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
