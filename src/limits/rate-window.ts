/**
 * The arithmetic of a requests-per-minute limit, pure (the generic cell rate algorithm, GCRA): a limit of N a minute
 * lets N requests through at once, then one every 60/N seconds as the allowance refills. One number per counter (the
 * moment the allowance would be full again), so a refusal can say exactly when the next request fits.
 */

const MINUTE_MS = 60_000;

export type RateCheck = { allowed: true; fullAt: number } | { allowed: false; retryAfterMs: number };

/**
 * Whether one more request fits at `now` under `perMinute`, given the counter's `fullAt` (ms since epoch; undefined for
 * a counter never used). When it fits, `fullAt` is the counter's next value; the caller stores it only if it admits the
 * request, so a refused request costs the client nothing.
 */
export function checkRate(fullAt: number | undefined, perMinute: number, now: number): RateCheck {
  const spacing = MINUTE_MS / perMinute;
  const next = Math.max(fullAt ?? now, now) + spacing;
  const fitsAt = next - MINUTE_MS;
  if (fitsAt > now) return { allowed: false, retryAfterMs: fitsAt - now };
  return { allowed: true, fullAt: next };
}

/** A counter whose allowance is full again is the same as a counter never used: it can be forgotten. */
export function isIdle(fullAt: number, now: number): boolean {
  return fullAt <= now;
}

/**
 * A counter carried over to a new limit: the requests it holds stay held, each at the new limit's spacing, so raising a
 * limit frees the difference at once and lowering it does not hand out a fresh allowance.
 */
export function rescaleRate(fullAt: number, now: number, fromPerMinute: number, toPerMinute: number): number {
  if (isIdle(fullAt, now)) return fullAt;
  return now + ((fullAt - now) * fromPerMinute) / toPerMinute;
}
