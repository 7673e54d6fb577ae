/**
 * GET /jobs (issue #15): the caller's own jobs, newest first, filtered by status and scraper, paged with an opaque
 * cursor, within the 24-hour retention. GET /jobs/{job_id} stays public.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { INVALID_CURSOR_DETAIL } from "../../src/http/jobs";
import { jobStub } from "../../src/jobs/job-record";
import { postBatch, seedAnswer, waitFor, waitForTerminal } from "../support/workers/async-helpers";
import { api, createTestAccount, query, type TestAccount } from "../support/workers/helpers";

interface ListedJob {
  job_id: string;
  status: string;
  scraper: string;
  batch_id: string | null;
  created_at: string;
  completed_at: string | null;
}

interface JobPage {
  jobs: ListedJob[];
  next_cursor: string | null;
}

async function list(account: TestAccount, params: Record<string, string> = {}): Promise<JobPage> {
  const response = await api(`/jobs?${query(params)}`, { apiKey: account.apiKey });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as JobPage;
}

/** Submits jobs one after the other (each a cached answer), oldest first. */
async function submitJobs(account: TestAccount, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const prompt = `Listed job ${index} ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const response = await api(`/scrapers/grok/jobs?${query({ prompt })}`, { method: "POST", apiKey: account.apiKey });
    expect(response.status).toBe(202);
    ids.push(((await response.json()) as { job_id: string }).job_id);
  }
  return ids;
}

describe("GET /jobs", () => {
  it("needs the API key; GET /jobs/{job_id} still needs none", async () => {
    const account = await createTestAccount(100);
    const [jobId] = await submitJobs(account, 1);
    const anonymous = await api("/jobs");
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { detail: string }).detail).toMatch(/X-API-Key/);
    expect((await api(`/jobs/${jobId}`)).status).toBe(200);
    expect((await api(`/jobs?api_key=${encodeURIComponent(account.apiKey)}`)).status).toBe(200);
  });

  it("lists only the caller's own jobs, newest first, with their status once they end", async () => {
    const account = await createTestAccount(100);
    const other = await createTestAccount(100);
    const ids = await submitJobs(account, 4);
    const foreign = await submitJobs(other, 2);
    await Promise.all([...ids, ...foreign].map((id) => waitForTerminal(id)));
    const page = await list(account);
    expect(page.jobs.map((job) => job.job_id)).toEqual([...ids].reverse());
    expect(page.next_cursor).toBeNull();
    for (const job of page.jobs) {
      expect(job).toMatchObject({ status: "done", scraper: "grok", batch_id: null });
      expect(job.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
      expect(job.completed_at).toMatch(/\+00:00$/);
    }
    expect((await list(other)).jobs.map((job) => job.job_id)).toEqual([...foreign].reverse());
  });

  it("pages with an opaque cursor until next_cursor is null, without gaps or repeats", async () => {
    const account = await createTestAccount(100);
    const ids = await submitJobs(account, 5);
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const page: JobPage = await list(account, cursor === null ? { limit: "2" } : { limit: "2", cursor });
      sizes.push(page.jobs.length);
      seen.push(...page.jobs.map((job) => job.job_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual([...ids].reverse());
  });

  it("filters by status and scraper; batch jobs carry their batch id", async () => {
    const account = await createTestAccount(100);
    const [done] = await submitJobs(account, 1);
    await waitForTerminal(done ?? "");
    const prompt = `Listed batch ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const batch = (await (await postBatch({ scraper: "grok", items: [{ prompt }, { prompt }] }, { apiKey: account.apiKey })).json()) as {
      batch_id: string;
      job_ids: string[];
    };
    await Promise.all(batch.job_ids.map((id) => waitForTerminal(id)));
    const all = await waitFor("every job to be listed as done", async () => {
      const page = await list(account, { status: "done" });
      return page.jobs.length === 3 ? page : undefined;
    });
    expect(
      all.jobs
        .filter((job) => job.batch_id === batch.batch_id)
        .map((job) => job.job_id)
        .sort(),
    ).toEqual([...batch.job_ids].sort());
    expect((await list(account, { status: "pending" })).jobs).toEqual([]);
    expect((await list(account, { status: "failed" })).jobs).toEqual([]);
    expect((await list(account, { scraper: "grok" })).jobs).toHaveLength(3);
    expect((await list(account, { scraper: "perplexity" })).jobs).toEqual([]);
  });

  it("each job's Durable Object writes its terminal status: done, failed; a job still running is pending", async () => {
    const account = await createTestAccount(100);
    const [doneId] = await submitJobs(account, 1);
    const view = await waitForTerminal(doneId ?? "");
    // A job failed by its object, as the consumer does after its last attempt.
    const failedId = crypto.randomUUID();
    const pendingId = crypto.randomUUID();
    for (const jobId of [failedId, pendingId]) {
      await env.DB.prepare("INSERT INTO jobs (job_id, account_id, key_id, scraper, created_at) VALUES (?, ?, ?, 'grok', ?)")
        .bind(jobId, account.accountId, account.keyId, new Date().toISOString())
        .run();
      await jobStub(env, jobId).create({
        jobId,
        scraper: "grok",
        params: { prompt: "never queued", country: "US", bypass_cache: false, timeout: 60, mode: "MODEL_MODE_AUTO" },
        accountId: account.accountId,
        keyId: account.keyId,
        baseUrl: "http://api.test",
        createdAt: Date.now(),
      });
    }
    await jobStub(env, failedId).fail("The provider could not be reached. Credits were restored.");
    const byId = new Map((await list(account)).jobs.map((job) => [job.job_id, job]));
    expect(byId.get(doneId ?? "")).toMatchObject({ status: "done", completed_at: view.completed_at });
    expect(byId.get(failedId)).toMatchObject({ status: "failed" });
    expect(byId.get(failedId)?.completed_at).toMatch(/\+00:00$/);
    expect(byId.get(pendingId)).toMatchObject({ status: "pending", completed_at: null });
    expect((await list(account, { status: "failed" })).jobs.map((job) => job.job_id)).toEqual([failedId]);
    expect((await list(account, { status: "pending" })).jobs.map((job) => job.job_id)).toEqual([pendingId]);
  });

  it("leaves out jobs past the 24-hour retention", async () => {
    const account = await createTestAccount(100);
    const [recent] = await submitJobs(account, 1);
    await env.DB.prepare("INSERT INTO jobs (job_id, account_id, key_id, scraper, created_at) VALUES (?, ?, ?, 'grok', ?)")
      .bind(crypto.randomUUID(), account.accountId, account.keyId, new Date(Date.now() - 24 * 3_600_000 - 1_000).toISOString())
      .run();
    expect((await list(account)).jobs.map((job) => job.job_id)).toEqual([recent]);
  });

  it("a bad filter, limit, cursor or unknown parameter is a 400 naming it", async () => {
    const account = await createTestAccount(100);
    const cases: Array<[Record<string, string>, string]> = [
      [{ status: "running" }, "status: must be one of pending, done, failed"],
      [{ scraper: "bard" }, "scraper: must be one of "],
      [{ limit: "0" }, "limit: must be an integer from 1 to 100"],
      [{ limit: "101" }, "limit: must be an integer from 1 to 100"],
      [{ limit: "ten" }, "limit: must be an integer from 1 to 100"],
      [{ cursor: "not-a-cursor" }, INVALID_CURSOR_DETAIL],
      [{ cursor: btoa(JSON.stringify({ offset: 10 })) }, INVALID_CURSOR_DETAIL],
      [{ sort: "oldest" }, "sort"],
    ];
    for (const [params, detail] of cases) {
      const response = await api(`/jobs?${query(params)}`, { apiKey: account.apiKey });
      expect(response.status, JSON.stringify(params)).toBe(400);
      expect(((await response.json()) as { detail: string }).detail, JSON.stringify(params)).toContain(detail);
    }
  });
});
