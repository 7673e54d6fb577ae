/**
 * Layout drift: a structured log line (stable code, no provider text) and a D1 row per occurrence, summarised per
 * provider for the operator view (`GET /admin/providers`).
 */
import type { ScraperDriftError } from "../errors";
import { isoTimestamp } from "../util/time";
import { logLine, type LogSubject } from "../util/log-line";

export async function recordDrift(env: Env, error: ScraperDriftError, logSubject?: LogSubject, now = Date.now()): Promise<void> {
  console.warn(logLine(logSubject, JSON.stringify({ event: "scraper_drift", provider: error.provider, code: error.driftCode })));
  await env.DB.prepare("INSERT INTO scraper_drift (provider, code, at) VALUES (?, ?, ?)")
    .bind(error.provider, error.driftCode, isoTimestamp(now))
    .run()
    .catch((cause: unknown) => console.error(logLine(logSubject, "could not record drift"), cause));
}

export interface DriftSummary {
  provider: string;
  last_hour: number;
  last_day: number;
  last_code: string | null;
  last_at: string | null;
}

/** Drift per provider over the last day, for every provider named (zero counts included). */
export async function driftSummary(db: D1Database, providers: readonly string[], now = Date.now()): Promise<DriftSummary[]> {
  const dayAgo = isoTimestamp(now - 86_400_000);
  const hourAgo = isoTimestamp(now - 3_600_000);
  const { results } = await db
    .prepare(
      `SELECT provider,
              SUM(CASE WHEN at >= ? THEN 1 ELSE 0 END) AS last_hour,
              COUNT(*) AS last_day,
              MAX(at) AS last_at,
              (SELECT code FROM scraper_drift d2 WHERE d2.provider = d.provider ORDER BY at DESC, id DESC LIMIT 1) AS last_code
         FROM scraper_drift d WHERE at >= ? GROUP BY provider`,
    )
    .bind(hourAgo, dayAgo)
    .all<{ provider: string; last_hour: number; last_day: number; last_at: string | null; last_code: string | null }>();
  const byProvider = new Map(results.map((row) => [row.provider, row]));
  return providers.map((provider) => {
    const row = byProvider.get(provider);
    return {
      provider,
      last_hour: row?.last_hour ?? 0,
      last_day: row?.last_day ?? 0,
      last_code: row?.last_code ?? null,
      last_at: row?.last_at ?? null,
    };
  });
}
