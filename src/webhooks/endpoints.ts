/**
 * An account's webhook endpoint (D1 `webhook_endpoints`): the URL its jobs' final statuses are sent to, and the
 * Standard Webhooks signing secret (`whsec_` + base64 of 32 random bytes) that signs every delivery to it or to a
 * batch's own `webhook_url`. The secret exists from the first time it is needed and survives URL changes; rotating
 * it replaces it at once (deliveries still being retried are signed with the new one).
 */

export interface WebhookEndpoint {
  accountId: string;
  /** null: no account-level endpoint (a batch's `webhook_url` still works). */
  url: string | null;
  secret: string;
  createdAt: string;
  updatedAt: string;
}

interface EndpointRow {
  account_id: string;
  url: string | null;
  secret: string;
  created_at: string;
  updated_at: string;
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return { accountId: row.account_id, url: row.url, secret: row.secret, createdAt: row.created_at, updatedAt: row.updated_at };
}

/** A fresh signing secret in the Standard Webhooks format (standard base64, as the reference libraries decode it). */
export function newWebhookSecret(): string {
  let binary = "";
  for (const byte of crypto.getRandomValues(new Uint8Array(32))) binary += String.fromCharCode(byte);
  return `whsec_${btoa(binary)}`;
}

export async function getWebhookEndpoint(db: D1Database, accountId: string): Promise<WebhookEndpoint | null> {
  const row = await db
    .prepare("SELECT account_id, url, secret, created_at, updated_at FROM webhook_endpoints WHERE account_id = ?")
    .bind(accountId)
    .first<EndpointRow>();
  return row === null ? null : toEndpoint(row);
}

/** The account's endpoint row, created (without a URL, with a new secret) if it has none yet. */
export async function ensureWebhookEndpoint(db: D1Database, accountId: string, now = new Date()): Promise<WebhookEndpoint> {
  const [, select] = await db.batch<EndpointRow>([
    db
      .prepare("INSERT OR IGNORE INTO webhook_endpoints (account_id, url, secret, created_at, updated_at) VALUES (?1, NULL, ?2, ?3, ?3)")
      .bind(accountId, newWebhookSecret(), now.toISOString()),
    db.prepare("SELECT account_id, url, secret, created_at, updated_at FROM webhook_endpoints WHERE account_id = ?").bind(accountId),
  ]);
  const row = select?.results[0];
  if (row === undefined) throw new Error(`webhook endpoint of ${accountId} missing after its creation`);
  return toEndpoint(row);
}

/** Sets (or, with null, removes) the account-level URL; the secret is kept, or created with the first URL. */
export async function setWebhookUrl(db: D1Database, accountId: string, url: string | null, now = new Date()): Promise<WebhookEndpoint> {
  await db
    .prepare(
      `INSERT INTO webhook_endpoints (account_id, url, secret, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)
       ON CONFLICT (account_id) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at`,
    )
    .bind(accountId, url, newWebhookSecret(), now.toISOString())
    .run();
  return ensureWebhookEndpoint(db, accountId, now);
}

export async function rotateWebhookSecret(db: D1Database, accountId: string, now = new Date()): Promise<WebhookEndpoint> {
  await db
    .prepare(
      `INSERT INTO webhook_endpoints (account_id, url, secret, created_at, updated_at) VALUES (?1, NULL, ?2, ?3, ?3)
       ON CONFLICT (account_id) DO UPDATE SET secret = excluded.secret, updated_at = excluded.updated_at`,
    )
    .bind(accountId, newWebhookSecret(), now.toISOString())
    .run();
  return ensureWebhookEndpoint(db, accountId, now);
}
