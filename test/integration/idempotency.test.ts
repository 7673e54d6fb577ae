/**
 * Idempotency-Key on POST /scrapers/{scraper}/jobs and POST /batches (issue #15): the same key with the same parameters
 * within 24 hours answers the same job or batch and charges nothing more, also when the duplicates arrive at the same
 * time; with other parameters it is a 409; a failed request frees the key; a request that died half-way is finished by
 * its retry with the same ids.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { IDEMPOTENCY_KEY_DETAIL, IDEMPOTENCY_MISMATCH_DETAIL, requestFingerprint } from "../../src/jobs/idempotency";
import { chargeCredits, refundCredits } from "../../src/credits/ledger";
import { openBatch } from "../../src/jobs/batch-store";
import { adminJson } from "../support/workers/account-helpers";
import { postBatch, seedAnswer, waitForTerminal } from "../support/workers/async-helpers";
import { api, balanceOf, createTestAccount, ledgerOf, query, type TestAccount } from "../support/workers/helpers";

function submit(account: TestAccount, params: Record<string, string>, idempotencyKey?: string): Promise<Response> {
  return api(`/scrapers/grok/jobs?${query(params)}`, {
    method: "POST",
    apiKey: account.apiKey,
    headers: idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey },
  });
}

async function jobIdOf(response: Response): Promise<string> {
  expect(response.status).toBe(202);
  return ((await response.json()) as { job_id: string }).job_id;
}

async function indexedJobs(accountId: string): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT job_id FROM jobs WHERE account_id = ?").bind(accountId).all<{ job_id: string }>();
  return results.map((row) => row.job_id);
}

describe("POST /scrapers/{scraper}/jobs with an Idempotency-Key", () => {
  it("the same key and parameters answer the same job, charge once, and say it is a replay", async () => {
    const account = await createTestAccount(100);
    const prompt = `Idempotent job ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const key = crypto.randomUUID();
    const first = await submit(account, { prompt }, key);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const jobId = await jobIdOf(first);
    expect(await balanceOf(account.accountId)).toBe(97);
    await waitForTerminal(jobId);

    // Same parameters however they are spelled: defaults written out, a lower-case country.
    const again = await submit(account, { prompt, country: "us", mode: "MODEL_MODE_AUTO" }, key);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("X-Credits-Remaining")).toBe("97");
    expect(await jobIdOf(again)).toBe(jobId);
    expect(await balanceOf(account.accountId)).toBe(97);
    expect((await ledgerOf(account.accountId)).map((row) => row.kind)).toEqual(["charge"]);
    expect(await indexedJobs(account.accountId)).toEqual([jobId]);

    // Without a key, or with another key, the same parameters are a new job.
    const unkeyed = await jobIdOf(await submit(account, { prompt }));
    const otherKey = await jobIdOf(await submit(account, { prompt }, crypto.randomUUID()));
    expect(new Set([jobId, unkeyed, otherKey]).size).toBe(3);
    expect(await balanceOf(account.accountId)).toBe(91);
  });

  it("ten concurrent duplicates create one job and one charge, and all of them answer it", async () => {
    const account = await createTestAccount(100);
    const prompt = `Concurrent duplicates ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const key = crypto.randomUUID();
    const responses = await Promise.all(Array.from({ length: 10 }, () => submit(account, { prompt }, key)));
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(202));
    const ids = await Promise.all(responses.map((response) => response.json() as Promise<{ job_id: string }>));
    expect(new Set(ids.map((body) => body.job_id)).size).toBe(1);
    expect(responses.filter((response) => response.headers.get("Idempotent-Replayed") === "true")).toHaveLength(9);
    expect(await balanceOf(account.accountId)).toBe(97);
    expect((await ledgerOf(account.accountId)).map((row) => row.kind)).toEqual(["charge"]);
    expect(await indexedJobs(account.accountId)).toEqual([ids[0]?.job_id]);
    expect((await waitForTerminal(ids[0]?.job_id ?? "")).status).toBe("done");
  });

  it("the same key with other parameters is a 409 and charges nothing", async () => {
    const account = await createTestAccount(100);
    const prompt = `Conflicting ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const key = crypto.randomUUID();
    await jobIdOf(await submit(account, { prompt }, key));
    const others: Array<Record<string, string>> = [
      { prompt: `${prompt}!` },
      { prompt, mode: "MODEL_MODE_FAST" },
      { prompt, timeout: "60" },
    ];
    for (const params of others) {
      const conflict = await submit(account, params, key);
      expect(conflict.status).toBe(409);
      expect(((await conflict.json()) as { detail: string }).detail).toBe(IDEMPOTENCY_MISMATCH_DETAIL);
    }
    const otherScraper = await api(`/scrapers/perplexity/jobs?${query({ prompt })}`, {
      method: "POST",
      apiKey: account.apiKey,
      headers: { "Idempotency-Key": key },
    });
    expect(otherScraper.status).toBe(409);
    expect(await balanceOf(account.accountId)).toBe(97);
  });

  it("keys belong to the account: any of its API keys replays, another account's same key is its own", async () => {
    const account = await createTestAccount(100);
    const stranger = await createTestAccount(100);
    const prompt = `Scoped key ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    await seedAnswer(stranger.accountId, prompt);
    const key = "order-2026-0001";
    const jobId = await jobIdOf(await submit(account, { prompt }, key));
    const { api_key: secondKey } = await adminJson<{ api_key: string }>(
      `/admin/accounts/${account.accountId}/keys`,
      { method: "POST", body: { name: "second" } },
      201,
    );
    expect(await jobIdOf(await submit({ ...account, apiKey: secondKey }, { prompt }, key))).toBe(jobId);
    expect(await jobIdOf(await submit(stranger, { prompt }, key))).not.toBe(jobId);
    expect(await balanceOf(stranger.accountId)).toBe(97);
  });

  it("an unusable key is a 400; a request that fails frees its key for the retry", async () => {
    const account = await createTestAccount(2);
    for (const bad of ["x".repeat(256), "del\u007f", "tab\there"]) {
      const response = await submit(account, { prompt: "hi" }, bad);
      expect(response.status, bad).toBe(400);
      expect(((await response.json()) as { detail: string }).detail).toBe(IDEMPOTENCY_KEY_DETAIL);
    }
    const prompt = `Retry after top-up ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const key = crypto.randomUUID();
    expect((await submit(account, { prompt }, key)).status).toBe(429);
    await adminJson(`/admin/accounts/${account.accountId}/credits`, { method: "POST", body: { delta: 10, reason: "top-up" } });
    const jobId = await jobIdOf(await submit(account, { prompt }, key));
    expect(await balanceOf(account.accountId)).toBe(9);
    expect(await jobIdOf(await submit(account, { prompt }, key))).toBe(jobId);
  });

  it("after 24 hours the key is free again", async () => {
    const account = await createTestAccount(100);
    const prompt = `Expired key ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const key = crypto.randomUUID();
    const first = await jobIdOf(await submit(account, { prompt }, key));
    await env.DB.prepare("UPDATE idempotency_keys SET expires_at = ? WHERE account_id = ? AND idempotency_key = ?")
      .bind(Date.now() - 1, account.accountId, key)
      .run();
    const second = await jobIdOf(await submit(account, { prompt: `${prompt} changed` }, key));
    expect(second).not.toBe(first);
  });

  it("a request that died after claiming its key is finished by the retry, with the id it had claimed", async () => {
    const account = await createTestAccount(100);
    const prompt = `Died half-way ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const key = crypto.randomUUID();
    const claimedJobId = crypto.randomUUID();
    const params = { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" };
    // The claim a dead request leaves: in flight, its lock run out.
    await env.DB.prepare(
      `INSERT INTO idempotency_keys (account_id, idempotency_key, kind, fingerprint, resource_id, state, claim_token, locked_until, expires_at)
       VALUES (?, ?, 'job', ?, ?, 'in_flight', 'dead-request', ?, ?)`,
    )
      .bind(
        account.accountId,
        key,
        await requestFingerprint("job", { scraper: "grok", params }),
        claimedJobId,
        Date.now() - 1,
        Date.now() + 3_600_000,
      )
      .run();
    const response = await submit(account, { prompt }, key);
    expect(await jobIdOf(response)).toBe(claimedJobId);
    expect((await waitForTerminal(claimedJobId)).status).toBe("done");
    expect(await balanceOf(account.accountId)).toBe(97);
    expect(await jobIdOf(await submit(account, { prompt }, key))).toBe(claimedJobId);
  });
});

/** The claim a request leaves when it died (or could not release its key): in flight, its lock run out. */
async function deadClaim(account: TestAccount, key: string, kind: "job" | "batch", fingerprint: string, resourceId: string): Promise<void> {
  await env.DB.prepare(
    `INSERT INTO idempotency_keys (account_id, idempotency_key, kind, fingerprint, resource_id, state, claim_token, locked_until, expires_at)
     VALUES (?, ?, ?, ?, ?, 'in_flight', 'dead-request', ?, ?)`,
  )
    .bind(account.accountId, key, kind, fingerprint, resourceId, Date.now() - 1, Date.now() + 3_600_000)
    .run();
}

