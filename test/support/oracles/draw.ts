/**
 * Which scenario a fuzz seed scrapes: the same for the e2e suite's fixed seeds and for `npm run fuzz`, so a failure
 * reported with its seed replays the same scenario on the same page variant.
 */
import { hash } from "../../../replicas/shared/variation";
import type { OracleCase } from "./oracle";

export function caseForSeed(provider: string, cases: readonly OracleCase[], seed: number): OracleCase {
  // the replicas' own hash, on another key than the page draws: the scenario and the page vary independently
  const chosen = cases[hash(`${provider}:${seed}`) % cases.length];
  if (chosen === undefined) throw new Error(`${provider}: the oracle has no cases`);
  return chosen;
}

/** The fields of `expected` whose value in `actual` differs (deep, exact JSON equality), each with both values. */
export function fieldMismatches(
  expected: Readonly<Record<string, unknown>>,
  actual: Readonly<Record<string, unknown>>,
): { field: string; expected: unknown; actual: unknown }[] {
  return Object.entries(expected).flatMap(([field, value]) =>
    canonical(value) === canonical(actual[field]) ? [] : [{ field, expected: value, actual: actual[field] }],
  );
}

/** JSON with object keys sorted, so key order never counts as a difference. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}
