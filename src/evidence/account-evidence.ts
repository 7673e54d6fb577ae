/**
 * The account's evidence default (docs/evidence.md), set in the dashboard: the kinds every request of the account keeps
 * unless it says otherwise (`X-Evidence`, a batch item's `evidence`), and whether failed scrapes keep their page.
 * Read once per request that did not say; an isolate trusts what it read for a few seconds (like an API key).
 */
import { type EvidenceKind, type EvidenceRequest, kindsFromText, kindsToText, NO_EVIDENCE_REQUEST } from "./evidence-kinds";

/** How long an isolate uses an account's default without reading it again: the delay before a change applies. */
const ACCOUNT_EVIDENCE_MEMO_MS = 5_000;
const MEMO_MAX_ENTRIES = 1_000;
const remembered = new Map<string, { value: EvidenceRequest; until: number }>();

export async function accountEvidenceDefault(db: D1Database, accountId: string, now = Date.now()): Promise<EvidenceRequest> {
  const memo = remembered.get(accountId);
  if (memo !== undefined && memo.until > now) return memo.value;
  const row = await db
    .prepare("SELECT evidence_kinds, failure_evidence FROM accounts WHERE id = ?")
    .bind(accountId)
    .first<{ evidence_kinds: string; failure_evidence: number }>();
  const value = row === null ? NO_EVIDENCE_REQUEST : { kinds: kindsFromText(row.evidence_kinds), onFailure: row.failure_evidence === 1 };
  remembered.delete(accountId);
  if (remembered.size >= MEMO_MAX_ENTRIES) {
    const oldest = remembered.keys().next();
    if (oldest.done !== true) remembered.delete(oldest.value);
  }
  remembered.set(accountId, { value, until: now + ACCOUNT_EVIDENCE_MEMO_MS });
  return value;
}

/** What a request keeps: the kinds it asked for (`undefined`: it did not say), else the account's; failure evidence is the account's. */
export async function evidenceRequestFor(
  db: D1Database,
  accountId: string,
  asked: readonly EvidenceKind[] | undefined,
): Promise<EvidenceRequest> {
  const accountDefault = await accountEvidenceDefault(db, accountId);
  return { kinds: asked ?? accountDefault.kinds, onFailure: accountDefault.onFailure };
}

export async function setAccountEvidenceDefault(db: D1Database, accountId: string, setting: EvidenceRequest): Promise<void> {
  await db
    .prepare("UPDATE accounts SET evidence_kinds = ?, failure_evidence = ? WHERE id = ?")
    .bind(kindsToText(setting.kinds), setting.onFailure ? 1 : 0, accountId)
    .run();
  // this isolate (the dashboard's) sees the change at once; others within ACCOUNT_EVIDENCE_MEMO_MS
  remembered.delete(accountId);
}
