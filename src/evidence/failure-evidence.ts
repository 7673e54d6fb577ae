/**
 * Evidence of failed scrapes (docs/evidence.md "Failure evidence"): kept only for accounts that ask for it (and for the
 * service's own canaries), never for a failure the caller caused or a time-out. It travels with the error that ended
 * the scrape (the HTTP error body and the failed job carry it as `evidence`), and the latest one per provider and
 * country is recorded for the operator (GET /admin/providers).
 */
import { toServiceError, ScraperDriftError } from "../errors";
import type { EvidenceView } from "./evidence-store";
import { logLine, type LogSubject } from "../util/log-line";
import { isoTimestamp } from "../util/time";

/** The evidence of the scrape each error ended; a side table, so the error hierarchy stays below every record. */
const evidenceByError = new WeakMap<object, EvidenceView>();

export function attachFailureEvidence(error: unknown, evidence: EvidenceView): void {
  if (typeof error === "object" && error !== null) evidenceByError.set(error, evidence);
}

/** The failure evidence kept for the scrape `error` ended, if any. */
export function failureEvidenceOf(error: unknown): EvidenceView | null {
  return typeof error === "object" && error !== null ? (evidenceByError.get(error) ?? null) : null;
}

interface FailureRecord {
  provider: string;
  country: string;
  accountId: string;
  error: unknown;
  evidence: EvidenceView;
}

/** Records `failure` as its provider and country's latest; never throws (the scrape has failed already). */
export async function recordFailureEvidence(db: D1Database, failure: FailureRecord, logSubject: LogSubject): Promise<void> {
  const error = toServiceError(failure.error);
  const code = error instanceof ScraperDriftError ? error.driftCode : error.code;
  try {
    await db
      .prepare(
        `INSERT INTO failure_evidence (provider, country, account_id, error_code, detail, screenshot_url, html_url, captured_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (provider, country) DO UPDATE SET account_id = excluded.account_id, error_code = excluded.error_code,
           detail = excluded.detail, screenshot_url = excluded.screenshot_url, html_url = excluded.html_url,
           captured_at = excluded.captured_at, expires_at = excluded.expires_at`,
      )
      .bind(
        failure.provider,
        failure.country,
        failure.accountId,
        code,
        error.detail,
        pathOf(failure.evidence.screenshot_url),
        pathOf(failure.evidence.html_url),
        failure.evidence.captured_at,
        failure.evidence.expires_at,
      )
      .run();
  } catch (cause) {
    console.error(logLine(logSubject, "could not record the failure evidence for the operator"), cause);
  }
}

/** Stored as paths: the operator's view resolves them against the origin it is asked on (canaries have no request). */
function pathOf(url: string | null): string | null {
  return url === null ? null : new URL(url).pathname;
}

export interface LatestFailureEvidence {
  provider: string;
  country: string;
  error_code: string;
  detail: string;
  /** Paths (`/evidence/…/screenshot.png`) on this API's origin. */
  screenshot_path: string | null;
  html_path: string | null;
  captured_at: string;
  expires_at: string;
}

/** Each provider and country's latest failure evidence whose files have not expired, newest first. */
export async function latestFailureEvidence(db: D1Database, now = new Date()): Promise<LatestFailureEvidence[]> {
  const { results } = await db
    .prepare(
      `SELECT provider, country, error_code, detail, screenshot_url AS screenshot_path, html_url AS html_path, captured_at, expires_at
       FROM failure_evidence WHERE expires_at > ? ORDER BY captured_at DESC`,
    )
    .bind(isoTimestamp(now))
    .all<LatestFailureEvidence>();
  return results;
}
