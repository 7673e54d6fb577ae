/**
 * Per-account slots in D1 (table `account_slots`): one row per running synchronous scrape or job attempt of an
 * account. Taking a slot is a single conditional INSERT (count and insert in one statement, so two concurrent requests
 * cannot both take the last slot). A request's row is deleted when it is given back; a job attempt's row is kept,
 * marked released, for RECENT_SHARE_WINDOW_MS, because fair turns compare how many attempts accounts started
 * recently. A holder that dies without giving its slot back (an isolate evicted mid-request) cannot block its account
 * for long: the row stops counting as running at `expires_at`, the work's own deadline plus a grace period.
 */

import { DEFAULT_REFUNDED_BROWSER_SECONDS_PER_HOUR, REDUCED_CONCURRENCY_DIVISOR, reducedConcurrency } from "./capacity-rules";
import { firstBucketOfHour, refundedSecondsSql } from "./refunded-browser-time";
import { logLine, type LogSubject } from "../util/log-line";

type SlotKind = "request" | "job";

/** Job attempts started within this window are an account's recent share, and jobs submitted within it can be waiting. */
const RECENT_SHARE_WINDOW_MS = 10 * 60_000;

interface SlotRequest {
  accountId: string;
  kind: SlotKind;
  /**
   * How many slots of this kind the account may hold at once: the service's default. For `request` slots an
   * operator's per-account value (table `account_request_limits`, src/limits/account-overrides.ts) takes its place.
   */
  limit: number;
  /** How long the slot counts as running if it is never given back. */
  ttlMs: number;
  /** The job whose attempt this is (kind `job`). */
  jobId?: string;
  /**
   * Refunded browser seconds an account may have in the last hour; past them `limit` (or the operator's value) drops
   * to a quarter, at least 1 (src/limits/refunded-browser-time.ts). The service's default (the built-in one when not
   * given); an operator's per-account value (`refunded_browser_seconds_per_hour`) takes its place.
   */
  refundedSecondsPerHour?: number;
}

export interface Slot {
  slotId: string;
  kind: SlotKind;
}

type SlotOutcome =
  | { taken: true; slot: Slot }
  | {
      taken: false;
      inUse: number;
      /** The bound that refused: the account's limit, or a quarter of it while `refundedSeconds` is past the budget. */
      limit: number;
      /** The account's limit when its refunded browser time is within the budget. */
      normalLimit: number;
      /** The account's refunded browser seconds of the last hour. */
      refundedSeconds: number;
      /** The refunded-time budget that applied: the operator's value for the account, else the default. */
      refundedSecondsPerHour: number;
      reducedForRefundedTime: boolean;
      retryAfterSeconds: number;
    };

const RUNNING = "released_at IS NULL AND expires_at > ?";

/** SQL for the account's own limit (the operator's value for requests, else the default); arguments name placeholders. */
function normalLimit(account: string, kind: string, fallback: string): string {
  return `COALESCE((SELECT concurrent_requests FROM account_request_limits WHERE account_id = ${account} AND ${kind} = 'request'), ${fallback})`;
}

/** SQL for the account's refunded-time budget (the operator's value, else the default); arguments name placeholders. */
function refundedBudget(account: string, fallback: string): string {
  return `COALESCE((SELECT refunded_browser_seconds_per_hour FROM account_request_limits WHERE account_id = ${account}), ${fallback})`;
}

/**
 * SQL for the limit that applies now, read in the same statement as the count: the account's own limit, or
 * `reducedConcurrency` of it (a quarter, at least 1) while its refunded browser time of the last hour is past the budget.
 */
function effectiveLimit(account: string, kind: string, fallback: string, budgetFallback: string, firstBucket: string): string {
  const normal = normalLimit(account, kind, fallback);
  return `CASE WHEN ${refundedSecondsSql(account, firstBucket)} > ${refundedBudget(account, budgetFallback)}
    THEN MAX(1, CAST(${normal} / ${REDUCED_CONCURRENCY_DIVISOR} AS INTEGER)) ELSE ${normal} END`;
}

