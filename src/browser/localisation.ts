/**
 * How a page presents itself for a country: language, time zone and a plausible geolocation, so that a provider sees
 * a consistent visitor of that market. Common markets are listed; others get English with the country as region,
 * UTC, and no geolocation override.
 */
export interface Localisation {
  locale: string;
  acceptLanguage: string;
  timezone: string;
  geolocation: { latitude: number; longitude: number } | null;
}

type Market = readonly [locale: string, timezone: string, latitude: number, longitude: number];

const MARKETS: Readonly<Record<string, Market>> = {
  US: ["en-US", "America/New_York", 40.7128, -74.006],
  CA: ["en-CA", "America/Toronto", 43.6532, -79.3832],
  GB: ["en-GB", "Europe/London", 51.5074, -0.1278],
  IE: ["en-IE", "Europe/Dublin", 53.3498, -6.2603],
  AU: ["en-AU", "Australia/Sydney", -33.8688, 151.2093],
  NZ: ["en-NZ", "Pacific/Auckland", -36.8485, 174.7633],
  IN: ["en-IN", "Asia/Kolkata", 19.076, 72.8777],
  SG: ["en-SG", "Asia/Singapore", 1.3521, 103.8198],
  ZA: ["en-ZA", "Africa/Johannesburg", -26.2041, 28.0473],
  DE: ["de-DE", "Europe/Berlin", 52.52, 13.405],
  AT: ["de-AT", "Europe/Vienna", 48.2082, 16.3738],
  CH: ["de-CH", "Europe/Zurich", 47.3769, 8.5417],
  FR: ["fr-FR", "Europe/Paris", 48.8566, 2.3522],
  BE: ["fr-BE", "Europe/Brussels", 50.8503, 4.3517],
  NL: ["nl-NL", "Europe/Amsterdam", 52.3676, 4.9041],
  ES: ["es-ES", "Europe/Madrid", 40.4168, -3.7038],
  MX: ["es-MX", "America/Mexico_City", 19.4326, -99.1332],
  AR: ["es-AR", "America/Argentina/Buenos_Aires", -34.6037, -58.3816],
  CO: ["es-CO", "America/Bogota", 4.711, -74.0721],
  IT: ["it-IT", "Europe/Rome", 41.9028, 12.4964],
  PT: ["pt-PT", "Europe/Lisbon", 38.7223, -9.1393],
  BR: ["pt-BR", "America/Sao_Paulo", -23.5505, -46.6333],
  SE: ["sv-SE", "Europe/Stockholm", 59.3293, 18.0686],
  NO: ["nb-NO", "Europe/Oslo", 59.9139, 10.7522],
  DK: ["da-DK", "Europe/Copenhagen", 55.6761, 12.5683],
  FI: ["fi-FI", "Europe/Helsinki", 60.1699, 24.9384],
  PL: ["pl-PL", "Europe/Warsaw", 52.2297, 21.0122],
  TR: ["tr-TR", "Europe/Istanbul", 41.0082, 28.9784],
  JP: ["ja-JP", "Asia/Tokyo", 35.6762, 139.6503],
  KR: ["ko-KR", "Asia/Seoul", 37.5665, 126.978],
  TW: ["zh-TW", "Asia/Taipei", 25.033, 121.5654],
  HK: ["zh-HK", "Asia/Hong_Kong", 22.3193, 114.1694],
  CN: ["zh-CN", "Asia/Shanghai", 31.2304, 121.4737],
  AE: ["en-AE", "Asia/Dubai", 25.2048, 55.2708],
  SA: ["ar-SA", "Asia/Riyadh", 24.7136, 46.6753],
  EG: ["ar-EG", "Africa/Cairo", 30.0444, 31.2357],
  IL: ["he-IL", "Asia/Jerusalem", 32.0853, 34.7818],
  UA: ["uk-UA", "Europe/Kyiv", 50.4501, 30.5234],
};

export function localisationFor(country: string): Localisation {
  const market = MARKETS[country];
  if (market === undefined) {
    return { locale: `en-${country}`, acceptLanguage: `en-${country},en;q=0.9`, timezone: "UTC", geolocation: null };
  }
  const [locale, timezone, latitude, longitude] = market;
  const language = locale.split("-")[0] ?? "en";
  const acceptLanguage = language === "en" ? `${locale},en;q=0.9` : `${locale},${language};q=0.9,en;q=0.8`;
  return { locale, acceptLanguage, timezone, geolocation: { latitude, longitude } };
}
