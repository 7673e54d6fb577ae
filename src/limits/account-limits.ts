/**
 * What one account may have in flight at once (wrangler.toml vars, with these defaults when unset or invalid). The
 * browsers behind every scrape are shared by all customers; these bounds keep one customer's burst, or its stream of
 * time-outs (refunded, so free to it), from holding them for everyone else. docs/limits.md explains each value.
 */
import { DEFAULT_REFUNDED_BROWSER_SECONDS_PER_HOUR, DEFAULT_RUNNING_JOBS, REFUNDED_BROWSER_SECONDS_RANGE } from "./capacity-rules";

export interface AccountLimits {
  /** Synchronous scrapes of one account running at once (`ACCOUNT_MAX_CONCURRENT_REQUESTS`); beyond it → 429. */
  concurrentRequests: number;
  /**
   * Job attempts of one account running at once (`ACCOUNT_MAX_RUNNING_JOBS`); the account's other jobs wait their
   * turn behind it, never in front of other accounts' jobs. Kept below half the queue consumer's `max_concurrency`
   * (1 of 4 by default), so no two accounts can fill every consumer with attempts of up to 600 s.
   */
  runningJobs: number;
  /**
   * Refunded browser time an account may have in the last hour (`ACCOUNT_REFUNDED_BROWSER_SECONDS_PER_HOUR`) before
   * its two bounds above drop to a quarter (src/limits/refunded-browser-time.ts).
   */
  refundedBrowserSecondsPerHour: number;
  /** Requests a minute per API key (`KEY_REQUESTS_PER_MINUTE`): scrapes, job submissions, `/account`, job listing. */
  keyRequestsPerMinute: number;
  /** Requests a minute of all the account's keys together (`ACCOUNT_REQUESTS_PER_MINUTE`): more keys buy no more. */
  accountRequestsPerMinute: number;
}

/** Bounds of every requests-per-minute value, the defaults' and an operator's (migrations/0009 checks the same). */
export const REQUESTS_PER_MINUTE_RANGE = { min: 1, max: 100_000 } as const;
/** Bounds of the synchronous requests one account may have in flight. */
export const CONCURRENT_REQUESTS_RANGE = { min: 1, max: 1000 } as const;

function integerVar(value: string | undefined, fallback: number, min: number, max: number): number {
  const parsed = Number(value);
  return value !== undefined && value !== "" && Number.isInteger(parsed) && parsed >= min && parsed <= max ? parsed : fallback;
}

/**
 * The service's defaults. The per-minute ones let a batch of 500 individual job submissions through in one go (the
 * spec's advice is "submit all jobs first, then poll"); an operator sets other values per account
 * (`PATCH /admin/accounts/{id}/limits`, src/limits/account-overrides.ts).
 */
export function accountLimits(env: Env): AccountLimits {
  const { min, max } = REQUESTS_PER_MINUTE_RANGE;
  return {
    concurrentRequests: integerVar(env.ACCOUNT_MAX_CONCURRENT_REQUESTS, 8, CONCURRENT_REQUESTS_RANGE.min, CONCURRENT_REQUESTS_RANGE.max),
    runningJobs: integerVar(env.ACCOUNT_MAX_RUNNING_JOBS, DEFAULT_RUNNING_JOBS, 1, 1000),
    refundedBrowserSecondsPerHour: integerVar(
      env.ACCOUNT_REFUNDED_BROWSER_SECONDS_PER_HOUR,
      DEFAULT_REFUNDED_BROWSER_SECONDS_PER_HOUR,
      REFUNDED_BROWSER_SECONDS_RANGE.min,
      REFUNDED_BROWSER_SECONDS_RANGE.max,
    ),
    keyRequestsPerMinute: integerVar(env.KEY_REQUESTS_PER_MINUTE, 600, min, max),
    accountRequestsPerMinute: integerVar(env.ACCOUNT_REQUESTS_PER_MINUTE, 1200, min, max),
  };
}
