/**
 * Markdown helpers shared by the provider parsers. Plain text is rendered from markdown-it's token tree, so that
 * what counts as a list, a code block or a link is decided by a real CommonMark parser rather than by regexes.
 */
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";

// Raw HTML stays literal text: providers' HTML is either already handled by the parser or is content to keep.
const parser = new MarkdownIt("default", { html: false, linkify: false, typographer: false });

/** markdown-it's flat block stream turned into a tree: one node per opening or self-closing token. */
interface BlockNode {
  token: Token;
  children: BlockNode[];
}

/** Link text that is only a number is a citation marker (`[3](url)`); bracketing keeps it recognisable. */
const CITATION_TEXT = /^\d+$/;

/**
 * Renders markdown as plain text.
 *
 * Rules (the same for every provider):
 * - Blocks (paragraphs, headings, code blocks, lists, tables, block quotes) are separated by one blank line;
 *   thematic breaks (`---`) produce nothing.
 * - Headings become their text; emphasis, strong and strikethrough markers are dropped; inline code is its text.
 * - Lists keep their markers so that order and nesting survive: bullets become `- ` (whatever `*`/`+`/`-` the source
 *   used), ordered items keep their number and delimiter (`3. `, `3) `). One item per line, also in loose lists; an
 *   item's further lines and nested lists are indented to the item's text column.
 * - Links keep their text and drop the URL; a link whose whole text is a number is a citation marker and is kept as
 *   `[n]` (so `Paris[1](https://…)` becomes `Paris[1]`, not `Paris1`). Images become their alt text.
 * - Fenced and indented code blocks are kept verbatim, without fences or language.
 * - Tables become one line per row (header row included, no separator row), cells separated by a tab.
 * - Block quotes become their content without `>` markers; soft and hard line breaks become `\n`.
 * - Character references and backslash escapes are decoded (`&amp;` → `&`, `\*` → `*`).
 */
export function markdownToPlainText(markdown: string): string {
  const tree = buildTree(parser.parse(markdown, {}));
  return renderBlocks(tree, "\n\n").replace(/\n+$/, "");
}

function buildTree(tokens: Token[]): BlockNode[] {
  const root: BlockNode[] = [];
  const open: BlockNode[][] = [root];
  for (const token of tokens) {
    const siblings = open.at(-1) ?? root;
    if (token.nesting === -1) {
      if (open.length > 1) open.pop();
      continue;
    }
    const node: BlockNode = { token, children: [] };
    siblings.push(node);
    if (token.nesting === 1) open.push(node.children);
  }
  return root;
}

function renderBlocks(nodes: BlockNode[], separator: string): string {
  return nodes
    .map(renderBlock)
    .filter((text) => text !== "")
    .join(separator);
}

function renderBlock(node: BlockNode): string {
  const { token } = node;
  switch (token.type) {
    case "inline":
      return renderInline(token.children ?? []);
    case "fence":
    case "code_block":
      return token.content.replace(/\n$/, "");
    case "html_block":
      return token.content.replace(/\n+$/, "");
    case "hr":
      return "";
    case "bullet_list_open":
    case "ordered_list_open":
      return node.children.map(renderListItem).join("\n");
    case "table_open":
      return renderTable(node);
    case "paragraph_open":
    case "heading_open":
      return renderBlocks(node.children, "");
    default:
      // blockquotes and any container a future preset adds: their blocks, separated like top-level blocks
      return renderBlocks(node.children, "\n\n");
  }
}

function renderListItem(item: BlockNode): string {
  const { token } = item;
  const marker = token.info !== "" ? `${token.info}${token.markup} ` : "- ";
  const lines = renderBlocks(item.children, "\n").split("\n");
  const indent = " ".repeat(marker.length);
  return lines.map((line, index) => (index === 0 ? `${marker}${line}`.trimEnd() : line === "" ? "" : `${indent}${line}`)).join("\n");
}

function renderTable(table: BlockNode): string {
  const rows: string[] = [];
  const visit = (node: BlockNode): void => {
    if (node.token.type === "tr_open") {
      rows.push(node.children.map((cell) => renderBlocks(cell.children, "")).join("\t"));
      return;
    }
    node.children.forEach(visit);
  };
  visit(table);
  return rows.join("\n");
}

function renderInline(tokens: Token[]): string {
  let text = "";
  const linkStarts: number[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case "softbreak":
      case "hardbreak":
        text += "\n";
        break;
      case "image":
        text += renderInline(token.children ?? []);
        break;
      case "link_open":
        linkStarts.push(text.length);
        break;
      case "link_close": {
        const start = linkStarts.pop();
        if (start !== undefined) {
          const linkText = text.slice(start);
          if (CITATION_TEXT.test(linkText)) text = `${text.slice(0, start)}[${linkText}]`;
        }
        break;
      }
      default:
        // text, code_inline, html_inline; opening/closing markers (em, strong, s) carry no text of their own
        if (token.nesting === 0) text += token.content;
    }
  }
  return text;
}