/** What a first use that failed leaves in the ledger: its charge for `operationId`, and the refund of it. */
async function chargedAndRefunded(account: TestAccount, operationId: string): Promise<void> {
  await chargeCredits(env.DB, { accountId: account.accountId, operationId, scraper: "grok", keyId: account.keyId });
  expect(await refundCredits(env.DB, account.accountId, operationId, "job record could not be created")).toBe(true);
}

describe("a key taken over after its first use was refunded", () => {
  it("a job: the retry is a new, charged job (the refunded one never runs for free)", async () => {
    const account = await createTestAccount(100);
    const prompt = `Refunded, then retried ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const key = crypto.randomUUID();
    const refundedJobId = crypto.randomUUID();
    const params = { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" };
    // The first use was charged, its job record could not be created, it was refunded, and it died before releasing the key.
    await chargedAndRefunded(account, refundedJobId);
    await deadClaim(account, key, "job", await requestFingerprint("job", { scraper: "grok", params }), refundedJobId);
    expect(await balanceOf(account.accountId)).toBe(100);

    const retried = await jobIdOf(await submit(account, { prompt }, key));
    expect(retried).not.toBe(refundedJobId);
    expect(await balanceOf(account.accountId)).toBe(97);
    expect(await ledgerOf(account.accountId)).toEqual([
      { kind: "charge", delta: -3, operation_id: refundedJobId },
      { kind: "refund", delta: 3, operation_id: refundedJobId },
      { kind: "charge", delta: -3, operation_id: retried },
    ]);
    expect((await waitForTerminal(retried)).status).toBe("done");
    expect(await indexedJobs(account.accountId)).toEqual([retried]);
    // From now on the key answers the job that was paid for.
    const replay = await submit(account, { prompt }, key);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await jobIdOf(replay)).toBe(retried);
    expect(await balanceOf(account.accountId)).toBe(97);
  });

  it("a batch: the retry is a new, charged batch", async () => {
    const account = await createTestAccount(100);
    const prompt = `Refunded batch ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const key = crypto.randomUUID();
    const refundedBatchId = crypto.randomUUID();
    const refundedJobId = crypto.randomUUID();
    // Its row and charge were written, its jobs' index rows could not be: refunded, then it died before releasing the key.
    await openBatch(env.DB, {
      batchId: refundedBatchId,
      accountId: account.accountId,
      keyId: account.keyId,
      scraper: "grok",
      webhookUrl: null,
      jobIds: [refundedJobId],
      createdAt: new Date().toISOString(),
    });
    await chargedAndRefunded(account, refundedJobId);
    const items = [{ prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" }];
    await deadClaim(
      account,
      key,
      "batch",
      await requestFingerprint("batch", { scraper: "grok", items, webhook_url: null }),
      refundedBatchId,
    );

    const response = await postBatch({ scraper: "grok", items: [{ prompt }] }, { apiKey: account.apiKey, idempotencyKey: key });
    expect(response.status).toBe(202);
    const { batch_id: batchId, job_ids: jobIds } = (await response.json()) as { batch_id: string; job_ids: string[] };
    expect(batchId).not.toBe(refundedBatchId);
    expect(jobIds).not.toContain(refundedJobId);
    expect(await balanceOf(account.accountId)).toBe(97);
    expect((await waitForTerminal(jobIds[0] ?? "")).status).toBe("done");
  });
});

describe("POST /batches with an Idempotency-Key", () => {
  it("concurrent duplicates create one batch; a replay answers its batch and job ids; other items are a 409", async () => {
    const account = await createTestAccount(100);
    const prompts = [`Batch key one ${crypto.randomUUID()}`, `Batch key two ${crypto.randomUUID()}`];
    for (const prompt of prompts) await seedAnswer(account.accountId, prompt);
    const body = { scraper: "grok", items: prompts.map((prompt) => ({ prompt })) };
    const key = crypto.randomUUID();
    const responses = await Promise.all(Array.from({ length: 5 }, () => postBatch(body, { apiKey: account.apiKey, idempotencyKey: key })));
    expect(responses.map((response) => response.status)).toEqual(Array(5).fill(202));
    const bodies = await Promise.all(responses.map((response) => response.json() as Promise<{ batch_id: string; job_ids: string[] }>));
    expect(new Set(bodies.map((reply) => reply.batch_id)).size).toBe(1);
    expect(new Set(bodies.map((reply) => reply.job_ids.join()))).toEqual(new Set([bodies[0]?.job_ids.join()]));
    expect(await balanceOf(account.accountId)).toBe(94);
    expect(await indexedJobs(account.accountId)).toHaveLength(2);
    const batches = await env.DB.prepare("SELECT COUNT(*) AS n FROM batches WHERE account_id = ?")
      .bind(account.accountId)
      .first<{ n: number }>();
    expect(batches?.n).toBe(1);

    const replay = await postBatch(
      { scraper: "grok", items: prompts.map((prompt) => ({ prompt, country: "US" })) },
      { apiKey: account.apiKey, idempotencyKey: key },
    );
    expect(replay.status).toBe(202);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual({ ...bodies[0], status: "pending" });

    const conflict = await postBatch({ scraper: "grok", items: [{ prompt: prompts[0] }] }, { apiKey: account.apiKey, idempotencyKey: key });
    expect(conflict.status).toBe(409);
    // A job submission cannot reuse a batch's key either.
    expect((await submit(account, { prompt: prompts[0] ?? "" }, key)).status).toBe(409);
    expect(await balanceOf(account.accountId)).toBe(94);
  });
});
