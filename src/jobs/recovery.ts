/**
 * Recovery of jobs whose queue message was lost. A job's Durable Object is its source of truth and survives anything;
 * its queue message does not always: a consumer that dies mid-attempt (a crash, the local stack stopped) takes the
 * message with it, and a stopped `wrangler dev` forgets its queue. Without recovery such a job stays pending until
 * its watchdog (about 26 minutes) fails it.
 *
 * The sweep reads the pending jobs of the D1 jobs index, fairly across accounts (the oldest few of every account, not
 * the oldest of all: one account's backlog of thousands must not hide another account's lost job), and asks each job's object whether it lost its message
 * (`JobRecord.recoveryCheck`): the attempt holding its lease stopped sending heartbeats, or no attempt started within
 * RECOVERY_STALL_MS of the delivery that was due. Such a job gets a new message. Sending one is always safe: a delivery
 * runs only with the object's lease, so a duplicate of a live message does no work, and the job's charge and refund are
 * single transitions of its object, backed by the ledger's unique (operation_id, kind).
 *
 * It runs from the Cron Trigger every minute, and at once after a restart (`POST /admin/jobs/recover` with the time
 * the stack started, called by `npm start`): then every attempt that began before the restart is dead and every
 * message sent before it may be gone, so those jobs are sent again without waiting.
 */
import { JOB_RETENTION_MS, RECOVERY_STALL_MS } from "./job-policy";
import { jobStub } from "./job-record";
import { newJobMessage } from "./job-message";
import type { RecoveryDecision } from "./job-types";
import { logLine, serviceSubject } from "../util/log-line";

/** Jobs looked at per sweep; a larger backlog is taken by the next sweeps. */
export const RECOVERY_BATCH_LIMIT = 500;
/**
 * Jobs of one account looked at per sweep (its oldest pending ones). Every account with pending jobs gets its first
 * job looked at before any account gets its second, and so on, up to RECOVERY_BATCH_LIMIT.
 */
const RECOVERY_JOBS_PER_ACCOUNT = 50;
/** What the sweep's log lines are about: no request asked for it. */
const RECOVERY_SUBJECT = serviceSubject("job recovery");
/** Job objects asked at once. */
const CHECK_CONCURRENCY = 8;
/** Queue `sendBatch` takes at most 100 messages. */
const SEND_CHUNK = 100;

interface RecoveryOptions {
  /** When the stack (re)started: attempts that began before it are dead and messages sent before it may be gone. */
  restartedAt?: number | null;
  now?: number;
}

interface RecoveryReport {
  /** Pending jobs looked at. */
  checked: number;
  /** Jobs sent a new queue message, by why. */
  requeued: number;
  deadAttempts: number;
  missingDeliveries: number;
  /** Account slots held by attempts that no longer run, given back. */
  slotsReleased: number;
}

interface PendingJob {
  jobId: string;
  accountId: string;
}

/**
 * The pending jobs to look at, round-robin across accounts: each account's oldest first, then each account's second
 * oldest, and so on (at most RECOVERY_JOBS_PER_ACCOUNT per account). Index `jobs_pending_account` (migrations/0014)
 * serves the per-account order.
 */
async function pendingJobs(db: D1Database, now: number): Promise<PendingJob[]> {
  const { results } = await db
    .prepare(
      `SELECT job_id, account_id FROM (
         SELECT job_id, account_id, created_at,
           ROW_NUMBER() OVER (PARTITION BY account_id ORDER BY created_at) AS position
         FROM jobs WHERE status = 'pending' AND created_at >= ?1
       ) WHERE position <= ?2 ORDER BY position, created_at LIMIT ?3`,
    )
    .bind(new Date(now - JOB_RETENTION_MS).toISOString(), RECOVERY_JOBS_PER_ACCOUNT, RECOVERY_BATCH_LIMIT)
    .all<{ job_id: string; account_id: string }>();
  return results.map((row) => ({ jobId: row.job_id, accountId: row.account_id }));
}

