/**
 * What moved between the answer a capture recorded and the answer the parser gives now, field by field, so that a
 * failing replay reads as "products[1].title: expected …, got …" rather than as two large JSON documents.
 */
import { isRecord } from "../util/json-record";

const EXCERPT_CHARS = 60;

/** Every difference between `expected` and `actual` as one line each (empty when they are equal). */
export function answerDifferences(expected: unknown, actual: unknown, path = ""): string[] {
  const here = path === "" ? "(answer)" : path;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const lines: string[] = [];
    if (expected.length !== actual.length) lines.push(`${here}: expected ${expected.length} items, got ${actual.length}`);
    const shared = Math.min(expected.length, actual.length);
    for (let index = 0; index < shared; index += 1) lines.push(...answerDifferences(expected[index], actual[index], `${path}[${index}]`));
    return lines;
  }
  if (isRecord(expected) && isRecord(actual)) {
    const lines: string[] = [];
    for (const key of Object.keys(expected)) {
      const child = path === "" ? key : `${path}.${key}`;
      if (!Object.hasOwn(actual, key)) lines.push(`${child}: missing (expected ${describe(expected[key])})`);
      else lines.push(...answerDifferences(expected[key], actual[key], child));
    }
    for (const key of Object.keys(actual)) {
      if (!Object.hasOwn(expected, key)) lines.push(`${path === "" ? key : `${path}.${key}`}: unexpected field (${describe(actual[key])})`);
    }
    return lines;
  }
  if (typeof expected === "string" && typeof actual === "string") {
    if (expected === actual) return [];
    const at = firstDifference(expected, actual);
    return [`${here}: differs at character ${at}: expected ${excerpt(expected, at)}, got ${excerpt(actual, at)}`];
  }
  if (Object.is(expected, actual)) return [];
  return [`${here}: expected ${describe(expected)}, got ${describe(actual)}`];
}

function firstDifference(left: string, right: string): number {
  let index = 0;
  while (index < left.length && index < right.length && left[index] === right[index]) index += 1;
  return index;
}

/** The text around `at`, quoted, with … where it was cut. */
function excerpt(text: string, at: number): string {
  const start = Math.max(0, at - EXCERPT_CHARS / 2);
  const end = Math.min(text.length, start + EXCERPT_CHARS);
  return `${start > 0 ? "…" : ""}${JSON.stringify(text.slice(start, end))}${end < text.length ? "…" : ""}`;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value) ?? String(value);
  return json.length > EXCERPT_CHARS ? `${json.slice(0, EXCERPT_CHARS)}…` : json;
}
