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
