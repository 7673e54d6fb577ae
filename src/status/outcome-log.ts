/**
 * The scrape outcome log behind the status page (D1 `scrape_outcomes`): one row per canary and per customer scrape
 * that reached a provider. Rows carry no account, key or prompt.
 */
import { classifyFailure } from "./failure-reason";

export type OutcomeSource = "canary" | "traffic";

/** Outcomes are kept this long; the status page reads the last day, operators may look a week back. */
export const OUTCOME_RETENTION_MS = 8 * 86_400_000;

export interface ScrapeOutcome {
  provider: string;
  country: string;
  source: OutcomeSource;
  latencyMs: number;
  /** Whether the scrape answered; when it did not, `error` is what it threw. */
  ok: boolean;
  error?: unknown;
  /** The canary round (its scheduled time, ms since epoch); canaries only. */
  roundAt?: number;
}

/**
 * Records one outcome. Returns false, and records nothing, for a failure that says nothing about the provider (a
 * capacity refusal: see classifyFailure).
 */
export async function recordScrapeOutcome(db: D1Database, outcome: ScrapeOutcome, now = Date.now()): Promise<boolean> {
  const failure = outcome.ok ? null : classifyFailure(outcome.error);
  if (!outcome.ok && failure === null) return false;
  await db
    .prepare(
      "INSERT INTO scrape_outcomes (provider, country, source, ok, latency_ms, reason, drift_code, round_at, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(
      outcome.provider,
      outcome.country,
      outcome.source,
      outcome.ok ? 1 : 0,
      Math.max(0, Math.round(outcome.latencyMs)),
      failure?.reason ?? null,
      failure?.driftCode ?? null,
      outcome.roundAt ?? null,
      now,
    )
    .run();
  return true;
}

/** Deletes outcomes older than the retention period. */
export async function pruneScrapeOutcomes(db: D1Database, now = Date.now()): Promise<void> {
  await db
    .prepare("DELETE FROM scrape_outcomes WHERE at < ?")
    .bind(now - OUTCOME_RETENTION_MS)
    .run();
}
