/**
 * Turns the answer's raw text (`parts[0]` with private-use markers) into the markdown the API returns (chatgpt.md §4):
 * markers resolved through `content_references`, URLs normalised as DESIGN.md decides (urls.ts: one rule for the markdown
 * and the links), and the hyperlinks listed.
 */
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";
import { isRecord } from "../../util/json-record";
import { normaliseMarkdownUrls, normaliseUrl } from "./urls";

/** A whole marker: `\ue200` type `\ue202` arguments… `\ue201`. */
const MARKER = /\ue200[^\ue200\ue201]*\ue201/g;
const WHOLE_MARKER = /^\ue200[^\ue200\ue201]*\ue201$/;
/** A marker the answer ended inside (a reply cut by `max_tokens`). */
const UNCLOSED_MARKER_AT_END = /\ue200[^\ue200\ue201]*$/;
/** The private-use characters of the marker syntax; none may reach the client. */
const MARKER_CHARACTERS = /[\ue200-\ue206]/g;

interface Replacement {
  matched: string;
  text: string;
}

/**
 * Resolves the markers of `text`: each reference's `matched_text` becomes its `alt` (a markdown link for citations),
 * else its `prompt_text`, else nothing; a marker no reference matches is dropped; stray marker characters are removed.
 * Nothing else changes (removal is literal, as the sheet says), except that leading blank lines and trailing
 * whitespace are trimmed. URLs are then normalised.
 *
 * Several references may share a `matched_text` (the same citation twice): they are used in order, the last one again
 * for any further occurrence. A blank `matched_text` (the `sources_footnote` reference has " ") matches nothing.
 */
export function resolveAnswerMarkdown(text: string, references: readonly unknown[]): string {
  const replacements = references.flatMap(toReplacement);
  let markdown = text.replace(/\r\n?/g, "\n");

  // references whose matched text is not one whole marker (older builds, unverified): first occurrence each
  for (const { matched, text: replacement } of replacements) {
    if (WHOLE_MARKER.test(matched)) continue;
    const at = markdown.indexOf(matched);
    if (at >= 0) markdown = `${markdown.slice(0, at)}${replacement}${markdown.slice(at + matched.length)}`;
  }

  const queues = new Map<string, string[]>();
  for (const { matched, text: replacement } of replacements) {
    if (WHOLE_MARKER.test(matched)) queues.set(matched, [...(queues.get(matched) ?? []), replacement]);
  }
  markdown = markdown.replace(MARKER, (marker) => {
    const queue = queues.get(marker);
    if (queue === undefined || queue.length === 0) return "";
    return queue.length > 1 ? (queue.shift() ?? "") : (queue[0] ?? "");
  });
  markdown = markdown.replace(UNCLOSED_MARKER_AT_END, "").replace(MARKER_CHARACTERS, "");
  return normaliseMarkdownUrls(markdown)
    .replace(/^(?:[ \t]*\n)+/, "")
    .trimEnd();
}

function toReplacement(reference: unknown): Replacement[] {
  if (!isRecord(reference) || typeof reference.matched_text !== "string" || reference.matched_text.trim() === "") return [];
  const replacement = nonEmptyString(reference.alt) ?? nonEmptyString(reference.prompt_text) ?? "";
  // a replacement must not bring markers back
  return [{ matched: reference.matched_text, text: replacement.replace(MARKER_CHARACTERS, "") }];
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

const markdownIt = new MarkdownIt("default", { html: false, linkify: false, typographer: false });

// ---------------------------------------------------------------------------------------------------------------
// Links

export interface AnswerLink {
  text: string;
  url: string;
}

/** Every hyperlink of the markdown in document order (citations and ordinary links; code is not searched). */
export function linksOf(markdown: string): AnswerLink[] {
  const links: AnswerLink[] = [];
  for (const token of markdownIt.parse(markdown, {})) {
    if (token.type === "inline") collectLinks(token.children ?? [], links);
  }
  return links;
}

function collectLinks(tokens: readonly Token[], links: AnswerLink[]): void {
  const open: Array<{ url: string; text: string }> = [];
  for (const token of tokens) {
    if (token.type === "link_open") {
      const href = token.attrGet("href");
      open.push({ url: typeof href === "string" ? href : "", text: "" });
      continue;
    }
    if (token.type === "link_close") {
      const link = open.pop();
      // the markdown's URLs are normalised already; markdown-it decodes escapes and references, so the same rule again
      if (link !== undefined && link.url !== "") links.push({ text: link.text.trim(), url: normaliseUrl(link.url) });
      continue;
    }
    const current = open.at(-1);
    if (current === undefined) continue;
    if (token.type === "softbreak" || token.type === "hardbreak") current.text += " ";
    else if (token.nesting === 0) current.text += token.content;
  }
}