/** Accounts with a job attempt holding a slot now: their other jobs are waiting their turn, not lost. */
async function accountsRunningJobs(db: D1Database, now: number): Promise<Set<string>> {
  const { results } = await db
    .prepare("SELECT DISTINCT account_id FROM account_slots WHERE kind = 'job' AND released_at IS NULL AND expires_at > ?")
    .bind(now)
    .all<{ account_id: string }>();
  return new Set(results.map((row) => row.account_id));
}

/**
 * After a restart nothing that held an account slot before it still runs: give those slots back (a request's row is
 * deleted, a job attempt's row is kept, released, for the recent-share window of fair turns).
 */
async function releaseSlotsBefore(db: D1Database, restartedAt: number, now: number): Promise<number> {
  const [requests, jobs] = await db.batch([
    db.prepare("DELETE FROM account_slots WHERE kind = 'request' AND acquired_at < ?").bind(restartedAt),
    db
      .prepare("UPDATE account_slots SET released_at = ? WHERE kind = 'job' AND released_at IS NULL AND acquired_at < ?")
      .bind(now, restartedAt),
  ]);
  return (requests?.meta.changes ?? 0) + (jobs?.meta.changes ?? 0);
}

/** The slot of a job's dead attempt (taken just before the attempt began), so its account can run its other jobs. */
async function releaseDeadAttemptSlots(db: D1Database, jobId: string, startedAt: number, now: number): Promise<number> {
  const result = await db
    .prepare("UPDATE account_slots SET released_at = ? WHERE job_id = ? AND kind = 'job' AND released_at IS NULL AND acquired_at <= ?")
    .bind(now, jobId, startedAt)
    .run();
  return result.meta.changes;
}

async function eachJobWithLimit(jobs: readonly PendingJob[], limit: number, work: (job: PendingJob) => Promise<void>): Promise<void> {
  const queue = jobs.values();
  const worker = async () => {
    for (const job of queue) {
      try {
        await work(job);
      } catch (error) {
        console.error(logLine(RECOVERY_SUBJECT, `job ${job.jobId} could not be checked`), error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
}

/** One sweep: finds the pending jobs that lost their queue message and sends each a new one. */
export async function recoverJobs(env: Env, options: RecoveryOptions = {}): Promise<RecoveryReport> {
  const now = options.now ?? Date.now();
  const restartedAt = options.restartedAt ?? null;
  const report: RecoveryReport = { checked: 0, requeued: 0, deadAttempts: 0, missingDeliveries: 0, slotsReleased: 0 };
  if (restartedAt !== null) report.slotsReleased += await releaseSlotsBefore(env.DB, restartedAt, now);
  const [jobs, busyAccounts] = await Promise.all([pendingJobs(env.DB, now), accountsRunningJobs(env.DB, now)]);
  const lost: string[] = [];
  await eachJobWithLimit(jobs, CHECK_CONCURRENCY, async (job) => {
    report.checked += 1;
    // RPC results are structured clones of the declared type.
    const decision = (await jobStub(env, job.jobId).recoveryCheck(
      { stallMs: RECOVERY_STALL_MS, restartedAt, accountBusy: busyAccounts.has(job.accountId) },
      now,
    )) as RecoveryDecision;
    if (!decision.requeue) return;
    if (decision.reason === "dead_attempt") report.deadAttempts += 1;
    else report.missingDeliveries += 1;
    if (decision.deadAttemptStartedAt !== null) {
      report.slotsReleased += await releaseDeadAttemptSlots(env.DB, job.jobId, decision.deadAttemptStartedAt, now);
    }
    lost.push(job.jobId);
  });
  for (let start = 0; start < lost.length; start += SEND_CHUNK) {
    const chunk = lost.slice(start, start + SEND_CHUNK);
    await env.JOBS.sendBatch(chunk.map((jobId) => ({ body: newJobMessage(jobId) })));
    report.requeued += chunk.length;
  }
  if (report.requeued > 0 || report.slotsReleased > 0) console.log(logLine(RECOVERY_SUBJECT, JSON.stringify(report)));
  return report;
}
