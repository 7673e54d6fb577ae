/** Absolute http(s) URLs: the only links we return, follow or render (no `javascript:`, `data:`, relative paths). */

/** `text` parsed, or null when it is not an absolute URL with the http or https scheme. */
export function parseHttpUrl(text: string): URL | null {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

export function isHttpUrl(text: string): boolean {
  return parseHttpUrl(text) !== null;
}
