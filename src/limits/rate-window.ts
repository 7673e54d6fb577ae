/**
 * The arithmetic of a requests-per-minute limit, pure (the generic cell rate algorithm, GCRA): a limit of N a minute
 * lets N requests through at once, then one every 60/N seconds as the allowance refills. One number per counter (the
 * moment the allowance would be full again), so a refusal can say exactly when the next request fits.
 */

const MINUTE_MS = 60_000;

type RateCheck = { allowed: true; fullAt: number } | { allowed: false; retryAfterMs: number };

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

type RateTake =
  | { granted: number; keyFullAt: number; accountFullAt: number }
  | { granted: 0; scope: "key" | "account"; retryAfterMs: number };

/**
 * Up to `wanted` requests at once against a key's and its account's counters together (a lease of an isolate's local
 * allowance, src/limits/rate-allowance.ts): as many as fit under both, request by request, exactly as that many
 * `checkRate` calls would admit them. None fitting is a refusal naming the counter that refused the first.
 */
export function takeRates(
  counters: { key: number | undefined; account: number | undefined },
  rates: { perKey: number; perAccount: number },
  now: number,
  wanted: number,
): RateTake {
  let key = counters.key;
  let account = counters.account;
  let granted = 0;
  while (granted < wanted) {
    const keyCheck = checkRate(key, rates.perKey, now);
    if (!keyCheck.allowed) {
      if (granted === 0) return { granted: 0, scope: "key", retryAfterMs: keyCheck.retryAfterMs };
      break;
    }
    const accountCheck = checkRate(account, rates.perAccount, now);
    if (!accountCheck.allowed) {
      if (granted === 0) return { granted: 0, scope: "account", retryAfterMs: accountCheck.retryAfterMs };
      break;
    }
    key = keyCheck.fullAt;
    account = accountCheck.fullAt;
    granted += 1;
  }
  return { granted, keyFullAt: key ?? now, accountFullAt: account ?? now };
}

/** A counter given back `count` requests it counted but that were never made: never below an idle (full) counter. */
export function giveBackRate(fullAt: number | undefined, perMinute: number, now: number, count: number): number | undefined {
  if (fullAt === undefined || count <= 0) return fullAt;
  return Math.max(now, fullAt - (count * MINUTE_MS) / perMinute);
}
