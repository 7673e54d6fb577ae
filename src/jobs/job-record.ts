/**
 * One Durable Object per job: the job's record, its state transitions, its refund, its watchdog, its webhook and its
 * 24-hour retention. Every transition happens here, one request at a time, so a duplicated or redelivered queue
 * message can never complete a job twice or refund it twice (the ledger's unique index is a second guard for the
 * refund). When the job ends, its status is written to the D1 jobs index (for GET /jobs and batches) and its webhook
 * message, if the account or batch has an endpoint, is delivered by this object's alarm (src/webhooks/job-delivery.ts).
 */
import type { EvidenceView } from "../evidence/evidence-store";
import { DurableObject } from "cloudflare:workers";
import { refundCredits } from "../credits/ledger";
import { abandonDelivery, advanceDelivery, deliveryDueAt, startDelivery } from "../webhooks/job-delivery";
import { hasAttemptsLeft } from "./job-attempts";
import { recordTerminalStatus } from "./jobs-table";
import { JOB_RETENTION_MS, LEASE_WITHOUT_HEARTBEAT_MS, attemptLeaseMs, retryBaseSeconds, watchdogBoundMs } from "./job-policy";
import type { AttemptDecision, JobRecordState, JobView, RecoveryDecision } from "./job-types";
import { toJobView } from "./job-view";
import { jobSubject, logLine, type LogSubject } from "../util/log-line";

const RECORD_KEY = "record";
/** How soon a refund or a write of the terminal status to the D1 index that failed is tried again. */
const D1_RETRY_MS = 30_000;
export const WATCHDOG_ERROR = "The job could not be completed in time (its attempts stopped reporting). Credits were restored.";
export const INTERRUPTED_ERROR = "The job could not be completed: its attempts were interrupted. Credits were restored.";

