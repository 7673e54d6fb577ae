/**
 * Playground runs that answered synchronously, kept so the result viewer can show them at a URL of their own
 * (a reload or a shared tab shows the same answer, never a second charged run). Asynchronous runs are ordinary jobs
 * and need nothing here.
 *
 * Stored in the MARKDOWN namespace beside the run's hosted markdown (`md:<job_id>`), for the same 24 hours, under
 * `playground:v1:<account>:<job_id>`: only the account's own dashboard reads them, and listing its prefix gives the
 * account's recent runs. The KV metadata holds what the list shows, so listing reads no values.
 */
import { z } from "zod";
import { JOB_RETENTION_MS } from "../../jobs/job-policy";

const KEY_PREFIX = "playground:v1:";
const RETENTION_SECONDS = JOB_RETENTION_MS / 1000;
const LISTED_PROMPT_LENGTH = 80;

const StoredRunSchema = z.object({
  accountId: z.string(),
  keyId: z.string(),
  keyName: z.string(),
  /** ISO 8601. */
  createdAt: z.string(),
  scraper: z.string(),
  /** The validated parameters, without the key: what "Open in playground" fills the form with. */
  params: z.record(z.string(), z.unknown()),
  /** The 200 body, exactly as the API would have answered it. */
  response: z.record(z.string(), z.unknown()),
});
export type StoredPlaygroundRun = z.infer<typeof StoredRunSchema>;

const RunSummarySchema = z.object({ scraper: z.string(), prompt: z.string(), createdAt: z.string() });
export type PlaygroundRunSummary = z.infer<typeof RunSummarySchema> & { jobId: string };

function accountPrefix(accountId: string): string {
  return `${KEY_PREFIX}${accountId}:`;
}

export async function storePlaygroundRun(kv: KVNamespace, jobId: string, run: StoredPlaygroundRun): Promise<void> {
  const summary = {
    scraper: run.scraper,
    prompt: Array.from(String(run.params.prompt ?? ""))
      .slice(0, LISTED_PROMPT_LENGTH)
      .join(""),
    createdAt: run.createdAt,
  };
  await kv.put(`${accountPrefix(run.accountId)}${jobId}`, JSON.stringify(run), { expirationTtl: RETENTION_SECONDS, metadata: summary });
}

/** The account's run with this id, or null (unknown, expired, or another account's). */
export async function readPlaygroundRun(kv: KVNamespace, accountId: string, jobId: string): Promise<StoredPlaygroundRun | null> {
  const stored = await kv.get(`${accountPrefix(accountId)}${jobId}`, "json");
  const parsed = StoredRunSchema.safeParse(stored);
  return parsed.success && parsed.data.accountId === accountId ? parsed.data : null;
}

/** The account's runs of the last 24 hours, newest first. */
export async function recentPlaygroundRuns(kv: KVNamespace, accountId: string, limit: number): Promise<PlaygroundRunSummary[]> {
  const prefix = accountPrefix(accountId);
  const listed = await kv.list({ prefix, limit: 1000 });
  const runs: PlaygroundRunSummary[] = [];
  for (const key of listed.keys) {
    const summary = RunSummarySchema.safeParse(key.metadata);
    if (summary.success) runs.push({ ...summary.data, jobId: key.name.slice(prefix.length) });
  }
  return runs.sort((left, right) => right.createdAt.localeCompare(left.createdAt)).slice(0, limit);
}
