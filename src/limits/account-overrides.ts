/**
 * Limits an operator set for one account (table `account_request_limits`, migrations/0009 and 0015): requests a minute
 * per key and per account, synchronous requests in flight, and the refunded browser time allowed an hour before the
 * account's concurrency drops (src/limits/refunded-browser-time.ts). A missing row or a NULL column means the service's default
 * (src/limits/account-limits.ts), so a default changed later still reaches every account never given its own value.
 */
import { type AccountLimits, accountLimits } from "./account-limits";

/** The values an operator can set; `null` puts one back to the default, a missing field leaves it as it is. */
export interface AccountLimitOverrides {
  keyRequestsPerMinute: number | null;
  accountRequestsPerMinute: number | null;
  concurrentRequests: number | null;
  refundedBrowserSecondsPerHour: number | null;
}

interface OverrideRow {
  key_requests_per_minute: number | null;
  account_requests_per_minute: number | null;
  concurrent_requests: number | null;
  refunded_browser_seconds_per_hour: number | null;
}

const NO_OVERRIDES: AccountLimitOverrides = {
  keyRequestsPerMinute: null,
  accountRequestsPerMinute: null,
  concurrentRequests: null,
  refundedBrowserSecondsPerHour: null,
};

export async function readAccountOverrides(db: D1Database, accountId: string): Promise<AccountLimitOverrides> {
  const row = await db
    .prepare(
      `SELECT key_requests_per_minute, account_requests_per_minute, concurrent_requests, refunded_browser_seconds_per_hour
       FROM account_request_limits WHERE account_id = ?`,
    )
    .bind(accountId)
    .first<OverrideRow>();
  if (row === null) return NO_OVERRIDES;
  return {
    keyRequestsPerMinute: row.key_requests_per_minute,
    accountRequestsPerMinute: row.account_requests_per_minute,
    concurrentRequests: row.concurrent_requests,
    refundedBrowserSecondsPerHour: row.refunded_browser_seconds_per_hour,
  };
}

/** Stores the fields given in `change` (others keep their stored value) and returns the account's overrides after it. */
export async function writeAccountOverrides(
  db: D1Database,
  accountId: string,
  change: Partial<AccountLimitOverrides>,
): Promise<AccountLimitOverrides> {
  const merged = { ...(await readAccountOverrides(db, accountId)), ...change };
  await db
    .prepare(
      `INSERT INTO account_request_limits (account_id, key_requests_per_minute, account_requests_per_minute, concurrent_requests,
         refunded_browser_seconds_per_hour, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6)
       ON CONFLICT (account_id) DO UPDATE SET key_requests_per_minute = ?2, account_requests_per_minute = ?3,
         concurrent_requests = ?4, refunded_browser_seconds_per_hour = ?5, updated_at = ?6`,
    )
    .bind(
      accountId,
      merged.keyRequestsPerMinute,
      merged.accountRequestsPerMinute,
      merged.concurrentRequests,
      merged.refundedBrowserSecondsPerHour,
      new Date().toISOString(),
    )
    .run();
  return merged;
}

/** The limits that apply to the account: its overrides where it has them, the service's defaults elsewhere. */
export async function effectiveAccountLimits(
  env: Env,
  accountId: string,
): Promise<{ limits: AccountLimits; overrides: AccountLimitOverrides }> {
  const defaults = accountLimits(env);
  const overrides = await readAccountOverrides(env.DB, accountId);
  return { limits: applyOverrides(defaults, overrides), overrides };
}

export function applyOverrides(defaults: AccountLimits, overrides: AccountLimitOverrides): AccountLimits {
  return {
    ...defaults,
    keyRequestsPerMinute: overrides.keyRequestsPerMinute ?? defaults.keyRequestsPerMinute,
    accountRequestsPerMinute: overrides.accountRequestsPerMinute ?? defaults.accountRequestsPerMinute,
    concurrentRequests: overrides.concurrentRequests ?? defaults.concurrentRequests,
    refundedBrowserSecondsPerHour: overrides.refundedBrowserSecondsPerHour ?? defaults.refundedBrowserSecondsPerHour,
  };
}
