/**
 * Asynchronous jobs (spec §2.7, §3, §4.4, §4.5): the real Queue and consumer, one Durable Object per job, real
 * Chromium against the Grok replica, and the replica's fault control for failing attempts.
 */
import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { JOB_NOT_FOUND_DETAIL } from "../../src/http/jobs";
import { JOB_RETENTION_MS, watchdogBoundMs } from "../../src/jobs/job-policy";
import { WATCHDOG_ERROR, jobStub } from "../../src/jobs/job-record";
import type { JobView } from "../../src/jobs/job-types";
import { ServiceError } from "../../src/errors";
import { ENQUEUE_FAILED_DETAIL, submitJob } from "../../src/jobs/submit";
import { api, balanceOf, createTestAccount, ledgerOf, query, replicaControl, type TestAccount } from "../support/workers/helpers";
import { createUnqueuedJob } from "../support/workers/async-helpers";

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(1500);
});
afterEach(async () => {
  await replicaControl("reset");
});

async function submit(params: Record<string, string>, apiKey = account.apiKey): Promise<Response> {
  return api(`/scrapers/grok/jobs?${query(params)}`, { method: "POST", apiKey });
}

async function getJob(jobId: string): Promise<{ status: number; body: JobView & { detail?: string } }> {
  const response = await api(`/jobs/${jobId}`);
  return { status: response.status, body: (await response.json()) as JobView & { detail?: string } };
}

async function waitForTerminal(jobId: string, timeoutMs = 90_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await getJob(jobId);
    if (body.status !== "pending") return body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still pending: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A pending job whose message is delivered by hand (no queue), for redelivery tests. */
function createManualJob(own: TestAccount, createdAt = Date.now(), prompt = "web-sources-only manual"): Promise<string> {
  return createUnqueuedJob(own, { prompt, country: "US", bypass_cache: true, timeout: 60, mode: "MODEL_MODE_AUTO" }, createdAt);
}

async function deliver(jobId: string, attempts = 1) {
  const batch = createMessageBatch("scrape-jobs", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts, body: { jobId } }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

describe("submission and status", () => {
  it("202 {job_id, status: pending}, credits deducted at submission, record pending with completed_at null", async () => {
    const own = await createTestAccount(9);
    const response = await submit({ prompt: "web-sources-only async", bypass_cache: "true" }, own.apiKey);
    expect(response.status).toBe(202);
    const body = (await response.json()) as { job_id: string; status: string };
    expect(Object.keys(body).sort()).toEqual(["job_id", "status"]);
    expect(body.status).toBe("pending");
    expect(body.job_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(response.headers.get("X-Credits-Remaining")).toBe("6");
    expect(await balanceOf(own.accountId)).toBe(6);
    const pending = await getJob(body.job_id);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ job_id: body.job_id, scraper: "grok", completed_at: null });
    expect(pending.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);

    const done = await waitForTerminal(body.job_id);
    expect(done.status).toBe("done");
    expect(done.attempts).toBe(1);
    expect(done.completed_at).toMatch(/\+00:00$/);
    expect(done.result).toMatchObject({
      scraper: "grok",
      status: "done",
      job_id: body.job_id,
      prompt: "web-sources-only async",
      credits_used: 3,
      cached: false,
    });
    expect(done.result?.markdown_url).toBe(`http://api.test/md/${body.job_id}.md`);
    expect(done).not.toHaveProperty("error");
    expect(await balanceOf(own.accountId)).toBe(6);
  });

  it("the job's result has exactly the sync endpoint's fields", async () => {
    const prompt = `Same shape ${crypto.randomUUID()}`;
    const sync = (await (await api(`/scrapers/grok?${query({ prompt })}`, { apiKey: account.apiKey })).json()) as Record<string, unknown>;
    const submitted = (await (await submit({ prompt })).json()) as { job_id: string };
    const done = await waitForTerminal(submitted.job_id);
    expect(Object.keys(done.result ?? {}).sort()).toEqual(Object.keys(sync).sort());
    expect(done.result?.result_markdown).toBe(sync.result_markdown);
  });

  it("validation, auth and credit errors of submission match the sync endpoint", async () => {
    expect((await submit({ prompt: "" })).status).toBe(400);
    expect((await submit({ prompt: "hi", country: "JP" })).status).toBe(400);
    expect((await api(`/scrapers/grok/jobs?${query({ prompt: "hi" })}`, { method: "POST" })).status).toBe(401);
    const poor = await createTestAccount(2);
    expect((await submit({ prompt: "hi" }, poor.apiKey)).status).toBe(429);
    expect(await balanceOf(poor.accountId)).toBe(2);
  });

  it("unknown, malformed and expired ids are 404 with the retention detail", async () => {
    for (const id of [crypto.randomUUID(), "not-a-uuid", "12345"]) {
      const { status, body } = await getJob(id);
      expect(status).toBe(404);
      expect(body.detail).toBe(JOB_NOT_FOUND_DETAIL);
    }
  });
});

describe("a job that cannot be queued", () => {
  it("is failed and refunded, and the caller gets a 503 instead of a job that can never run", async () => {
    const own = await createTestAccount(9);
    // The queue binding is the one thing replaced: it refuses the message as a queue outage would.
    const refusingQueue: Pick<Queue, "send" | "sendBatch"> = {
      send: () => Promise.reject(new Error("queue unavailable")),
      sendBatch: () => Promise.reject(new Error("queue unavailable")),
    };
    const queueDown: Env = { ...env, JOBS: refusingQueue as Queue };
    const pendingLogWrites: Promise<void>[] = [];
    const params = { prompt: "never queued", country: "US", bypass_cache: false, timeout: 60, mode: "MODEL_MODE_AUTO" as const };
    const failure = await submitJob(
      queueDown,
      { scraper: "grok", params, baseUrl: "http://api.test" },
      { keyId: own.keyId, accountId: own.accountId },
      { requestId: "never-queued", surface: "api", startedAt: Date.now(), afterResponse: (work) => pendingLogWrites.push(work) },
    ).catch((error: unknown) => error);
    await Promise.all(pendingLogWrites);
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).status).toBe(503);
    expect((failure as ServiceError).detail).toBe(ENQUEUE_FAILED_DETAIL);
    expect(await balanceOf(own.accountId)).toBe(9);
    const ledger = await ledgerOf(own.accountId);
    expect(ledger.map((row) => row.kind)).toEqual(["charge", "refund"]);
    const jobId = ledger[0]?.operation_id ?? "";
    expect((await getJob(jobId)).body).toMatchObject({ status: "failed", attempts: 0 });
  });
});

