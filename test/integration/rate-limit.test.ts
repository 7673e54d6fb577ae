/**
 * Request rate limits (issues 5 and 14): per key and per account, each account's own values (the operator's
 * `PATCH /admin/accounts/{id}/limits`, defaults 600 and 1200 a minute), checked after authentication and separately
 * from credits; a refusal carries Retry-After with the seconds until the next request fits; polling a job is free.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ACCOUNT_RATE_LIMIT_DETAIL, RATE_LIMIT_DETAIL } from "../../src/http/api-key-auth";
import { takeAccountSlot } from "../../src/limits/account-slots";
import type { AccountLimitsView } from "../../src/limits/limits-view";
import { adminApi, adminJson, authProbe, cachedScrape, newAccount, newKey } from "../support/workers/account-helpers";
import { seedAnswer } from "../support/workers/async-helpers";
import { api, balanceOf, query } from "../support/workers/helpers";

const DEFAULT_PER_KEY = 600;
const DEFAULT_PER_ACCOUNT = 1200;

type LimitsResponse = { account_id: string; limits: AccountLimitsView };

function setLimits(accountId: string, body: Record<string, number | null>): Promise<LimitsResponse> {
  return adminJson<LimitsResponse>(`/admin/accounts/${accountId}/limits`, { method: "PATCH", body });
}

/**
 * Sends requests with `apiKey` until one is refused, and returns how many passed first. Sequential on purpose: each
 * request must count before the next, as a client's burst would.
 */
async function exhaust(apiKey: string, atMost: number): Promise<{ passed: number; refusal: Response }> {
  for (let passed = 0; passed < atMost; passed += 1) {
    const response = await authProbe(apiKey);
    if (response.status !== 200) return { passed, refusal: response };
  }
  throw new Error(`no refusal after ${atMost} requests`);
}