/** Takes a slot for the account, or says how many it already holds and when the first of them would lapse. */
export async function takeAccountSlot(db: D1Database, request: SlotRequest, now = Date.now()): Promise<SlotOutcome> {
  const slotId = crypto.randomUUID();
  const firstBucket = firstBucketOfHour(now);
  const defaultBudget = request.refundedSecondsPerHour ?? DEFAULT_REFUNDED_BROWSER_SECONDS_PER_HOUR;
  const [, inserted] = await db.batch([
    // Housekeeping of this account's rows that neither run nor count towards its recent share any more.
    db
      .prepare("DELETE FROM account_slots WHERE account_id = ? AND (released_at IS NOT NULL OR expires_at <= ?) AND acquired_at <= ?")
      .bind(request.accountId, now, now - RECENT_SHARE_WINDOW_MS),
    db
      .prepare(
        `INSERT INTO account_slots (slot_id, account_id, kind, job_id, acquired_at, expires_at)
         SELECT ?1, ?2, ?3, ?4, ?5, ?6
         WHERE (SELECT COUNT(*) FROM account_slots WHERE account_id = ?2 AND kind = ?3 AND released_at IS NULL AND expires_at > ?5) < ${effectiveLimit("?2", "?3", "?7", "?8", "?9")}`,
      )
      .bind(
        slotId,
        request.accountId,
        request.kind,
        request.jobId ?? null,
        now,
        now + request.ttlMs,
        request.limit,
        defaultBudget,
        firstBucket,
      ),
  ]);
  if (inserted !== undefined && inserted.meta.changes === 1) return { taken: true, slot: { slotId, kind: request.kind } };
  const usage = await db
    .prepare(
      `SELECT COUNT(*) AS in_use, MIN(expires_at) AS first_expiry, ${normalLimit("?1", "?2", "?4")} AS normal_limit,
         ${refundedSecondsSql("?1", "?5")} AS refunded_seconds, ${refundedBudget("?1", "?6")} AS refunded_budget
       FROM account_slots WHERE account_id = ?1 AND kind = ?2 AND released_at IS NULL AND expires_at > ?3`,
    )
    .bind(request.accountId, request.kind, now, request.limit, firstBucket, defaultBudget)
    .first<{ in_use: number; first_expiry: number | null; normal_limit: number; refunded_seconds: number; refunded_budget: number }>();
  // Slots usually come back long before they lapse; the hint is a few seconds, never more than the lapse.
  const lapseSeconds = usage?.first_expiry == null ? 1 : Math.ceil((usage.first_expiry - now) / 1000);
  const normal = usage?.normal_limit ?? request.limit;
  const refundedSeconds = usage?.refunded_seconds ?? 0;
  const budget = usage?.refunded_budget ?? defaultBudget;
  const reduced = refundedSeconds > budget;
  const limit = reduced ? reducedConcurrency(normal) : normal;
  return {
    taken: false,
    inUse: usage?.in_use ?? limit,
    limit,
    normalLimit: normal,
    refundedSeconds,
    refundedSecondsPerHour: budget,
    reducedForRefundedTime: reduced,
    retryAfterSeconds: Math.max(1, Math.min(5, lapseSeconds)),
  };
}

/** Gives a slot back; best effort (a slot that cannot be given back stops counting at its expiry). */
export async function giveBackAccountSlot(db: D1Database, slot: Slot, logSubject?: LogSubject, now = Date.now()): Promise<void> {
  const statement =
    slot.kind === "request"
      ? db.prepare("DELETE FROM account_slots WHERE slot_id = ?").bind(slot.slotId)
      : db.prepare("UPDATE account_slots SET released_at = ? WHERE slot_id = ?").bind(now, slot.slotId);
  await statement
    .run()
    .catch((error: unknown) => console.error(logLine(logSubject, "Could not give back an account slot (it lapses on its own)"), error));
}

/**
 * Whether another account should go before `accountId`: it has a job that was submitted recently, has never started,
 * could start (that account is below `limit` running attempts), and that account started fewer attempts than this one
 * in the recent window. A queue is first in, first out; answering yes here is what lets a light account's job pass a
 * heavy account's backlog even when the consumer runs one job at a time.
 */
export async function anotherAccountGoesFirst(db: D1Database, accountId: string, limit: number, now = Date.now()): Promise<boolean> {
  const windowStart = now - RECENT_SHARE_WINDOW_MS;
  const row = await db
    .prepare(
      `WITH mine AS (SELECT COUNT(*) AS served FROM account_slots WHERE account_id = ?1 AND kind = 'job' AND acquired_at > ?2)
       SELECT EXISTS (
         SELECT 1 FROM jobs j, mine
         WHERE j.status = 'pending' AND j.account_id != ?1 AND j.created_at > ?3
           AND NOT EXISTS (SELECT 1 FROM account_slots s WHERE s.job_id = j.job_id)
           AND (SELECT COUNT(*) FROM account_slots s WHERE s.account_id = j.account_id AND s.kind = 'job'
                AND s.released_at IS NULL AND s.expires_at > ?4) < ?5
           AND (SELECT COUNT(*) FROM account_slots s WHERE s.account_id = j.account_id AND s.kind = 'job' AND s.acquired_at > ?2)
               < mine.served
       ) AS others_first`,
    )
    .bind(accountId, windowStart, new Date(windowStart).toISOString(), now, limit)
    .first<{ others_first: number }>();
  return row?.others_first === 1;
}

interface AccountSlotUsage {
  requests: number;
  jobs: number;
}

/** What the account has running now (the dashboard and the operator API show it next to the limits). */
export async function accountSlotUsage(db: D1Database, accountId: string, now = Date.now()): Promise<AccountSlotUsage> {
  const { results } = await db
    .prepare(`SELECT kind, COUNT(*) AS in_use FROM account_slots WHERE account_id = ? AND ${RUNNING} GROUP BY kind`)
    .bind(accountId, now)
    .all<{ kind: SlotKind; in_use: number }>();
  const count = (kind: SlotKind) => results.find((row) => row.kind === kind)?.in_use ?? 0;
  return { requests: count("request"), jobs: count("job") };
}