describe("retries and refunds (real queue, real Chromium, replica faults)", () => {
  it("a transient failure that succeeds on attempt 3 is charged once", async () => {
    const own = await createTestAccount(9);
    await replicaControl("faults", { provider: "grok", fault: "http_error", count: 2 });
    const { job_id } = (await (await submit({ prompt: "no-posts retry", bypass_cache: "true" }, own.apiKey)).json()) as { job_id: string };
    const done = await waitForTerminal(job_id);
    expect(done.status).toBe("done");
    expect(done.attempts).toBe(3);
    expect(await balanceOf(own.accountId)).toBe(6);
    expect((await ledgerOf(own.accountId)).map((row) => row.kind)).toEqual(["charge"]);
  });

  it("a permanent failure: 4 attempts, failed with a client-safe error, credits restored once", async () => {
    const own = await createTestAccount(9);
    await replicaControl("faults", { provider: "grok", fault: "challenge", count: 4 });
    const { job_id } = (await (await submit({ prompt: "always blocked", bypass_cache: "true" }, own.apiKey)).json()) as { job_id: string };
    const failed = await waitForTerminal(job_id);
    expect(failed.status).toBe("failed");
    expect(failed.attempts).toBe(4);
    expect(failed.error).toMatch(/anti-bot/i);
    expect(failed.error).not.toMatch(/at \w+ \(|Error:/);
    expect(failed.completed_at).not.toBeNull();
    expect(failed).not.toHaveProperty("result");
    expect(await balanceOf(own.accountId)).toBe(9);
    expect((await ledgerOf(own.accountId)).map((row) => row.kind)).toEqual(["charge", "refund"]);
  });

  it("a failure no retry can fix (login wall) fails at once after one attempt, refunded", async () => {
    const own = await createTestAccount(9);
    await replicaControl("faults", { provider: "grok", fault: "login_wall", count: 4 });
    const { job_id } = (await (await submit({ prompt: "behind a login wall", bypass_cache: "true" }, own.apiKey)).json()) as {
      job_id: string;
    };
    const failed = await waitForTerminal(job_id);
    expect(failed).toMatchObject({ status: "failed", attempts: 1 });
    expect(failed.error).toMatch(/sign in|login/i);
    expect(await balanceOf(own.accountId)).toBe(9);
  });

  it("a 20-job batch submitted first, then polled, all finish done", async () => {
    const own = await createTestAccount(60);
    const ids: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      const response = await submit({ prompt: `Batch job ${index} ${crypto.randomUUID()}` }, own.apiKey);
      expect(response.status).toBe(202);
      ids.push(((await response.json()) as { job_id: string }).job_id);
    }
    expect(await balanceOf(own.accountId)).toBe(0);
    const finished = await Promise.all(ids.map((id) => waitForTerminal(id, 110_000)));
    expect(finished.map((job) => job.status)).toEqual(Array(20).fill("done"));
    for (const [index, job] of finished.entries()) expect(String(job.result?.result_markdown)).toContain(`Batch job ${index} `);
  }, 150_000);
});

