/**
 * Country → Amazon marketplace domain (amazon_rufus.md §1). `country` selects the marketplace; a country without its
 * own marketplace is refused (a 400 naming `country`) rather than silently answered by another marketplace's Rufus.
 */
export const MARKETPLACE_DOMAINS = {
  US: "amazon.com",
  GB: "amazon.co.uk",
  DE: "amazon.de",
  FR: "amazon.fr",
  IT: "amazon.it",
  ES: "amazon.es",
  CA: "amazon.ca",
  JP: "amazon.co.jp",
  IN: "amazon.in",
  AU: "amazon.com.au",
  MX: "amazon.com.mx",
  BR: "amazon.com.br",
  NL: "amazon.nl",
  SE: "amazon.se",
  PL: "amazon.pl",
  BE: "amazon.com.be",
  TR: "amazon.com.tr",
  AE: "amazon.ae",
  SA: "amazon.sa",
  SG: "amazon.sg",
  EG: "amazon.eg",
  IE: "amazon.ie",
} as const;

export type MarketplaceCountry = keyof typeof MARKETPLACE_DOMAINS;

export const MARKETPLACE_COUNTRIES: readonly MarketplaceCountry[] = Object.keys(MARKETPLACE_DOMAINS).filter(isMarketplaceCountry);

function isMarketplaceCountry(country: string): country is MarketplaceCountry {
  return Object.hasOwn(MARKETPLACE_DOMAINS, country);
}

/**
 * The marketplace domain of a country (`amazon.de`). Validation only lets marketplace countries through; anything else
 * falls back to amazon.com so that this function is total.
 */
export function marketplaceDomainOf(country: string): string {
  return isMarketplaceCountry(country) ? MARKETPLACE_DOMAINS[country] : MARKETPLACE_DOMAINS.US;
}

/** Hosts of every marketplace (`www.amazon.de`), for the browser's allowed domains. */
export const MARKETPLACE_HOSTS: readonly string[] = Object.values(MARKETPLACE_DOMAINS).map((domain) => `www.${domain}`);