type NewJob = Pick<JobRecordState, "jobId" | "scraper" | "params" | "accountId" | "keyId" | "baseUrl" | "createdAt" | "requestId"> &
  Partial<Pick<JobRecordState, "batchId" | "webhookUrl" | "evidence">>;

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
    if (existing !== undefined) return toJobView(existing);
    const record: JobRecordState = {
      ...job,
      batchId: job.batchId ?? null,
      webhookUrl: job.webhookUrl ?? null,
      indexSynced: true,
      webhook: null,
      status: "pending",
      result: null,
      error: null,
      completedAt: null,
      attempts: 0,
      leaseExpiresAt: null,
      leaseStartedAt: null,
      nextDeliveryAt: job.createdAt,
      recoveredAt: null,
      lastError: null,
    };
    this.save(record);
    await this.scheduleAlarm(record);
    return toJobView(record);
  }

  async view(): Promise<JobView | null> {
    const record = this.load();
    if (record === undefined || Date.now() >= record.createdAt + JOB_RETENTION_MS) return null;
    return toJobView(record);
  }

  /** The view with the request behind it (parameters, never holding the key, and the key's id), for the account's dashboard. */
  async ownerView(): Promise<{ view: JobView; params: JobRecordState["params"]; keyId: string } | null> {
    const record = this.load();
    if (record === undefined || Date.now() >= record.createdAt + JOB_RETENTION_MS) return null;
    return { view: toJobView(record), params: record.params, keyId: record.keyId };
  }

  /** Called by the consumer before it scrapes: says whether this delivery should do the work, and leases it. */
  async beginAttempt(now = Date.now()): Promise<AttemptDecision> {
    const record = this.load();
    if (record === undefined) return { run: false, reason: "missing" };
    if (record.status !== "pending") return { run: false, reason: "terminal" };
    if (record.leaseExpiresAt !== null && record.leaseExpiresAt > now) {
      return { run: false, reason: "leased", retryInSeconds: Math.ceil((record.leaseExpiresAt - now) / 1000) };
    }
    if (!hasAttemptsLeft(record.attempts)) {
      // Every attempt was used and the last one never reported (its worker died): no fifth one.
      await this.fail(record.lastError ?? INTERRUPTED_ERROR);
      return { run: false, reason: "terminal" };
    }
    record.attempts += 1;
    record.leaseStartedAt = now;
    record.leaseExpiresAt = now + Math.min(LEASE_WITHOUT_HEARTBEAT_MS, attemptLeaseMs(record.params.timeout));
    this.save(record);
    return { run: true, record };
  }

  /**
   * The running attempt `attempt` is alive: its lease is renewed, never beyond its timeout plus the grace period. False
   * when the lease is no longer its own (it lapsed, or recovery handed the job to a new delivery): it should stop.
   */
  async heartbeat(attempt: number, now = Date.now()): Promise<boolean> {
    const record = this.load();
    if (record === undefined || record.status !== "pending" || record.attempts !== attempt) return false;
    if (record.leaseExpiresAt === null || record.leaseExpiresAt <= now) return false;
    const startedAt = record.leaseStartedAt ?? now;
    record.leaseExpiresAt = Math.max(
      record.leaseExpiresAt,
      Math.min(now + LEASE_WITHOUT_HEARTBEAT_MS, startedAt + attemptLeaseMs(record.params.timeout)),
    );
    this.save(record);
    return true;
  }

  /** A failed attempt that will be retried after `retryInSeconds`: release the lease and remember the error. */
  async releaseAttempt(error: string, retryInSeconds = 0, now = Date.now()): Promise<void> {
    const record = this.load();
    if (record === undefined || record.status !== "pending") return;
    record.leaseExpiresAt = null;
    record.leaseStartedAt = null;
    record.nextDeliveryAt = now + retryInSeconds * 1000;
    record.lastError = error;
    this.save(record);
  }

  /**
   * Recovery's question (./recovery.ts): has this pending job lost its queue message? Yes when the attempt holding its
   * lease died (the lease lapsed without heartbeats, or it began before `restartedAt`, a restart of the whole stack), or
   * when no attempt started within `stallMs` of its due delivery (or of recovery's last message) and its account is not
   * busy with other attempts (its jobs then wait their turn, which is no sign of a lost message). When the answer is
   * yes the dead lease is dropped and the time noted, so the next sweep waits `stallMs` again before sending another.
   */
  async recoveryCheck(
    options: { stallMs: number; restartedAt: number | null; accountBusy: boolean },
    now = Date.now(),
  ): Promise<RecoveryDecision> {
    const record = this.load();
    if (record === undefined || record.status !== "pending") return { requeue: false };
    const { restartedAt } = options;
    let decision: RecoveryDecision = { requeue: false };
    if (record.leaseExpiresAt !== null) {
      const startedAt = record.leaseStartedAt ?? null;
      const diedInRestart = restartedAt !== null && startedAt !== null && startedAt < restartedAt;
      if (record.leaseExpiresAt > now && !diedInRestart) return { requeue: false };
      decision = { requeue: true, reason: "dead_attempt", deadAttemptStartedAt: startedAt };
    } else {
      const dueAt = Math.max(record.nextDeliveryAt ?? record.createdAt, record.recoveredAt ?? 0);
      const lostInRestart = restartedAt !== null && dueAt < restartedAt;
      if (!lostInRestart && (options.accountBusy || now - dueAt < options.stallMs)) return { requeue: false };
      decision = { requeue: true, reason: "no_delivery", deadAttemptStartedAt: null };
    }
    record.leaseExpiresAt = null;
    record.leaseStartedAt = null;
    record.recoveredAt = now;
    this.save(record);
    return decision;
  }

  /** pending → done. Returns false when the job was already terminal (the result is then discarded). */
  async complete(result: Record<string, unknown>): Promise<boolean> {
    const record = this.load();
    if (record === undefined || record.status !== "pending") return false;
    Object.assign(record, { status: "done", result, completedAt: Date.now(), leaseExpiresAt: null });
    this.save(record);
    await this.afterEnd(record);
    return true;
  }

  /** pending → failed, with the credits restored exactly once. Returns false when the job was already terminal. */
  async fail(error: string, failureEvidence: EvidenceView | null = null): Promise<boolean> {
    const record = this.load();
    if (record === undefined || record.status !== "pending") return false;
    Object.assign(record, { status: "failed", error, failureEvidence, completedAt: Date.now(), leaseExpiresAt: null, refundPending: true });
    this.save(record);
    record.refundPending = !(await this.refund(record));
    await this.afterEnd(record);
    return true;
  }

  /** Restores the job's credits (at most once: the ledger's unique index); false when D1 failed and the alarm must retry. */
  private async refund(record: JobRecordState): Promise<boolean> {
    try {
      await refundCredits(this.env.DB, record.accountId, record.jobId, "job failed");
      return true;
    } catch (error) {
      console.error(logLine(subjectOf(record), "the refund failed; retrying"), error);
      return false;
    }
  }

  /** What follows a job's end: its status in the D1 index, and its webhook, whose first step the alarm takes at once. */
  private async afterEnd(record: JobRecordState): Promise<void> {
    record.webhook = startDelivery(record.jobId, Date.now());
    record.indexSynced = await this.syncIndex(record);
    this.save(record);
    await this.scheduleAlarm(record);
  }

  private async syncIndex(record: JobRecordState): Promise<boolean> {
    if (record.status === "pending" || record.completedAt === null) return true;
    try {
      await recordTerminalStatus(this.env.DB, record.jobId, record.status, record.completedAt);
      return true;
    } catch (error) {
      console.error(logLine(subjectOf(record), "could not write its status to the jobs index; retrying"), error);
      return false;
    }
  }

  /** The watchdog while pending; once ended, the index write and the webhook steps that are due; the 24-hour deletion. */
  override async alarm(): Promise<void> {
    const record = this.load();
    if (record === undefined) return;
    const now = Date.now();
    const retentionEndsAt = record.createdAt + JOB_RETENTION_MS;
    if (now >= retentionEndsAt) {
      await abandonDelivery(this.env, record, record.webhook);
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      return;
    }
    if (record.status === "pending") {
      if (now >= record.createdAt + watchdogBoundMs(record.params.timeout, retryBaseSeconds(this.env))) {
        await this.fail(WATCHDOG_ERROR);
        return;
      }
    } else {
      if (record.refundPending === true) record.refundPending = !(await this.refund(record));
      if (record.indexSynced === false) record.indexSynced = await this.syncIndex(record);
      if (record.webhook !== null && record.webhook !== undefined) {
        record.webhook = await advanceDelivery(this.env, record, record.webhook, now, retentionEndsAt);
      }
      this.save(record);
    }
    await this.scheduleAlarm(record);
  }

  private async scheduleAlarm(record: JobRecordState): Promise<void> {
    const times = [record.createdAt + JOB_RETENTION_MS];
    if (record.status === "pending") {
      times.push(record.createdAt + watchdogBoundMs(record.params.timeout, retryBaseSeconds(this.env)));
    } else {
      if (record.indexSynced === false || record.refundPending === true) times.push(Date.now() + D1_RETRY_MS);
      const delivery = deliveryDueAt(record.webhook);
      if (delivery !== null) times.push(delivery);
    }
    await this.ctx.storage.setAlarm(Math.min(...times));
  }
}

/** The job's log lines start with the request that created it and the job's id. */
function subjectOf(record: JobRecordState): LogSubject {
  return jobSubject(record.requestId ?? null, record.jobId);
}

export function jobStub(env: Env, jobId: string): DurableObjectStub<JobRecord> {
  return env.JOB.get(env.JOB.idFromName(jobId)) as DurableObjectStub<JobRecord>;
}
