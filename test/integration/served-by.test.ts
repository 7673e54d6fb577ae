/**
 * `served_by` on answers that did not need a browser of their own (issue 32, item 3): a cache hit and a request
 * answered by an identical request's scrape carry the provenance of the scrape that produced their answer, with
 * `from_cache: true`. A fresh scrape's `served_by` (country, version, attempt) is asserted end to end in
 * test/e2e/provider-contract.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { responseCacheKey } from "../../src/cache/response-cache";
import { coalesceScrape } from "../../src/pipeline/coalesce";
import type { ScrapeProvenance } from "../../src/schemas/responses";
import { cacheEntryJson, SEEDED_PROVENANCE, seedCachedGrokAnswer } from "../support/workers/account-helpers";
import { waitFor, waitForTerminal } from "../support/workers/async-helpers";
import { api, createTestAccount, query } from "../support/workers/helpers";

/** A provenance unlike the seeded default in every field, so nothing can match it by accident. */
const SIGNED_IN_DE_THIRD_ATTEMPT: ScrapeProvenance = {
  country: "DE",
  session: "signed_in",
  attempt: 3,
  hot_page: true,
  model_label: "grok-4-expert",
  scraper_version: "grok/2026.11.1",
};

const GROK_ANSWER = {
  web_sources: [],
  social_results: [],
  related_questions: [],
  conversation: null,
  llm_model: "grok-4-expert",
  mode: "MODEL_MODE_AUTO",
};

describe("served_by of answers served without a scrape of their own", () => {
  it("a cache hit carries the provenance stored with the entry, marked from_cache", async () => {
    const own = await createTestAccount(30);
    const prompt = `served_by of a hit ${crypto.randomUUID()}`;
    await seedCachedGrokAnswer(prompt, own.accountId);
    const response = await api(`/scrapers/grok?${query({ prompt })}`, { apiKey: own.apiKey });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { cached: boolean; served_by: unknown };
    expect(body.cached).toBe(true);
    expect(body.served_by).toEqual({ ...SEEDED_PROVENANCE, from_cache: true });
  });

  it("a job answered from the cache carries the original scrape's attempt and country, not its own", async () => {
    const own = await createTestAccount(30);
    const prompt = `served_by of a cached job ${crypto.randomUUID()}`;
    const params = { prompt, country: "DE", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" };
    await env.CACHE.put(
      await responseCacheKey("grok", params, own.accountId),
      cacheEntryJson({ result: "From the cache", result_markdown: null, ...GROK_ANSWER }, SIGNED_IN_DE_THIRD_ATTEMPT),
      { expirationTtl: 3600 },
    );
    const submitted = await api(`/scrapers/grok/jobs?${query({ prompt, country: "DE" })}`, { method: "POST", apiKey: own.apiKey });
    expect(submitted.status).toBe(202);
    const done = await waitForTerminal(((await submitted.json()) as { job_id: string }).job_id);
    expect(done.status).toBe("done");
    expect(done.result?.served_by).toEqual({ ...SIGNED_IN_DE_THIRD_ATTEMPT, from_cache: true });
  });

  it("a request that follows an identical request's scrape carries that scrape's provenance, marked from_cache", async () => {
    const own = await createTestAccount(30);
    const prompt = `served_by of a follower ${crypto.randomUUID()}`;
    const params = { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" };
    const cacheKey = await responseCacheKey("grok", params, own.accountId);
    // The test leads the scrape of that key and answers it once the request follows it.
    let answer: (stored: Record<string, unknown>) => void = () => undefined;
    let leading = false;
    const leader = coalesceScrape(
      env,
      cacheKey,
      { signal: new AbortController().signal, deadline: Date.now() + 60_000 },
      () =>
        new Promise<Record<string, unknown>>((resolve) => {
          leading = true;
          answer = resolve;
        }),
      () => null,
    );
    await waitFor("the test to lead the scrape", async () => (leading ? true : undefined));
    const follower = api(`/scrapers/grok?${query({ prompt })}`, { apiKey: own.apiKey });
    const leaderProvenance: ScrapeProvenance = { ...SIGNED_IN_DE_THIRD_ATTEMPT, country: "US", attempt: 1 };
    // give the request time to join the flight (it waits on it, or finds its answer among the recent ones)
    await new Promise((resolve) => setTimeout(resolve, 200));
    answer(JSON.parse(cacheEntryJson({ result: "The leader's answer", result_markdown: null, ...GROK_ANSWER }, leaderProvenance)));
    await leader;
    const response = await follower;
    expect(response.status, await response.clone().text()).toBe(200);
    const body = (await response.json()) as { result: string; cached: boolean; served_by: unknown };
    expect(body.result).toBe("The leader's answer");
    expect(body.cached).toBe(true);
    expect(body.served_by).toEqual({ ...leaderProvenance, from_cache: true });
  });
});