describe("at-least-once delivery", () => {
  it("a message for a job already done or failed is acknowledged without work", async () => {
    const own = await createTestAccount(9);
    const jobId = await createManualJob(own);
    await jobStub(env, jobId).fail("failed for the test");
    expect(await balanceOf(own.accountId)).toBe(9);
    const result = await deliver(jobId);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toHaveLength(0);
    const { body } = await getJob(jobId);
    expect(body).toMatchObject({ status: "failed", attempts: 0 });
    expect(await balanceOf(own.accountId)).toBe(9);
  });

  it("a duplicated message never completes a job twice nor refunds twice", async () => {
    const own = await createTestAccount(9);
    const jobId = await createManualJob(own);
    const [first, second] = await Promise.all([deliver(jobId), deliver(jobId)]);
    // One delivery did the work; the other found the job leased and asked to look again later.
    expect([first.explicitAcks.length, second.explicitAcks.length].sort()).toEqual([0, 1]);
    expect([first.retryMessages.length, second.retryMessages.length].sort()).toEqual([0, 1]);
    const done = await getJob(jobId);
    expect(done.body).toMatchObject({ status: "done", attempts: 1 });
    const completedAt = done.body.completed_at;
    const again = await deliver(jobId, 2);
    expect(again.explicitAcks).toHaveLength(1);
    expect((await getJob(jobId)).body.completed_at).toBe(completedAt);
    expect(await jobStub(env, jobId).fail("late failure")).toBe(false);
    expect(await balanceOf(own.accountId)).toBe(6);
  });
});

describe("retention and the watchdog", () => {
  it("the 24-hour alarm deletes the record, and GET then answers 404", async () => {
    const own = await createTestAccount(9);
    const jobId = await createManualJob(own, Date.now() - JOB_RETENTION_MS - 1_000);
    await jobStub(env, jobId).complete({ result: "old" });
    expect(await runDurableObjectAlarm(jobStub(env, jobId))).toBe(true);
    const { status, body } = await getJob(jobId);
    expect(status).toBe(404);
    expect(body.detail).toBe(JOB_NOT_FOUND_DETAIL);
  });

  it("a fresh job's alarm keeps it", async () => {
    const own = await createTestAccount(9);
    const jobId = await createManualJob(own);
    expect(await runDurableObjectAlarm(jobStub(env, jobId))).toBe(true);
    expect((await getJob(jobId)).body.status).toBe("pending");
  });

  it("the watchdog fails and refunds a job whose attempts can no longer finish", async () => {
    const own = await createTestAccount(9);
    const bound = watchdogBoundMs(60, Number(env.JOB_RETRY_BASE_SECONDS));
    const jobId = await createManualJob(own, Date.now() - bound - 1_000);
    expect(await balanceOf(own.accountId)).toBe(6);
    expect(await runDurableObjectAlarm(jobStub(env, jobId))).toBe(true);
    const { body } = await getJob(jobId);
    expect(body).toMatchObject({ status: "failed", error: WATCHDOG_ERROR });
    expect(await balanceOf(own.accountId)).toBe(9);
    // A later attempt's success cannot resurrect it, and the refund is not repeated.
    expect(await jobStub(env, jobId).complete({ result: "late" })).toBe(false);
    expect(await runDurableObjectAlarm(jobStub(env, jobId))).toBe(true);
    expect(await balanceOf(own.accountId)).toBe(9);
  });
});
