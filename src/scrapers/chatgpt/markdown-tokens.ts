/**
 * `result_markdown_json` (spec §2.6, chatgpt.md §4): markdown-it's token tree of `result_markdown`, every Token field
 * serialised, inline tokens with their children. Not a wire object: it is computed here from the markdown.
 */
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";

// markdown-it's defaults (CommonMark + tables and strikethrough, raw HTML off), the same parser the plain text uses
const markdownIt = new MarkdownIt("default", { html: false, linkify: false, typographer: false });

export interface SerialisedToken {
  [field: string]: unknown;
  type: string;
  tag: string;
  attrs: Array<[string, string | number]> | null;
  map: [number, number] | null;
  nesting: number;
  level: number;
  children: SerialisedToken[] | null;
  content: string;
  markup: string;
  info: string;
  meta: unknown;
  block: boolean;
  hidden: boolean;
}

export function markdownTokenTree(markdown: string): SerialisedToken[] {
  return markdownIt.parse(markdown, {}).map(serialiseToken);
}

function serialiseToken(token: Token): SerialisedToken {
  return {
    type: token.type,
    tag: token.tag,
    attrs: token.attrs === null ? null : token.attrs.map(([name, value]): [string, string | number] => [name, value]),
    map: token.map === null ? null : [token.map[0], token.map[1]],
    nesting: token.nesting,
    level: token.level,
    children: token.children === null ? null : token.children.map(serialiseToken),
    content: token.content,
    markup: token.markup,
    info: token.info,
    meta: jsonCopy(token.meta),
    block: token.block,
    hidden: token.hidden,
  };
}

/** Plugins may put anything in `meta`; a JSON round trip keeps the field serialisable (the default parser sets none). */
function jsonCopy(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const copy: unknown = JSON.parse(JSON.stringify(value));
  return copy;
}
