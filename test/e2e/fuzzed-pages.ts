/**
 * Every scraper on seeded page variants (issue 29): for each fixed seed, the replica fuzzes its next page loads with
 * every variation class on (replicas/shared/variation.ts), the scrape asks for the scenario the seed draws, and every
 * field of the answer must equal what the provider's oracle (test/support/oracles/) says, written from the scenario.
 * A provider runs it with one line in its e2e file: `describeFuzzedPages({ oracle, seeds: CI_SEEDS })`.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { caseForSeed, fieldMismatches } from "../support/oracles/draw";
import type { ProviderOracle } from "../support/oracles/oracle";
import { api, createTestAccount, query, replicaControl, type TestAccount } from "../support/workers/helpers";

export interface FuzzedPagesOptions {
  oracle: ProviderOracle;
  seeds: readonly number[];
}

export function describeFuzzedPages({ oracle, seeds }: FuzzedPagesOptions): void {
  const { provider } = oracle;
  describe(`${provider}: fuzzed pages`, () => {
    let account: TestAccount;
    beforeAll(async () => {
      account = await createTestAccount(3 * seeds.length + 30);
    });
    afterEach(async () => {
      await replicaControl("variation", { provider, seed: null });
    });

    for (const seed of seeds) {
      it(`seed ${seed}: every field exact`, async () => {
        const scenario = caseForSeed(provider, oracle.cases(), seed);
        await replicaControl("variation", { provider, seed });
        const response = await api(`/scrapers/${provider}?${query({ ...scenario.params, bypass_cache: "true" })}`, {
          apiKey: account.apiKey,
        });
        const body = (await response.json()) as Record<string, unknown>;
        const draws = await variationDraws(provider);
        const context = `seed ${seed}, scenario ${scenario.id}, page variants ${JSON.stringify(draws)}`;
        expect(response.status, `${context}: ${JSON.stringify(body)}`).toBe(200);
        expect(fieldMismatches(scenario.expected, body), context).toEqual([]);
      });
    }
  });
}

/** What the replica drew for the pages of this seed (shown when a field fails, so the variant can be read). */
async function variationDraws(provider: string): Promise<unknown> {
  const response = await fetch(`${env.REPLICA_URL}/__control/state`);
  const state = (await response.json()) as { providers: Record<string, { variation: { draws: unknown } | null }> };
  return state.providers[provider]?.variation?.draws ?? null;
}

/** The seeds CI runs for every provider (`npm run fuzz -- --seeds N` sweeps more). */
export const CI_SEEDS: readonly number[] = [1, 2, 3, 4];
