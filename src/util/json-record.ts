/** A JSON object whose shape is not trusted yet (provider frames, request bodies, stored captures): read field by field. */
export type JsonRecord = Record<string, unknown>;

/** Whether `value` is a JSON object (not null, not an array). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is an array, else none (lenient reading: a wrong type reads as absent). */
export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * The value `text` holds, or undefined when it is not JSON (JSON itself never yields undefined, so the two cannot be
 * mistaken): for text from outside, where a broken piece reads as absent rather than failing the whole.
 */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A string with its surrounding white space removed, or null when it is not a string or is blank. */
export function trimmedOrNull(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}
