/**
 * The one timestamp format of the API's responses, the dashboard's machine-readable attributes and webhook payloads:
 * ISO 8601 in UTC with milliseconds and an explicit numeric offset, `2026-03-01T09:26:53.589+00:00` (an offset, not
 * `Z`: older parsers such as Python's `datetime.fromisoformat` before 3.11 reject `Z`). D1 rows keep `Date.toISOString()` (`…Z`), whose text order is time order; every view
 * converts with this helper, so storage and output never have to agree.
 */
export function isoTimestamp(date: Date | number | string = new Date()): string {
  return new Date(date).toISOString().replace("Z", "+00:00");
}

/** `isoTimestamp` for a column that may be empty (`completed_at`, `revoked_at`…). */
export function isoTimestampOrNull(date: Date | number | string | null): string | null {
  return date === null ? null : isoTimestamp(date);
}

/** A calendar date first (`2026-03-01…`): `Date.parse` alone would also take "2026" or "March 1". */
const ISO_DATE_PREFIX = /^\d{4}-\d{2}-\d{2}(?:[T ]|$)/;

/**
 * A provider's timestamp (Grok's `createTime`, which arrives as `…Z`, with or without milliseconds) in the API's one
 * format, so every time field of a response reads alike. Anything that is not an ISO 8601 date is `null`: a value we
 * cannot place in time is not a timestamp, and the field is documented as nullable.
 */
export function providerTimestampOrNull(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const text = raw.trim();
  if (!ISO_DATE_PREFIX.test(text)) return null;
  const time = Date.parse(text);
  return Number.isFinite(time) ? isoTimestamp(time) : null;
}

/** What a timestamp of the API looks like; tests check responses against it. */
export const ISO_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
