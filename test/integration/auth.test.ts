/** Spec §5: header or query key, 401 texts, revocation on the very next request. */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { INVALID_KEY_DETAIL, MISSING_KEY_DETAIL } from "../../src/auth/api-keys";
import { seedCachedGrokAnswer } from "../support/workers/account-helpers";
import { api, createTestAccount, query, type TestAccount } from "../support/workers/helpers";

let account: TestAccount;
// A cached answer: a request that passes authentication answers 200 from the cache (no browser), one that fails it 401.
const prompt = "What is authentication?";
const path = `/scrapers/grok?${query({ prompt })}`;
beforeAll(async () => {
  account = await createTestAccount(1500);
  await seedCachedGrokAnswer(prompt, account.accountId);
});

describe("API key authentication", () => {
  it("missing key → 401 naming both the header and the query parameter", async () => {
    const response = await api(path);
    expect(response.status).toBe(401);
    const { detail } = (await response.json()) as { detail: string };
    expect(detail).toBe(MISSING_KEY_DETAIL);
    expect(detail).toContain("X-API-Key");
    expect(detail).toContain("api_key");
  });

  it("blank header and blank query count as missing", async () => {
    expect((await api(`${path}&api_key=`, { headers: { "X-API-Key": "  " } })).status).toBe(401);
  });

  it("wrong key → 401 invalid", async () => {
    const response = await api(path, { apiKey: "sk_not_a_real_key" });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      detail: INVALID_KEY_DETAIL,
      code: "invalid_api_key",
      request_id: response.headers.get("X-Request-Id"),
    });
  });

  it("accepts the key in the header or as api_key in the query", async () => {
    expect((await api(path, { apiKey: account.apiKey })).status).toBe(200);
    expect((await api(`${path}&api_key=${encodeURIComponent(account.apiKey)}`)).status).toBe(200);
  });

  it("the header wins over the query parameter", async () => {
    const response = await api(`${path}&api_key=${encodeURIComponent(account.apiKey)}`, { apiKey: "sk_wrong" });
    expect(response.status).toBe(401);
  });

  it("a revoked key fails on the very next request", async () => {
    const own = await createTestAccount(30);
    expect((await api(path, { apiKey: own.apiKey })).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date().toISOString(), own.keyId).run();
    const response = await api(path, { apiKey: own.apiKey });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      detail: INVALID_KEY_DETAIL,
      code: "invalid_api_key",
      request_id: response.headers.get("X-Request-Id"),
    });
  });

  it("keys are stored only as SHA-256 hashes", async () => {
    const row = await env.DB.prepare("SELECT key_hash, display_prefix FROM api_keys WHERE id = ?")
      .bind(account.keyId)
      .first<{ key_hash: string; display_prefix: string }>();
    expect(row?.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.key_hash).not.toContain(account.apiKey);
    expect(account.apiKey.startsWith(row?.display_prefix ?? "?")).toBe(true);
    expect(row?.display_prefix.length).toBeLessThan(12);
  });

  it("errors never leak the key or a stack", async () => {
    const response = await api(`/scrapers/grok?${query({ prompt: "", api_key: "sk_secret_value" })}`);
    const text = await response.text();
    expect(text).not.toContain("sk_secret_value");
    expect(text).not.toMatch(/at \w+ \(|\.ts:\d+/);
  });
});
