/**
 * The URL we return for a source card's link (DESIGN.md "URLs we return"): the provider's own, absolute, with Google's
 * `/url?q=` redirect unwrapped and `#:~:text=` fragments removed. Nothing else is rewritten: the string is kept as the
 * page had it wherever no normalisation applies.
 */

const GOOGLE_HOST = /(^|\.)google\.[a-z.]+$/i;
const MAX_UNWRAPS = 3;

/** The normalised http(s) URL of a card link, or null when it is not a web link. */
export function normaliseSourceUrl(raw: string): string | null {
  let url = raw.trim();
  for (let unwraps = 0; unwraps < MAX_UNWRAPS; unwraps += 1) {
    const target = redirectTarget(url);
    if (target === null) break;
    url = target;
  }
  if (!/^https?:\/\//i.test(url)) return null;
  return withoutTextFragment(url);
}

/** The target of a Google redirect (`https://www.google.com/url?q=…`, or `/url?q=…` relative to a Google page). */
function redirectTarget(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url, "https://www.google.com");
  } catch {
    return null;
  }
  const relative = url.startsWith("/");
  if (!relative && !GOOGLE_HOST.test(parsed.hostname)) return null;
  if (parsed.pathname !== "/url") return null;
  const target = parsed.searchParams.get("q") ?? parsed.searchParams.get("url");
  return target !== null && /^https?:\/\//i.test(target) ? target : null;
}

/** Removes a text-fragment directive (`#:~:text=…`, also `#section:~:text=…` → `#section`). */
function withoutTextFragment(url: string): string {
  const hash = url.indexOf("#");
  if (hash === -1) return url;
  const directive = url.indexOf(":~:", hash);
  if (directive === -1) return url;
  return directive === hash + 1 ? url.slice(0, hash) : url.slice(0, directive);
}

/** Host without `www.`, for a site name of last resort. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}

/** A link destination of inline markdown links (`](url)`, `](<url>)`, optionally with a title). */
const INLINE_LINK = /\]\(([ \t]*)(<[^>\n]*>|[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*)([ \t]+(?:"[^"\n]*"|'[^'\n]*'))?([ \t]*)\)/g;
/** An autolink `<https://…>`. */
const AUTOLINK = /<(https?:\/\/[^\s<>]+)>/gi;
/** A fenced code block (kept verbatim: a URL there is code, not a link). */
const FENCE_LINE = /^[ \t]{0,3}(`{3,}|~{3,})/;

/**
 * The answer's markdown with every link destination normalised as a source card's URL is (normaliseSourceUrl), so
 * one URL reads the same in `result_markdown` as in `citations[].url` (DESIGN.md "URLs we return"). Link text, code
 * blocks and everything that is not a web link stay as they were.
 */
export function normaliseMarkdownUrls(markdown: string): string {
  const lines = markdown.split("\n");
  let fence: string | null = null;
  return lines
    .map((line) => {
      const marker = FENCE_LINE.exec(line)?.[1];
      if (marker !== undefined) {
        if (fence === null) fence = marker;
        else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
        return line;
      }
      if (fence !== null) return line;
      return line
        .replace(INLINE_LINK, (whole, lead: string, target: string, title: string | undefined, trail: string) => {
          const bracketed = target.startsWith("<");
          const raw = bracketed ? target.slice(1, -1) : target;
          const normalised = normaliseSourceUrl(raw);
          if (normalised === null || normalised === raw) return whole;
          return `](${lead}${bracketed ? `<${normalised}>` : normalised}${title ?? ""}${trail})`;
        })
        .replace(AUTOLINK, (whole, raw: string) => {
          const normalised = normaliseSourceUrl(raw);
          return normalised === null || normalised === raw ? whole : `<${normalised}>`;
        });
    })
    .join("\n");
}
