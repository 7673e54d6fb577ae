/**
 * An isolate's local allowance of requests per API key: the per-key and per-account limits are counted by the
 * account's RequestRateLimiter Durable Object (src/limits/request-rate-limiter.ts), but an isolate asks it for a small
 * lease of requests at once and spends the lease without a round trip, so a busy key costs one call to the object per
 * lease instead of one per request (docs/cache-path.md has the figures).
 *
 * What stays exact, and what it costs:
 * - Never more than the limit: every request admitted here was counted by the object first (as part of a lease).
 * - A lease is five seconds' worth of the smaller limit at most (and at most MAX_LEASE requests); a key limited to under
 *   24 a minute, or one used once in a while, is still admitted one request at a time. An isolate asks for twice its
 *   last lease only when it spent that lease within LEASE_MS, and for what it spent otherwise, and never for fewer
 *   than the requests waiting for it: a burst gets one lease for all of them, not doubling waves (which would let the
 *   burst's first requests finish, and free their slots, before its last ones arrive).
 * - A lease expires after LEASE_MS: what is left of it is given back with the isolate's next lease (the object then
 *   counts it as never made). An isolate that goes away keeps its unspent requests counted until the window refills
 *   them (under a minute): other isolates may be refused early by at most one lease per isolate, never admitted more.
 * - After an operator lowers a limit, a lease granted before may still be spent: at most one lease, for at most
 *   LEASE_MS, per isolate and key.
 */
import type { RateDecision, UnspentLease } from "./rate-lease";

/** How long an isolate may spend a lease. */
export const LEASE_MS = 1_000;
/** Past this many keys, the allowances with nothing left to spend are forgotten. */
const ALLOWANCES_BEFORE_SWEEP = 1_000;

/** Asks the object for up to `wanted` requests, giving back `unspent` ones of the previous lease. */
export type LeaseRequest = (wanted: number, unspent: UnspentLease | null) => Promise<RateDecision>;

export type Admission = { admitted: true } | { admitted: false; scope: "key" | "account"; retryAfterSeconds: number };

const ADMITTED: Admission = { admitted: true };

interface Allowance {
  /** Requests of the current lease not spent yet. */
  left: number;
  /** Size of the current (or last) lease; 0 after a refusal. */
  granted: number;
  ratesVersion: number;
  expiresAt: number;
  /** The lease being asked for: every request of this key that finds nothing left waits for it. */
  refill: Promise<Admission> | null;
  /** Requests of this key waiting for a lease now: a burst asks for all of them at once, not in doubling waves. */
  waiting: number;
}

export class RateAllowances {
  private readonly byKey = new Map<string, Allowance>();

  constructor(private readonly clock: () => number = Date.now) {}

  /**
   * Admits one request of `keyId` from the local allowance, asking for a new lease when it is spent or expired.
   * Rejects when the lease request fails (the caller decides what an unreachable limiter means).
   */
  async admit(keyId: string, lease: LeaseRequest): Promise<Admission> {
    const allowance = this.allowanceOf(keyId);
    if (this.take(allowance)) return ADMITTED;
    // counted as waiting until it is admitted or refused, so every lease asked for meanwhile includes it
    allowance.waiting += 1;
    try {
      for (;;) {
        allowance.refill ??= this.refill(allowance, lease).finally(() => {
          allowance.refill = null;
        });
        const outcome = await allowance.refill;
        // Refused: no request fits now, for any of the waiters. Granted: take one (others waiting may have taken them all).
        if (!outcome.admitted) return outcome;
        if (this.take(allowance)) return ADMITTED;
      }
    } finally {
      allowance.waiting -= 1;
    }
  }

  private take(allowance: Allowance): boolean {
    if (allowance.left <= 0 || this.clock() >= allowance.expiresAt) return false;
    allowance.left -= 1;
    return true;
  }

  /** Requests of `keyId` this isolate may still spend without asking (for tests and the operator's curiosity). */
  unspent(keyId: string): number {
    const allowance = this.byKey.get(keyId);
    return allowance !== undefined && this.clock() < allowance.expiresAt ? allowance.left : 0;
  }

  private async refill(allowance: Allowance, lease: LeaseRequest): Promise<Admission> {
    const expired = this.clock() >= allowance.expiresAt;
    const unspent = allowance.left > 0 ? { count: allowance.left, ratesVersion: allowance.ratesVersion } : null;
    // A lease spent before it expired means a busy key: twice as much. Otherwise what was spent of it.
    const spentOrDoubled = expired ? allowance.granted - allowance.left : allowance.granted * 2;
    // the requests already waiting for this lease are asked for too (the object caps the lease)
    const wanted = Math.max(1, spentOrDoubled, allowance.waiting);
    allowance.left = 0;
    allowance.granted = 0;
    const decision = await lease(wanted, unspent);
    if (!decision.admitted) return { admitted: false, scope: decision.scope, retryAfterSeconds: decision.retryAfterSeconds };
    allowance.left = decision.granted;
    allowance.granted = decision.granted;
    allowance.ratesVersion = decision.ratesVersion;
    allowance.expiresAt = this.clock() + LEASE_MS;
    return ADMITTED;
  }

  private allowanceOf(keyId: string): Allowance {
    const known = this.byKey.get(keyId);
    if (known !== undefined) return known;
    if (this.byKey.size >= ALLOWANCES_BEFORE_SWEEP) this.sweep();
    const fresh: Allowance = { left: 0, granted: 0, ratesVersion: 0, expiresAt: 0, refill: null, waiting: 0 };
    this.byKey.set(keyId, fresh);
    return fresh;
  }

  /** Forgets allowances that are expired and not being refilled (what they had left is counted until it refills). */
  private sweep(): void {
    const now = this.clock();
    for (const [keyId, allowance] of this.byKey)
      if (allowance.refill === null && allowance.waiting === 0 && now >= allowance.expiresAt) this.byKey.delete(keyId);
  }
}
