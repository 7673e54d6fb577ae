/**
 * What every scrape request (sync or job submission) goes through once its parameters are valid and its key is
 * authenticated (the `apiKeyAuth` middleware): the provider lookup and the credit charge.
 */
import type { AuthenticatedKey } from "../auth/api-keys";
import { chargeCredits } from "../credits/ledger";
import type { ScraperId } from "../scrapers/registry";
import { requireProvider } from "./pipeline";

interface AuthorizedScrape extends AuthenticatedKey {
  /** Balance after this request's charge. */
  creditsRemaining: number;
}

export async function authorizeScrape(env: Env, scraper: ScraperId, key: AuthenticatedKey, operationId: string): Promise<AuthorizedScrape> {
  requireProvider(scraper);
  const creditsRemaining = await chargeCredits(env.DB, { accountId: key.accountId, operationId, scraper, keyId: key.keyId });
  return { ...key, creditsRemaining };
}
