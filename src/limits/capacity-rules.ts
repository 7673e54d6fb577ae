/**
 * The fair-capacity rules as numbers (docs/limits.md), free of any Worker binding so the configuration tests can check
 * wrangler.toml against them.
 */

/**
 * Job attempts one account may run at once by default (`ACCOUNT_MAX_RUNNING_JOBS`): below half the queue consumer's
 * `max_concurrency` (6), so no two accounts can fill every consumer with attempts of up to 600 s.
 */
export const DEFAULT_RUNNING_JOBS = 2;

/**
 * Refunded browser time an account may have in the last hour by default (`ACCOUNT_REFUNDED_BROWSER_SECONDS_PER_HOUR`):
 * half an hour. A customer whose scrapes fail now and then never meets it, while an account holding its 8 slots with
 * time-outs (28,800 browser-seconds an hour) meets it within four minutes.
 */
export const DEFAULT_REFUNDED_BROWSER_SECONDS_PER_HOUR = 1800;
export const REFUNDED_BROWSER_SECONDS_RANGE = { min: 1, max: 1_000_000 } as const;

/** Past the budget, an account's bounds in flight drop to a quarter of its limits, at least one. */
export const REDUCED_CONCURRENCY_DIVISOR = 4;

export function reducedConcurrency(limit: number): number {
  return Math.max(1, Math.floor(limit / REDUCED_CONCURRENCY_DIVISOR));
}
