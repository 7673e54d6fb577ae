/**
 * Batch submission: up to 500 jobs of one scraper in one request, charged all at once or not at all. The order makes
 * every step safe to repeat for the same batch id (what an Idempotency-Key retry of an interrupted submission does):
 * the batch row with its job ids → one atomic charge for all of them → their index rows → their Durable Objects →
 * their queue messages → `accepted`. If the jobs cannot be created, every job is failed and refunded and the caller
 * gets a 503; a queue chunk that cannot be sent fails (and refunds) only its own jobs. Every job keeps the id of the
 * request that created the batch, and the request lands in the account's request log (src/accounts/request-log.ts).
 */
import { evidenceRequestFor } from "../evidence/account-evidence";
import { getAccount } from "../accounts/accounts";
import { type RequestOrigin, withRequestLog } from "../accounts/request-log";
import type { AuthenticatedKey } from "../auth/api-keys";
import { CREDITS_PER_REQUEST, chargeBatchCredits, refundCredits } from "../credits/ledger";
import { ServiceError } from "../errors";
import { requireProvider } from "../pipeline/pipeline";
import type { BatchRequest } from "./batch-request";
import { acceptBatch, discardBatch, loadBatch, markBatchJobsFailed, openBatch } from "./batch-store";
import { parseIdempotencyKey, requestFingerprint, withIdempotencyKey } from "./idempotency";
import { recordBatchJobs } from "./jobs-table";
import { jobStub } from "./job-record";
import { newJobMessage } from "./job-message";
import { logLine, type LogSubject, requestSubject } from "../util/log-line";

const BATCH_FAILED_DETAIL = "The batch could not be queued; no credits were charged. Retry shortly.";
const UNQUEUED_JOB_ERROR = "The job could not be queued.";
/** Longer than a 500-item submission takes; a claim older than this belongs to a request that died. */
const BATCH_CLAIM_LOCK_MS = 60_000;
/** Durable Object creations in flight at once. */
const CREATE_CONCURRENCY = 25;
/** Queues take at most 100 messages per sendBatch. */
const SEND_CHUNK = 100;

interface SubmittedBatch {
  batchId: string;
  jobIds: string[];
  creditsRemaining: number;
  replayed?: boolean;
  /** Jobs charged and queued by this submission (a queue chunk that could not be sent was refunded). */
  queuedJobs: number;
}

interface BatchSubmission extends BatchRequest {
  baseUrl: string;
  idempotencyKey?: string;
}

export async function submitBatch(
  env: Env,
  submission: BatchSubmission,
  key: AuthenticatedKey,
  origin: RequestOrigin,
): Promise<SubmittedBatch> {
  return withRequestLog(
    env.DB,
    origin,
    { accountId: key.accountId, keyId: key.keyId, kind: "batch", scraper: submission.scraper, itemCount: submission.items.length },
    () => submitOnce(env, submission, key, origin.requestId),
    (submitted) => {
      const replayed = submitted.replayed === true;
      return {
        batchId: submitted.batchId,
        statusCode: 202,
        outcome: replayed ? "replayed" : "queued",
        credits: replayed ? 0 : CREDITS_PER_REQUEST * submitted.queuedJobs,
      };
    },
  );
}

async function submitOnce(env: Env, submission: BatchSubmission, key: AuthenticatedKey, requestId: string): Promise<SubmittedBatch> {
  const idempotencyKey = parseIdempotencyKey(submission.idempotencyKey);
  if (idempotencyKey === undefined) return createBatch(env, submission, key, crypto.randomUUID(), requestId);
  return withIdempotencyKey(
    env.DB,
    {
      accountId: key.accountId,
      key: idempotencyKey,
      kind: "batch",
      // evidence only when an item asks, so a key used before evidence existed keeps its fingerprint
      fingerprint: await requestFingerprint("batch", {
        scraper: submission.scraper,
        items: submission.items,
        webhook_url: submission.webhookUrl,
        ...(submission.itemEvidence.every((kinds) => kinds === undefined) ? {} : { evidence: submission.itemEvidence }),
      }),
      newResourceId: crypto.randomUUID(),
      lockMs: BATCH_CLAIM_LOCK_MS,
      logSubject: requestSubject(requestId),
    },
    {
      run: (batchId) => createBatch(env, submission, key, batchId, requestId),
      replay: async (batchId) => {
        const batch = await loadBatch(env.DB, batchId);
        if (batch === null) throw new Error(`batch ${batchId} of a completed idempotency key is missing`);
        return { batchId, jobIds: batch.jobIds, creditsRemaining: await balanceOf(env, key.accountId), replayed: true, queuedJobs: 0 };
      },
    },
  );
}

async function balanceOf(env: Env, accountId: string): Promise<number> {
  return (await getAccount(env.DB, accountId))?.credits ?? 0;
}

