/**
 * Dashboard sign-in state in D1: one-time login links (issued by the operator API) and the sessions they open.
 * Only SHA-256 hashes of link tokens and session ids are stored, so reading the database signs no one in.
 *
 * A link is short-lived (an hour by default, a day at most), works once, and stops working when a newer link of the
 * same account is used or when the operator signs the account out everywhere. Its token travels after the `#` of the
 * URL, which browsers never send to a server: it appears in no request log, ours or the platform's.
 */
import { randomToken, sha256Hex } from "../util/crypto";

/** How long a sign-in link works unless the operator asks otherwise: long enough to open an e-mail, short enough to go stale. */
export const LOGIN_LINK_DEFAULT_MINUTES = 60;
export const LOGIN_LINK_MIN_MINUTES = 5;
export const LOGIN_LINK_MAX_MINUTES = 24 * 60;
/**
 * How long a link's row outlives its expiry (it can sign no one in by then): someone who opens a week-old link is told
 * it expired, rather than that it is unknown.
 */
const EXPIRED_LINK_ROW_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The URL to send the customer. The token is the fragment: the page at /dashboard/login reads it in the browser and
 * posts it with the sign-in form, so it never appears in a request line.
 */
export function loginLinkUrl(baseUrl: string, token: string): string {
  return `${baseUrl}/dashboard/login#${token}`;
}

interface IssuedLoginLink {
  /** The secret part of the link; shown once to the operator. */
  token: string;
  expiresAt: string;
}

interface SessionRecord {
  accountId: string;
  expiresAt: string;
}

/** Returns null when the account does not exist. */
export async function issueLoginLink(db: D1Database, accountId: string, ttlMs: number, now = new Date()): Promise<IssuedLoginLink | null> {
  const token = randomToken(32);
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  const result = await db
    .prepare(
      `INSERT INTO login_links (token_hash, account_id, created_at, expires_at)
       SELECT ?1, id, ?3, ?4 FROM accounts WHERE id = ?2`,
    )
    .bind(await sha256Hex(token), accountId, now.toISOString(), expiresAt)
    .run();
  return result.meta.changes === 1 ? { token, expiresAt } : null;
}

/**
 * What using a link did: signed in to `accountId`, or why not. `unknown` covers a token that was never issued, a link
 * replaced by a newer one that was used, one ended by the operator, and one whose row is gone since it expired.
 */
export type LoginLinkUse =
  | { outcome: "signed_in"; accountId: string }
  | { outcome: "used"; usedAt: string }
  | { outcome: "expired"; expiredAt: string }
  | { outcome: "unknown" };

/**
 * Uses the link up (one UPDATE, so two concurrent uses cannot both succeed) and ends every older unused link of the
 * account: whoever holds an older link (a forwarded e-mail, a shared screen) cannot sign in after the customer did.
 * A link that cannot be used is looked up once more to say why (already used, or expired).
 */
export async function consumeLoginLink(db: D1Database, token: string, now = new Date()): Promise<LoginLinkUse> {
  const tokenHash = await sha256Hex(token);
  const row = await db
    .prepare(
      "UPDATE login_links SET used_at = ?1 WHERE token_hash = ?2 AND used_at IS NULL AND expires_at > ?1 RETURNING account_id, created_at",
    )
    .bind(now.toISOString(), tokenHash)
    .first<{ account_id: string; created_at: string }>();
  if (row === null) return whyUnusable(db, tokenHash);
  await db
    .prepare("DELETE FROM login_links WHERE account_id = ? AND used_at IS NULL AND created_at <= ?")
    .bind(row.account_id, row.created_at)
    .run();
  return { outcome: "signed_in", accountId: row.account_id };
}

async function whyUnusable(db: D1Database, tokenHash: string): Promise<LoginLinkUse> {
  const link = await db
    .prepare("SELECT expires_at, used_at FROM login_links WHERE token_hash = ?")
    .bind(tokenHash)
    .first<{ expires_at: string; used_at: string | null }>();
  if (link === null) return { outcome: "unknown" };
  // A used link says so even after it expired: "already used" is the more useful of the two to hear.
  if (link.used_at !== null) return { outcome: "used", usedAt: link.used_at };
  return { outcome: "expired", expiredAt: link.expires_at };
}

/**
 * Ends a link whose token reached the server in a URL path (the format of links issued before tokens moved to the
 * fragment): that token is in a request log now, so it must not sign anyone in.
 */
export async function endExposedLoginLink(db: D1Database, token: string): Promise<void> {
  await db
    .prepare("DELETE FROM login_links WHERE token_hash = ? AND used_at IS NULL")
    .bind(await sha256Hex(token))
    .run();
}

export async function createSession(
  db: D1Database,
  sessionId: string,
  accountId: string,
  ttlMs: number,
  now = new Date(),
): Promise<SessionRecord> {
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  await db
    .prepare("INSERT INTO dashboard_sessions (id_hash, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)")
    .bind(await sha256Hex(sessionId), accountId, now.toISOString(), expiresAt)
    .run();
  return { accountId, expiresAt };
}

export async function findSession(db: D1Database, sessionId: string, now = new Date()): Promise<SessionRecord | null> {
  const row = await db
    .prepare("SELECT account_id, expires_at FROM dashboard_sessions WHERE id_hash = ? AND expires_at > ?")
    .bind(await sha256Hex(sessionId), now.toISOString())
    .first<{ account_id: string; expires_at: string }>();
  return row === null ? null : { accountId: row.account_id, expiresAt: row.expires_at };
}

export async function endSession(db: D1Database, sessionId: string): Promise<void> {
  await db
    .prepare("DELETE FROM dashboard_sessions WHERE id_hash = ?")
    .bind(await sha256Hex(sessionId))
    .run();
}

/**
 * Signs the account out everywhere (operator action): every session ends, and so does every unused sign-in link, or
 * an old link would sign straight back in. Returns how many sessions ended.
 */
export async function endAccountSessions(db: D1Database, accountId: string): Promise<number> {
  const [sessions] = await db.batch([
    db.prepare("DELETE FROM dashboard_sessions WHERE account_id = ?").bind(accountId),
    db.prepare("DELETE FROM login_links WHERE account_id = ? AND used_at IS NULL").bind(accountId),
  ]);
  return sessions?.meta.changes ?? 0;
}

/**
 * Housekeeping, run opportunistically when links and sessions are created: expired sessions have no use; expired
 * links are kept a week longer, only to tell whoever opens one that it expired.
 */
export async function deleteExpiredSignInRows(db: D1Database, now = new Date()): Promise<void> {
  const linkCutoff = new Date(now.getTime() - EXPIRED_LINK_ROW_RETENTION_MS).toISOString();
  await db.batch([
    db.prepare("DELETE FROM login_links WHERE expires_at <= ?").bind(linkCutoff),
    db.prepare("DELETE FROM dashboard_sessions WHERE expires_at <= ?").bind(now.toISOString()),
  ]);
}

/** A fresh random session id (256 bits). */
export function newSessionId(): string {
  return randomToken(32);
}
