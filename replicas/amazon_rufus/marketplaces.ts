/**
 * The marketplaces the replica serves (amazon_rufus.md §1): one replica origin, one path segment per marketplace
 * domain (`/amazon_rufus/<domain>/…`). The page chrome is localised a little (language, account greeting, price
 * format) so that non-English marketplaces look like themselves; Rufus's own strings stay the sheet's.
 */

export interface Marketplace {
  domain: string;
  /** `lang` of the page. */
  language: string;
  /** The account link anonymous pages always show ("Hello, sign in"): a login-wall false positive on purpose. */
  accountGreeting: string;
  /** How the page prints a price: the symbol before the amount ($29.99) or after it with a decimal comma (29,99 €). */
  priceStyle: "symbol-first" | "symbol-last-comma";
}

const english = (domain: string): Marketplace => ({
  domain,
  language: "en",
  accountGreeting: "Hello, sign in",
  priceStyle: "symbol-first",
});
const european = (domain: string, language: string, accountGreeting: string): Marketplace => ({
  domain,
  language,
  accountGreeting,
  priceStyle: "symbol-last-comma",
});

export const MARKETPLACES: readonly Marketplace[] = [
  english("amazon.com"),
  english("amazon.co.uk"),
  european("amazon.de", "de", "Hallo, anmelden"),
  european("amazon.fr", "fr", "Bonjour, identifiez-vous"),
  european("amazon.it", "it", "Ciao, accedi"),
  european("amazon.es", "es", "Hola, identifícate"),
  english("amazon.ca"),
  { domain: "amazon.co.jp", language: "ja", accountGreeting: "こんにちは, ログイン", priceStyle: "symbol-first" },
  english("amazon.in"),
  english("amazon.com.au"),
  { domain: "amazon.com.mx", language: "es", accountGreeting: "Hola, identifícate", priceStyle: "symbol-first" },
  european("amazon.com.br", "pt", "Olá, faça seu login"),
  european("amazon.nl", "nl", "Hallo, inloggen"),
  european("amazon.se", "sv", "Hej, logga in"),
  european("amazon.pl", "pl", "Witamy, zaloguj się"),
  european("amazon.com.be", "fr", "Bonjour, identifiez-vous"),
  european("amazon.com.tr", "tr", "Merhaba, giriş yapın"),
  english("amazon.ae"),
  english("amazon.sa"),
  english("amazon.sg"),
  english("amazon.eg"),
  english("amazon.ie"),
];

const BY_DOMAIN = new Map(MARKETPLACES.map((marketplace) => [marketplace.domain, marketplace]));

export function marketplaceOf(domain: string): Marketplace | undefined {
  return BY_DOMAIN.get(domain);
}
