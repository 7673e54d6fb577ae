/**
 * The requests-per-minute limits of one account, one Durable Object per account: every request with one of its keys
 * asks `admit` here before any other work. The Workers rate-limiting binding has one fixed limit per binding; this
 * object applies the account's own values (set by the operator, src/limits/account-overrides.ts), counts exactly
 * (one instance per account worldwide, not per Cloudflare location) and knows when the next request fits, which is
 * what `Retry-After` says.
 *
 * Counters live in memory only. They are GCRA counters (src/limits/rate-window.ts): a counter idle for a minute is
 * full again, and the object is only evicted after it has been idle, so what eviction forgets is, in practice,
 * nothing. Writing each request to storage would add a write to every request's path for that corner.
 */
import { DurableObject } from "cloudflare:workers";
import type { AuthenticatedKey } from "../auth/api-keys";
import { TooManyRequestsError } from "../errors";
import { accountLimits } from "./account-limits";
import { applyOverrides, readAccountOverrides } from "./account-overrides";
import { checkRate, isIdle, rescaleRate } from "./rate-window";

export const RATE_LIMIT_DETAIL = "Rate limit exceeded. Retry after a moment.";
export const ACCOUNT_RATE_LIMIT_DETAIL = "Rate limit exceeded for this account (all its API keys together). Retry after a moment.";

export interface RequestRates {
  perKey: number;
  perAccount: number;
}

export type RateDecision = { admitted: true } | { admitted: false; scope: "key" | "account"; retryAfterSeconds: number };

/** The operator's change reaches the object at once; this bounds how stale its copy can be if that push was lost. */
const RATES_REFRESH_MS = 60_000;
/** Past this many key counters, the idle ones are forgotten. */
const KEY_COUNTERS_BEFORE_SWEEP = 64;

export class RequestRateLimiter extends DurableObject<Env> {
  private readonly keyCounters = new Map<string, number>();
  private accountCounter: number | undefined;
  private rates: { value: RequestRates; loadedAt: number } | null = null;
  private loading: Promise<RequestRates> | null = null;

  /** Counts one request of `keyId` if both its key and its account are within their limits; otherwise counts nothing. */
  async admit(accountId: string, keyId: string): Promise<RateDecision> {
    const rates = await this.currentRates(accountId);
    const now = Date.now();
    const keyCheck = checkRate(this.keyCounters.get(keyId), rates.perKey, now);
    if (!keyCheck.allowed) return { admitted: false, scope: "key", retryAfterSeconds: secondsFrom(keyCheck.retryAfterMs) };
    const accountCheck = checkRate(this.accountCounter, rates.perAccount, now);
    if (!accountCheck.allowed) return { admitted: false, scope: "account", retryAfterSeconds: secondsFrom(accountCheck.retryAfterMs) };
    if (this.keyCounters.size >= KEY_COUNTERS_BEFORE_SWEEP) this.forgetIdleKeys(now);
    this.keyCounters.set(keyId, keyCheck.fullAt);
    this.accountCounter = accountCheck.fullAt;
    return { admitted: true };
  }

  /** The operator changed the account's limits: they apply from the next request, to what the counters hold now. */
  configure(rates: RequestRates): void {
    const now = Date.now();
    const previous = this.rates?.value;
    if (previous !== undefined) {
      for (const [keyId, fullAt] of this.keyCounters) this.keyCounters.set(keyId, rescaleRate(fullAt, now, previous.perKey, rates.perKey));
      if (this.accountCounter !== undefined) {
        this.accountCounter = rescaleRate(this.accountCounter, now, previous.perAccount, rates.perAccount);
      }
    }
    this.rates = { value: rates, loadedAt: now };
  }

  private async currentRates(accountId: string): Promise<RequestRates> {
    if (this.rates !== null && Date.now() - this.rates.loadedAt < RATES_REFRESH_MS) return this.rates.value;
    // One read for every request that finds the copy stale at the same moment.
    this.loading ??= this.loadRates(accountId).finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async loadRates(accountId: string): Promise<RequestRates> {
    const limits = applyOverrides(accountLimits(this.env), await readAccountOverrides(this.env.DB, accountId));
    const rates = { perKey: limits.keyRequestsPerMinute, perAccount: limits.accountRequestsPerMinute };
    this.configure(rates);
    return rates;
  }

  private forgetIdleKeys(now: number): void {
    for (const [keyId, fullAt] of this.keyCounters) if (isIdle(fullAt, now)) this.keyCounters.delete(keyId);
  }
}

/** Retry-After is whole seconds: rounded up, so a client that waits that long is admitted. */
function secondsFrom(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export function requestRateLimiterStub(env: Env, accountId: string): DurableObjectStub<RequestRateLimiter> {
  return env.REQUEST_RATE_LIMITER.get(env.REQUEST_RATE_LIMITER.idFromName(accountId));
}

/**
 * Counts a request with `key` against its key's and its account's per-minute limits, or throws the 429 (with
 * Retry-After: when the next request fits). The limiter being unreachable lets the request through: the limit is a
 * guard against bursts, and credits stay the exact bound on what an account can spend.
 */
export async function admitRequestRate(env: Env, key: Pick<AuthenticatedKey, "accountId" | "keyId">): Promise<void> {
  let decision: RateDecision;
  try {
    decision = await requestRateLimiterStub(env, key.accountId).admit(key.accountId, key.keyId);
  } catch (error) {
    console.error("The request rate limiter could not be reached; the request is let through", error);
    return;
  }
  if (decision.admitted) return;
  const detail = decision.scope === "key" ? RATE_LIMIT_DETAIL : ACCOUNT_RATE_LIMIT_DETAIL;
  throw new TooManyRequestsError(detail, decision.retryAfterSeconds, "rate_limited");
}

/** Applies new limits to the account's limiter at once (after they were stored in D1). */
export async function pushRequestRates(env: Env, accountId: string, rates: RequestRates): Promise<void> {
  await requestRateLimiterStub(env, accountId).configure(rates);
}
