/**
 * Recovery of jobs whose queue message was lost (src/jobs/recovery.ts), browser-free: jobs are created the way
 * submission creates them (charged, indexed, their Durable Object) but their message is never sent, or their attempt
 * "dies" holding its lease. The sweep must send such a job again, the real consumer then completes it from the seeded
 * response cache (charged once) or fails it with one refund, and a job whose attempt is alive must be left alone.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_ERROR, jobStub } from "../../src/jobs/job-record";
import { MAX_ATTEMPTS } from "../../src/jobs/job-attempts";
import { LEASE_WITHOUT_HEARTBEAT_MS, RECOVERY_STALL_MS } from "../../src/jobs/job-policy";
import type { AttemptDecision, JobView } from "../../src/jobs/job-types";
import { recoverJobs } from "../../src/jobs/recovery";
import { adminApi, seedCachedGrokAnswer } from "../support/workers/account-helpers";
import { createUnqueuedJob, jobView, waitForTerminal } from "../support/workers/async-helpers";
import { type TestAccount, balanceOf, createTestAccount, ledgerOf } from "../support/workers/helpers";

const PARAMS = { country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" } as const;

/** A job exactly as submission leaves it (charged, in the index, its record pending) except that no message was sent. */
function unqueuedJob(account: TestAccount, prompt: string, createdAt = Date.now()): Promise<string> {
  return createUnqueuedJob(account, { ...PARAMS, prompt }, createdAt);
}

async function begin(jobId: string, at: number): Promise<AttemptDecision> {
  return (await jobStub(env, jobId).beginAttempt(at)) as AttemptDecision;
}

/** The account slot a consumer takes just before an attempt begins. */
async function takeJobSlot(account: TestAccount, jobId: string, at: number): Promise<string> {
  const slotId = crypto.randomUUID();
  await env.DB.prepare(
    "INSERT INTO account_slots (slot_id, account_id, kind, job_id, acquired_at, expires_at) VALUES (?, ?, 'job', ?, ?, ?)",
  )
    .bind(slotId, account.accountId, jobId, at, at + 630_000)
    .run();
  return slotId;
}

async function slotReleased(slotId: string): Promise<boolean> {
  const row = await env.DB.prepare("SELECT released_at FROM account_slots WHERE slot_id = ?")
    .bind(slotId)
    .first<{ released_at: number | null }>();
  return row !== null && row.released_at !== null;
}

