/**
 * The one timestamp format of the API's responses, the dashboard's machine-readable attributes and webhook payloads:
 * ISO 8601 in UTC with milliseconds and an explicit numeric offset, `2026-03-01T09:26:53.589+00:00` (the spec asks for
 * "ISO 8601 with offset"). D1 rows keep `Date.toISOString()` (`…Z`), whose text order is time order; every view
 * converts with this helper, so storage and output never have to agree.
 */
export function isoTimestamp(date: Date | number | string = new Date()): string {
  return new Date(date).toISOString().replace("Z", "+00:00");
}

/** `isoTimestamp` for a column that may be empty (`completed_at`, `revoked_at`…). */
export function isoTimestampOrNull(date: Date | number | string | null): string | null {
  return date === null ? null : isoTimestamp(date);
}

/** What a timestamp of the API looks like; tests check responses against it. */
export const ISO_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
