/**
 * Provider accounts in D1: create, list, update and delete for the operator API; for scrapes, claiming the next
 * account in rotation (least recently used first, one atomic statement so concurrent scrapes spread over the
 * accounts) and recording how its scrape went. Sessions go in and out only through the SessionCipher.
 */
import { NotFoundError } from "../errors";
import type { FailureReason } from "../status/failure-reason";
import { randomToken } from "../util/crypto";
import { isoTimestamp } from "../util/time";
import type { SessionCipher } from "./session-cipher";
import { type SessionSummary, SessionSummarySchema, StorageStateSchema, type StorageState, summarizeSession } from "./storage-state";

export const ACCOUNT_STATES = ["active", "needs_attention", "disabled"] as const;
type AccountState = (typeof ACCOUNT_STATES)[number];

/** Why a scrape with the account failed: the status page's categories, so both views agree. */
type AccountFailureReason = FailureReason;

export const PROVIDER_ACCOUNT_NOT_FOUND_DETAIL = "Provider account not found.";

/** What the operator sees of an account (the session only as its masked summary). */
export interface ProviderAccountView {
  id: string;
  provider: string;
  /** null when one session serves every country. */
  marketplace: string | null;
  label: string;
  state: AccountState;
  stateReason: string | null;
  session: SessionSummary;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  lastFailureReason: string | null;
  successCount: number;
  failureCount: number;
  consecutiveFailures: number;
}

interface AccountRow {
  id: string;
  provider: string;
  marketplace: string;
  label: string;
  state: string;
  state_reason: string | null;
  session_ciphertext: string;
  session_iv: string;
  session_summary: string;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_failure_reason: string | null;
  success_count: number;
  failure_count: number;
  consecutive_failures: number;
}

const VIEW_COLUMNS = `id, provider, marketplace, label, state, state_reason, session_summary, created_at, updated_at, last_used_at,
  last_success_at, last_failure_at, last_failure_reason, success_count, failure_count, consecutive_failures`;

function isAccountState(value: string): value is AccountState {
  return ACCOUNT_STATES.some((state) => state === value);
}

function viewOf(row: Omit<AccountRow, "session_ciphertext" | "session_iv">): ProviderAccountView {
  // written by this module from summarizeSession; checked anyway rather than trusted blindly
  const summary = SessionSummarySchema.parse(JSON.parse(row.session_summary));
  return {
    id: row.id,
    provider: row.provider,
    marketplace: row.marketplace === "" ? null : row.marketplace,
    label: row.label,
    // the CHECK constraint admits nothing else; "disabled" keeps an impossible value out of rotation all the same
    state: isAccountState(row.state) ? row.state : "disabled",
    stateReason: row.state_reason,
    session: summary,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsedAt: row.last_used_at,
    lastSuccessAt: row.last_success_at,
    lastFailureAt: row.last_failure_at,
    lastFailureReason: row.last_failure_reason,
    successCount: row.success_count,
    failureCount: row.failure_count,
    consecutiveFailures: row.consecutive_failures,
  };
}

/** The associated data that binds a ciphertext to its row. */
function sessionBinding(id: string, provider: string, marketplace: string): string {
  return `${id}\n${provider}\n${marketplace}`;
}

interface NewProviderAccount {
  provider: string;
  /** '' when one session serves every country. */
  marketplace: string;
  label: string;
  session: StorageState;
}

export async function createProviderAccount(
  db: D1Database,
  cipher: SessionCipher,
  input: NewProviderAccount,
): Promise<ProviderAccountView> {
  const id = `pa_${randomToken(12)}`;
  const now = isoTimestamp();
  const sealed = await cipher.seal(JSON.stringify(input.session), sessionBinding(id, input.provider, input.marketplace));
  const summary = JSON.stringify(await summarizeSession(input.session));
  await db
    .prepare(
      `INSERT INTO provider_accounts (id, provider, marketplace, label, state, session_ciphertext, session_iv, session_summary, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'active', ?, ?, ?, ?, ?)`,
    )
    .bind(id, input.provider, input.marketplace, input.label, sealed.ciphertext, sealed.iv, summary, now, now)
    .run();
  return getProviderAccount(db, id);
}

export async function getProviderAccount(db: D1Database, id: string): Promise<ProviderAccountView> {
  const row = await db.prepare(`SELECT ${VIEW_COLUMNS} FROM provider_accounts WHERE id = ?`).bind(id).first<AccountRow>();
  if (row === null) throw new NotFoundError(PROVIDER_ACCOUNT_NOT_FOUND_DETAIL);
  return viewOf(row);
}

export async function listProviderAccounts(
  db: D1Database,
  filter: { provider?: string; state?: AccountState } = {},
): Promise<ProviderAccountView[]> {
  const { results } = await db
    .prepare(
      `SELECT ${VIEW_COLUMNS} FROM provider_accounts
        WHERE (?1 IS NULL OR provider = ?1) AND (?2 IS NULL OR state = ?2)
        ORDER BY provider, marketplace, created_at, id`,
    )
    .bind(filter.provider ?? null, filter.state ?? null)
    .all<AccountRow>();
  return results.map(viewOf);
}

interface ProviderAccountChanges {
  label?: string;
  /** A fresh session: replaces the stored one and puts the account back in rotation. */
  session?: StorageState;
  /** `active` puts an account back in rotation (after the site was checked); `disabled` takes it out. */
  state?: "active" | "disabled";
}

