/**
 * Countries Browser Rendering can run a session in (`location`), as listed by @cloudflare/puppeteer 1.4's `Locations`
 * type. A country outside this list launches without `location` (Browser Rendering picks the region) and is still
 * localised in the page (language, time zone, geolocation).
 */
const BROWSER_LOCATIONS: ReadonlySet<string> = new Set(
  (
    "AD AE AF AG AL AM AO AR AT AU AZ BA BB BD BE BF BG BH BI BJ BM BN BO BR BS BT BW BY BZ CA CD CF CG CH CI CL CM " +
    "CN CO CR CU CV CY CZ DE DJ DK DM DO DZ EC EE EG ER ES ET FI FJ FM FR GA GB GD GE GH GL GM GN GQ GR GT GW GY HN " +
    "HR HT HU ID IE IL IN IQ IR IS IT JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA " +
    "MC MD MG MK ML MM MN MO MR MS MU MV MW MX MY MZ NA NE NG NI NL NO NP NR NZ OM PA PE PG PH PK PL PS PT PY QA RO " +
    "RS RU RW SA SB SC SD SE SH SI SK SL SM SN SO SR SS ST SV SY SZ TD TG TH TJ TL TM TN TO TR TT TW TZ UA UG US UY " +
    "UZ VC VE VN VU WS YE ZA ZM ZW"
  ).split(" "),
);

export function browserLocationFor(country: string): string | undefined {
  return BROWSER_LOCATIONS.has(country) ? country : undefined;
}
