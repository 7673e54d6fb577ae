/**
 * The credit charge every scrape request (sync or job submission) pays once its parameters are valid and its key is
 * authenticated (the `apiKeyAuth` middleware): the provider is looked up, then the request's credits are charged.
 * The callers refund them when the scrape fails.
 */
import type { AuthenticatedKey } from "../auth/api-keys";
import { chargeCredits } from "../credits/ledger";
import type { ScraperId } from "../scrapers/registry";
import { requireProvider } from "./pipeline";

/** The authenticated key of a request whose credits are charged. */
interface ChargedScrape extends AuthenticatedKey {
  /** Balance after this request's charge. */
  creditsRemaining: number;
}

export async function chargeScrape(env: Env, scraper: ScraperId, key: AuthenticatedKey, operationId: string): Promise<ChargedScrape> {
  requireProvider(scraper);
  const creditsRemaining = await chargeCredits(env.DB, { accountId: key.accountId, operationId, scraper, keyId: key.keyId });
  return { ...key, creditsRemaining };
}
