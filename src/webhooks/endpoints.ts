/**
 * An account's webhook endpoint (D1 `webhook_endpoints`): the URL its jobs' final statuses are sent to, and the
 * Standard Webhooks signing secret (`whsec_` + base64 of 32 random bytes) that signs every delivery to it or to a
 * batch's own `webhook_url`. The secret exists from the first time it is needed and survives URL changes; rotating
 * it replaces it at once (deliveries still being retried are signed with the new one). The secret is stored encrypted
 * (./secret-at-rest.ts): every function here takes the environment, which holds the key, and returns it in the clear.
 */
import { openWebhookSecret, sealWebhookSecret } from "./secret-at-rest";
import { bytesToBase64 } from "../util/base64";

export interface WebhookEndpoint {
  accountId: string;
  /** null: no account-level endpoint (a batch's `webhook_url` still works). */
  url: string | null;
  /** In the clear. */
  secret: string;
  createdAt: string;
  updatedAt: string;
}

interface EndpointRow {
  account_id: string;
  url: string | null;
  /** The ciphertext when `secret_iv` is set, else the clear secret (migrations/0012_webhook_secret_at_rest.sql). */
  secret: string;
  secret_iv: string | null;
  created_at: string;
  updated_at: string;
}

const SELECT_ENDPOINT = "SELECT account_id, url, secret, secret_iv, created_at, updated_at FROM webhook_endpoints WHERE account_id = ?";

async function toEndpoint(env: Env, row: EndpointRow): Promise<WebhookEndpoint> {
  const stored = { secret: row.secret, iv: row.secret_iv };
  const secret = await openWebhookSecret(env, row.account_id, stored);
  if (stored.iv === null) await sealStoredInClear(env, row.account_id, secret);
  return { accountId: row.account_id, url: row.url, secret, createdAt: row.created_at, updatedAt: row.updated_at };
}

/**
 * Seals a secret stored in the clear (written before encryption at rest, or without the key), when the key is now
 * configured. Only if the row still holds that clear secret: a rotation in between wins.
 */
async function sealStoredInClear(env: Env, accountId: string, clearSecret: string): Promise<void> {
  const sealed = await sealWebhookSecret(env, accountId, clearSecret);
  if (sealed.iv === null) return;
  await env.DB.prepare(
    "UPDATE webhook_endpoints SET secret = ?1, secret_iv = ?2 WHERE account_id = ?3 AND secret_iv IS NULL AND secret = ?4",
  )
    .bind(sealed.secret, sealed.iv, accountId, clearSecret)
    .run();
}

/** A fresh signing secret in the Standard Webhooks format (standard base64, as the reference libraries decode it). */
export function newWebhookSecret(): string {
  return `whsec_${bytesToBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

export async function getWebhookEndpoint(env: Env, accountId: string): Promise<WebhookEndpoint | null> {
  const row = await env.DB.prepare(SELECT_ENDPOINT).bind(accountId).first<EndpointRow>();
  return row === null ? null : toEndpoint(env, row);
}

/** The account's endpoint row, created (without a URL, with a new secret) if it has none yet. */
export async function ensureWebhookEndpoint(env: Env, accountId: string, now = new Date()): Promise<WebhookEndpoint> {
  const fresh = await sealWebhookSecret(env, accountId, newWebhookSecret());
  const [, select] = await env.DB.batch<EndpointRow>([
    env.DB.prepare(
      "INSERT OR IGNORE INTO webhook_endpoints (account_id, url, secret, secret_iv, created_at, updated_at) VALUES (?1, NULL, ?2, ?3, ?4, ?4)",
    ).bind(accountId, fresh.secret, fresh.iv, now.toISOString()),
    env.DB.prepare(SELECT_ENDPOINT).bind(accountId),
  ]);
  const row = select?.results[0];
  if (row === undefined) throw new Error(`webhook endpoint of ${accountId} missing after its creation`);
  return toEndpoint(env, row);
}

/** Sets (or, with null, removes) the account-level URL; the secret is kept, or created with the first URL. */
export async function setWebhookUrl(env: Env, accountId: string, url: string | null, now = new Date()): Promise<WebhookEndpoint> {
  const fresh = await sealWebhookSecret(env, accountId, newWebhookSecret());
  await env.DB.prepare(
    `INSERT INTO webhook_endpoints (account_id, url, secret, secret_iv, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)
     ON CONFLICT (account_id) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at`,
  )
    .bind(accountId, url, fresh.secret, fresh.iv, now.toISOString())
    .run();
  return ensureWebhookEndpoint(env, accountId, now);
}

export async function rotateWebhookSecret(env: Env, accountId: string, now = new Date()): Promise<WebhookEndpoint> {
  const fresh = await sealWebhookSecret(env, accountId, newWebhookSecret());
  await env.DB.prepare(
    `INSERT INTO webhook_endpoints (account_id, url, secret, secret_iv, created_at, updated_at) VALUES (?1, NULL, ?2, ?3, ?4, ?4)
     ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, secret_iv = excluded.secret_iv, updated_at = excluded.updated_at`,
  )
    .bind(accountId, fresh.secret, fresh.iv, now.toISOString())
    .run();
  return ensureWebhookEndpoint(env, accountId, now);
}
