/**
 * Refunded browser time, per account (table `account_refunded_browser_time`, migrations/0014). A scrape that times
 * out, whose client disconnects, or that fails in any other way is refunded, so the browser it held cost its account
 * nothing: without a bound, one account could keep its every slot busy with time-outs for free, all day. The rule
 * (docs/limits.md "Refunded browser time"): once an account's refunded browser time of the last hour passes
 * `ACCOUNT_REFUNDED_BROWSER_SECONDS_PER_HOUR`, its synchronous scrapes and its job attempts in flight drop to a quarter
 * of its limits (at least 1), until older refunds leave the hour.
 *
 * Time is counted in whole seconds, every started second (a refund that held a browser for 0.2 s counts 1 s), from
 * the moment the scrape was admitted to browser work until it gave its slot back. Cache hits and coalesced requests
 * hold no browser and count nothing.
 */
import { logLine, type LogSubject } from "../util/log-line";

/** Width of one counting bucket: the hour is the last HOUR_BUCKETS buckets (the current one included). */
const BUCKET_MS = 5 * 60_000;
const HOUR_BUCKETS = 12;
function bucketOf(at: number): number {
  return Math.floor(at / BUCKET_MS);
}

/** The first bucket that still belongs to the last hour at `now`. */
export function firstBucketOfHour(now: number): number {
  return bucketOf(now) - HOUR_BUCKETS + 1;
}

/**
 * SQL for the account's refunded seconds of the last hour; `account` and `firstBucket` name the statement's
 * placeholders. Read inside the statements that take a slot, so the reduced bound applies in the same step.
 */
export function refundedSecondsSql(account: string, firstBucket: string): string {
  return `(SELECT COALESCE(SUM(refunded_seconds), 0) FROM account_refunded_browser_time WHERE account_id = ${account} AND bucket >= ${firstBucket})`;
}

/** Adds a refunded scrape's browser time (every started second) to the account's current bucket; best effort. */
export async function recordRefundedBrowserTime(
  db: D1Database,
  accountId: string,
  heldMs: number,
  logSubject?: LogSubject,
  now = Date.now(),
): Promise<void> {
  const seconds = Math.max(1, Math.ceil(heldMs / 1000));
  await db
    .batch([
      db
        .prepare(
          `INSERT INTO account_refunded_browser_time (account_id, bucket, refunded_seconds) VALUES (?1, ?2, ?3)
           ON CONFLICT (account_id, bucket) DO UPDATE SET refunded_seconds = refunded_seconds + ?3`,
        )
        .bind(accountId, bucketOf(now), seconds),
      // Housekeeping: buckets that left the hour count for nothing any more.
      db.prepare("DELETE FROM account_refunded_browser_time WHERE account_id = ? AND bucket < ?").bind(accountId, firstBucketOfHour(now)),
    ])
    .catch((error: unknown) => console.error(logLine(logSubject, "Could not record refunded browser time"), error));
}

/** The account's refunded browser seconds of the last hour (the operator view and the dashboard show it). */
export async function refundedBrowserSeconds(db: D1Database, accountId: string, now = Date.now()): Promise<number> {
  const row = await db
    .prepare(`SELECT ${refundedSecondsSql("?1", "?2")} AS refunded`)
    .bind(accountId, firstBucketOfHour(now))
    .first<{ refunded: number }>();
  return row?.refunded ?? 0;
}

/**
 * Measures how long one scrape held browser work: wraps the scrape's admission (which may take an account slot) so
 * the clock starts when it is granted and stops when the slot is given back. `heldMs` is null when the scrape never
 * needed a browser (a cache hit, a coalesced request).
 */
export class BrowserHoldClock {
  private admittedAt: number | null = null;
  private endedAt: number | null = null;

  admission(admit: () => Promise<() => Promise<void>>): () => Promise<() => Promise<void>> {
    return async () => {
      const giveBack = await admit();
      this.admittedAt = Date.now();
      return async () => {
        this.endedAt ??= Date.now();
        await giveBack();
      };
    };
  }

  heldMs(now = Date.now()): number | null {
    if (this.admittedAt === null) return null;
    return (this.endedAt ?? now) - this.admittedAt;
  }
}