describe("per-key rate limit", () => {
  it("an account's own limit: its keys get exactly that many at once, then 429 with the seconds until the next fits", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    const changed = await setLimits(account.account_id, { key_requests_per_minute: 6 });
    expect(changed.limits.requests_per_minute).toEqual({ per_key: 6, per_account: DEFAULT_PER_ACCOUNT });
    expect(changed.limits.account_overrides).toEqual({
      key_requests_per_minute: 6,
      account_requests_per_minute: null,
      concurrent_requests: null,
      refunded_browser_seconds_per_hour: null,
    });

    const { passed, refusal } = await exhaust(key.api_key, 20);
    expect(passed).toBe(6);
    expect(refusal.status).toBe(429);
    expect(await refusal.json()).toMatchObject({ detail: RATE_LIMIT_DETAIL });
    // 6 a minute refill one every 10 s: the next request fits within 10 s, never later.
    const retryAfter = Number(refusal.headers.get("Retry-After"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(10);

    // Scrapes are limited with the same budget, and a refused one charges nothing.
    const before = await balanceOf(account.account_id);
    const limited = await cachedScrape(key.api_key, "rate limited, not charged");
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { detail: string }).detail).toBe(RATE_LIMIT_DETAIL);
    expect(await balanceOf(account.account_id)).toBe(before);

    // Another account keeps the defaults.
    const other = await newAccount();
    const otherView = await adminJson<LimitsResponse>(`/admin/accounts/${other.account_id}/limits`);
    expect(otherView.limits.requests_per_minute).toEqual({ per_key: DEFAULT_PER_KEY, per_account: DEFAULT_PER_ACCOUNT });
    expect((await authProbe((await newKey(other.account_id)).api_key)).status).toBe(200);
  });

  it("is per key: another key of the same account, sharing its balance, is not limited", async () => {
    const account = await newAccount();
    const busy = await newKey(account.account_id, "busy");
    const quiet = await newKey(account.account_id, "quiet");
    await setLimits(account.account_id, { key_requests_per_minute: 3 });
    await exhaust(busy.api_key, 10);
    expect((await authProbe(busy.api_key)).status).toBe(429);
    expect((await authProbe(quiet.api_key)).status).toBe(200);
  });

  it("a raised limit applies from the next request, and null puts the default back", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    await setLimits(account.account_id, { key_requests_per_minute: 2 });
    await exhaust(key.api_key, 10);
    await setLimits(account.account_id, { key_requests_per_minute: 1000 });
    expect((await authProbe(key.api_key)).status).toBe(200);
    const reset = await setLimits(account.account_id, { key_requests_per_minute: null });
    expect(reset.limits.requests_per_minute.per_key).toBe(DEFAULT_PER_KEY);
    expect(reset.limits.account_overrides.key_requests_per_minute).toBeNull();
  });

  it("a lowered limit hands out no fresh allowance: what the key used still counts", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    await setLimits(account.account_id, { key_requests_per_minute: 10 });
    for (let index = 0; index < 5; index += 1) expect((await authProbe(key.api_key)).status).toBe(200);
    await setLimits(account.account_id, { key_requests_per_minute: 5 });
    expect((await authProbe(key.api_key)).status).toBe(429);
  });

  it("the account limit counts all its keys together", async () => {
    const account = await newAccount();
    const keys = [await newKey(account.account_id, "a"), await newKey(account.account_id, "b")];
    await setLimits(account.account_id, { account_requests_per_minute: 5 });
    for (let index = 0; index < 5; index += 1) {
      const key = keys[index % 2];
      if (key === undefined) throw new Error("no key");
      expect((await authProbe(key.api_key)).status).toBe(200);
    }
    const refused = await authProbe(keys[0]?.api_key);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ detail: ACCOUNT_RATE_LIMIT_DETAIL });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("Retry-After"))).toBeLessThanOrEqual(12);
  });

  it("polling GET /jobs/{job_id} is not limited: an account at its limit still polls its job", async () => {
    const account = await newAccount({ credits: 30 });
    const key = await newKey(account.account_id);
    const prompt = "polled while rate limited";
    await seedAnswer(account.account_id, prompt);
    await setLimits(account.account_id, { key_requests_per_minute: 1 });
    const submitted = await api(`/scrapers/grok/jobs?${query({ prompt })}`, { method: "POST", apiKey: key.api_key });
    expect(submitted.status).toBe(202);
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    expect((await authProbe(key.api_key)).status).toBe(429);
    for (let poll = 0; poll < 20; poll += 1) expect((await api(`/jobs/${jobId}`)).status).toBe(200);
  });

  it("by default, a batch of 500 individual job submissions goes through in one go", async () => {
    const account = await newAccount({ credits: 1500 });
    const key = await newKey(account.account_id);
    const prompt = "five hundred at once";
    // Cached, so the consumer completes the jobs without a browser.
    await seedAnswer(account.account_id, prompt);
    const statuses: number[] = [];
    const path = `/scrapers/grok/jobs?${query({ prompt })}`;
    for (let wave = 0; wave < 20; wave += 1) {
      const responses = await Promise.all(Array.from({ length: 25 }, () => api(path, { method: "POST", apiKey: key.api_key })));
      statuses.push(...responses.map((response) => response.status));
    }
    expect(statuses.filter((status) => status === 202)).toHaveLength(500);
    expect(await balanceOf(account.account_id)).toBe(0);
  });

  it("the operator's values are checked: out of range, unknown fields, an empty change, an unknown account", async () => {
    const account = await newAccount();
    const path = `/admin/accounts/${account.account_id}/limits`;
    const tooHigh = await adminApi(path, { method: "PATCH", body: { key_requests_per_minute: 100_001 } });
    expect(tooHigh.status).toBe(400);
    expect(((await tooHigh.json()) as { detail: string }).detail).toMatch(/key_requests_per_minute/);
    expect((await adminApi(path, { method: "PATCH", body: { concurrent_requests: 0 } })).status).toBe(400);
    expect((await adminApi(path, { method: "PATCH", body: { requests: 5 } })).status).toBe(400);
    expect((await adminApi(path, { method: "PATCH", body: {} })).status).toBe(400);
    expect((await adminApi("/admin/accounts/acct_nope/limits", { method: "PATCH", body: { concurrent_requests: 4 } })).status).toBe(404);
    expect((await adminApi(path, { method: "PATCH", body: { concurrent_requests: 4 }, token: null })).status).toBe(401);
  });

  it("an account without credits but within its rate limit gets the credit 429, not the rate-limit one", async () => {
    const account = await newAccount({ credits: 0 });
    const key = await newKey(account.account_id);
    const response = await cachedScrape(key.api_key, "no credits");
    expect(response.status).toBe(429);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/^Credit limit reached/);
    expect(response.headers.get("Retry-After")).toBeNull();
  });

  it("unauthenticated requests are refused with 401 before the limiter is consulted", async () => {
    for (let index = 0; index < 30; index += 1) {
      if ((await authProbe("sk_not_a_key")).status !== 401) throw new Error(`request ${index} was not 401`);
    }
  });
});

describe("synchronous requests in flight, per account", () => {
  it("the operator's concurrent_requests replaces the default for that account", async () => {
    const account = await newAccount();
    const changed = await setLimits(account.account_id, { concurrent_requests: 2 });
    expect(changed.limits.concurrent_requests.limit).toBe(2);
    // The middleware passes the service's default (here 1): the account's own value takes its place.
    const slot = { accountId: account.account_id, kind: "request" as const, limit: 1, ttlMs: 60_000 };
    expect((await takeAccountSlot(env.DB, slot)).taken).toBe(true);
    expect((await takeAccountSlot(env.DB, slot)).taken).toBe(true);
    const third = await takeAccountSlot(env.DB, slot);
    expect(third).toMatchObject({ taken: false, inUse: 2, limit: 2 });
    // Job slots keep their own limit.
    expect((await takeAccountSlot(env.DB, { ...slot, kind: "job", jobId: crypto.randomUUID() })).taken).toBe(true);
    expect((await takeAccountSlot(env.DB, { ...slot, kind: "job", jobId: crypto.randomUUID() })).taken).toBe(false);
  });
});
