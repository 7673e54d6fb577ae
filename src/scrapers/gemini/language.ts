/**
 * The `hl` UI language Gemini is opened with for a country (gemini.md §1): the page copies it into the StreamGenerate
 * query and the request body. Google's codes are the bare language, except where the region changes the language
 * (Portuguese and Chinese variants).
 */
import { localisationFor } from "../../browser/localisation";

const REGIONAL_LANGUAGES = new Set(["pt", "zh"]);

export function geminiLanguage(country: string): string {
  const [language = "en", region] = localisationFor(country).locale.split("-");
  return REGIONAL_LANGUAGES.has(language) && region !== undefined ? `${language}-${region}` : language;
}

/** Whether two `hl` codes name the same language (the primary subtag; "pt-BR" and "pt" agree). */
export function sameLanguage(a: string, b: string): boolean {
  const primary = (code: string): string => code.trim().toLowerCase().split(/[-_]/)[0] ?? "";
  return primary(a) === primary(b);
}