describe("job recovery", () => {
  it("a job whose message never arrived is sent again by the sweep once its delivery is overdue, and completes charged once", async () => {
    const account = await createTestAccount(30);
    const prompt = `recovery lost message ${crypto.randomUUID()}`;
    await seedCachedGrokAnswer(prompt, account.accountId);
    const jobId = await unqueuedJob(account, prompt);

    // Not overdue yet: a message may still be on its way.
    const early = await recoverJobs(env);
    expect(early.requeued).toBe(0);
    expect((await jobView(jobId)).status).toBe("pending");

    const report = await recoverJobs(env, { now: Date.now() + RECOVERY_STALL_MS + 1_000 });
    expect(report).toMatchObject({ requeued: 1, missingDeliveries: 1, deadAttempts: 0 });
    const done = await waitForTerminal(jobId);
    expect(done).toMatchObject({ status: "done", attempts: 1 });
    expect(await balanceOf(account.accountId)).toBe(27);
    expect((await ledgerOf(account.accountId)).filter((row) => row.kind === "charge")).toHaveLength(1);

    // A second sweep finds nothing to do: the job ended.
    expect((await recoverJobs(env, { now: Date.now() + RECOVERY_STALL_MS + 1_000 })).requeued).toBe(0);
  });

  it("after a restart, POST /admin/jobs/recover sends pending jobs again at once and frees the slots of dead attempts", async () => {
    const account = await createTestAccount(30);
    const queued = `recovery restart queued ${crypto.randomUUID()}`;
    const running = `recovery restart running ${crypto.randomUUID()}`;
    await seedCachedGrokAnswer(queued, account.accountId);
    await seedCachedGrokAnswer(running, account.accountId);
    const beforeRestart = Date.now();
    const queuedJob = await unqueuedJob(account, queued, beforeRestart - 5_000);
    const runningJob = await unqueuedJob(account, running, beforeRestart - 5_000);
    // This attempt was mid-scrape when the stack stopped: its lease is still current, but its worker is gone.
    const slot = await takeJobSlot(account, runningJob, beforeRestart - 2_000);
    expect((await begin(runningJob, beforeRestart - 2_000)).run).toBe(true);

    const response = await adminApi("/admin/jobs/recover", { method: "POST", body: { restarted_at: beforeRestart } });
    expect(response.status).toBe(200);
    const report = (await response.json()) as Record<string, number>;
    expect(report).toMatchObject({ dead_attempts: 1, missing_deliveries: 1 });
    expect(report.requeued).toBe(2);
    expect(report.slots_released).toBeGreaterThanOrEqual(1);
    expect(await slotReleased(slot)).toBe(true);

    const [queuedView, runningView] = await Promise.all([waitForTerminal(queuedJob), waitForTerminal(runningJob)]);
    expect(queuedView).toMatchObject({ status: "done", attempts: 1 });
    // The interrupted attempt counts: attempts are visible.
    expect(runningView).toMatchObject({ status: "done", attempts: 2 });
    expect(await balanceOf(account.accountId)).toBe(24);
    expect((await ledgerOf(account.accountId)).filter((row) => row.kind === "charge")).toHaveLength(2);
    expect((await ledgerOf(account.accountId)).filter((row) => row.kind === "refund")).toHaveLength(0);

    // Called again with the same restart time, nothing is sent twice.
    const again = await adminApi("/admin/jobs/recover", { method: "POST", body: { restarted_at: beforeRestart } });
    expect(((await again.json()) as { requeued: number }).requeued).toBe(0);
  });

  it("a job whose last allowed attempt died fails with one refund when recovered", async () => {
    const account = await createTestAccount(30);
    const jobId = await unqueuedJob(account, `recovery exhausted ${crypto.randomUUID()}`);
    const stub = jobStub(env, jobId);
    const longAgo = Date.now() - 10 * 60_000;
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1) {
      expect((await begin(jobId, longAgo + attempt)).run).toBe(true);
      await stub.releaseAttempt("The provider returned an error. Retry later.", 0, longAgo + attempt);
    }
    // The fourth attempt started and its worker died: no heartbeat since.
    expect((await begin(jobId, longAgo + MAX_ATTEMPTS)).run).toBe(true);

    const report = await recoverJobs(env);
    expect(report).toMatchObject({ requeued: 1, deadAttempts: 1 });
    const failed: JobView = await waitForTerminal(jobId);
    expect(failed.status).toBe("failed");
    expect(failed.attempts).toBe(MAX_ATTEMPTS);
    expect([INTERRUPTED_ERROR, "The provider returned an error. Retry later."]).toContain(failed.error);
    expect(await balanceOf(account.accountId)).toBe(30);
    expect((await ledgerOf(account.accountId)).filter((row) => row.kind === "refund")).toHaveLength(1);
    // Recovering again, or failing again, refunds nothing more.
    await recoverJobs(env, { now: Date.now() + RECOVERY_STALL_MS + 1_000 });
    expect(await stub.fail("again")).toBe(false);
    expect(await balanceOf(account.accountId)).toBe(30);
  });

  it("a job whose attempt is alive (its lease renewed by heartbeats) is left alone, even by a sweep after a restart before it", async () => {
    const account = await createTestAccount(30);
    const restartedAt = Date.now() - 60_000;
    const prompt = `recovery live ${crypto.randomUUID()}`;
    await seedCachedGrokAnswer(prompt, account.accountId);
    const jobId = await unqueuedJob(account, prompt, restartedAt - 1_000);
    const stub = jobStub(env, jobId);
    const startedAt = Date.now() - 30_000;
    expect((await begin(jobId, startedAt)).run).toBe(true);
    // Heartbeats carry the lease past the point where an attempt without them would have lost it.
    expect(await stub.heartbeat(1, Date.now())).toBe(true);
    const report = await recoverJobs(env, { restartedAt, now: startedAt + LEASE_WITHOUT_HEARTBEAT_MS + 5_000 });
    expect(report.requeued).toBe(0);
    const view = await jobView(jobId);
    expect(view).toMatchObject({ status: "pending", attempts: 1 });
    // A second delivery is turned away while the lease holds: the attempt never runs twice at once.
    const duplicate = await begin(jobId, Date.now());
    expect(duplicate).toMatchObject({ run: false, reason: "leased" });
    // Without heartbeats the lease lapses, and only then does the sweep hand the job on.
    const lapsed = await recoverJobs(env, { now: Date.now() + LEASE_WITHOUT_HEARTBEAT_MS + 1_000 });
    expect(lapsed).toMatchObject({ requeued: 1, deadAttempts: 1 });
    // A heartbeat of the attempt that lost its lease does not take it back.
    expect(await stub.heartbeat(1)).toBe(false);
    expect(await waitForTerminal(jobId)).toMatchObject({ status: "done", attempts: 2 });
    expect(await balanceOf(account.accountId)).toBe(27);
  });

  it("a job waiting while its account runs other attempts is not sent again", async () => {
    const account = await createTestAccount(30);
    const jobId = await unqueuedJob(account, `recovery waiting ${crypto.randomUUID()}`);
    const slot = await takeJobSlot(account, crypto.randomUUID(), Date.now());
    const report = await recoverJobs(env, { now: Date.now() + RECOVERY_STALL_MS + 1_000 });
    expect(report.requeued).toBe(0);
    expect((await jobView(jobId)).status).toBe("pending");
    await env.DB.prepare("UPDATE account_slots SET released_at = ? WHERE slot_id = ?").bind(Date.now(), slot).run();
    await jobStub(env, jobId).fail("test cleanup");
  });

  it("POST /admin/jobs/recover needs the operator token and a valid body", async () => {
    expect((await adminApi("/admin/jobs/recover", { method: "POST", token: null })).status).toBe(401);
    const invalid = await adminApi("/admin/jobs/recover", { method: "POST", body: { restarted_at: "yesterday" } });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { detail: string }).detail).toMatch(/^restarted_at: /);
    expect((await adminApi("/admin/jobs/recover", { method: "POST" })).status).toBe(200);
  });
});
