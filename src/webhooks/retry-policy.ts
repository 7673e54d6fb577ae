/**
 * When a failed delivery is tried again. With the default base of 5 s the retries come 5 s, 15 s, 1 min, 5 min,
 * 30 min, 1 h, 3 h and 6 h after each failure: 9 attempts, the last about 10 h 36 min after the first failed
 * (`retrySpanMs`), well inside the job's 24-hour retention (the message is rebuilt from the job's record, which is
 * then deleted).
 */
const BACKOFF_MULTIPLIERS = [1, 3, 12, 60, 360, 720, 2160, 4320] as const;

export const MAX_DELIVERY_ATTEMPTS = BACKOFF_MULTIPLIERS.length + 1;

/** Delay before the attempt that follows failed attempt `attempt` (1-based), or null when no attempt is left. */
export function retryDelayMs(attempt: number, baseSeconds: number): number | null {
  const multiplier = BACKOFF_MULTIPLIERS[attempt - 1];
  return multiplier === undefined ? null : multiplier * baseSeconds * 1000;
}

/** From the first failed attempt to the last retry: what a page says about how long a failing endpoint is retried. */
export function retrySpanMs(baseSeconds: number): number {
  return BACKOFF_MULTIPLIERS.reduce((total, multiplier) => total + multiplier * baseSeconds * 1000, 0);
}
