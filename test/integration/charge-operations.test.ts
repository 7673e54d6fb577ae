/**
 * One charge for scrapes of several scrapers (src/credits/ledger.ts `chargeOperations`, what a monitor's run pays with):
 * all or nothing, one ledger row per scrape with its own scraper, and a repeated call charges nothing more.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { InsufficientCreditsError } from "../../src/errors";
import { chargeOperations } from "../../src/credits/ledger";
import { balanceOf, createTestAccount, ledgerOf } from "../support/workers/helpers";

async function scraperOfRows(accountId: string): Promise<{ operation_id: string; scraper: string; delta: number }[]> {
  const { results } = await env.DB.prepare(
    "SELECT operation_id, scraper, delta FROM credit_ledger WHERE account_id = ? AND kind = 'charge' ORDER BY id",
  )
    .bind(accountId)
    .all<{ operation_id: string; scraper: string; delta: number }>();
  return results;
}

describe("chargeOperations", () => {
  it("charges every scrape at once, each row with its own scraper; again with the same ids charges nothing", async () => {
    const account = await createTestAccount(20);
    const operations = [
      { operationId: crypto.randomUUID(), scraper: "grok" },
      { operationId: crypto.randomUUID(), scraper: "perplexity" },
      { operationId: crypto.randomUUID(), scraper: "grok" },
    ];
    expect(await chargeOperations(env.DB, { accountId: account.accountId, keyId: account.keyId, operations })).toBe(11);
    expect(await scraperOfRows(account.accountId)).toEqual([
      { operation_id: operations[0]?.operationId, scraper: "grok", delta: -3 },
      { operation_id: operations[1]?.operationId, scraper: "perplexity", delta: -3 },
      { operation_id: operations[2]?.operationId, scraper: "grok", delta: -3 },
    ]);
    expect(await chargeOperations(env.DB, { accountId: account.accountId, keyId: account.keyId, operations })).toBe(11);
    expect(await balanceOf(account.accountId)).toBe(11);
    // the repeat wrote no row either (the account was made without a grant row)
    expect(await ledgerOf(account.accountId)).toHaveLength(3);
  });

  it("charges nothing when the balance cannot cover them all, naming the total", async () => {
    const account = await createTestAccount(8);
    const operations = [
      { operationId: crypto.randomUUID(), scraper: "chatgpt" },
      { operationId: crypto.randomUUID(), scraper: "gemini" },
      { operationId: crypto.randomUUID(), scraper: "copilot" },
    ];
    const refused = chargeOperations(env.DB, { accountId: account.accountId, keyId: null, operations });
    await expect(refused).rejects.toBeInstanceOf(InsufficientCreditsError);
    await expect(refused).rejects.toMatchObject({
      detail: "Credit limit reached: this request needs 9 credits and the account has 8. Top up to continue.",
    });
    expect(await balanceOf(account.accountId)).toBe(8);
    expect(await scraperOfRows(account.accountId)).toEqual([]);
  });
});
