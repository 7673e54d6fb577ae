/**
 * The only changes made to a source URL before it is returned (DESIGN.md §4 "URLs we return"): a `#:~:text=` fragment
 * directive is removed, a Google `/url?q=` redirect is unwrapped, and the tracking parameter Perplexity itself appends
 * (`utm_source=perplexity`) is dropped. Everything else stays byte for byte as the provider sent it (no re-serialising
 * through `URL`, which would add slashes or change escapes).
 */
import { isHttpUrl } from "../../util/http-url";

/** Query parameters that Perplexity adds to outbound links, with the values that mark them as Perplexity's. */
const PROVIDER_TRACKING: ReadonlyArray<[name: string, value: RegExp]> = [["utm_source", /^perplexity(\.ai)?$/i]];
const GOOGLE_HOST = /(^|\.)google\.[a-z]{2,3}(\.[a-z]{2})?$/i;

/** The URL as returned to clients, or null when it is not an absolute http(s) URL. */
export function normaliseSourceUrl(raw: string): string | null {
  const trimmed = raw.trim();
  if (!isHttpUrl(trimmed)) return null;
  return removeProviderTracking(removeTextFragment(unwrapGoogleRedirect(trimmed)));
}

function unwrapGoogleRedirect(url: string): string {
  const parsed = new URL(url);
  if (!GOOGLE_HOST.test(parsed.hostname) || parsed.pathname !== "/url") return url;
  const target = parsed.searchParams.get("q") ?? parsed.searchParams.get("url");
  return target !== null && isHttpUrl(target.trim()) ? target.trim() : url;
}

/** `https://a.example/p#:~:text=x` → `https://a.example/p`; `#intro:~:text=x` → `#intro`. */
function removeTextFragment(url: string): string {
  const hash = url.indexOf("#");
  if (hash < 0) return url;
  const directive = url.indexOf(":~:", hash);
  if (directive < 0) return url;
  const kept = url.slice(0, directive);
  return kept.endsWith("#") ? kept.slice(0, -1) : kept;
}

function removeProviderTracking(url: string): string {
  const hash = url.indexOf("#");
  const base = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? "" : url.slice(hash);
  const question = base.indexOf("?");
  if (question < 0) return url;
  const pairs = base.slice(question + 1).split("&");
  const kept = pairs.filter((pair) => !isProviderTracking(pair));
  if (kept.length === pairs.length) return url;
  return `${base.slice(0, question)}${kept.length > 0 ? `?${kept.join("&")}` : ""}${fragment}`;
}

function isProviderTracking(pair: string): boolean {
  const equals = pair.indexOf("=");
  const name = safeDecode(equals < 0 ? pair : pair.slice(0, equals));
  const value = safeDecode(equals < 0 ? "" : pair.slice(equals + 1));
  return PROVIDER_TRACKING.some(([trackingName, trackingValue]) => name === trackingName && trackingValue.test(value));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}
