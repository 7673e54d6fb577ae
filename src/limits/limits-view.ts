/**
 * The limits an account meets, with what it has in flight now: one shape for the operator API and the dashboard, so
 * a customer who gets a 429 can see which bound it was and how close they are to it.
 */
import { MAX_ACTIVE_KEYS, MAX_KEYS_CREATED_PER_DAY } from "../accounts/keys";
import { accountLimits } from "./account-limits";
import { accountSlotUsage } from "./account-slots";

/**
 * The Workers rate-limiting bindings of wrangler.toml (`KEY_RATE_LIMITER`, `ACCOUNT_RATE_LIMITER`): their numbers live
 * there and cannot be read at run time, so they are repeated here for display. Change both together.
 */
export const KEY_REQUESTS_PER_MINUTE = 60;
export const ACCOUNT_REQUESTS_PER_MINUTE = 120;

export interface AccountLimitsView {
  concurrent_requests: { limit: number; in_use: number };
  running_jobs: { limit: number; in_use: number };
  requests_per_minute: { per_key: number; per_account: number };
  api_keys: { max_active: number; max_created_per_day: number };
}

export async function accountLimitsView(env: Env, accountId: string): Promise<AccountLimitsView> {
  const limits = accountLimits(env);
  const usage = await accountSlotUsage(env.DB, accountId);
  return {
    concurrent_requests: { limit: limits.concurrentRequests, in_use: usage.requests },
    running_jobs: { limit: limits.runningJobs, in_use: usage.jobs },
    requests_per_minute: { per_key: KEY_REQUESTS_PER_MINUTE, per_account: ACCOUNT_REQUESTS_PER_MINUTE },
    api_keys: { max_active: MAX_ACTIVE_KEYS, max_created_per_day: MAX_KEYS_CREATED_PER_DAY },
  };
}
