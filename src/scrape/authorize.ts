/**
 * What every scrape request (sync or job submission) goes through after its parameters are valid: the API key, the
 * per-key rate limit, the 501 check for providers not built yet, and the credit charge.
 */
import { authenticateApiKey, touchApiKey, type AuthenticatedKey } from "../auth/api-keys";
import { chargeCredits } from "../credits/ledger";
import { TooManyRequestsError } from "../errors";
import type { ScraperId } from "../scrapers/registry";
import { requireProvider } from "./pipeline";

export const RATE_LIMIT_DETAIL = "Rate limit exceeded. Retry after a moment.";

export interface AuthorizedScrape extends AuthenticatedKey {
  /** Balance after this request's charge. */
  creditsRemaining: number;
}

export async function authorizeScrape(
  env: Env,
  scraper: ScraperId,
  apiKey: string | undefined,
  operationId: string,
): Promise<AuthorizedScrape> {
  const key = await authenticateApiKey(env.DB, apiKey);
  await touchApiKey(env.DB, key.keyId);
  const { success } = await env.KEY_RATE_LIMITER.limit({ key: key.keyId });
  if (!success) throw new TooManyRequestsError(RATE_LIMIT_DETAIL, 10);
  requireProvider(scraper);
  const creditsRemaining = await chargeCredits(env.DB, { accountId: key.accountId, operationId, scraper, keyId: key.keyId });
  return { ...key, creditsRemaining };
}
