/**
 * Batches in D1 (`batches`). A batch row is written, with its job ids, before anything is charged, and becomes
 * `accepted` once its jobs exist and are queued; only accepted batches are shown. Batches, like their jobs, are shown
 * for 24 hours.
 */
import { JOB_RETENTION_MS } from "./job-policy";

interface StoredBatch {
  batchId: string;
  accountId: string;
  keyId: string | null;
  scraper: string;
  webhookUrl: string | null;
  /** In item order. */
  jobIds: string[];
  state: "submitting" | "accepted";
  createdAt: string;
}

interface BatchRow {
  batch_id: string;
  account_id: string;
  key_id: string | null;
  scraper: string;
  webhook_url: string | null;
  job_ids: string;
  state: "submitting" | "accepted";
  created_at: string;
}

function parseJobIds(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : [];
}

function toBatch(row: BatchRow): StoredBatch {
  return {
    batchId: row.batch_id,
    accountId: row.account_id,
    keyId: row.key_id,
    scraper: row.scraper,
    webhookUrl: row.webhook_url,
    jobIds: parseJobIds(row.job_ids),
    state: row.state,
    createdAt: row.created_at,
  };
}

const SELECT_BATCH =
  "SELECT batch_id, account_id, key_id, scraper, webhook_url, job_ids, state, created_at FROM batches WHERE batch_id = ?";

/** Writes the batch (state `submitting`) unless it exists, and returns the stored one: a resumed batch keeps its ids. */
export async function openBatch(db: D1Database, batch: Omit<StoredBatch, "state">): Promise<StoredBatch> {
  const [, select] = await db.batch<BatchRow>([
    db
      .prepare(
        `INSERT OR IGNORE INTO batches (batch_id, account_id, key_id, scraper, item_count, webhook_url, job_ids, state, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'submitting', ?)`,
      )
      .bind(
        batch.batchId,
        batch.accountId,
        batch.keyId,
        batch.scraper,
        batch.jobIds.length,
        batch.webhookUrl,
        JSON.stringify(batch.jobIds),
        batch.createdAt,
      ),
    db.prepare(SELECT_BATCH).bind(batch.batchId),
  ]);
  const row = select?.results[0];
  if (row === undefined) throw new Error(`batch ${batch.batchId} missing after its creation`);
  return toBatch(row);
}

/** Forgets a batch that was never charged (the charge was refused). */
export async function discardBatch(db: D1Database, batchId: string): Promise<void> {
  await db.prepare("DELETE FROM batches WHERE batch_id = ? AND state = 'submitting'").bind(batchId).run();
}

export async function acceptBatch(db: D1Database, batchId: string): Promise<void> {
  await db.prepare("UPDATE batches SET state = 'accepted' WHERE batch_id = ?").bind(batchId).run();
}

/** The batch as stored, whatever its state or age (for answering a repeated Idempotency-Key). */
export async function loadBatch(db: D1Database, batchId: string): Promise<StoredBatch | null> {
  const row = await db.prepare(SELECT_BATCH).bind(batchId).first<BatchRow>();
  return row === null ? null : toBatch(row);
}

/** An accepted batch of `accountId` within its retention, or null (unknown, someone else's, or expired). */
export async function findAccountBatch(db: D1Database, accountId: string, batchId: string, now = Date.now()): Promise<StoredBatch | null> {
  const batch = await loadBatch(db, batchId);
  if (batch === null || batch.accountId !== accountId || batch.state !== "accepted") return null;
  return now - Date.parse(batch.createdAt) >= JOB_RETENTION_MS ? null : batch;
}

/** The index shows every still-pending job of the batch as failed (its submission was abandoned and refunded). */
export async function markBatchJobsFailed(db: D1Database, batchId: string, completedAt: Date): Promise<void> {
  await db
    .prepare("UPDATE jobs SET status = 'failed', completed_at = ? WHERE batch_id = ? AND status = 'pending'")
    .bind(completedAt.toISOString(), batchId)
    .run();
}
