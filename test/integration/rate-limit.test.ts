/**
 * The per-key rate limit (issue 5): the real rate-limiting binding of wrangler.toml (60 requests per 60 s per key),
 * checked after authentication and before (and separately from) the credit check.
 */
import { describe, expect, it } from "vitest";
import { RATE_LIMIT_DETAIL } from "../../src/http/api-key-auth";
import { authProbe, cachedScrape, newAccount, newKey } from "./account-helpers";
import { api, balanceOf } from "./helpers";

const LIMIT = 60;

/**
 * Sends requests with `apiKey` until one is refused, and returns how many passed first. Sequential on purpose: each
 * request must count before the next, as a client's burst would. The binding counts in fixed one-minute windows, so a
 * burst that straddles a window's end passes between LIMIT and 2 × LIMIT requests; never fewer, never unlimited.
 */
async function exhaust(apiKey: string): Promise<{ passed: number; refusal: Response }> {
  for (let passed = 0; passed < 2 * LIMIT; passed += 1) {
    const response = await authProbe(apiKey);
    if (response.status !== 200) return { passed, refusal: response };
  }
  throw new Error(`no refusal after ${2 * LIMIT} requests`);
}

describe("per-key rate limit", () => {
  it(`allows ${LIMIT} requests a minute per key, then answers 429 with Retry-After`, async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    const { passed, refusal: limited } = await exhaust(key.api_key);
    expect(passed).toBeGreaterThanOrEqual(LIMIT);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ detail: RATE_LIMIT_DETAIL });
    expect(RATE_LIMIT_DETAIL).toBe("Rate limit exceeded. Retry after a moment.");
    const retryAfter = Number(limited.headers.get("Retry-After"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The free account endpoint is limited with the same budget.
    expect((await api("/account", { apiKey: key.api_key })).status).toBe(429);
  });

  it("is per key: another key of the same account, sharing its balance, is not limited", async () => {
    const account = await newAccount();
    const busy = await newKey(account.account_id, "busy");
    const quiet = await newKey(account.account_id, "quiet");
    await exhaust(busy.api_key);
    expect((await authProbe(busy.api_key)).status).toBe(429);
    expect((await authProbe(quiet.api_key)).status).toBe(200);
    expect((await api("/account", { apiKey: quiet.api_key })).status).toBe(200);
  });

  it("is separate from credits: a limited request charges nothing, and its 429 is not the credit 429", async () => {
    const account = await newAccount({ credits: 30 });
    const key = await newKey(account.account_id);
    await exhaust(key.api_key);
    const limited = await cachedScrape(key.api_key, "rate limited, not charged");
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { detail: string }).detail).toBe(RATE_LIMIT_DETAIL);
    expect(await balanceOf(account.account_id)).toBe(30);
  });

  it("an account without credits but within its rate limit gets the credit 429, not the rate-limit one", async () => {
    const account = await newAccount({ credits: 0 });
    const key = await newKey(account.account_id);
    const response = await cachedScrape(key.api_key, "no credits");
    expect(response.status).toBe(429);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/^Credit limit reached/);
  });

  it("unauthenticated requests are refused with 401 before the limiter is consulted", async () => {
    for (let index = 0; index < LIMIT + 5; index += 1) {
      if ((await authProbe("sk_not_a_key")).status !== 401) throw new Error(`request ${index} was not 401`);
    }
  });
});
