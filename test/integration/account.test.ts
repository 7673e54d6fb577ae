/** `GET /account` (issue 5): what a key holder sees of its own account, and the balance header on scrapes. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { INVALID_KEY_DETAIL, MISSING_KEY_DETAIL } from "../../src/auth/api-keys";
import { chargeCredits, refundCredits } from "../../src/credits/ledger";
import { adminJson, cachedScrape, newAccount, newKey } from "../support/workers/account-helpers";
import { api, balanceOf } from "../support/workers/helpers";

interface AccountStatus {
  account_id: string;
  name: string;
  credits_remaining: number;
  credits_used_last_30_days: number;
  requests_last_30_days: number;
  usage_by_scraper: Array<{ scraper: string; requests: number; credits: number }>;
  period_start: string;
  key: { key_id: string; name: string; scope: string };
}

async function status(apiKey: string): Promise<{ response: Response; body: AccountStatus }> {
  const response = await api("/account", { apiKey });
  expect(response.status).toBe(200);
  return { response, body: (await response.json()) as AccountStatus };
}

describe("GET /account", () => {
  it("a new account: full balance, no usage, the key it was called with", async () => {
    const account = await newAccount({ name: "Fresh Co" });
    const key = await newKey(account.account_id, "Laptop");
    const { response, body } = await status(key.api_key);
    expect(body).toEqual({
      account_id: account.account_id,
      name: "Fresh Co",
      credits_remaining: 1500,
      credits_used_last_30_days: 0,
      requests_last_30_days: 0,
      usage_by_scraper: [],
      period_start: body.period_start,
      key: { key_id: key.key_id, name: "Laptop", scope: "scrape" },
    });
    expect(response.headers.get("X-Credits-Remaining")).toBe("1500");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const days = (Date.now() - new Date(body.period_start).getTime()) / 86_400_000;
    expect(days).toBeCloseTo(30, 2);
  });

  it("accepts the key as the api_key query parameter; the header wins", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    expect((await api(`/account?api_key=${encodeURIComponent(key.api_key)}`)).status).toBe(200);
    expect((await api(`/account?api_key=${encodeURIComponent(key.api_key)}`, { apiKey: "sk_wrong" })).status).toBe(401);
  });

  it("401 for a missing, unknown or revoked key", async () => {
    const missing = await api("/account");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      detail: MISSING_KEY_DETAIL,
      code: "missing_api_key",
      request_id: missing.headers.get("X-Request-Id"),
    });
    const unknown = await api("/account", { apiKey: "sk_unknown" });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({
      detail: INVALID_KEY_DETAIL,
      code: "invalid_api_key",
      request_id: unknown.headers.get("X-Request-Id"),
    });

    const account = await newAccount();
    const key = await newKey(account.account_id);
    await status(key.api_key);
    await adminJson(`/admin/keys/${key.key_id}`, { method: "DELETE" });
    const revoked = await api("/account", { apiKey: key.api_key });
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toEqual({
      detail: INVALID_KEY_DETAIL,
      code: "invalid_api_key",
      request_id: revoked.headers.get("X-Request-Id"),
    });
  });

  it("counts charged requests of the last 30 days per scraper, across every key, excluding refunds", async () => {
    const account = await newAccount({ credits: 300 });
    const a = await newKey(account.account_id, "A");
    const b = await newKey(account.account_id, "B");
    for (const [key, prompt] of [
      [a, "usage one"],
      [a, "usage two"],
      [b, "usage three"],
    ] as const) {
      const response = await cachedScrape(key.api_key, prompt);
      expect(response.status).toBe(200);
    }
    // A failed job (charged, then refunded) costs nothing and is not usage.
    await chargeCredits(env.DB, {
      accountId: account.account_id,
      operationId: crypto.randomUUID(),
      scraper: "perplexity",
      keyId: a.key_id,
    });
    const failed = crypto.randomUUID();
    await chargeCredits(env.DB, { accountId: account.account_id, operationId: failed, scraper: "perplexity", keyId: a.key_id });
    await refundCredits(env.DB, account.account_id, failed, "job failed");
    // Usage older than the window is not counted (but its cost stays spent).
    const old = new Date(Date.now() - 40 * 86_400_000);
    await chargeCredits(
      env.DB,
      { accountId: account.account_id, operationId: crypto.randomUUID(), scraper: "chatgpt", keyId: b.key_id },
      old,
    );

    const { response, body } = await status(b.api_key);
    expect(body.credits_remaining).toBe(300 - 3 * 3 - 3 - 3);
    expect(response.headers.get("X-Credits-Remaining")).toBe(String(body.credits_remaining));
    expect(body.credits_used_last_30_days).toBe(12);
    expect(body.requests_last_30_days).toBe(4);
    expect(body.usage_by_scraper).toEqual([
      { scraper: "grok", requests: 3, credits: 9 },
      { scraper: "perplexity", requests: 1, credits: 3 },
    ]);
  });

  it("is free: reading the account charges nothing", async () => {
    const account = await newAccount({ credits: 10 });
    const key = await newKey(account.account_id);
    for (let index = 0; index < 3; index += 1) await status(key.api_key);
    expect(await balanceOf(account.account_id)).toBe(10);
  });

  it("records the key's last use", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    await status(key.api_key);
    // The update runs after the response (waitUntil); give it a moment.
    let lastUsed: string | null = null;
    for (let attempt = 0; attempt < 20 && lastUsed === null; attempt += 1) {
      lastUsed =
        (await env.DB.prepare("SELECT last_used_at FROM api_keys WHERE id = ?").bind(key.key_id).first<{ last_used_at: string | null }>())
          ?.last_used_at ?? null;
      if (lastUsed === null) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(lastUsed).not.toBeNull();
  });
});

describe("X-Credits-Remaining on scrape responses", () => {
  it("carries the balance after the charge, and falls by 3 per answered request", async () => {
    const account = await newAccount({ credits: 9 });
    const key = await newKey(account.account_id);
    const remaining: Array<string | null> = [];
    for (const prompt of ["balance a", "balance b", "balance c"]) {
      const response = await cachedScrape(key.api_key, prompt);
      expect(response.status).toBe(200);
      remaining.push(response.headers.get("X-Credits-Remaining"));
    }
    expect(remaining).toEqual(["6", "3", "0"]);
    const refused = await cachedScrape(key.api_key, "balance d");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/^Credit limit reached/);
  });
});
