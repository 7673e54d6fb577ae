/**
 * A scrape that stays in flight until the test lets it go, without a browser: the test leads the coalesced scrape of a
 * cache key (src/pipeline/coalesce.ts), so a synchronous request for the same prompt and account follows it and waits,
 * charged, for as long as the test wants. What that request does when its client leaves is then observable in the ledger.
 */
import { env } from "cloudflare:workers";
import { responseCacheKey } from "../../src/cache/response-cache";
import { coalesceScrape } from "../../src/pipeline/coalesce";
import { waitFor } from "../support/workers/async-helpers";
import { ledgerOf } from "../support/workers/helpers";

export interface HeldScrape {
  /** Fails the held scrape (its followers then lead their own) and stops the test's leader. */
  release(): void;
}

/** Leads the scrape of a grok request (default parameters but these) for `accountId` and holds it until `release`. */
export async function holdGrokScrape(accountId: string, request: { prompt: string; timeout: number }): Promise<HeldScrape> {
  const params = { prompt: request.prompt, country: "US", bypass_cache: false, timeout: request.timeout, mode: "MODEL_MODE_AUTO" };
  const cacheKey = await responseCacheKey("grok", params, accountId);
  const stop = new AbortController();
  let leading = false;
  let fail: (reason: Error) => void = () => undefined;
  const leader = coalesceScrape(
    env,
    cacheKey,
    { signal: stop.signal, deadline: Date.now() + 600_000 },
    () =>
      new Promise<{ result: string; result_markdown: null }>((_, reject) => {
        leading = true;
        fail = reject;
      }),
    () => null,
  );
  leader.catch(() => undefined);
  await waitFor("the test to lead the scrape", async () => (leading ? true : undefined));
  return {
    release() {
      fail(new Error("released by the test"));
      stop.abort();
    },
  };
}

/** The kinds of `accountId`'s charges and refunds, in order, once there are `count` of them (grants are left out). */
export async function ledgerKindsOnce(accountId: string, count: number): Promise<string[]> {
  return waitFor(
    `${count} charges and refunds`,
    async () => {
      const kinds = (await ledgerOf(accountId)).map((row) => row.kind).filter((kind) => kind === "charge" || kind === "refund");
      return kinds.length >= count ? kinds : undefined;
    },
    30_000,
  );
}
