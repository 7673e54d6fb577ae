/**
 * Credits live in D1: `accounts.credits` is the balance and `credit_ledger` has one row per change. Charges and refunds
 * are single D1 batches (one transaction): the balance check, the update and the ledger row succeed or fail together,
 * so concurrent requests can never overdraw an account, and the unique (operation_id, kind) index makes a charge or
 * refund of one operation (a sync request's or a job's id) happen at most once.
 *
 * A charge made with a key also checks, in the same statement, that the key is still active: authentication may come
 * from an isolate's memo of a few seconds (src/auth/api-keys.ts), and this is what keeps a key revoked meanwhile from
 * spending a single credit (it gets the 401 of an invalid key instead), at no extra round trip.
 */
import { INVALID_KEY_DETAIL } from "../auth/api-keys";
import { InsufficientCreditsError, UnauthorizedError } from "../errors";

/** SQL that is true when the key `keyParam` (NULL: no key, an internal charge) is active and the account's. */
function keyIsActive(keyParam: string, accountParam: string): string {
  return `(${keyParam} IS NULL OR EXISTS (SELECT 1 FROM api_keys WHERE id = ${keyParam} AND account_id = ${accountParam} AND revoked_at IS NULL))`;
}

function creditsOf(result: D1Result | undefined): number | null {
  const row: unknown = result?.results[0];
  const credits: unknown = typeof row === "object" && row !== null ? Reflect.get(row, "credits") : undefined;
  return typeof credits === "number" ? credits : null;
}

/**
 * Why a charge changed nothing, in one read: the operation was charged before (the balance is returned: a repeated
 * call is not an error), the key was revoked meanwhile (401), or the credits do not cover `amount`.
 */
async function refusedCharge(
  db: D1Database,
  charge: { accountId: string; keyId: string | null; firstOperationId: string },
  amount: number,
): Promise<number> {
  const state = await db
    .prepare(
      `SELECT credits, ${keyIsActive("?2", "?1")} AS key_active,
         EXISTS (SELECT 1 FROM credit_ledger WHERE operation_id = ?3 AND kind = 'charge') AS charged
       FROM accounts WHERE id = ?1`,
    )
    .bind(charge.accountId, charge.keyId, charge.firstOperationId)
    .first<{ credits: number; key_active: number; charged: number }>();
  const remaining = state?.credits ?? 0;
  if (state?.charged === 1) return remaining;
  if (state !== null && state.key_active !== 1) throw new UnauthorizedError(INVALID_KEY_DETAIL, "invalid_api_key");
  throw new InsufficientCreditsError(amount, remaining);
}

export const CREDITS_PER_REQUEST = 3;

interface ChargeRequest {
  accountId: string;
  /** The sync request's or job's id: charging and refunding it twice has no effect. */
  operationId: string;
  scraper: string;
  keyId: string | null;
  amount?: number;
}

/**
 * Deducts the cost or throws InsufficientCreditsError (or UnauthorizedError when `keyId` was revoked). Returns the
 * balance after the charge.
 */
export async function chargeCredits(db: D1Database, charge: ChargeRequest, now = new Date()): Promise<number> {
  const amount = charge.amount ?? CREDITS_PER_REQUEST;
  // Two statements on the path every charged request takes: the balance comes back with the update (RETURNING).
  const [update] = await db.batch([
    db
      .prepare(
        `UPDATE accounts SET credits = credits - ?1
         WHERE id = ?2 AND credits >= ?1 AND ${keyIsActive("?4", "?2")}
           AND NOT EXISTS (SELECT 1 FROM credit_ledger WHERE operation_id = ?3 AND kind = 'charge')
         RETURNING credits`,
      )
      .bind(amount, charge.accountId, charge.operationId, charge.keyId),
    db
      .prepare(
        `INSERT INTO credit_ledger (account_id, kind, delta, balance_after, reason, operation_id, scraper, key_id, created_at)
         SELECT id, 'charge', -?1, credits, 'scrape', ?3, ?4, ?5, ?6 FROM accounts WHERE id = ?2 AND changes() = 1`,
      )
      .bind(amount, charge.accountId, charge.operationId, charge.scraper, charge.keyId, now.toISOString()),
  ]);
  const remaining = creditsOf(update);
  if (remaining !== null) return remaining;
  return refusedCharge(db, { accountId: charge.accountId, keyId: charge.keyId, firstOperationId: charge.operationId }, amount);
}

interface BatchChargeRequest {
  accountId: string;
  /** One operation (job) id per item: each gets its own charge row, so it is refunded and counted like a single job. */
  operationIds: readonly string[];
  scraper: string;
  keyId: string | null;
}

/** Charges every operation of a batch at once, or none (`chargeOperations`, all of one scraper). */
export async function chargeBatchCredits(db: D1Database, charge: BatchChargeRequest, now = new Date()): Promise<number> {
  return chargeOperations(
    db,
    {
      accountId: charge.accountId,
      keyId: charge.keyId,
      operations: charge.operationIds.map((operationId) => ({ operationId, scraper: charge.scraper })),
    },
    now,
  );
}

interface OperationsChargeRequest {
  accountId: string;
  /** One per scrape, each with its scraper (a monitor's run asks several): each gets its own charge row. */
  operations: readonly { operationId: string; scraper: string }[];
  /** The key charged for (a monitor's: the key that created it); null for none. */
  keyId: string | null;
}

/**
 * Charges every operation at once, or none: one balance check and update for the total and one ledger row per
 * operation, in one D1 batch (the operations travel as one JSON array: D1 binds at most 100 values). A repeated call
 * for the same ids charges nothing more and returns the balance. Throws InsufficientCreditsError for the total, or
 * UnauthorizedError when `keyId` was revoked.
 */
