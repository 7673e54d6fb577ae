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
 *
 * An isolate does not ask here for every request: it takes a small lease of requests at once (`lease`) and spends it
 * locally (src/limits/rate-allowance.ts). A lease is counted here when it is granted, so the isolates together never
 * admit more than these counters allow; what an isolate did not spend it gives back with its next lease.
 */
import { DurableObject } from "cloudflare:workers";
import { accountLimits } from "./account-limits";
import { applyOverrides, readAccountOverrides } from "./account-overrides";
import type { AuthenticatedKey } from "../auth/api-keys";
import { CapacityUnavailableError, TooManyRequestsError } from "../errors";
import { type Admission, RateAllowances } from "./rate-allowance";
import type { RateDecision, UnspentLease } from "./rate-lease";
import { giveBackRate, isIdle, rescaleRate, takeRates } from "./rate-window";
import { logLine, type LogSubject } from "../util/log-line";

export const RATE_LIMIT_DETAIL = "Rate limit exceeded. Retry after a moment.";
export const ACCOUNT_RATE_LIMIT_DETAIL = "Rate limit exceeded for this account (all its API keys together). Retry after a moment.";

interface RequestRates {
  perKey: number;
  perAccount: number;
}

/** The operator's change reaches the object at once; this bounds how stale its copy can be if that push was lost. */
const RATES_REFRESH_MS = 60_000;
/** Past this many key counters, the idle ones are forgotten. */
const KEY_COUNTERS_BEFORE_SWEEP = 64;
/** The largest lease, whatever the limits: an isolate never holds more than this many requests of one key. */
const MAX_LEASE = 50;

/**
 * How many requests one lease may hold under `rates`: five seconds' worth of the smaller limit (at least 1, so at the
 * default 600 a minute per key that is 50, and a key limited to under 24 a minute is admitted one request at a time).
 * Large enough that a burst (a batch of jobs submitted at once) is admitted in two leases rather than in waves.
 */
export function leaseCap(rates: RequestRates): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(rates.perKey / 12), Math.floor(rates.perAccount / 12)));
}

export class RequestRateLimiter extends DurableObject<Env> {
  private readonly keyCounters = new Map<string, number>();
  private accountCounter: number | undefined;
  private rates: { value: RequestRates; loadedAt: number } | null = null;
  private loading: Promise<RequestRates> | null = null;
  /** Changes with every change of the limits: requests counted under other limits are not given back. */
  private ratesVersion = 0;

  /**
   * Counts up to `wanted` requests of `keyId` (at most `leaseCap`), as many as both its key's and its account's limits
   * allow, after taking back `unspent` requests of the isolate's previous lease. Counts nothing when none fits.
   */
  async lease(accountId: string, keyId: string, wanted: number, unspent: UnspentLease | null): Promise<RateDecision> {
    const rates = await this.currentRates(accountId);
    const now = Date.now();
    if (unspent !== null && unspent.ratesVersion === this.ratesVersion && unspent.count > 0) {
      const count = Math.min(unspent.count, MAX_LEASE);
      const keyCounter = giveBackRate(this.keyCounters.get(keyId), rates.perKey, now, count);
      if (keyCounter !== undefined) this.keyCounters.set(keyId, keyCounter);
      this.accountCounter = giveBackRate(this.accountCounter, rates.perAccount, now, count);
    }
    const asked = Math.max(1, Math.min(Math.floor(wanted), leaseCap(rates)));
    const taken = takeRates({ key: this.keyCounters.get(keyId), account: this.accountCounter }, rates, now, asked);
    if (!("keyFullAt" in taken)) return { admitted: false, scope: taken.scope, retryAfterSeconds: secondsFrom(taken.retryAfterMs) };
    if (this.keyCounters.size >= KEY_COUNTERS_BEFORE_SWEEP) this.forgetIdleKeys(now);
    this.keyCounters.set(keyId, taken.keyFullAt);
    this.accountCounter = taken.accountFullAt;
    return { admitted: true, granted: taken.granted, ratesVersion: this.ratesVersion };
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
    this.ratesVersion += 1;
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

/** Retry-After of the 503 when the limiter cannot be reached: a restarted object answers within seconds. */
const LIMITER_UNREACHABLE_RETRY_SECONDS = 5;

/** This isolate's leases, by key (src/limits/rate-allowance.ts). */
const allowances = new RateAllowances();

/**
 * Counts a request with `key` against its key's and its account's per-minute limits (from this isolate's lease, or a
 * new lease from the account's limiter), or throws the 429 (with Retry-After: when the next request fits). The limiter
 * being unreachable refuses the request with a 503 `capacity_unavailable` (fail closed): admitting it would let any
 * burst through unlimited for as long as the object is down, and free failures cost capacity, not credits. A request
 * within a lease this isolate was already granted is still admitted: that lease was counted by the limiter.
 */
export async function admitRequestRate(
  env: Env,
  key: Pick<AuthenticatedKey, "accountId" | "keyId">,
  logSubject?: LogSubject,
): Promise<void> {
  let decision: Admission;
  try {
    decision = await allowances.admit(key.keyId, (wanted, unspent) =>
      requestRateLimiterStub(env, key.accountId).lease(key.accountId, key.keyId, wanted, unspent),
    );
  } catch (error) {
    console.error(logLine(logSubject, "The request rate limiter could not be reached; the request is refused (503)"), error);
    throw new CapacityUnavailableError(LIMITER_UNREACHABLE_RETRY_SECONDS, error);
  }
  if (decision.admitted) return;
  const detail = decision.scope === "key" ? RATE_LIMIT_DETAIL : ACCOUNT_RATE_LIMIT_DETAIL;
  throw new TooManyRequestsError(detail, decision.retryAfterSeconds, "rate_limited");
}

/** Applies new limits to the account's limiter at once (after they were stored in D1). */
export async function pushRequestRates(env: Env, accountId: string, rates: RequestRates): Promise<void> {
  await requestRateLimiterStub(env, accountId).configure(rates);
}
