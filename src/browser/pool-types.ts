/** Messages between scrapes, a country's BrowserPool Durable Object and the global BrowserBudget. */

export interface AcquireRequest {
  /**
   * Chosen by the caller before it asks, so it can hand the lease back (`release`) or give up on it (`abandon`) even
   * when the answer to `acquire` never reaches it (the caller timed out or its request was cancelled).
   */
  leaseId: string;
  /** The account the scrape is for: waiters are served fairly between accounts. Empty for internal callers. */
  accountId: string;
  /** The provider the session is for (shown in the operator view). */
  provider: string;
  /** Hostnames this scrape needs; a session is reused only by scrapes needing the same set (guardrails). */
  allowedDomains: string[];
  /** How long the caller can wait for a busy session to free up (its remaining timeout). */
  waitMs: number;
  /** How long, from the request, the caller may hold the session before the pool assumes it died and reclaims it. */
  leaseMs: number;
}

/** `at_capacity`: the global browser budget is spent; `capacity_unavailable`: the budget could not be asked (fail closed). */
export type AcquireFailure = "queue_full" | "warming_up" | "wait_timeout" | "at_capacity" | "capacity_unavailable";

export type AcquireResult =
  | {
      ok: true;
      sessionId: string;
      reused: boolean;
      /** Pages prepared in the session before this (ms since epoch) are not to be used (`discardPreparedPages`). */
      preparedPagesSince: number;
    }
  | { ok: false; reason: AcquireFailure; retryAfterSeconds: number };

export interface PoolSessionView {
  session_id: string;
  provider: string;
  busy: boolean;
  domains: string[];
  launched_at: string;
  uses: number;
  /** The account holding the session while busy (null when idle or internal). */
  account_id: string | null;
  /** When a busy session's lease ends; the pool's alarm reclaims it then if it was not handed back. */
  lease_expires_at: string | null;
}

export interface PoolStats {
  country: string;
  /** Sessions per provider. */
  size_limit: number;
  /** Sessions in the whole country pool. */
  max_sessions: number;
  queue_limit: number;
  sessions: PoolSessionView[];
  busy: number;
  idle: number;
  queue_length: number;
  /** Waiting scrapes per account (fair queueing serves the account holding the fewest sessions first). */
  queue_by_account: Record<string, number>;
  launches: number;
  reuses: number;
  failures: number;
  discarded: number;
  /** Leases that were not handed back in time and were reclaimed by the pool's alarm. */
  reclaimed: number;
  /**
   * Sessions the pool had stored but Browser Rendering no longer had (expired after their keep-alive, or started by a
   * previous run of a local stack), dropped before any scrape connected to them.
   */
  gone: number;
  rejected_queue_full: number;
  /** Waiters of the account with the longest queue that gave their place to an account with fewer waiting. */
  displaced: number;
  rejected_warming_up: number;
  /** Launches refused by the global browser budget (nothing idle anywhere to evict). */
  rejected_at_capacity: number;
}

/**
 * What the global budget asks of a country's pool when it needs room (BrowserPool implements it): retire the longest-idle
 * session, returning its id, or null when every session there is busy. The budget reaches pools through this contract
 * alone, so that it does not import the pool that imports it.
 */
export interface IdleSessionRetirer {
  retireIdleSession(): Promise<string | null>;
}

/** The answer of the global budget to a pool that wants to launch a browser. */
export type BudgetReservation = { ok: true; reservationId: string } | { ok: false; retryAfterSeconds: number };

export interface BudgetStats {
  max_sessions: number;
  /** Live sessions the budget knows of, all countries together, plus launches in progress. */
  in_use: number;
  sessions_by_country: Record<string, number>;
  launches_in_progress: number;
  granted: number;
  /** Idle sessions retired in some country to make room for a launch in another. */
  evictions: number;
  refusals: number;
}
