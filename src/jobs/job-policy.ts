/**
 * Numbers that bound a job's life. A job is attempted at most MAX_ATTEMPTS times (the queue's max_retries = 3);
 * the watchdog fails and refunds a job still pending after `watchdogBoundMs`, which covers every attempt running
 * to its full timeout, the retry back-offs and queue latency, so it only fires when attempts can no longer finish.
 * (MAX_ATTEMPTS and how attempts are counted: ./job-attempts.ts).
 */
import { MAX_ATTEMPTS } from "./job-attempts";

export const JOB_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Extra time an attempt may hold its lease beyond its timeout (browser start-up, page close, writes). */
const ATTEMPT_GRACE_MS = 30_000;
/** Slack for queue delivery delays between attempts. */
const QUEUE_LATENCY_ALLOWANCE_MS = 120_000;

/** The first retry's back-off in seconds (`JOB_RETRY_BASE_SECONDS`, default 5); each later one triples it. */
export function retryBaseSeconds(env: Env): number {
  const configured = Number(env.JOB_RETRY_BASE_SECONDS);
  return Number.isFinite(configured) && configured >= 0 ? configured : 5;
}

/** Back-off before the retry that follows failed attempt n (1-based): base, 3×base, 9×base (5 s, 15 s, 45 s). */
export function retryDelaySeconds(failedAttempt: number, baseSeconds: number): number {
  return baseSeconds * 3 ** Math.max(0, failedAttempt - 1);
}

/** How often a running attempt renews its lease. */
export const ATTEMPT_HEARTBEAT_MS = 10_000;
/**
 * How long a lease lasts without a heartbeat: several missed heartbeats, so a busy isolate never loses a live attempt's
 * lease, yet an attempt whose worker died (a crash, a restart of the stack) can be run again within a minute.
 */
export const LEASE_WITHOUT_HEARTBEAT_MS = 45_000;
/**
 * A job with no lease whose delivery was due this long ago, and not seen since, has lost its queue message. Longer than
 * queue latency plus the fair-turn wait for other accounts (15 turns of 2 s), so a job merely waiting is left alone.
 */
export const RECOVERY_STALL_MS = 90_000;

export function attemptLeaseMs(timeoutSeconds: number): number {
  return timeoutSeconds * 1000 + ATTEMPT_GRACE_MS;
}

export function watchdogBoundMs(timeoutSeconds: number, retryBase: number): number {
  let backoffMs = 0;
  for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1) backoffMs += retryDelaySeconds(attempt, retryBase) * 1000;
  return MAX_ATTEMPTS * attemptLeaseMs(timeoutSeconds) + backoffMs + QUEUE_LATENCY_ALLOWANCE_MS;
}
