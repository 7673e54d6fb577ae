/**
 * Job submission: charge at submission, create the record in the job's Durable Object, then enqueue. If the record
 * or the message cannot be created, the job is failed and refunded and the caller gets an error, never a job that
 * cannot run. With an Idempotency-Key, the same request within 24 hours answers the same job (./idempotency.ts); every
 * step below is idempotent for a given job id, which is what lets a retry finish a submission that died half-way. The
 * job keeps the id of the request that created it (its attempts' log lines start with it), and the request lands in
 * the account's request log (src/accounts/request-log.ts) after the response, accepted or refused.
 */
import { getAccount } from "../accounts/accounts";
import { type RequestOrigin, withRequestLog } from "../accounts/request-log";
import { recordSubmittedJob } from "./jobs-table";
import type { AuthenticatedKey } from "../auth/api-keys";
import { CREDITS_PER_REQUEST, refundCredits } from "../credits/ledger";
import { ServiceError } from "../errors";
import { evidenceRequestFor } from "../evidence/account-evidence";
import type { EvidenceKind } from "../evidence/evidence-kinds";
import type { ScrapeParams } from "../params/common-params";
import type { ScraperId } from "../scrapers/registry";
import { chargeScrape } from "../pipeline/charge";
import { parseIdempotencyKey, requestFingerprint, withIdempotencyKey } from "./idempotency";
import { jobStub } from "./job-record";
import { newJobMessage } from "./job-message";
import { requestSubject } from "../util/log-line";

export const ENQUEUE_FAILED_DETAIL = "The job could not be queued; no credits were charged. Retry shortly.";
/** A job submission finishes in well under a second; a claim older than this belongs to a request that died. */
const JOB_CLAIM_LOCK_MS = 30_000;

interface SubmittedJob {
  jobId: string;
  creditsRemaining: number;
  /** True when an Idempotency-Key answered an earlier submission's job (nothing was charged). */
  replayed?: boolean;
}

interface JobSubmission {
  scraper: ScraperId;
  params: ScrapeParams;
  baseUrl: string;
  /** The raw `Idempotency-Key` header, if the request had one. */
  idempotencyKey?: string;
  /** The evidence kinds the request asked for (`X-Evidence`); undefined: the account's default. */
  evidenceAsked?: readonly EvidenceKind[];
}

export async function submitJob(env: Env, submission: JobSubmission, key: AuthenticatedKey, origin: RequestOrigin): Promise<SubmittedJob> {
  return withRequestLog(
    env.DB,
    origin,
    { accountId: key.accountId, keyId: key.keyId, kind: "job", scraper: submission.scraper, itemCount: null },
    () => submitOnce(env, submission, key, origin.requestId),
    (submitted) => {
      const replayed = submitted.replayed === true;
      return {
        jobId: submitted.jobId,
        statusCode: 202,
        outcome: replayed ? "replayed" : "queued",
        credits: replayed ? 0 : CREDITS_PER_REQUEST,
      };
    },
  );
}

async function submitOnce(env: Env, submission: JobSubmission, key: AuthenticatedKey, requestId: string): Promise<SubmittedJob> {
  const idempotencyKey = parseIdempotencyKey(submission.idempotencyKey);
  // The key never rests in the job record.
  const { api_key: _apiKey, ...storedParams } = submission.params;
  const job = {
    scraper: submission.scraper,
    params: storedParams,
    baseUrl: submission.baseUrl,
    requestId,
    evidenceAsked: submission.evidenceAsked,
  };
  if (idempotencyKey === undefined) return createJob(env, job, key, crypto.randomUUID());
  return withIdempotencyKey(
    env.DB,
    {
      accountId: key.accountId,
      key: idempotencyKey,
      kind: "job",
      // evidence only when asked, so a key used before evidence existed keeps its fingerprint
      fingerprint: await requestFingerprint("job", {
        scraper: job.scraper,
        params: job.params,
        ...(job.evidenceAsked === undefined ? {} : { evidence: job.evidenceAsked }),
      }),
      newResourceId: crypto.randomUUID(),
      lockMs: JOB_CLAIM_LOCK_MS,
      logSubject: requestSubject(requestId),
    },
    {
      run: (jobId) => createJob(env, job, key, jobId),
      replay: async (jobId) => ({ jobId, creditsRemaining: (await getAccount(env.DB, key.accountId))?.credits ?? 0, replayed: true }),
    },
  );
}

async function createJob(
  env: Env,
  job: { scraper: ScraperId; params: ScrapeParams; baseUrl: string; requestId: string; evidenceAsked: readonly EvidenceKind[] | undefined },
  key: AuthenticatedKey,
  jobId: string,
): Promise<SubmittedJob> {
  // read before the charge: nothing to give back if it fails
  const evidence = await evidenceRequestFor(env.DB, key.accountId, job.evidenceAsked);
  const charged = await chargeScrape(env, job.scraper, key, jobId);
  const createdAt = Date.now();
  // The dashboard's list of jobs (Durable Objects cannot be listed); never throws.
  await recordSubmittedJob(env.DB, {
    jobId,
    accountId: charged.accountId,
    keyId: charged.keyId,
    scraper: job.scraper,
    createdAt: new Date(createdAt).toISOString(),
    requestId: job.requestId,
  });
  const stub = jobStub(env, jobId);
  try {
    await stub.create({
      jobId,
      scraper: job.scraper,
      params: job.params,
      accountId: charged.accountId,
      keyId: charged.keyId,
      baseUrl: job.baseUrl,
      createdAt,
      requestId: job.requestId,
      evidence,
    });
  } catch (cause) {
    await refundCredits(env.DB, charged.accountId, jobId, "job record could not be created");
    throw new ServiceError(503, ENQUEUE_FAILED_DETAIL, { code: "service_unavailable", retryable: true, retryAfterSeconds: 5, cause });
  }
  try {
    await env.JOBS.send(newJobMessage(jobId));
  } catch (cause) {
    await stub.fail("The job could not be queued.");
    throw new ServiceError(503, ENQUEUE_FAILED_DETAIL, { code: "service_unavailable", retryable: true, retryAfterSeconds: 5, cause });
  }
  return { jobId, creditsRemaining: charged.creditsRemaining };
}
