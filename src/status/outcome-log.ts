/**
 * The scrape outcome log behind the status page (D1 `scrape_outcomes`): one row per canary and per customer scrape
 * that reached a provider, within a cap per account. Rows carry no account id, key or prompt: a traffic row carries only
 * the account's tag (src/status/account-tag.ts), so the status page can count distinct accounts.
 */
import { classifyFailure } from "./failure-reason";

export type OutcomeSource = "canary" | "traffic";

/** Outcomes are kept this long; the status page reads the last day, operators may look a week back. */
export const OUTCOME_RETENTION_MS = 8 * 86_400_000;

/**
 * The cap on customer traffic: at most `rowsPerWindow` rows per account and provider in each aligned window of
 * `windowMs`; past it nothing is written until the next window. So one account writes at most
 * 5 × 288 windows × 7 providers = 10,080 rows a day (whatever its rate limit), and weighs at most 60 scrapes an hour
 * in a provider's figures. Five rows in five minutes are plenty to show how that account's scrapes go.
 */
const TRAFFIC_ROW_CAP = { rowsPerWindow: 5, windowMs: 5 * 60_000 } as const;

interface OutcomeCommon {
  provider: string;
  country: string;
  latencyMs: number;
  /** Whether the scrape answered; when it did not, `error` is what it threw. */
  ok: boolean;
  error?: unknown;
}

export type ScrapeOutcome = OutcomeCommon &
  (
    | {
        source: "canary";
        /** The canary round (its scheduled time, ms since epoch). */
        roundAt: number;
      }
    | {
        source: "traffic";
        /** The account's tag (src/status/account-tag.ts): never the account id. */
        accountTag: string;
      }
  );

/**
 * Windows this isolate already knows to be full, by account tag and provider: a full window costs no query at all
 * until it ends. Only the current window's entries are kept.
 */
const knownFull = { window: -1, keys: new Set<string>() };
/** Bounds the memo under a flood of distinct accounts; losing it only costs queries. */
const KNOWN_FULL_MAX_KEYS = 10_000;

function windowOf(at: number): number {
  return Math.floor(at / TRAFFIC_ROW_CAP.windowMs);
}

function rememberFull(window: number, key: string): void {
  if (knownFull.window !== window || knownFull.keys.size >= KNOWN_FULL_MAX_KEYS) {
    knownFull.window = window;
    knownFull.keys.clear();
  }
  knownFull.keys.add(key);
}

const COLUMNS = "provider, country, source, ok, latency_ms, reason, drift_code, round_at, account_tag, at";

/**
 * Records one outcome. Returns false, and records nothing, for a failure that says nothing about the provider (a
 * capacity refusal, a client that left: see classifyFailure) and for a traffic outcome past its account's cap.
 */
export async function recordScrapeOutcome(db: D1Database, outcome: ScrapeOutcome, now = Date.now()): Promise<boolean> {
  const failure = outcome.ok ? null : classifyFailure(outcome.error);
  if (!outcome.ok && failure === null) return false;
  const values = [
    outcome.provider,
    outcome.country,
    outcome.source,
    outcome.ok ? 1 : 0,
    Math.max(0, Math.round(outcome.latencyMs)),
    failure?.reason ?? null,
    failure?.driftCode ?? null,
    outcome.source === "canary" ? outcome.roundAt : null,
    outcome.source === "traffic" ? outcome.accountTag : null,
    now,
  ];
  if (outcome.source === "canary") {
    await db
      .prepare(`INSERT INTO scrape_outcomes (${COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`)
      .bind(...values)
      .run();
    return true;
  }

  const window = windowOf(now);
  const memoKey = `${outcome.accountTag}/${outcome.provider}`;
  if (knownFull.window === window && knownFull.keys.has(memoKey)) return false;
  // One statement, so two isolates writing for the same account at once cannot both pass the count (D1 runs one
  // statement at a time). The count reads at most the cap's rows through scrape_outcomes_account_tag.
  const { meta } = await db
    .prepare(
      `INSERT INTO scrape_outcomes (${COLUMNS})
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10
        WHERE (SELECT COUNT(*) FROM scrape_outcomes WHERE account_tag = ?9 AND provider = ?1 AND at >= ?11 AND at < ?12) < ?13`,
    )
    .bind(...values, window * TRAFFIC_ROW_CAP.windowMs, (window + 1) * TRAFFIC_ROW_CAP.windowMs, TRAFFIC_ROW_CAP.rowsPerWindow)
    .run();
  if (meta.changes > 0) return true;
  rememberFull(window, memoKey);
  return false;
}

/** Deletes outcomes older than the retention period. */
export async function pruneScrapeOutcomes(db: D1Database, now = Date.now()): Promise<void> {
  await db
    .prepare("DELETE FROM scrape_outcomes WHERE at < ?")
    .bind(now - OUTCOME_RETENTION_MS)
    .run();
}
