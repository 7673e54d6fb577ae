/**
 * The visible log of webhook deliveries (D1 `webhook_deliveries`): one row per message, updated after every attempt,
 * shown in the dashboard and to operators. The job's Durable Object owns the delivery itself; this log is written
 * after the fact and kept for DELIVERY_LOG_RETENTION_DAYS.
 */

export const DELIVERY_LOG_RETENTION_DAYS = 7;

type DeliveryStatus = "pending" | "delivered" | "failed";

export interface DeliveryLogEntry {
  webhookId: string;
  accountId: string;
  jobId: string;
  batchId: string | null;
  eventType: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

interface DeliveryRow {
  webhook_id: string;
  account_id: string;
  job_id: string;
  batch_id: string | null;
  event_type: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

interface NewDelivery {
  webhookId: string;
  accountId: string;
  jobId: string;
  batchId: string | null;
  eventType: string;
  url: string;
}

/** Logs a message about to be sent (once: a repeated call keeps the first row), and prunes the account's old rows. */
export async function logDeliveryCreated(db: D1Database, delivery: NewDelivery, now = new Date()): Promise<void> {
  const cutoff = new Date(now.getTime() - DELIVERY_LOG_RETENTION_DAYS * 86_400_000).toISOString();
  await db.batch([
    db
      .prepare(
        `INSERT OR IGNORE INTO webhook_deliveries (webhook_id, account_id, job_id, batch_id, event_type, url, status, attempts, created_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?)`,
      )
      .bind(delivery.webhookId, delivery.accountId, delivery.jobId, delivery.batchId, delivery.eventType, delivery.url, now.toISOString()),
    db.prepare("DELETE FROM webhook_deliveries WHERE account_id = ? AND created_at < ?").bind(delivery.accountId, cutoff),
  ]);
}

interface AttemptRecord {
  status: DeliveryStatus;
  attempts: number;
  attemptAt: Date;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: Date | null;
}

export async function logDeliveryAttempt(db: D1Database, webhookId: string, attempt: AttemptRecord): Promise<void> {
  await db
    .prepare(
      `UPDATE webhook_deliveries
       SET status = ?2, attempts = ?3, last_attempt_at = ?4, last_status_code = ?5, last_error = ?6, next_attempt_at = ?7,
           delivered_at = CASE WHEN ?2 = 'delivered' THEN ?4 ELSE delivered_at END
       WHERE webhook_id = ?1`,
    )
    .bind(
      webhookId,
      attempt.status,
      attempt.attempts,
      attempt.attemptAt.toISOString(),
      attempt.statusCode,
      attempt.error,
      attempt.nextAttemptAt?.toISOString() ?? null,
    )
    .run();
}

/** The account's latest deliveries, newest first. */
export async function recentDeliveries(db: D1Database, accountId: string, limit: number): Promise<DeliveryLogEntry[]> {
  const { results } = await db
    .prepare(
      `SELECT webhook_id, account_id, job_id, batch_id, event_type, url, status, attempts, last_attempt_at, last_status_code,
              last_error, next_attempt_at, created_at, delivered_at
       FROM webhook_deliveries WHERE account_id = ? ORDER BY created_at DESC, webhook_id DESC LIMIT ?`,
    )
    .bind(accountId, limit)
    .all<DeliveryRow>();
  return results.map((row) => ({
    webhookId: row.webhook_id,
    accountId: row.account_id,
    jobId: row.job_id,
    batchId: row.batch_id,
    eventType: row.event_type,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: row.last_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  }));
}
