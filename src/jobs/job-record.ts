/**
 * One Durable Object per job: the job's record, its state transitions, its refund, its watchdog and its 24-hour
 * retention. Every transition happens here, one request at a time, so a duplicated or redelivered queue message can
 * never complete a job twice or refund it twice (the ledger's unique index is a second guard for the refund).
 */
import { DurableObject } from "cloudflare:workers";
import { refundCredits } from "../credits/ledger";
import { isoTimestamp } from "../util/time";
import { JOB_RETENTION_MS, attemptLeaseMs, retryBaseSeconds, watchdogBoundMs } from "./job-policy";
import type { AttemptDecision, JobRecordState, JobView } from "./job-types";

const RECORD_KEY = "record";
export const WATCHDOG_ERROR = "The job could not be completed in time (its attempts stopped reporting). Credits were restored.";

export type NewJob = Pick<JobRecordState, "jobId" | "scraper" | "params" | "accountId" | "keyId" | "baseUrl" | "createdAt">;

export class JobRecord extends DurableObject<Env> {
  private load(): JobRecordState | undefined {
    return this.ctx.storage.kv.get<JobRecordState>(RECORD_KEY);
  }

  private save(record: JobRecordState): void {
    this.ctx.storage.kv.put(RECORD_KEY, record);
  }

  /** Creates the pending record (idempotent: a second call returns the existing one) and arms the alarm. */
  async create(job: NewJob): Promise<JobView> {
    const existing = this.load();
    if (existing !== undefined) return toView(existing);
    const record: JobRecordState = {
      ...job,
      status: "pending",
      result: null,
      error: null,
      completedAt: null,
      attempts: 0,
      leaseExpiresAt: null,
      lastError: null,
    };
    this.save(record);
    await this.scheduleAlarm(record);
    return toView(record);
  }

  async view(): Promise<JobView | null> {
    const record = this.load();
    if (record === undefined || Date.now() >= record.createdAt + JOB_RETENTION_MS) return null;
    return toView(record);
  }

  /** Called by the consumer before it scrapes: says whether this delivery should do the work, and leases it. */
  async beginAttempt(now = Date.now()): Promise<AttemptDecision> {
    const record = this.load();
    if (record === undefined) return { run: false, reason: "missing" };
    if (record.status !== "pending") return { run: false, reason: "terminal" };
    if (record.leaseExpiresAt !== null && record.leaseExpiresAt > now) {
      return { run: false, reason: "leased", retryInSeconds: Math.ceil((record.leaseExpiresAt - now) / 1000) };
    }
    record.attempts += 1;
    record.leaseExpiresAt = now + attemptLeaseMs(record.params.timeout);
    this.save(record);
    return { run: true, record };
  }

  /** A failed attempt that will be retried: release the lease and remember the error. */
  async releaseAttempt(error: string): Promise<void> {
    const record = this.load();
    if (record === undefined || record.status !== "pending") return;
    record.leaseExpiresAt = null;
    record.lastError = error;
    this.save(record);
  }

  /** pending → done. Returns false when the job was already terminal (the result is then discarded). */
  async complete(result: Record<string, unknown>): Promise<boolean> {
    const record = this.load();
    if (record === undefined || record.status !== "pending") return false;
    Object.assign(record, { status: "done", result, completedAt: Date.now(), leaseExpiresAt: null });
    this.save(record);
    return true;
  }

  /** pending → failed, with the credits restored exactly once. Returns false when the job was already terminal. */
  async fail(error: string): Promise<boolean> {
    const record = this.load();
    if (record === undefined || record.status !== "pending") return false;
    Object.assign(record, { status: "failed", error, completedAt: Date.now(), leaseExpiresAt: null });
    this.save(record);
    await refundCredits(this.env.DB, record.accountId, record.jobId, "job failed");
    await this.scheduleAlarm(record);
    return true;
  }

  /** The watchdog while pending, then the 24-hour deletion. */
  override async alarm(): Promise<void> {
    const record = this.load();
    if (record === undefined) return;
    const now = Date.now();
    if (now >= record.createdAt + JOB_RETENTION_MS) {
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      return;
    }
    if (record.status === "pending" && now >= record.createdAt + watchdogBoundMs(record.params.timeout, retryBaseSeconds(this.env))) {
      await this.fail(WATCHDOG_ERROR);
      return;
    }
    await this.scheduleAlarm(record);
  }

  private async scheduleAlarm(record: JobRecordState): Promise<void> {
    const deletion = record.createdAt + JOB_RETENTION_MS;
    const watchdog = record.createdAt + watchdogBoundMs(record.params.timeout, retryBaseSeconds(this.env));
    await this.ctx.storage.setAlarm(record.status === "pending" ? Math.min(watchdog, deletion) : deletion);
  }
}

function toView(record: JobRecordState): JobView {
  return {
    job_id: record.jobId,
    status: record.status,
    scraper: record.scraper,
    ...(record.status === "done" && record.result !== null ? { result: record.result } : {}),
    ...(record.status === "failed" && record.error !== null ? { error: record.error } : {}),
    created_at: isoTimestamp(record.createdAt),
    completed_at: record.completedAt === null ? null : isoTimestamp(record.completedAt),
    attempts: record.attempts,
  };
}

export function jobStub(env: Env, jobId: string): DurableObjectStub<JobRecord> {
  return env.JOB.get(env.JOB.idFromName(jobId)) as DurableObjectStub<JobRecord>;
}
