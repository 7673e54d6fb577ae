/**
 * What one account may have in flight at once (wrangler.toml vars, with these defaults when unset or invalid). The
 * browsers behind every scrape are shared by all customers; these bounds keep one customer's burst, or its stream of
 * time-outs (refunded, so free to it), from holding them for everyone else. docs/limits.md explains each value.
 */
export interface AccountLimits {
  /** Synchronous scrapes of one account running at once (`ACCOUNT_MAX_CONCURRENT_REQUESTS`); beyond it → 429. */
  concurrentRequests: number;
  /**
   * Job attempts of one account running at once (`ACCOUNT_MAX_RUNNING_JOBS`); the account's other jobs wait their
   * turn behind it, never in front of other accounts' jobs. Half the queue consumer's `max_concurrency` by default,
   * so another account's job always finds a consumer.
   */
  runningJobs: number;
}

function integerVar(value: string | undefined, fallback: number, min: number, max: number): number {
  const parsed = Number(value);
  return value !== undefined && value !== "" && Number.isInteger(parsed) && parsed >= min && parsed <= max ? parsed : fallback;
}

export function accountLimits(env: Env): AccountLimits {
  return {
    concurrentRequests: integerVar(env.ACCOUNT_MAX_CONCURRENT_REQUESTS, 8, 1, 1000),
    runningJobs: integerVar(env.ACCOUNT_MAX_RUNNING_JOBS, 2, 1, 1000),
  };
}
