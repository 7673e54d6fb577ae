/**
 * The counters of a country's pool and its operator view (`GET /admin/pools`): what the pool did since it was created
 * and what it holds now. A pure function of the pool's state, so reading it changes nothing (reclaiming is the alarm's).
 */
import { isoTimestamp } from "../util/time";
import type { PooledSession } from "./pool-lease-book";
import type { PoolStats } from "./pool-types";

export interface PoolCounters {
  launches: number;
  reuses: number;
  failures: number;
  discarded: number;
  reclaimed: number;
  /** Stored sessions Browser Rendering no longer had, dropped without connecting to them. */
  gone: number;
  rejectedQueueFull: number;
  displaced: number;
  rejectedWarmingUp: number;
  rejectedAtCapacity: number;
}

/** Counters as stored (an older pool may lack the newer ones: they start at zero). */
export function restoreCounters(stored: Partial<PoolCounters> | undefined): PoolCounters {
  return {
    launches: 0,
    reuses: 0,
    failures: 0,
    discarded: 0,
    reclaimed: 0,
    gone: 0,
    rejectedQueueFull: 0,
    displaced: 0,
    rejectedWarmingUp: 0,
    rejectedAtCapacity: 0,
    ...stored,
  };
}

/** The limits the view shows (a subset of the pool's settings, pool-config.ts). */
export interface PoolLimits {
  size: number;
  maxSessions: number;
  queueLimit: number;
}

export interface PoolState {
  country: string;
  limits: PoolLimits;
  sessions: readonly PooledSession[];
  /** Waiting scrapes per account. */
  queueByAccount: Record<string, number>;
  counters: PoolCounters;
}

export function poolStatsView({ country, limits, sessions, queueByAccount, counters }: PoolState): PoolStats {
  const busy = sessions.filter((session) => session.busy).length;
  return {
    country,
    size_limit: limits.size,
    max_sessions: limits.maxSessions,
    queue_limit: limits.queueLimit,
    sessions: sessions.map((session) => ({
      session_id: session.sessionId,
      provider: session.provider,
      busy: session.busy,
      domains: session.domainsKey.split(","),
      launched_at: isoTimestamp(session.launchedAt),
      uses: session.uses,
      // Internal callers lease with an empty account: the view shows no owner for them.
      account_id: session.busy && session.accountId !== "" ? session.accountId : null,
      lease_expires_at: session.busy && session.leaseExpiresAt !== null ? isoTimestamp(session.leaseExpiresAt) : null,
    })),
    busy,
    idle: sessions.length - busy,
    queue_length: Object.values(queueByAccount).reduce((total, count) => total + count, 0),
    queue_by_account: queueByAccount,
    launches: counters.launches,
    reuses: counters.reuses,
    failures: counters.failures,
    discarded: counters.discarded,
    reclaimed: counters.reclaimed,
    gone: counters.gone,
    rejected_queue_full: counters.rejectedQueueFull,
    displaced: counters.displaced,
    rejected_warming_up: counters.rejectedWarmingUp,
    rejected_at_capacity: counters.rejectedAtCapacity,
  };
}