/** `cipher` is needed only to store a new session (`changes.session`). */
export async function updateProviderAccount(
  db: D1Database,
  cipher: () => Promise<SessionCipher>,
  id: string,
  changes: ProviderAccountChanges,
): Promise<ProviderAccountView> {
  const current = await getProviderAccount(db, id);
  const now = isoTimestamp();
  const statements: D1PreparedStatement[] = [];
  if (changes.label !== undefined) {
    statements.push(db.prepare("UPDATE provider_accounts SET label = ?, updated_at = ? WHERE id = ?").bind(changes.label, now, id));
  }
  if (changes.session !== undefined) {
    const sealed = await (await cipher()).seal(
      JSON.stringify(changes.session),
      sessionBinding(id, current.provider, current.marketplace ?? ""),
    );
    const summary = JSON.stringify(await summarizeSession(changes.session));
    // a new session is a fresh start unless the same request disables the account
    statements.push(
      db
        .prepare(
          `UPDATE provider_accounts SET session_ciphertext = ?, session_iv = ?, session_summary = ?, state = ?, state_reason = NULL,
             consecutive_failures = 0, updated_at = ? WHERE id = ?`,
        )
        .bind(sealed.ciphertext, sealed.iv, summary, changes.state ?? "active", now, id),
    );
  } else if (changes.state !== undefined) {
    statements.push(
      db
        .prepare(
          `UPDATE provider_accounts SET state = ?, state_reason = NULL,
             consecutive_failures = CASE WHEN ? = 'active' THEN 0 ELSE consecutive_failures END, updated_at = ? WHERE id = ?`,
        )
        .bind(changes.state, changes.state, now, id),
    );
  }
  if (statements.length > 0) await db.batch(statements);
  return getProviderAccount(db, id);
}

export async function deleteProviderAccount(db: D1Database, id: string): Promise<void> {
  const result = await db.prepare("DELETE FROM provider_accounts WHERE id = ?").bind(id).run();
  if (result.meta.changes === 0) throw new NotFoundError(PROVIDER_ACCOUNT_NOT_FOUND_DETAIL);
}

/** An account claimed for one scrape, with its decrypted session. */
export interface ClaimedAccount {
  id: string;
  session: StorageState;
}

/**
 * Claims the next account of `provider` and `marketplace` in rotation: the active one used least recently (never
 * used first, oldest first), except `excludeId`. One UPDATE … RETURNING, so two concurrent scrapes never claim the same account
 * while another one is idle. An account whose session cannot be decrypted (the secret changed) is set aside as
 * needing attention and the next one is claimed. Null when there is none.
 */
export async function claimProviderAccount(
  db: D1Database,
  cipher: SessionCipher,
  provider: string,
  marketplace: string,
  excludeId: string | null = null,
): Promise<ClaimedAccount | null> {
  for (;;) {
    const row = await db
      .prepare(
        `UPDATE provider_accounts SET last_used_at = ?1
          WHERE id = (SELECT id FROM provider_accounts
                       WHERE provider = ?2 AND marketplace = ?3 AND state = 'active' AND id IS NOT ?4
                       ORDER BY last_used_at IS NOT NULL, last_used_at, created_at, id LIMIT 1)
          RETURNING id, provider, marketplace, session_ciphertext, session_iv`,
      )
      .bind(isoTimestamp(), provider, marketplace, excludeId)
      .first<Pick<AccountRow, "id" | "provider" | "marketplace" | "session_ciphertext" | "session_iv">>();
    if (row === null) return null;
    const session = await openSession(cipher, row);
    if (session !== null) return { id: row.id, session };
    await setAside(db, row.id, "the stored session cannot be decrypted with the current PROVIDER_ACCOUNTS_KEY: store it again");
  }
}

async function openSession(
  cipher: SessionCipher,
  row: Pick<AccountRow, "id" | "provider" | "marketplace" | "session_ciphertext" | "session_iv">,
): Promise<StorageState | null> {
  try {
    const plaintext = await cipher.open(
      { ciphertext: row.session_ciphertext, iv: row.session_iv },
      sessionBinding(row.id, row.provider, row.marketplace),
    );
    const checked = StorageStateSchema.safeParse(JSON.parse(plaintext));
    return checked.success ? checked.data : null;
  } catch {
    return null;
  }
}

async function setAside(db: D1Database, id: string, reason: string): Promise<void> {
  await db
    .prepare("UPDATE provider_accounts SET state = 'needs_attention', state_reason = ?, updated_at = ? WHERE id = ?")
    .bind(reason, isoTimestamp(), id)
    .run();
}

export async function recordAccountSuccess(db: D1Database, id: string): Promise<void> {
  await db
    .prepare(`UPDATE provider_accounts SET last_success_at = ?, success_count = success_count + 1, consecutive_failures = 0 WHERE id = ?`)
    .bind(isoTimestamp(), id)
    .run();
}

/** Counts a failed scrape; a login wall also takes the account out of rotation until an operator looks at it. */
export async function recordAccountFailure(db: D1Database, id: string, reason: AccountFailureReason): Promise<void> {
  const now = isoTimestamp();
  await db
    .prepare(
      `UPDATE provider_accounts SET last_failure_at = ?1, last_failure_reason = ?2, failure_count = failure_count + 1,
         consecutive_failures = consecutive_failures + 1,
         state = CASE WHEN ?2 = 'login_wall' AND state = 'active' THEN 'needs_attention' ELSE state END,
         state_reason = CASE WHEN ?2 = 'login_wall' AND state = 'active' THEN ?3 ELSE state_reason END,
         updated_at = CASE WHEN ?2 = 'login_wall' AND state = 'active' THEN ?1 ELSE updated_at END
       WHERE id = ?4`,
    )
    .bind(now, reason, `the site showed a login wall at ${now}: sign in again and store the new session`, id)
    .run();
}
