/**
 * API keys: `sk_` + 32 random bytes (base64url), stored only as a SHA-256 hash with a short display prefix.
 * Every request looks the hash up in D1, so a revoked key fails on the very next request.
 */
import { UnauthorizedError } from "../errors";
import { randomToken, sha256Hex } from "../util/crypto";

export const MISSING_KEY_DETAIL = "Missing API key. Pass it in the X-API-Key header (recommended) or as the api_key query parameter.";
export const INVALID_KEY_DETAIL = "Invalid API key: it matches no active key (it may have been revoked).";

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
}

export interface NewApiKey {
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

export async function authenticateApiKey(db: D1Database, apiKey: string | undefined): Promise<AuthenticatedKey> {
  if (apiKey === undefined) throw new UnauthorizedError(MISSING_KEY_DETAIL, "missing_api_key");
  const row = await db
    .prepare("SELECT id, account_id FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL")
    .bind(await sha256Hex(apiKey))
    .first<{ id: string; account_id: string }>();
  if (row === null) throw new UnauthorizedError(INVALID_KEY_DETAIL, "invalid_api_key");
  return { keyId: row.id, accountId: row.account_id };
}

/** How stale `last_used_at` may get: at most one write per key per minute, not one per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Records that a key was used; best effort (a failure here must not fail the request). */
export async function touchApiKey(db: D1Database, keyId: string, now = new Date()): Promise<void> {
  await db
    .prepare("UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?3)")
    .bind(now.toISOString(), keyId, new Date(now.getTime() - LAST_USED_RESOLUTION_MS).toISOString())
    .run()
    .catch((error: unknown) => console.error("Could not record the key's last use", error));
}
