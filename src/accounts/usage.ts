/**
 * Usage read from the credit ledger. A request "counts" when it was charged and not refunded: a refund row cancels
 * its charge, so failed jobs and failed synchronous scrapes (which cost nothing) do not appear as usage.
 */

export const USAGE_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

interface ScraperUsage {
  scraper: string;
  requests: number;
  credits: number;
}

export interface UsageSummary {
  /** Start of the window (inclusive), ISO 8601. */
  since: string;
  creditsUsed: number;
  requests: number;
  byScraper: ScraperUsage[];
}

export interface DailyUsage {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  credits: number;
  requests: number;
}

export interface LedgerEntry {
  id: number;
  kind: "grant" | "charge" | "refund" | "adjustment";
  delta: number;
  balanceAfter: number;
  reason: string;
  operationId: string | null;
  scraper: string | null;
  keyId: string | null;
  keyName: string | null;
  /** True when the operation is an asynchronous job (it is in the jobs index), false for a synchronous request. */
  isJob: boolean;
  createdAt: string;
}

function windowStart(now: Date, days = USAGE_WINDOW_DAYS): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

export async function usageSummary(db: D1Database, accountId: string, now = new Date(), days = USAGE_WINDOW_DAYS): Promise<UsageSummary> {
  const since = windowStart(now, days).toISOString();
  const { results } = await db
    .prepare(
      `SELECT scraper,
              SUM(CASE kind WHEN 'charge' THEN 1 ELSE -1 END) AS requests,
              SUM(-delta) AS credits
       FROM credit_ledger
       WHERE account_id = ? AND kind IN ('charge', 'refund') AND created_at >= ? AND scraper IS NOT NULL
       GROUP BY scraper`,
    )
    .bind(accountId, since)
    .all<{ scraper: string; requests: number; credits: number }>();
  // A refund inside the window for a charge just outside it would make a count negative; usage is never below 0.
  const byScraper = results
    .map((row) => ({ scraper: row.scraper, requests: Math.max(0, row.requests), credits: Math.max(0, row.credits) }))
    .filter((row) => row.requests > 0 || row.credits > 0)
    .sort((a, b) => b.requests - a.requests || a.scraper.localeCompare(b.scraper));
  return {
    since,
    creditsUsed: byScraper.reduce((sum, row) => sum + row.credits, 0),
    requests: byScraper.reduce((sum, row) => sum + row.requests, 0),
    byScraper,
  };
}

/** One entry per UTC day of the window, oldest first, days without use included as zeros (what a chart needs). */
export async function dailyUsage(db: D1Database, accountId: string, now = new Date(), days = USAGE_WINDOW_DAYS): Promise<DailyUsage[]> {
  const firstDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * DAY_MS);
  const { results } = await db
    .prepare(
      `SELECT substr(created_at, 1, 10) AS day,
              SUM(-delta) AS credits,
              SUM(CASE kind WHEN 'charge' THEN 1 ELSE -1 END) AS requests
       FROM credit_ledger
       WHERE account_id = ? AND kind IN ('charge', 'refund') AND created_at >= ?
       GROUP BY day`,
    )
    .bind(accountId, firstDay.toISOString())
    .all<{ day: string; credits: number; requests: number }>();
  const byDay = new Map(results.map((row) => [row.day, row]));
  return Array.from({ length: days }, (_, index) => {
    const day = new Date(firstDay.getTime() + index * DAY_MS).toISOString().slice(0, 10);
    const row = byDay.get(day);
    return { day, credits: Math.max(0, row?.credits ?? 0), requests: Math.max(0, row?.requests ?? 0) };
  });
}

/** The latest balance changes, newest first, with the name of the key that caused each (when one did). */
export async function recentLedgerEntries(db: D1Database, accountId: string, limit: number): Promise<LedgerEntry[]> {
  const { results } = await db
    .prepare(
      `SELECT l.id, l.kind, l.delta, l.balance_after, l.reason, l.operation_id, l.scraper, l.key_id, k.name AS key_name, l.created_at,
              j.job_id IS NOT NULL AS is_job
       FROM credit_ledger l LEFT JOIN api_keys k ON k.id = l.key_id LEFT JOIN jobs j ON j.job_id = l.operation_id
       WHERE l.account_id = ? ORDER BY l.id DESC LIMIT ?`,
    )
    .bind(accountId, limit)
    .all<{
      id: number;
      kind: LedgerEntry["kind"];
      delta: number;
      balance_after: number;
      reason: string;
      operation_id: string | null;
      scraper: string | null;
      key_id: string | null;
      key_name: string | null;
      created_at: string;
      is_job: number;
    }>();
  return results.map((row) => ({
    id: row.id,
    kind: row.kind,
    delta: row.delta,
    balanceAfter: row.balance_after,
    reason: row.reason,
    operationId: row.operation_id,
    scraper: row.scraper,
    keyId: row.key_id,
    keyName: row.key_name,
    isJob: row.is_job === 1,
    createdAt: row.created_at,
  }));
}