export async function chargeOperations(db: D1Database, charge: OperationsChargeRequest, now = new Date()): Promise<number> {
  const total = CREDITS_PER_REQUEST * charge.operations.length;
  const operations = JSON.stringify(charge.operations.map(({ operationId, scraper }) => ({ id: operationId, scraper })));
  const [update] = await db.batch([
    db
      .prepare(
        `UPDATE accounts SET credits = credits - ?1
         WHERE id = ?2 AND credits >= ?1 AND ${keyIsActive("?4", "?2")}
           AND NOT EXISTS (SELECT 1 FROM credit_ledger WHERE kind = 'charge'
             AND operation_id IN (SELECT json_extract(value, '$.id') FROM json_each(?3)))
         RETURNING credits`,
      )
      .bind(total, charge.accountId, operations, charge.keyId),
    // changes() is the UPDATE's (the last completed statement) for every row; balance_after reads as if charged in order.
    db
      .prepare(
        `INSERT INTO credit_ledger (account_id, kind, delta, balance_after, reason, operation_id, scraper, key_id, created_at)
         SELECT a.id, 'charge', -?1, a.credits + (?3 - 1 - j.key) * ?1, 'scrape', json_extract(j.value, '$.id'),
           json_extract(j.value, '$.scraper'), ?5, ?6
         FROM accounts a, json_each(?4) j WHERE a.id = ?2 AND changes() = 1`,
      )
      .bind(CREDITS_PER_REQUEST, charge.accountId, charge.operations.length, operations, charge.keyId, now.toISOString()),
  ]);
  const remaining = creditsOf(update);
  if (remaining !== null) return remaining;
  const firstOperationId = charge.operations[0]?.operationId ?? "";
  return refusedCharge(db, { accountId: charge.accountId, keyId: charge.keyId, firstOperationId }, total);
}

/**
 * Gives back what `operationId` was charged, once: a second call, or a call for an operation that was never charged,
 * changes nothing. Returns true when this call made the refund.
 */
export async function refundCredits(
  db: D1Database,
  accountId: string,
  operationId: string,
  reason: string,
  now = new Date(),
): Promise<boolean> {
  const [insert] = await db.batch([
    db
      .prepare(
        `INSERT OR IGNORE INTO credit_ledger (account_id, kind, delta, balance_after, reason, operation_id, scraper, key_id, created_at)
         SELECT a.id, 'refund', -c.delta, a.credits - c.delta, ?3, c.operation_id, c.scraper, c.key_id, ?4
         FROM accounts a JOIN credit_ledger c ON c.account_id = a.id AND c.operation_id = ?2 AND c.kind = 'charge'
         WHERE a.id = ?1`,
      )
      .bind(accountId, operationId, reason, now.toISOString()),
    db
      .prepare(
        `UPDATE accounts SET credits = credits - (SELECT delta FROM credit_ledger WHERE operation_id = ?2 AND kind = 'charge')
         WHERE id = ?1 AND changes() = 1`,
      )
      .bind(accountId, operationId),
  ]);
  return insert?.meta.changes === 1;
}

type AdjustmentKind = "grant" | "adjustment";

interface CreditAdjustment {
  accountId: string;
  /** Positive adds credits, negative removes them; the balance can never go below 0. */
  delta: number;
  kind: AdjustmentKind;
  reason: string;
  /** Makes the adjustment happen at most once (e.g. `signup:<account_id>`); null for an operator's manual change. */
  operationId?: string | null;
}

type AdjustmentOutcome =
  | { status: "applied"; balance: number }
  | { status: "account_not_found" }
  | { status: "would_go_negative"; balance: number };

/**
 * A grant (sign-up, top-up) or an operator's correction: the balance update and its ledger row are one D1 batch, and
 * the UPDATE's own `credits + delta >= 0` guard (not a read before it) is what keeps concurrent charges from racing
 * the balance below zero. With an `operationId` already applied, nothing changes and the current balance is returned.
 */
export async function adjustCredits(db: D1Database, adjustment: CreditAdjustment, now = new Date()): Promise<AdjustmentOutcome> {
  const operationId = adjustment.operationId ?? null;
  const [update, , balance] = await db.batch([
    db
      .prepare(
        `UPDATE accounts SET credits = credits + ?1
         WHERE id = ?2 AND credits + ?1 >= 0
           AND NOT EXISTS (SELECT 1 FROM credit_ledger WHERE ?3 IS NOT NULL AND operation_id = ?3 AND kind = ?4)`,
      )
      .bind(adjustment.delta, adjustment.accountId, operationId, adjustment.kind),
    db
      .prepare(
        `INSERT INTO credit_ledger (account_id, kind, delta, balance_after, reason, operation_id, scraper, key_id, created_at)
         SELECT id, ?3, ?1, credits, ?4, ?5, NULL, NULL, ?6 FROM accounts WHERE id = ?2 AND changes() = 1`,
      )
      .bind(adjustment.delta, adjustment.accountId, adjustment.kind, adjustment.reason, operationId, now.toISOString()),
    db.prepare("SELECT credits FROM accounts WHERE id = ?").bind(adjustment.accountId),
  ]);
  const current = (balance?.results[0] as { credits: number } | undefined)?.credits;
  if (current === undefined) return { status: "account_not_found" };
  if (update?.meta.changes === 1) return { status: "applied", balance: current };
  if (operationId !== null) {
    const alreadyApplied = await db
      .prepare("SELECT 1 AS found FROM credit_ledger WHERE operation_id = ? AND kind = ?")
      .bind(operationId, adjustment.kind)
      .first();
    if (alreadyApplied !== null) return { status: "applied", balance: current };
  }
  return { status: "would_go_negative", balance: current };
}
