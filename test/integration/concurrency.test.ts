/**
 * Concurrency at the scale the reliability issue asks for, browser-free (answers come from the account's cache, so
 * what is measured is the service's own bookkeeping): 100 concurrent sync requests on 30 credits, and 200 jobs
 * submitted at once across several scrapers — none lost, none charged twice, the ledger consistent with the balance.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { responseCacheKey } from "../../src/cache/response-cache";
import { cacheEntryJson, SEEDED_PROVENANCE, seedCachedGrokAnswer } from "../support/workers/account-helpers";
import { postBatch } from "../support/workers/async-helpers";
import { api, balanceOf, createTestAccount, ledgerOf, query } from "../support/workers/helpers";

/** Cached answers of three scrapers (each valid against its provider's answer schema), for one account. */
async function seedAnswers(accountId: string, prompt: string): Promise<void> {
  await seedCachedGrokAnswer(prompt, accountId);
  const common = { prompt, country: "US", bypass_cache: false, timeout: 300 };
  const put = async (scraper: "perplexity" | "amazon_rufus", params: Record<string, unknown>, answer: Record<string, unknown>) =>
    env.CACHE.put(
      await responseCacheKey(scraper, { ...common, ...params }, accountId),
      cacheEntryJson(answer, { ...SEEDED_PROVENANCE, model_label: null, scraper_version: `${scraper}/2026.11.1` }),
      {
        expirationTtl: 3600,
      },
    );
  await put(
    "perplexity",
    { web_search: true },
    { result: `Cached: ${prompt}`, result_markdown: `Cached: ${prompt}`, sources: [], related_questions: [] },
  );
  await put("amazon_rufus", {}, { result: `Cached: ${prompt}`, result_markdown: `Cached: ${prompt}`, products: [], related_questions: [] });
}

describe("concurrency", () => {
  it("100 concurrent sync requests on 30 credits: at most 10 answered, the rest 429, balance and ledger exact", async () => {
    const own = await createTestAccount(30);
    const prompt = `Concurrent ${crypto.randomUUID()}`;
    await seedCachedGrokAnswer(prompt, own.accountId);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => api(`/scrapers/grok?${query({ prompt })}`, { apiKey: own.apiKey })),
    );
    const statuses = responses.map((response) => response.status);
    const successes = statuses.filter((status) => status === 200).length;
    expect(successes).toBeGreaterThan(0);
    expect(successes).toBeLessThanOrEqual(10);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    for (const response of responses.filter((candidate) => candidate.status === 429)) {
      expect(((await response.json()) as { detail: string }).detail).toMatch(/^(Credit limit reached|Too many|Rate limit)/);
    }
    expect(await balanceOf(own.accountId)).toBe(30 - 3 * successes);
    const ledger = await ledgerOf(own.accountId);
    const net = ledger.reduce((sum, row) => sum + row.delta, 0);
    expect(net).toBe(-3 * successes);
    expect(ledger.filter((row) => row.kind === "charge").length - ledger.filter((row) => row.kind === "refund").length).toBe(successes);
  });

  it("200 jobs submitted at once (three concurrent batches): each ends done, none lost, each charged exactly once", async () => {
    const own = await createTestAccount(600);
    const prompt = `Batch of jobs ${crypto.randomUUID()}`;
    await seedAnswers(own.accountId, prompt);
    // Submitted at once: one batch per scraper, sent concurrently (200 single submissions would meet the rate limit,
    // which is what batches are for).
    const sizes = { grok: 67, perplexity: 67, amazon_rufus: 66 } as const;
    const batches = await Promise.all(
      Object.entries(sizes).map(async ([scraper, size]) => {
        const response = await postBatch({ scraper, items: Array.from({ length: size }, () => ({ prompt })) }, { apiKey: own.apiKey });
        expect(response.status, await response.clone().text()).toBe(202);
        return ((await response.json()) as { job_ids: string[] }).job_ids;
      }),
    );
    const submitted = batches.flat();
    expect(new Set(submitted).size).toBe(200);
    const deadline = Date.now() + 240_000;
    const pending = new Set(submitted);
    const finished = new Map<string, string>();
    while (pending.size > 0 && Date.now() < deadline) {
      for (const jobId of [...pending]) {
        const view = (await (await api(`/jobs/${jobId}`)).json()) as { status: string };
        if (view.status !== "pending") {
          pending.delete(jobId);
          finished.set(jobId, view.status);
        }
      }
      if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(pending.size).toBe(0);
    expect([...finished.values()].every((status) => status === "done")).toBe(true);
    expect(await balanceOf(own.accountId)).toBe(0);
    const charges = (await ledgerOf(own.accountId)).filter((row) => row.kind === "charge");
    expect(charges).toHaveLength(200);
    expect(new Set(charges.map((row) => row.operation_id)).size).toBe(200);
  }, 300_000);
});
