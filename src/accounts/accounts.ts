/** Accounts: creation with the sign-up grant, look-up and listing. All account SQL of the service lives here. */
import { randomToken } from "../util/crypto";

/** DESIGN.md §4: the spec says 500 once and 1,500 elsewhere; 1,500 is the majority statement. */
export const SIGN_UP_CREDITS = 1500;

export interface Account {
  accountId: string;
  name: string;
  email: string | null;
  credits: number;
  createdAt: string;
}

interface AccountRow {
  id: string;
  name: string;
  email: string | null;
  credits: number;
  created_at: string;
}

function toAccount(row: AccountRow): Account {
  return { accountId: row.id, name: row.name, email: row.email, credits: row.credits, createdAt: row.created_at };
}

type CreateAccountOutcome = { status: "created"; account: Account } | { status: "email_taken" };

/**
 * Creates the account and, in the same batch, the ledger row of its sign-up grant (`signup:<account_id>`), so the
 * balance and the ledger agree from the first moment. An email already in use is found by the insert itself (it inserts
 * nothing when another account has that email, and the grant only follows an account that exists), not by reading the
 * unique index's error text; the batch is one transaction, so no other insert comes between the check and the row.
 */
export async function createAccount(
  db: D1Database,
  input: { name: string; email: string | null; credits: number },
  now = new Date(),
): Promise<CreateAccountOutcome> {
  const accountId = `acct_${randomToken(12)}`;
  const createdAt = now.toISOString();
  const statements = [
    db
      .prepare(
        `INSERT INTO accounts (id, name, email, credits, created_at)
         SELECT ?1, ?2, ?3, ?4, ?5
         WHERE ?3 IS NULL OR NOT EXISTS (SELECT 1 FROM accounts WHERE email = ?3)`,
      )
      .bind(accountId, input.name, input.email, input.credits, createdAt),
  ];
  if (input.credits > 0) {
    statements.push(
      db
        .prepare(
          `INSERT INTO credit_ledger (account_id, kind, delta, balance_after, reason, operation_id, created_at)
           SELECT ?1, 'grant', ?2, ?2, 'sign-up credits', 'signup:' || ?1, ?3
           WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ?1)`,
        )
        .bind(accountId, input.credits, createdAt),
    );
  }
  const [accountInsert] = await db.batch(statements);
  if (accountInsert === undefined) throw new Error("D1 returned no result for the account insert");
  if (accountInsert.meta.changes === 0) return { status: "email_taken" };
  return { status: "created", account: { accountId, name: input.name, email: input.email, credits: input.credits, createdAt } };
}

export async function getAccount(db: D1Database, accountId: string): Promise<Account | null> {
  const row = await db
    .prepare("SELECT id, name, email, credits, created_at FROM accounts WHERE id = ?")
    .bind(accountId)
    .first<AccountRow>();
  return row === null ? null : toAccount(row);
}

/** Newest first; `before` (a created_at) pages backwards. */
export async function listAccounts(db: D1Database, limit: number, before?: string): Promise<Account[]> {
  const { results } = await db
    .prepare(
      `SELECT id, name, email, credits, created_at FROM accounts
       WHERE ?1 IS NULL OR created_at < ?1 ORDER BY created_at DESC, id DESC LIMIT ?2`,
    )
    .bind(before ?? null, limit)
    .all<AccountRow>();
  return results.map(toAccount);
}