/** Runs `work` over `items` with at most `limit` at a time; returns the items whose work threw (logged under `subject`). */
async function settleEach<T>(
  subject: LogSubject,
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<T[]> {
  const failed: T[] = [];
  // One iterator shared by the workers: each takes the next item synchronously, so none is taken twice.
  const queue = items.entries();
  const worker = async () => {
    for (const [index, item] of queue) {
      try {
        await work(item, index);
      } catch (error) {
        console.error(logLine(subject, "batch: a job step failed"), error);
        failed.push(item);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return failed;
}

async function createBatch(
  env: Env,
  submission: BatchSubmission,
  key: AuthenticatedKey,
  batchId: string,
  requestId: string,
): Promise<SubmittedBatch> {
  requireProvider(submission.scraper);
  const subject = requestSubject(requestId);
  const now = new Date();
  const batch = await openBatch(env.DB, {
    batchId,
    accountId: key.accountId,
    keyId: key.keyId,
    scraper: submission.scraper,
    webhookUrl: submission.webhookUrl,
    jobIds: submission.items.map(() => crypto.randomUUID()),
    createdAt: now.toISOString(),
  });
  if (batch.accountId !== key.accountId || batch.jobIds.length !== submission.items.length) {
    throw new Error(`batch ${batchId} does not match the submission resuming it`);
  }
  let creditsRemaining: number;
  // read before the charge (one read for the account: remembered), so a failure has nothing to give back
  const evidence = await Promise.all(submission.itemEvidence.map((asked) => evidenceRequestFor(env.DB, key.accountId, asked)));
  try {
    creditsRemaining = await chargeBatchCredits(env.DB, {
      accountId: key.accountId,
      operationIds: batch.jobIds,
      scraper: submission.scraper,
      keyId: key.keyId,
    });
  } catch (error) {
    await discardBatch(env.DB, batchId).catch((cause: unknown) =>
      console.error(logLine(subject, `batch ${batchId}: could not discard`), cause),
    );
    throw error;
  }
  const createdAt = Date.parse(batch.createdAt);
  const jobs = submission.items.map((params, index) => {
    const jobId = batch.jobIds[index];
    if (jobId === undefined) throw new Error(`batch ${batchId} has no job id for item ${index}`);
    return { jobId, index, params };
  });
  try {
    await recordBatchJobs(
      env.DB,
      { batchId, accountId: key.accountId, keyId: key.keyId, scraper: submission.scraper, createdAt: batch.createdAt, requestId },
      jobs.map((job) => ({ jobId: job.jobId, batchIndex: job.index })),
    );
  } catch (cause) {
    await refundAll(env, subject, key.accountId, batch.jobIds);
    throw new ServiceError(503, BATCH_FAILED_DETAIL, { code: "service_unavailable", retryable: true, retryAfterSeconds: 5, cause });
  }
  const notCreated = await settleEach(subject, jobs, CREATE_CONCURRENCY, async (job) => {
    await jobStub(env, job.jobId).create({
      jobId: job.jobId,
      scraper: submission.scraper,
      params: job.params,
      accountId: key.accountId,
      keyId: key.keyId,
      baseUrl: submission.baseUrl,
      createdAt,
      requestId,
      batchId,
      webhookUrl: submission.webhookUrl,
      evidence: evidence[job.index],
    });
  });
  if (notCreated.length > 0) {
    await abandonJobs(env, subject, key.accountId, batch.jobIds, "The batch could not be created.");
    await markBatchJobsFailed(env.DB, batchId, new Date()).catch((cause: unknown) =>
      console.error(logLine(subject, `batch ${batchId}: index`), cause),
    );
    throw new ServiceError(503, BATCH_FAILED_DETAIL, { code: "service_unavailable", retryable: true, retryAfterSeconds: 5 });
  }
  const chunks: string[][] = [];
  for (let start = 0; start < batch.jobIds.length; start += SEND_CHUNK) chunks.push(batch.jobIds.slice(start, start + SEND_CHUNK));
  const unsent = await settleEach(subject, chunks, 1, async (chunk) => {
    const messages = chunk.map((jobId) => ({ body: newJobMessage(jobId) }));
    // One retry: a chunk is all-or-nothing, and its jobs are failed (and refunded) if it cannot be sent.
    await env.JOBS.sendBatch(messages).catch(() => env.JOBS.sendBatch(messages));
  });
  if (unsent.length > 0) {
    await abandonJobs(env, subject, key.accountId, unsent.flat(), UNQUEUED_JOB_ERROR);
    creditsRemaining = await balanceOf(env, key.accountId);
  }
  await acceptBatch(env.DB, batchId);
  return { batchId, jobIds: batch.jobIds, creditsRemaining, queuedJobs: batch.jobIds.length - unsent.flat().length };
}

async function refundAll(env: Env, subject: LogSubject, accountId: string, jobIds: readonly string[]): Promise<void> {
  await settleEach(subject, jobIds, CREATE_CONCURRENCY, async (jobId) => {
    await refundCredits(env.DB, accountId, jobId, "batch could not be created");
  });
}

/** Fails every given job that exists (its object refunds it) and refunds those that do not (refunds happen once). */
async function abandonJobs(env: Env, subject: LogSubject, accountId: string, jobIds: readonly string[], error: string): Promise<void> {
  await settleEach(subject, jobIds, CREATE_CONCURRENCY, async (jobId) => {
    await jobStub(env, jobId)
      .fail(error)
      .catch((cause: unknown) => console.error(logLine(subject, `batch job ${jobId}: could not be failed`), cause));
    await refundCredits(env.DB, accountId, jobId, "job could not be queued");
  });
}
