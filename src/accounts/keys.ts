/**
 * An account's API keys: creation (the secret is returned once and only its SHA-256 is stored), listing and
 * revocation. Authentication itself (hash → active key) is in src/auth/api-keys.ts and reads the same table, so a
 * revocation written here fails the very next request.
 */
import { type ApiKeyScope, DEFAULT_API_KEY_SCOPE, forgetApiKey, generateApiKey, storedScope } from "../auth/api-keys";
import { TooManyRequestsError } from "../errors";

/** Active keys per account: enough for one key per environment or service, few enough to keep the list auditable. */
export const MAX_ACTIVE_KEYS = 25;
/**
 * Keys an account may create in 24 hours, revoked ones included: enough to rotate every active key, too few to mint
 * keys without end by revoking and re-creating them (docs/limits.md).
 */
export const MAX_KEYS_CREATED_PER_DAY = 30;
const KEY_CREATION_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface ApiKeySummary {
  keyId: string;
  accountId: string;
  name: string;
  displayPrefix: string;
  /** What the key may do (src/http/require-scope.ts); fixed at creation. */
  scope: ApiKeyScope;
  createdAt: string;
  /** The later of the last recorded use and the last charged scrape; null when never used. */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedApiKey extends ApiKeySummary {
  /** The full secret: returned by the call that creates it, never again. */
  apiKey: string;
}

interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  display_prefix: string;
  scope: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

function toSummary(row: KeyRow): ApiKeySummary {
  return {
    keyId: row.id,
    accountId: row.account_id,
    name: row.name,
    displayPrefix: row.display_prefix,
    scope: storedScope(row.scope),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

// `last_used_at` on the key is best-effort bookkeeping; the ledger's charges are a record of use that always exists.
const KEY_COLUMNS = `k.id, k.account_id, k.name, k.display_prefix, k.scope, k.created_at, k.revoked_at,
  NULLIF(MAX(COALESCE(k.last_used_at, ''), COALESCE(
    (SELECT MAX(l.created_at) FROM credit_ledger l WHERE l.account_id = k.account_id AND l.kind = 'charge' AND l.key_id = k.id), '')), '')
  AS last_used_at`;

type CreateKeyOutcome = { status: "created"; key: CreatedApiKey } | { status: "too_many_keys" } | { status: "account_not_found" };

/** The active-key limit is checked inside the INSERT itself, so two concurrent creations cannot both pass it. */
export async function createApiKey(
  db: D1Database,
  accountId: string,
  name: string,
  scope: ApiKeyScope = DEFAULT_API_KEY_SCOPE,
  now = new Date(),
): Promise<CreateKeyOutcome> {
  const key = await generateApiKey();
  const createdAt = now.toISOString();
  const result = await db
    .prepare(
      `INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at, scope)
       SELECT ?1, id, ?3, ?4, ?5, ?6, ?10 FROM accounts
       WHERE id = ?2 AND (SELECT COUNT(*) FROM api_keys WHERE account_id = ?2 AND revoked_at IS NULL) < ?7
         AND (SELECT COUNT(*) FROM api_keys WHERE account_id = ?2 AND created_at > ?8) < ?9`,
    )
    .bind(
      key.keyId,
      accountId,
      name,
      key.keyHash,
      key.displayPrefix,
      createdAt,
      MAX_ACTIVE_KEYS,
      new Date(now.getTime() - KEY_CREATION_WINDOW_MS).toISOString(),
      MAX_KEYS_CREATED_PER_DAY,
      scope,
    )
    .run();
  if (result.meta.changes === 1) {
    return {
      status: "created",
      key: {
        keyId: key.keyId,
        accountId,
        name,
        displayPrefix: key.displayPrefix,
        scope,
        createdAt,
        lastUsedAt: null,
        revokedAt: null,
        apiKey: key.apiKey,
      },
    };
  }
  const exists = await db.prepare("SELECT 1 AS found FROM accounts WHERE id = ?").bind(accountId).first();
  if (exists === null) return { status: "account_not_found" };
  await refuseIfCreatingTooFast(db, accountId, now);
  return { status: "too_many_keys" };
}

/** 429 with the time until the oldest creation in the window leaves it, when the daily creation limit is what refused. */
async function refuseIfCreatingTooFast(db: D1Database, accountId: string, now: Date): Promise<void> {
  const since = new Date(now.getTime() - KEY_CREATION_WINDOW_MS).toISOString();
  const recent = await db
    .prepare(
      `SELECT (SELECT COUNT(*) FROM api_keys WHERE account_id = ?1 AND revoked_at IS NULL) AS active,
              COUNT(*) AS created, MIN(created_at) AS oldest
       FROM api_keys WHERE account_id = ?1 AND created_at > ?2`,
    )
    .bind(accountId, since)
    .first<{ active: number; created: number; oldest: string | null }>();
  // At the active-key cap, waiting would not help: that answer (409) comes first.
  if (recent === null || recent.active >= MAX_ACTIVE_KEYS || recent.created < MAX_KEYS_CREATED_PER_DAY || recent.oldest === null) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((Date.parse(recent.oldest) + KEY_CREATION_WINDOW_MS - now.getTime()) / 1000));
  throw new TooManyRequestsError(
    `At most ${MAX_KEYS_CREATED_PER_DAY} API keys can be created per account in 24 hours, revoked ones included. Reuse an existing key, or retry later.`,
    retryAfterSeconds,
    "key_creation_limit",
  );
}

/** Active keys first, then revoked ones; newest first within each. */
export async function listApiKeys(db: D1Database, accountId: string): Promise<ApiKeySummary[]> {
  const { results } = await db
    .prepare(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.account_id = ? ORDER BY k.revoked_at IS NOT NULL, k.created_at DESC, k.id`)
    .bind(accountId)
    .all<KeyRow>();
  return results.map(toSummary);
}

export async function getApiKey(db: D1Database, keyId: string): Promise<ApiKeySummary | null> {
  const row = await db.prepare(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.id = ?`).bind(keyId).first<KeyRow>();
  return row === null ? null : toSummary(row);
}

/**
 * Revokes the key (idempotent: revoking it again keeps the first `revoked_at`). With `accountId`, only a key of that
 * account is touched, which is how the dashboard keeps one customer from revoking another's key.
 * Returns null when no such key exists (for that account).
 */
export async function revokeApiKey(db: D1Database, keyId: string, accountId?: string, now = new Date()): Promise<ApiKeySummary | null> {
  await db
    .prepare("UPDATE api_keys SET revoked_at = ?1 WHERE id = ?2 AND revoked_at IS NULL AND (?3 IS NULL OR account_id = ?3)")
    .bind(now.toISOString(), keyId, accountId ?? null)
    .run();
  // this isolate's memo of active keys (src/auth/api-keys.ts) must not outlive the revocation here
  forgetApiKey(keyId);
  const key = await getApiKey(db, keyId);
  if (key === null || (accountId !== undefined && key.accountId !== accountId)) return null;
  return key;
}
