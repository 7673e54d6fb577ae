/**
 * Coalescing end to end (issue 14): real Chromium against the Grok replica. 20 identical synchronous requests of one
 * account arriving together make one exchange at the replica and get 20 answers, each charged 3 credits like a cache
 * hit; the same prompt from another account at the same time gets a scrape of its own. The bookkeeping cases (a failing
 * leader, a follower that leaves) are test/integration/coalescing.test.ts.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { api, balanceOf, createTestAccount, ledgerOf, query, replicaControl } from "../support/workers/helpers";

const REQUESTS = 20;

afterEach(async () => {
  await replicaControl("reset");
});

async function grokExchanges(): Promise<number> {
  const state = (await (await fetch(`${env.REPLICA_URL}/__control/state`)).json()) as { providers: Record<string, { exchanges: number }> };
  return state.providers.grok?.exchanges ?? Number.NaN;
}

interface Answered {
  status: number;
  body: { job_id: string; result: string; cached: boolean; credits_used: number };
}

async function scrape(apiKey: string, prompt: string): Promise<Answered> {
  const response = await api(`/scrapers/grok?${query({ prompt, timeout: "60" })}`, { apiKey });
  return { status: response.status, body: (await response.json()) as Answered["body"] };
}

describe("identical requests in flight share one scrape", () => {
  it("20 identical sync requests: 1 exchange, 20 × 200 with the same answer, 20 × 3 credits; another account is not coalesced", async () => {
    const prompt = "What do people say about the coalesced launch?";
    const first = await createTestAccount(1500);
    const second = await createTestAccount(1500);
    // 20 requests at once are above the default bound on scrapes in flight (8), which is left as it is: only the one
    // request that scrapes holds a browser, the others wait for its answer.
    // A slower answer keeps the first scrape running while every request arrives.
    await replicaControl("pacing", { provider: "grok", delay_ms: 1500 });
    const exchangesBefore = await grokExchanges();

    const [answers, other] = await Promise.all([
      Promise.all(Array.from({ length: REQUESTS }, () => scrape(first.apiKey, prompt))),
      scrape(second.apiKey, prompt),
    ]);

    expect(answers.map((answer) => answer.status)).toEqual(Array(REQUESTS).fill(200));
    expect(new Set(answers.map((answer) => answer.body.result)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.body.job_id)).size).toBe(REQUESTS);
    // One request scraped; the others followed it, which a response reports as a cache hit.
    expect(answers.filter((answer) => !answer.body.cached)).toHaveLength(1);
    expect(answers.every((answer) => answer.body.credits_used === 3)).toBe(true);
    // The other account's request scraped on its own: two exchanges in all, never one account's answer for the other.
    expect(other.status).toBe(200);
    expect(other.body.cached).toBe(false);
    expect(await grokExchanges()).toBe(exchangesBefore + 2);

    expect(await balanceOf(first.accountId)).toBe(1500 - REQUESTS * 3);
    const ledger = await ledgerOf(first.accountId);
    expect(ledger.filter((row) => row.kind === "charge")).toHaveLength(REQUESTS);
    expect(ledger.filter((row) => row.kind !== "charge")).toEqual([]);
    expect(new Set(ledger.map((row) => row.operation_id))).toEqual(new Set(answers.map((answer) => answer.body.job_id)));
    expect(ledger.reduce((sum, row) => sum + Math.abs(row.delta), 0)).toBe(REQUESTS * 3);
    expect(await balanceOf(second.accountId)).toBe(1500 - 3);
  });
});
