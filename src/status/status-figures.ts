/**
 * Computes the status document from the outcome log: per provider and source (canaries, traffic), over the last
 * hour and the last day, the number of scrapes, the success rate and the p50/p95 latency of the successful ones;
 * the latest canary rounds; the latest failure. SQL does the counting and the percentiles (window functions), so a
 * day of traffic is never loaded into the Worker.
 */
import { allProviders } from "../scrapers/registry";
import { isoTimestamp } from "../util/time";
import { FAILURE_REASONS, type FailureReason } from "./failure-reason";
import { OUTCOME_RETENTION_MS, type OutcomeSource } from "./outcome-log";
import { type CanaryRound, providerState, serviceState } from "./status-levels";
import type { ProviderStatus, ServiceStatus, SourceFigures, WindowFigures } from "./status-schema";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface WindowRow {
  provider: string;
  source: OutcomeSource;
  scrapes: number;
  succeeded: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

/*
 * Nearest-rank percentiles: the p-th percentile is the smallest latency whose rank r (1-based, ascending) satisfies
 * r >= p/100 * n, written as r * 100 >= p * n to stay in integers.
 */
const WINDOW_SQL = `
WITH windowed AS (
  SELECT provider, source, ok, latency_ms FROM scrape_outcomes WHERE at > ?1 AND at <= ?2
), ranked AS (
  SELECT provider, source, latency_ms,
         ROW_NUMBER() OVER (PARTITION BY provider, source ORDER BY latency_ms) AS rank,
         COUNT(*) OVER (PARTITION BY provider, source) AS n
    FROM windowed WHERE ok = 1
), percentiles AS (
  SELECT provider, source,
         MIN(CASE WHEN rank * 100 >= n * 50 THEN latency_ms END) AS p50_ms,
         MIN(CASE WHEN rank * 100 >= n * 95 THEN latency_ms END) AS p95_ms
    FROM ranked GROUP BY provider, source
), counts AS (
  SELECT provider, source, COUNT(*) AS scrapes, SUM(ok) AS succeeded FROM windowed GROUP BY provider, source
)
SELECT c.provider, c.source, c.scrapes, c.succeeded, p.p50_ms, p.p95_ms
  FROM counts c LEFT JOIN percentiles p ON p.provider = c.provider AND p.source = c.source`;

/** Each provider's canary rounds since ?1, newest first, at most 2 (STATUS_THRESHOLDS.failedRoundsForDown). */
const ROUNDS_SQL = `
SELECT provider, round_at, canaries, failed FROM (
  SELECT provider, round_at, COUNT(*) AS canaries, SUM(1 - ok) AS failed,
         ROW_NUMBER() OVER (PARTITION BY provider ORDER BY round_at DESC) AS recency
    FROM scrape_outcomes
   WHERE source = 'canary' AND at > ?1 AND at <= ?2 AND round_at IS NOT NULL
   GROUP BY provider, round_at
) WHERE recency <= 2 ORDER BY provider, round_at DESC`;

const LAST_FAILURE_SQL = `
SELECT provider, reason, source, at FROM (
  SELECT provider, reason, source, at, ROW_NUMBER() OVER (PARTITION BY provider ORDER BY at DESC, id DESC) AS recency
    FROM scrape_outcomes WHERE ok = 0 AND at > ?1 AND at <= ?2
) WHERE recency = 1`;

/** Per provider, how many distinct accounts (by tag) had a customer scrape fail since ?1 (status-levels.ts). */
const FAILING_ACCOUNTS_SQL = `
SELECT provider, COUNT(DISTINCT account_tag) AS accounts
  FROM scrape_outcomes WHERE source = 'traffic' AND ok = 0 AND at > ?1 AND at <= ?2
 GROUP BY provider`;

const LAST_CANARY_SQL =
  "SELECT provider, MAX(at) AS at FROM scrape_outcomes WHERE source = 'canary' AND at > ?1 AND at <= ?2 GROUP BY provider";

/** The oldest outcome kept, of any provider: through scrape_outcomes_at, one index lookup. */
const FIRST_OUTCOME_SQL = "SELECT MIN(at) AS at FROM scrape_outcomes WHERE at > ?1 AND at <= ?2";

const EMPTY_WINDOW: WindowFigures = { scrapes: 0, succeeded: 0, success_rate: null, p50_ms: null, p95_ms: null };

function windowFigures(row: WindowRow | undefined): WindowFigures {
  if (row === undefined || row.scrapes === 0) return EMPTY_WINDOW;
  return {
    scrapes: row.scrapes,
    succeeded: row.succeeded,
    success_rate: Math.round((row.succeeded / row.scrapes) * 10_000) / 10_000,
    p50_ms: row.p50_ms,
    p95_ms: row.p95_ms,
  };
}

function byProviderAndSource(rows: readonly WindowRow[]): Map<string, WindowRow> {
  return new Map(rows.map((row) => [`${row.provider}/${row.source}`, row]));
}

function isFailureReason(value: string): value is FailureReason {
  return FAILURE_REASONS.some((reason) => reason === value);
}

/** The status of every declared provider at `now`. */
export async function computeServiceStatus(db: D1Database, now = Date.now()): Promise<ServiceStatus> {
  const [hour, day, rounds, failures, canaries, failingAccounts, firstOutcome] = await db.batch<Record<string, unknown>>([
    db.prepare(WINDOW_SQL).bind(now - HOUR_MS, now),
    db.prepare(WINDOW_SQL).bind(now - DAY_MS, now),
    db.prepare(ROUNDS_SQL).bind(now - HOUR_MS, now),
    db.prepare(LAST_FAILURE_SQL).bind(now - OUTCOME_RETENTION_MS, now),
    db.prepare(LAST_CANARY_SQL).bind(now - OUTCOME_RETENTION_MS, now),
    db.prepare(FAILING_ACCOUNTS_SQL).bind(now - HOUR_MS, now),
    db.prepare(FIRST_OUTCOME_SQL).bind(now - OUTCOME_RETENTION_MS, now),
  ]);
  const historySince = firstOutcome?.results[0]?.at;
  const hourRows = byProviderAndSource(readWindowRows(hour?.results));
  const dayRows = byProviderAndSource(readWindowRows(day?.results));
  const roundsOf = groupRounds(rounds?.results ?? []);
  const lastFailureOf = new Map(readFailures(failures?.results ?? []).map((failure) => [failure.provider, failure]));
  const lastCanaryOf = new Map(
    (canaries?.results ?? []).flatMap((row) =>
      typeof row.provider === "string" && typeof row.at === "number" ? [[row.provider, row.at] as const] : [],
    ),
  );
  const failingAccountsOf = new Map(
    (failingAccounts?.results ?? []).flatMap((row) =>
      typeof row.provider === "string" && typeof row.accounts === "number" ? [[row.provider, row.accounts] as const] : [],
    ),
  );

  const providers = allProviders().map((provider): ProviderStatus => {
    const figures = (source: OutcomeSource): SourceFigures => ({
      last_hour: windowFigures(hourRows.get(`${provider.id}/${source}`)),
      last_day: windowFigures(dayRows.get(`${provider.id}/${source}`)),
    });
    const canaryFigures = figures("canary");
    const trafficFigures = figures("traffic");
    const failure = lastFailureOf.get(provider.id);
    const lastCanaryAt = lastCanaryOf.get(provider.id);
    return {
      provider: provider.id,
      name: provider.name,
      status: providerState({
        lastHour: {
          canaries: canaryFigures.last_hour,
          traffic: trafficFigures.last_hour,
          trafficFailingAccounts: failingAccountsOf.get(provider.id) ?? 0,
        },
        recentRounds: roundsOf.get(provider.id) ?? [],
      }),
      canaries: canaryFigures,
      traffic: trafficFigures,
      last_canary_at: lastCanaryAt === undefined ? null : isoTimestamp(lastCanaryAt),
      last_failure: failure === undefined ? null : { reason: failure.reason, source: failure.source, at: isoTimestamp(failure.at) },
    };
  });
  return {
    status: serviceState(providers.map((provider) => provider.status)),
    generated_at: isoTimestamp(now),
    history_since: typeof historySince === "number" ? isoTimestamp(historySince) : null,
    providers,
  };
}

function readWindowRows(rows: readonly Record<string, unknown>[] | undefined): WindowRow[] {
  return (rows ?? []).flatMap((row): WindowRow[] => {
    const { provider, source, scrapes, succeeded, p50_ms, p95_ms } = row;
    if (typeof provider !== "string" || (source !== "canary" && source !== "traffic")) return [];
    if (typeof scrapes !== "number" || typeof succeeded !== "number") return [];
    return [
      {
        provider,
        source,
        scrapes,
        succeeded,
        p50_ms: typeof p50_ms === "number" ? p50_ms : null,
        p95_ms: typeof p95_ms === "number" ? p95_ms : null,
      },
    ];
  });
}

function groupRounds(rows: readonly Record<string, unknown>[]): Map<string, CanaryRound[]> {
  const grouped = new Map<string, CanaryRound[]>();
  for (const { provider, round_at: roundAt, canaries, failed } of rows) {
    if (typeof provider !== "string" || typeof roundAt !== "number" || typeof canaries !== "number" || typeof failed !== "number") continue;
    const list = grouped.get(provider) ?? [];
    list.push({ roundAt, canaries, failed });
    grouped.set(provider, list);
  }
  return grouped;
}

interface FailureRow {
  provider: string;
  reason: FailureReason;
  source: OutcomeSource;
  at: number;
}

function readFailures(rows: readonly Record<string, unknown>[]): FailureRow[] {
  return rows.flatMap(({ provider, reason, source, at }): FailureRow[] => {
    if (typeof provider !== "string" || typeof reason !== "string" || !isFailureReason(reason) || typeof at !== "number") return [];
    if (source !== "canary" && source !== "traffic") return [];
    return [{ provider, reason, source, at }];
  });
}
