/** Helpers of the operator, account and dashboard tests: admin calls, and charged scrapes that need no browser. */
import { env } from "cloudflare:workers";
import { responseCacheKey } from "../../../src/cache/response-cache";
import type { ScrapeProvenance } from "../../../src/schemas/responses";
import { sha256Hex } from "../../../src/util/crypto";

import { api, query } from "./helpers";

export function adminApi(path: string, init: { method?: string; body?: unknown; token?: string | null } = {}): Promise<Response> {
  const headers = new Headers();
  // The binding is TEST_ADMIN_TOKEN of vitest.config.ts (that module cannot be imported inside workerd).
  const token = init.token === undefined ? env.ADMIN_TOKEN : init.token;
  if (token !== null) headers.set("Authorization", `Bearer ${token}`);
  if (init.body !== undefined) headers.set("Content-Type", "application/json");
  return api(path, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

export async function adminJson<T>(path: string, init: { method?: string; body?: unknown } = {}, expectedStatus = 200): Promise<T> {
  const response = await adminApi(path, init);
  const text = await response.text();
  if (response.status !== expectedStatus)
    throw new Error(`${init.method ?? "GET"} ${path}: expected ${expectedStatus}, got ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

export interface CreatedAccount {
  account_id: string;
  name: string;
  email: string | null;
  credits: number;
  created_at: string;
}

export interface CreatedKey {
  key_id: string;
  api_key: string;
  name: string;
  display_prefix: string;
  scope: "scrape" | "manage";
  created_at: string;
}

export function newAccount(body: Record<string, unknown> = {}): Promise<CreatedAccount> {
  return adminJson<CreatedAccount>("/admin/accounts", { method: "POST", body: { name: "Acme Research", ...body } }, 201);
}

/** A key made through the operator API; without `scope` the request leaves it out (the default, `scrape`). */
export function newKey(accountId: string, name = "Production", scope?: "scrape" | "manage"): Promise<CreatedKey> {
  return adminJson<CreatedKey>(`/admin/accounts/${accountId}/keys`, { method: "POST", body: { name, scope } }, 201);
}

/** Who produced a seeded cache entry, as the entry states it: a scrape through the US pool, signed out, first attempt. */
export const SEEDED_PROVENANCE: ScrapeProvenance = {
  country: "US",
  session: "anonymous",
  attempt: 1,
  hot_page: false,
  model_label: "grok-test",
  scraper_version: "grok/2026.11.1",
};

/** A response-cache entry's JSON: the answer's fields and, beside them, who produced it (src/pipeline/served-by.ts). */
export function cacheEntryJson(answer: Record<string, unknown>, provenance: ScrapeProvenance = SEEDED_PROVENANCE): string {
  return JSON.stringify({ ...answer, served_by: provenance });
}

/**
 * Puts an answer for `prompt` in the response cache of `accountId` (entries are per account), so
 * `GET /scrapers/grok?prompt=…` with a key of that account is a real, charged 200 that needs no browser (a cache hit is
 * charged like any other answer, DESIGN.md §4). Without `accountId`, every account that exists now gets the entry.
 */
export async function seedCachedGrokAnswer(prompt: string, accountId?: string): Promise<void> {
  if (accountId === undefined) {
    const { results } = await env.DB.prepare("SELECT id FROM accounts").all<{ id: string }>();
    await Promise.all(results.map((account) => seedCachedGrokAnswer(prompt, account.id)));
    return;
  }
  const params = { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" };
  await env.CACHE.put(
    await responseCacheKey("grok", params, accountId),
    cacheEntryJson({
      result: `Cached answer to: ${prompt}`,
      result_markdown: `Cached answer to: **${prompt}**`,
      web_sources: [],
      social_results: [],
      related_questions: [],
      conversation: null,
      llm_model: "grok-test",
      mode: "MODEL_MODE_AUTO",
    }),
    { expirationTtl: 3600 },
  );
}

/** A cached (so browser-free) grok scrape with `apiKey`; seeds the cache for `prompt` first. */
export async function cachedScrape(apiKey: string, prompt = "What do people say about the launch?"): Promise<Response> {
  const owner = await env.DB.prepare("SELECT account_id FROM api_keys WHERE key_hash = ?")
    .bind(await sha256Hex(apiKey))
    .first<{ account_id: string }>();
  if (owner !== null) await seedCachedGrokAnswer(prompt, owner.account_id);
  return api(`/scrapers/grok?${query({ prompt })}`, { apiKey });
}

/**
 * `GET /account` goes through the same API-key middleware as every scrape (authentication, last use, the per-key rate
 * limit) and charges nothing: 200 for a usable key, 401 or 429 otherwise.
 */
export function authProbe(apiKey: string | undefined): Promise<Response> {
  return api("/account", apiKey === undefined ? {} : { apiKey });
}
