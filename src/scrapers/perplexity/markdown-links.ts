/**
 * One URL rule for every field (DESIGN.md §4 "One normalisation per value"): a link or autolink in the answer's
 * markdown carries its URL through the same `normaliseSourceUrl` as `sources[].url`, so a `#:~:text=` fragment, a
 * Google redirect or Perplexity's own `utm_source` never survives in one field while it is gone from the other.
 * Code (fences, inline spans) is left alone: a URL there is content, not a link.
 */
import { mapProse } from "./markers";
import { normaliseSourceUrl } from "./urls";

/** `](url)` or `](url "title")`, the URL optionally in `<…>`; one level of parentheses inside it (Wikipedia titles). */
const INLINE_LINK = /\]\((<?)(https?:\/\/(?:[^\s()<>]|\([^\s()<>]*\))+)(>?)(\s+(?:"[^"]*"|'[^']*'))?\)/gi;
/** `<https://…>` autolinks. */
const AUTOLINK = /<(https?:\/\/[^\s<>]+)>/gi;
/** `[label]: https://…` reference definitions (a whole line). */
const REFERENCE = /^( {0,3}\[[^\]]+\]:[ \t]*<?)(https?:\/\/\S+?)(>?)(?=[ \t]|$)/gim;

function normalised(url: string): string {
  return normaliseSourceUrl(url) ?? url;
}

/** The markdown with every link destination normalised as sources are; everything else byte for byte. */
export function normaliseMarkdownLinks(markdown: string): string {
  return mapProse(markdown, (prose) =>
    prose
      .replace(
        INLINE_LINK,
        (_link, open: string, url: string, close: string, title: string | undefined) =>
          `](${open}${normalised(url)}${close}${title ?? ""})`,
      )
      .replace(AUTOLINK, (_link, url: string) => `<${normalised(url)}>`)
      .replace(REFERENCE, (_line, head: string, url: string, close: string) => `${head}${normalised(url)}${close}`),
  );
}
