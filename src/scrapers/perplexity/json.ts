/** Narrowing helpers for provider JSON (lenient reading: wrong types read as absent). */

export { isRecord, type JsonRecord, listOf } from "../../util/json-record";

/** A string with its surrounding whitespace removed, or null when it is not a string or is blank. */
export function trimmedOrNull(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
