/**
 * The URLs Copilot's answers carry, as this API returns them (DESIGN.md "URLs we return"): the provider's own string,
 * absolute, with only these normalisations: a `#:~:text=` fragment directive removed, a redirect wrapper unwrapped
 * (Google's `/url?q=`, Bing's `/ck/a?u=a1<base64url>`). Copilot adds no tracking parameter of its own that is known,
 * so none is removed. Also: which URLs are Copilot's or Microsoft's own (excluded from `links`), and the outbound link
 * targets of a markdown answer.
 */
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";
import { base64UrlToBytes } from "../../util/base64";
import { parseHttpUrl } from "../../util/http-url";

/** The URL when it is an absolute http(s) URL, normalised as described above; null otherwise. */
export function normaliseAnswerUrl(raw: string): string | null {
  const trimmed = raw.trim();
  const parsed = parseHttpUrl(trimmed);
  if (parsed === null) return null;
  const unwrapped = unwrapRedirect(parsed);
  const url = unwrapped ?? trimmed;
  return parseHttpUrl(url) === null ? null : withoutTextFragment(url);
}

/** The target of a known redirect wrapper, or null when `url` is not one (or its target is not readable). */
function unwrapRedirect(url: URL): string | null {
  const host = url.hostname.toLowerCase();
  if (/(^|\.)google\.[a-z.]+$/.test(host) && url.pathname === "/url") {
    const target = url.searchParams.get("q") ?? url.searchParams.get("url");
    return target !== null && parseHttpUrl(target) !== null ? target : null;
  }
  if ((host === "bing.com" || host.endsWith(".bing.com")) && url.pathname === "/ck/a") {
    const encoded = url.searchParams.get("u");
    if (encoded === null || !encoded.startsWith("a1")) return null;
    const target = decodeBase64Url(encoded.slice(2));
    return target !== null && parseHttpUrl(target) !== null ? target : null;
  }
  return null;
}

function decodeBase64Url(text: string): string | null {
  const bytes = base64UrlToBytes(text);
  if (bytes === null) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

/** Drops a `:~:` fragment directive (`#:~:text=…`), keeping an ordinary fragment before it (`#section:~:text=…`). */
function withoutTextFragment(url: string): string {
  const hash = url.indexOf("#");
  if (hash === -1) return url;
  const directive = url.indexOf(":~:", hash);
  if (directive === -1) return url;
  const kept = url.slice(0, directive);
  return kept.endsWith("#") ? kept.slice(0, -1) : kept;
}

/** Hosts of Copilot itself, Bing (search pages, redirects, image thumbnails) and Microsoft sign-in. */
const INTERNAL_HOSTS = [
  "copilot.microsoft.com",
  "copilot.cloud.microsoft",
  "bing.com",
  "login.live.com",
  "login.microsoftonline.com",
  "account.microsoft.com",
];

/** Whether `url` points at Copilot or Microsoft's own services (or at the origin the scraper ran against). */
export function isInternalUrl(url: string, origin: string | null): boolean {
  const parsed = parseHttpUrl(url);
  if (parsed === null) return true;
  const host = parsed.hostname.toLowerCase();
  if (INTERNAL_HOSTS.some((internal) => host === internal || host.endsWith(`.${internal}`))) return true;
  if (origin === null) return false;
  const originUrl = parseHttpUrl(origin);
  return originUrl !== null && parsed.host === originUrl.host && parsed.pathname.startsWith(originUrl.pathname);
}

// Link targets are taken exactly as written (after markdown's own unescaping): markdown-it's default normalisation
// would percent-encode them and punycode the host, and the API returns the provider's URLs.
const markdown = new MarkdownIt("default", { html: false, linkify: false, typographer: false });
markdown.normalizeLink = (url: string): string => url;

/** Link targets of a markdown text in document order (inline links, reference links, autolinks; not images). */
export function markdownLinkTargets(text: string): string[] {
  const targets: string[] = [];
  const visit = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      if (token.type === "link_open") {
        const href = token.attrGet("href");
        if (typeof href === "string") targets.push(href);
      }
      if (token.children !== null) visit(token.children);
    }
  };
  visit(markdown.parse(text, {}));
  return targets;
}

/**
 * The markdown with every http(s) link target normalised like `links` and `citations` (normaliseAnswerUrl), so that
 * one URL reads the same in every field that carries it (issue 29, "one output, two rules"). Inline links
 * (`[text](url)`, `[text](<url>)`), autolinks (`<url>`) and reference definitions (`[id]: url`) are rewritten; a
 * target markdown-it reads differently from its source text (escapes, entities) is left as written.
 */
export function normaliseMarkdownLinks(text: string): string {
  let result = text;
  for (const raw of new Set(markdownLinkTargets(text))) {
    const normalised = normaliseAnswerUrl(raw);
    if (normalised === null || normalised === raw || /[\s<>]/.test(normalised)) continue;
    const destination = parenthesesBalanced(normalised) ? normalised : `<${normalised}>`;
    result = result
      .replaceAll(`](${raw})`, `](${destination})`)
      .replaceAll(`](<${raw}>)`, `](<${normalised}>)`)
      .replaceAll(`<${raw}>`, `<${normalised}>`)
      .replace(
        new RegExp(`^(\\s{0,3}\\[[^\\]]+\\]:\\s*)${escapeRegExp(raw)}(?=\\s|$)`, "gm"),
        (_match, head: string) => `${head}${normalised}`,
      );
  }
  return result;
}

function parenthesesBalanced(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    if (char === "(") depth += 1;
    else if (char === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
