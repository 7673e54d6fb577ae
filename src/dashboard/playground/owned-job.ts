/**
 * A job as the account's own dashboard sees it: its public view plus the request behind it (the prompt and parameters,
 * which `GET /jobs/{id}` shows only inside a done job's result, and the key that submitted it). Only a job the D1 index
 * records for the account is read, so another account's job id shows nothing and wakes no Durable Object.
 */
import { z } from "zod";
import { indexedJobAccount } from "../../jobs/jobs-table";
import { jobStub } from "../../jobs/job-record";
import { jobSubject, logLine } from "../../util/log-line";

const OwnedJobSchema = z.object({
  view: z.object({
    job_id: z.string(),
    status: z.enum(["pending", "done", "failed"]),
    scraper: z.string(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.string().optional(),
    // a failed job's failure evidence, read field by field by the viewer (./shown-evidence.ts)
    evidence: z.unknown().optional(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    attempts: z.number(),
  }),
  params: z.looseObject({ prompt: z.string() }),
  keyId: z.string(),
});
type OwnedJob = z.infer<typeof OwnedJobSchema>;

/** The job with its request, or null when it is past retention (the record is gone) or unreadable. */
export async function readJobWithRequest(env: Env, jobId: string): Promise<OwnedJob | null> {
  // The RPC stub's inferred type does not carry the record's shape across the call: the answer is checked instead.
  const answer: unknown = await jobStub(env, jobId).ownerView();
  if (answer === null) return null;
  const parsed = OwnedJobSchema.safeParse(answer);
  if (!parsed.success) {
    console.error(logLine(jobSubject(null, jobId), "dashboard: the job record has an unexpected shape"), parsed.error.issues.slice(0, 3));
    return null;
  }
  return parsed.data;
}

/** The account's job, or null when the id is not one of its jobs or the job is no longer retained. */
export async function readOwnedJob(env: Env, accountId: string, jobId: string): Promise<OwnedJob | null> {
  if ((await indexedJobAccount(env.DB, jobId)) !== accountId) return null;
  return readJobWithRequest(env, jobId);
}
