/**
 * API keys: `sk_` + 32 random bytes (base64url), stored only as a SHA-256 hash with a short display prefix.
 *
 * Authentication looks the hash up in D1, and each isolate remembers a key it found active for KEY_MEMO_TTL_MS (by its
 * hash, never the key itself), so a burst of requests with one key costs one query, not one per request. What bounds a
 * revocation (docs/cache-path.md):
 * - every request that spends credits (sync scrape, job, batch) re-checks in its charge statement that the key is still
 *   active (src/credits/ledger.ts), so a revoked key never spends another credit, on any isolate;
 * - on the isolate that revoked it (`revokeApiKey`), the key fails on the very next request;
 * - elsewhere a free request (`GET /account`, job listing, webhook settings) may pass for at most KEY_MEMO_TTL_MS more.
 * A key that matches nothing is never remembered: a new key works at once, and every wrong guess costs a query.
 *
 * Each key has a scope, fixed at its creation (src/http/require-scope.ts): `scrape` keys run scrapes, jobs, batches,
 * `GET /account` and the MCP tools; `manage` keys may also read and change the account's webhook settings.
 */
import { UnauthorizedError } from "../errors";
import { randomToken, sha256Hex } from "../util/crypto";
import { logLine, type LogSubject } from "../util/log-line";

export const MISSING_KEY_DETAIL = "Missing API key. Pass it in the X-API-Key header (recommended) or as the api_key query parameter.";
export const INVALID_KEY_DETAIL = "Invalid API key: it matches no active key (it may have been revoked).";

/** What a key may do; `scrape` is the default of a new key (and what every key created before scopes became). */
export const API_KEY_SCOPES = ["scrape", "manage"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];
export const DEFAULT_API_KEY_SCOPE: ApiKeyScope = "scrape";

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return API_KEY_SCOPES.some((scope) => scope === value);
}

/** A scope read from storage; anything unknown (the column's CHECK forbids it) counts as the least privileged one. */
export function storedScope(value: string): ApiKeyScope {
  return isApiKeyScope(value) ? value : DEFAULT_API_KEY_SCOPE;
}

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
}

/** The key of an API request (`c.var.apiKey`): who it is, and what it may do. */
export interface ScopedKey extends AuthenticatedKey {
  scope: ApiKeyScope;
}

interface NewApiKey {
  keyId: string;
  apiKey: string;
  keyHash: string;
  displayPrefix: string;
}

export async function generateApiKey(): Promise<NewApiKey> {
  const apiKey = `sk_${randomToken(32)}`;
  return {
    keyId: `key_${randomToken(12)}`,
    apiKey,
    keyHash: await sha256Hex(apiKey),
    displayPrefix: apiKey.slice(0, 10),
  };
}

/** The header wins over the query parameter; blank values count as missing. */
export function pickApiKey(header: string | undefined, query: string | undefined): string | undefined {
  const candidate = header?.trim() || query?.trim();
  return candidate === "" ? undefined : candidate;
}

/** How long an isolate trusts a key it found active without asking D1 again: the bound of a revocation on free requests. */
export const KEY_MEMO_TTL_MS = 5_000;
/** Keys remembered per isolate; past it the oldest is forgotten (a forgotten key costs one query, nothing more). */
const KEY_MEMO_MAX_ENTRIES = 1_000;

/** This isolate's active keys by SHA-256 hash, with when it stops trusting each. */
const activeKeys = new Map<string, { key: ScopedKey; until: number }>();
/** Lookups in flight by hash: concurrent requests with one key share one query. */
const lookups = new Map<string, Promise<ScopedKey | null>>();

async function lookUpActiveKey(db: D1Database, keyHash: string): Promise<ScopedKey | null> {
  const row = await db
    .prepare("SELECT id, account_id, scope FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL")
    .bind(keyHash)
    .first<{ id: string; account_id: string; scope: string }>();
  return row === null ? null : { keyId: row.id, accountId: row.account_id, scope: storedScope(row.scope) };
}

function rememberedKey(keyHash: string, now: number): ScopedKey | null {
  const remembered = activeKeys.get(keyHash);
  if (remembered === undefined) return null;
  if (remembered.until > now) return remembered.key;
  activeKeys.delete(keyHash);
  return null;
}

function remember(keyHash: string, key: ScopedKey, now: number): void {
  activeKeys.delete(keyHash);
  if (activeKeys.size >= KEY_MEMO_MAX_ENTRIES) {
    const oldest = activeKeys.keys().next();
    if (oldest.done !== true) activeKeys.delete(oldest.value);
  }
  activeKeys.set(keyHash, { key, until: now + KEY_MEMO_TTL_MS });
}

/** The active key `apiKey` names, from this isolate's memo or from D1; UnauthorizedError when it is missing or matches none. */
export async function authenticateApiKey(db: D1Database, apiKey: string | undefined, now = Date.now()): Promise<ScopedKey> {
  if (apiKey === undefined) throw new UnauthorizedError(MISSING_KEY_DETAIL, "missing_api_key");
  const keyHash = await sha256Hex(apiKey);
  const remembered = rememberedKey(keyHash, now);
  if (remembered !== null) return remembered;
  let lookup = lookups.get(keyHash);
  if (lookup === undefined) {
    lookup = lookUpActiveKey(db, keyHash).finally(() => lookups.delete(keyHash));
    lookups.set(keyHash, lookup);
  }
  const key = await lookup;
  if (key === null) throw new UnauthorizedError(INVALID_KEY_DETAIL, "invalid_api_key");
  remember(keyHash, key, now);
  return key;
}

/** Forgets a key this isolate remembers (it was just revoked here): its next request asks D1 again. */
export function forgetApiKey(keyId: string): void {
  for (const [keyHash, remembered] of activeKeys) if (remembered.key.keyId === keyId) activeKeys.delete(keyHash);
}

/** How stale `last_used_at` may get: at most one write per key per minute, not one per request. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** When this isolate last wrote each key's last use: within the resolution, a request sends no write at all. */
const lastTouched = new Map<string, number>();

/** Records that a key was used; best effort (a failure here must not fail the request). */
/** `logSubject`: the request the key came with, so a failure's line names it. */
export async function touchApiKey(db: D1Database, keyId: string, logSubject?: LogSubject, now = new Date()): Promise<void> {
  const touchedAt = lastTouched.get(keyId);
  if (touchedAt !== undefined && now.getTime() - touchedAt < LAST_USED_RESOLUTION_MS) return;
  if (lastTouched.size >= KEY_MEMO_MAX_ENTRIES) lastTouched.clear();
  lastTouched.set(keyId, now.getTime());
  await db
    .prepare("UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?3)")
    .bind(now.toISOString(), keyId, new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString())
    .run()
    .catch((error: unknown) => {
      // the next request tries again
      lastTouched.delete(keyId);
      console.error(logLine(logSubject, "Could not record the key's last use"), error);
    });
}
