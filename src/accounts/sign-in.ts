/**
 * Dashboard sign-in state in D1: one-time login links (issued by the operator API) and the sessions they open.
 * Only SHA-256 hashes of link tokens and session ids are stored, so reading the database signs no one in.
 */
import { randomToken, sha256Hex } from "../util/crypto";

export interface IssuedLoginLink {
  /** The secret part of the link; shown once to the operator. */
  token: string;
  expiresAt: string;
}

export interface LoginLinkTarget {
  accountId: string;
  accountName: string;
  expiresAt: string;
}

export interface SessionRecord {
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

/** What an unused, unexpired link would sign into, without using it up (for the confirmation page). */
export async function peekLoginLink(db: D1Database, token: string, now = new Date()): Promise<LoginLinkTarget | null> {
  const row = await db
    .prepare(
      `SELECT l.account_id, a.name, l.expires_at FROM login_links l JOIN accounts a ON a.id = l.account_id
       WHERE l.token_hash = ? AND l.used_at IS NULL AND l.expires_at > ?`,
    )
    .bind(await sha256Hex(token), now.toISOString())
    .first<{ account_id: string; name: string; expires_at: string }>();
  return row === null ? null : { accountId: row.account_id, accountName: row.name, expiresAt: row.expires_at };
}

/** Uses the link up (one UPDATE, so two concurrent uses cannot both succeed). Returns its account, or null. */
export async function consumeLoginLink(db: D1Database, token: string, now = new Date()): Promise<string | null> {
  const row = await db
    .prepare("UPDATE login_links SET used_at = ?1 WHERE token_hash = ?2 AND used_at IS NULL AND expires_at > ?1 RETURNING account_id")
    .bind(now.toISOString(), await sha256Hex(token))
    .first<{ account_id: string }>();
  return row?.account_id ?? null;
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

/** Signs the account out everywhere (operator action). Returns how many sessions ended. */
export async function endAccountSessions(db: D1Database, accountId: string): Promise<number> {
  const result = await db.prepare("DELETE FROM dashboard_sessions WHERE account_id = ?").bind(accountId).run();
  return result.meta.changes;
}

/** Housekeeping, run opportunistically when links and sessions are created: expired rows have no use. */
export async function deleteExpiredSignInRows(db: D1Database, now = new Date()): Promise<void> {
  const cutoff = now.toISOString();
  await db.batch([
    db.prepare("DELETE FROM login_links WHERE expires_at <= ?").bind(cutoff),
    db.prepare("DELETE FROM dashboard_sessions WHERE expires_at <= ?").bind(cutoff),
  ]);
}

/** A fresh random session id (256 bits). */
export function newSessionId(): string {
  return randomToken(32);
}
