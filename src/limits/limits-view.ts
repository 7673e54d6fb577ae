/**
 * The limits an account meets, with what it has in flight now: one shape for the operator API and the dashboard, so
 * a customer who gets a 429 can see which bound it was and how close they are to it.
 */
import { MAX_ACTIVE_KEYS, MAX_KEYS_CREATED_PER_DAY } from "../accounts/keys";
import { effectiveAccountLimits } from "./account-overrides";
import { accountSlotUsage } from "./account-slots";
import { reducedConcurrency } from "./capacity-rules";
import { refundedBrowserSeconds } from "./refunded-browser-time";

export interface AccountLimitsView {
  concurrent_requests: { limit: number; in_use: number };
  running_jobs: { limit: number; in_use: number };
  requests_per_minute: { per_key: number; per_account: number };
  /**
   * The account's refunded browser time of the last hour against its budget; past it, the two bounds in flight above
   * are a quarter of the account's limits (`concurrency_reduced`).
   */
  refunded_browser_time: { seconds_per_hour: number; seconds_last_hour: number; concurrency_reduced: boolean };
  /** The values set for this account by the operator; `null` where the service's default applies. */
  account_overrides: {
    key_requests_per_minute: number | null;
    account_requests_per_minute: number | null;
    concurrent_requests: number | null;
    refunded_browser_seconds_per_hour: number | null;
  };
  api_keys: { max_active: number; max_created_per_day: number };
}

export async function accountLimitsView(env: Env, accountId: string): Promise<AccountLimitsView> {
  const [{ limits, overrides }, usage, refundedSeconds] = await Promise.all([
    effectiveAccountLimits(env, accountId),
    accountSlotUsage(env.DB, accountId),
    refundedBrowserSeconds(env.DB, accountId),
  ]);
  // The bounds that apply now: a quarter of them while the account's refunded browser time is past its budget.
  const reduced = refundedSeconds > limits.refundedBrowserSecondsPerHour;
  const inForce = (limit: number) => (reduced ? reducedConcurrency(limit) : limit);
  return {
    concurrent_requests: { limit: inForce(limits.concurrentRequests), in_use: usage.requests },
    running_jobs: { limit: inForce(limits.runningJobs), in_use: usage.jobs },
    requests_per_minute: { per_key: limits.keyRequestsPerMinute, per_account: limits.accountRequestsPerMinute },
    refunded_browser_time: {
      seconds_per_hour: limits.refundedBrowserSecondsPerHour,
      seconds_last_hour: refundedSeconds,
      concurrency_reduced: reduced,
    },
    account_overrides: {
      key_requests_per_minute: overrides.keyRequestsPerMinute,
      account_requests_per_minute: overrides.accountRequestsPerMinute,
      concurrent_requests: overrides.concurrentRequests,
      refunded_browser_seconds_per_hour: overrides.refundedBrowserSecondsPerHour,
    },
    api_keys: { max_active: MAX_ACTIVE_KEYS, max_created_per_day: MAX_KEYS_CREATED_PER_DAY },
  };
}
