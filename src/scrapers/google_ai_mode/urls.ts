/**
 * The URL normalisations this API applies to Google AI Mode's source URLs (DESIGN.md "URLs we return"): Google's
 * `/url?q=` redirect unwrapped, the `#:~:text=` directive removed. Nothing else changes: the provider's string is
 * returned as written (no re-serialisation, which would re-encode characters).
 */
import { GOOGLE_HOST, GOOGLE_ORIGIN } from "./selectors";

/** Where a link in the fragment points, resolved against Google's origin; null when it is not a URL. */
export function resolveLink(href: string): URL | null {
  try {
    return new URL(href.trim(), GOOGLE_ORIGIN);
  } catch {
    return null;
  }
}

export function isGoogleUrl(url: URL): boolean {
  return GOOGLE_HOST.test(url.hostname);
}

/** The target of a Google redirect (`/url?q=…`, or `url=…` on some builds), or null when `url` is not one. */
function redirectTarget(url: URL): string | null {
  if (!isGoogleUrl(url) || url.pathname !== "/url") return null;
  const target = url.searchParams.get("q") ?? url.searchParams.get("url");
  return target === null || target.trim() === "" ? null : target.trim();
}

/** Removes a text-fragment directive (`#:~:text=…`, or `:~:…` after a fragment): `#section:~:text=x` keeps `#section`. */
export function stripTextFragment(url: string): string {
  const hash = url.indexOf("#");
  if (hash === -1) return url;
  const directive = url.indexOf(":~:", hash);
  if (directive === -1) return url;
  return directive === hash + 1 ? url.slice(0, hash) : url.slice(0, directive);
}

/**
 * A source URL as the API returns it: absolute http(s), redirect unwrapped, text fragment removed. Null for anything
 * else (a relative link to a Google page, `javascript:`, garbage).
 */
export function sourceUrl(raw: string): string | null {
  const resolved = resolveLink(raw);
  if (resolved === null) return null;
  const target = redirectTarget(resolved);
  // a redirect without a target leads nowhere
  if (target === null && isGoogleUrl(resolved) && resolved.pathname === "/url") return null;
  const candidate = target ?? raw.trim();
  let absolute: URL;
  try {
    // relative candidates have no scheme: they are Google's own pages, not sources
    absolute = new URL(candidate);
  } catch {
    return null;
  }
  if (absolute.protocol !== "http:" && absolute.protocol !== "https:") return null;
  return stripTextFragment(candidate);
}

/** Hostname of an absolute URL, or null. */
export function hostnameOf(url: string): string | null {
  try {
    const { hostname } = new URL(url);
    return hostname === "" ? null : hostname;
  } catch {
    return null;
  }
}
