/**
 * The deployed configuration keeps the fair-capacity rules (docs/limits.md): one account's job attempts stay below half
 * the queue consumer's `max_concurrency`, so no two accounts can fill every consumer, and the code's defaults say the
 * same as wrangler.toml.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_REFUNDED_BROWSER_SECONDS_PER_HOUR, DEFAULT_RUNNING_JOBS, reducedConcurrency } from "../../src/limits/capacity-rules";

const wranglerToml = readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8");

function numberSetting(pattern: RegExp): number {
  const match = pattern.exec(wranglerToml);
  if (match?.[1] === undefined) throw new Error(`wrangler.toml has no ${pattern.source}`);
  return Number(match[1]);
}

describe("fair capacity configuration", () => {
  it("no two accounts fill the job consumers: ACCOUNT_MAX_RUNNING_JOBS is below half of max_concurrency", () => {
    const consumers = numberSetting(/^max_concurrency\s*=\s*(\d+)/m);
    const perAccount = numberSetting(/^ACCOUNT_MAX_RUNNING_JOBS\s*=\s*"(\d+)"/m);
    expect(2 * perAccount).toBeLessThan(consumers);
    // The code's default (a deployment without the variable) keeps the rule for the same consumers.
    expect(2 * DEFAULT_RUNNING_JOBS).toBeLessThan(consumers);
  });

  it("the refunded-time budget of wrangler.toml is the documented default, and past it a quarter of a limit remains (at least 1)", () => {
    expect(numberSetting(/^ACCOUNT_REFUNDED_BROWSER_SECONDS_PER_HOUR\s*=\s*"(\d+)"/m)).toBe(DEFAULT_REFUNDED_BROWSER_SECONDS_PER_HOUR);
    expect(DEFAULT_REFUNDED_BROWSER_SECONDS_PER_HOUR).toBe(1800);
    expect([8, 7, 4, 3, 2, 1].map(reducedConcurrency)).toEqual([2, 1, 1, 1, 1, 1]);
  });
});
