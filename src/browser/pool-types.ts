/** Messages between scrapes and a country's BrowserPool Durable Object. */

export interface AcquireRequest {
  /** The provider the session is for (shown in the operator view). */
  provider: string;
  /** Hostnames this scrape needs; a session is reused only by scrapes needing the same set (guardrails). */
  allowedDomains: string[];
  /** How long the caller can wait for a busy session to free up (its remaining timeout). */
  waitMs: number;
  /** How long the caller may hold the session before the pool assumes it died and reclaims it. */
  leaseMs: number;
}

export type AcquireResult =
  | { ok: true; sessionId: string; reused: boolean }
  | { ok: false; reason: "queue_full" | "warming_up" | "wait_timeout"; retryAfterSeconds: number };

export interface PoolSessionView {
  session_id: string;
  provider: string;
  busy: boolean;
  domains: string[];
  launched_at: string;
  uses: number;
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
  launches: number;
  reuses: number;
  failures: number;
  discarded: number;
  rejected_queue_full: number;
  rejected_warming_up: number;
}
