/**
 * Job submission: charge at submission, create the record in the job's Durable Object, then enqueue. If the record
 * or the message cannot be created, the job is failed and refunded and the caller gets an error, never a job that
 * cannot run.
 */
import { recordSubmittedJob } from "../accounts/jobs-index";
import type { AuthenticatedKey } from "../auth/api-keys";
import { refundCredits } from "../credits/ledger";
import { ServiceError } from "../errors";
import type { ScrapeParams } from "../params/common-params";
import type { ScraperId } from "../scrapers/registry";
import { authorizeScrape } from "../scrape/authorize";
import { jobStub } from "./job-record";
import type { JobMessage } from "./job-types";

export const ENQUEUE_FAILED_DETAIL = "The job could not be queued; no credits were charged. Retry shortly.";

export interface SubmittedJob {
  jobId: string;
  creditsRemaining: number;
}

export async function submitJob(
  env: Env,
  submission: { scraper: ScraperId; params: ScrapeParams; baseUrl: string },
  key: AuthenticatedKey,
): Promise<SubmittedJob> {
  const jobId = crypto.randomUUID();
  const authorized = await authorizeScrape(env, submission.scraper, key, jobId);
  // The dashboard's list of jobs (Durable Objects cannot be listed); never throws.
  await recordSubmittedJob(env.DB, {
    jobId,
    accountId: authorized.accountId,
    keyId: authorized.keyId,
    scraper: submission.scraper,
    createdAt: new Date().toISOString(),
  });
  const stub = jobStub(env, jobId);
  try {
    // The key never rests in the job record.
    const { api_key: _apiKey, ...storedParams } = submission.params;
    await stub.create({
      jobId,
      scraper: submission.scraper,
      params: storedParams,
      accountId: authorized.accountId,
      keyId: authorized.keyId,
      baseUrl: submission.baseUrl,
      createdAt: Date.now(),
    });
  } catch (cause) {
    await refundCredits(env.DB, authorized.accountId, jobId, "job record could not be created");
    throw new ServiceError(503, ENQUEUE_FAILED_DETAIL, { retryable: true, retryAfterSeconds: 5, cause });
  }
  try {
    await env.JOBS.send({ jobId } satisfies JobMessage);
  } catch (cause) {
    await stub.fail("The job could not be queued.");
    throw new ServiceError(503, ENQUEUE_FAILED_DETAIL, { retryable: true, retryAfterSeconds: 5, cause });
  }
  return { jobId, creditsRemaining: authorized.creditsRemaining };
}
