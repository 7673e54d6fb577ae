/**
 * One URL normalisation for every field of the ChatGPT answer that carries a URL (DESIGN.md "URLs we return" and "One
 * normalisation per value"): `result_markdown` (link destinations, reference definitions, autolinks, URLs in the text),
 * `links[]`, and through them `result`. The same function rewrites a URL wherever it is found, so no field can keep
 * `utm_source=chatgpt.com` that another field dropped.
 *
 * Code (fenced, indented, inline spans) is left as written: it is content the user asked for, not a link we return.
 */
import MarkdownIt from "markdown-it";

/** The provider's own tracking parameter (DESIGN.md: removed from every URL we return). */
const PROVIDER_TRACKING = "utm_source=chatgpt.com";

/**
 * Query separators as a URL may be written in markdown: a plain `&`, the `&amp;` character reference and the `\&`
 * backslash escape all mean `&` to a CommonMark reader (markdown-it decodes them before it reports the link).
 */
const QUERY_SEPARATOR = /(&amp;|\\&|&)/i;

/**
 * The three normalisations of DESIGN.md, and nothing else: a Google `/url?q=` redirect is unwrapped, a `#:~:text=`
 * fragment directive is removed, and the `utm_source=chatgpt.com` parameter the site adds is removed. Idempotent, and
 * correct on a URL as written in markdown (`&amp;` or `\&` between parameters) as well as on a decoded one.
 */
export function normaliseUrl(url: string): string {
  return removeTrackingParameter(removeTextFragment(unwrapRedirect(url)));
}

function unwrapRedirect(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/&amp;|\\&/gi, "&"));
  } catch {
    return url;
  }
  if (!/(^|\.)google\.[a-z.]+$/i.test(parsed.hostname) || parsed.pathname !== "/url") return url;
  const target = parsed.searchParams.get("q") ?? parsed.searchParams.get("url");
  // a decoded space cannot stand in a markdown link destination; every other character can stay as decoded
  return target !== null && /^https?:\/\//i.test(target) ? target.replace(/ /g, "%20") : url;
}

function removeTextFragment(url: string): string {
  const hashAt = url.indexOf("#");
  if (hashAt < 0) return url;
  const directiveAt = url.indexOf(":~:", hashAt);
  if (directiveAt < 0) return url;
  // `#:~:text=…` goes entirely; `#section:~:text=…` keeps `#section`
  return directiveAt === hashAt + 1 ? url.slice(0, hashAt) : url.slice(0, directiveAt);
}

function removeTrackingParameter(url: string): string {
  const hashAt = url.indexOf("#");
  const [head, fragment] = hashAt < 0 ? [url, ""] : [url.slice(0, hashAt), url.slice(hashAt)];
  const queryAt = head.indexOf("?");
  if (queryAt < 0) return url;
  // [pair, separator, pair, separator, pair…]: each kept pair keeps the separator written before it
  const pieces = head.slice(queryAt + 1).split(QUERY_SEPARATOR);
  let query = "";
  for (let index = 0; index < pieces.length; index += 2) {
    const pair = pieces[index] ?? "";
    if (pair === "" || pair.toLowerCase() === PROVIDER_TRACKING) continue;
    query += query === "" ? pair : `${pieces[index - 1] ?? "&"}${pair}`;
  }
  return `${head.slice(0, queryAt)}${query === "" ? "" : `?${query}`}${fragment}`;
}

// ---------------------------------------------------------------------------------------------------------------
// URLs inside markdown

const markdownIt = new MarkdownIt("default", { html: false, linkify: false, typographer: false });

/**
 * An absolute URL as it may stand in markdown: in a link destination, a reference definition, an autolink or the
 * text. It ends at whitespace, `<`, `>`, `"`, a backtick or `]` (the end of a link text that is itself a URL); an
 * unbalanced `)` and trailing punctuation are given back afterwards ({@link urlExtent}).
 */
const URL_CANDIDATE = /https?:\/\/[^\s<>"`\]]+/gi;
/** An inline code span: a run of backticks up to the next run of the same length. */
const CODE_SPAN = /(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g;

/** Every URL of the markdown outside code, normalised with {@link normaliseUrl}; all else is left as written. */
export function normaliseMarkdownUrls(markdown: string): string {
  const lines = markdown.split("\n");
  const code = codeBlockLines(markdown);
  // runs of consecutive lines that are all code or all prose, each handled as one piece (a code span may cross lines)
  const runs: Array<{ code: boolean; lines: string[] }> = [];
  lines.forEach((line, index) => {
    const isCode = code.has(index);
    const last = runs.at(-1);
    if (last !== undefined && last.code === isCode) last.lines.push(line);
    else runs.push({ code: isCode, lines: [line] });
  });
  return runs.map((run) => (run.code ? run.lines.join("\n") : normaliseProse(run.lines.join("\n")))).join("\n");
}

/** The line numbers of fenced and indented code blocks (markdown-it's block map), fences included. */
function codeBlockLines(markdown: string): Set<number> {
  const lines = new Set<number>();
  for (const token of markdownIt.parse(markdown, {})) {
    if ((token.type !== "fence" && token.type !== "code_block") || token.map === null) continue;
    for (let line = token.map[0]; line < token.map[1]; line += 1) lines.add(line);
  }
  return lines;
}

/** Prose: inline code spans kept, every URL candidate elsewhere normalised. */
function normaliseProse(text: string): string {
  let output = "";
  let copied = 0;
  for (const span of text.matchAll(CODE_SPAN)) {
    output += normaliseUrlsIn(text.slice(copied, span.index)) + span[0];
    copied = span.index + span[0].length;
  }
  return output + normaliseUrlsIn(text.slice(copied));
}

/** A URL between angle brackets (an autolink, a `<…>` link destination): it may hold spaces and ends at `>`. */
const BRACKETED_URL = /<(https?:\/\/[^<>\n]*)>/gi;

function normaliseUrlsIn(text: string): string {
  let output = "";
  let copied = 0;
  for (const bracketed of text.matchAll(BRACKETED_URL)) {
    output += `${normaliseBareUrls(text.slice(copied, bracketed.index))}<${normaliseUrl(bracketed[1] ?? "")}>`;
    copied = bracketed.index + bracketed[0].length;
  }
  return output + normaliseBareUrls(text.slice(copied));
}

function normaliseBareUrls(text: string): string {
  return text.replace(URL_CANDIDATE, (candidate) => {
    const url = urlExtent(candidate);
    return normaliseUrl(url) + candidate.slice(url.length);
  });
}

/**
 * The URL part of a candidate: trailing punctuation that ends a sentence, and `)` that closes an enclosing
 * parenthesis (a link destination, a citation in brackets) rather than one opened in the URL, are not part of it.
 */
function urlExtent(candidate: string): string {
  let end = candidate.length;
  for (;;) {
    const last = candidate[end - 1];
    if (last === undefined) break;
    if (/[.,;:!?*_~']/.test(last)) {
      end -= 1;
      continue;
    }
    if (last === ")") {
      const inside = candidate.slice(0, end);
      const opened = inside.split("(").length - 1;
      const closed = inside.split(")").length - 1;
      if (closed > opened) {
        end -= 1;
        continue;
      }
    }
    break;
  }
  return candidate.slice(0, end);
}
