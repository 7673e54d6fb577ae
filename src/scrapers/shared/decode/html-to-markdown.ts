/**
 * HTML → markdown over the htmlparser2 tree (runs in Workers; no DOM needed): headings, paragraphs, emphasis, inline and
 * fenced code, links, nested lists, tables, block quotes and rules. Providers first remove their page chrome (buttons,
 * disclaimers, citation chips) from the tree, then convert what is left.
 *
 * Written here rather than taken from node-html-markdown, which was tried: it percent-encodes `_ ( ) *` in link URLs
 * (DESIGN.md: URLs are returned as the provider sent them), indents lists nested in numbered items too little for
 * CommonMark, and escapes only the first `|` of a table cell. The rules below keep URLs and structure exact.
 */
import type { AnyNode, Element } from "domhandler";
import { isTag, isText } from "domhandler";
import { parseHtml } from "./html";

const BLOCK_TAGS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "dd",
  "details",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "html",
  "li",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);
const SKIPPED_TAGS = new Set(["script", "style", "template", "noscript", "head", "title", "meta", "link", "svg"]);

/** Converts an HTML document or fragment to markdown, trimmed. */
export function htmlToMarkdown(html: string): string {
  return nodesToMarkdown(parseHtml(html).children);
}

/** Converts nodes of an already parsed tree to markdown, trimmed. */
export function nodesToMarkdown(nodes: readonly AnyNode[]): string {
  return blocksOf(nodes)
    .join("\n\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

// ---------------------------------------------------------------------------------------------------------------
// Blocks

function isBlock(node: AnyNode): boolean {
  return isTag(node) && BLOCK_TAGS.has(node.name);
}

/** The markdown blocks of a sequence of nodes: runs of inline content become paragraphs, block elements their blocks. */
function blocksOf(nodes: readonly AnyNode[]): string[] {
  const blocks: string[] = [];
  let run: AnyNode[] = [];
  const flush = (): void => {
    const text = paragraph(run);
    if (text !== "") blocks.push(text);
    run = [];
  };
  for (const node of nodes) {
    if (isTag(node) && SKIPPED_TAGS.has(node.name)) continue;
    if (isBlock(node) && isTag(node)) {
      flush();
      blocks.push(...blockOf(node));
    } else {
      run.push(node);
    }
  }
  flush();
  return blocks;
}

function paragraph(nodes: readonly AnyNode[]): string {
  return escapeLineStarts(
    inlineOf(nodes)
      .replace(/[ \t]*\n[ \t]*/g, "\n")
      .trim(),
  );
}

function blockOf(element: Element): string[] {
  switch (element.name) {
    case "h1":
    case "h2":
    case "h3":
    case "h4":
    case "h5":
    case "h6": {
      const text = inlineOf(element.children)
        .replace(/\s*\n\s*/g, " ")
        .trim();
      return text === "" ? [] : [`${"#".repeat(Number(element.name.slice(1)))} ${text}`];
    }
    case "ul":
    case "ol":
      return listOf(element);
    case "table":
      return tableOf(element);
    case "pre":
      return [fencedCode(element)];
    case "blockquote": {
      const inner = blocksOf(element.children).join("\n\n");
      return inner === "" ? [] : [inner.replace(/^/gm, "> ").replace(/^> $/gm, ">")];
    }
    case "hr":
      return ["---"];
    default:
      return blocksOf(element.children);
  }
}

function listOf(list: Element): string[] {
  const ordered = list.name === "ol";
  let number = Number.parseInt(list.attribs.start ?? "1", 10);
  if (!Number.isFinite(number)) number = 1;
  const items: string[] = [];
  for (const child of list.children) {
    if (!isTag(child)) continue;
    // a stray element directly inside a list is treated as an item, as browsers render it
    const marker = ordered ? `${number}. ` : "- ";
    number += 1;
    const content = joinItemBlocks(child.name === "li" ? blocksOf(child.children) : blockOf(child));
    const indent = " ".repeat(marker.length);
    const lines = content.split("\n").map((line, index) => (index === 0 ? `${marker}${line}` : line === "" ? "" : `${indent}${line}`));
    items.push(lines.join("\n").trimEnd());
  }
  return items.length === 0 ? [] : [items.join("\n")];
}

/** An item's blocks: a nested list follows its line directly (a tight list); other blocks are separated by a blank line. */
function joinItemBlocks(blocks: readonly string[]): string {
  return blocks.reduce((joined, block) => (joined === "" ? block : `${joined}${/^(- |\d+\. )/.test(block) ? "\n" : "\n\n"}${block}`), "");
}

function tableOf(table: Element): string[] {
  const rows: string[][] = [];
  const visit = (node: AnyNode): void => {
    if (!isTag(node)) return;
    if (node.name === "tr") {
      rows.push(node.children.filter((cell): cell is Element => isTag(cell) && (cell.name === "td" || cell.name === "th")).map(cellText));
      return;
    }
    if (node.name === "table" && node !== table) return;
    for (const child of node.children) visit(child);
  };
  for (const child of table.children) visit(child);
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (width === 0) return [];
  const line = (cells: string[]): string => `| ${Array.from({ length: width }, (_, index) => cells[index] ?? "").join(" | ")} |`;
  const [header = [], ...body] = rows;
  return [[line(header), line(Array.from({ length: width }, () => "---")), ...body.map(line)].join("\n")];
}

function cellText(cell: Element): string {
  return inlineOf(cell.children)
    .replace(/\s*\n\s*/g, " ")
    .replace(/\|/g, "\\|")
    .trim();
}

function fencedCode(pre: Element): string {
  const code = pre.children.find((child): child is Element => isTag(child) && child.name === "code");
  const text = rawText(pre).replace(/\n$/, "");
  const languageClass = `${code?.attribs.class ?? ""} ${pre.attribs.class ?? ""}`.match(/(?:^|\s)(?:language|lang)-([\w+#.-]+)/);
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}${languageClass?.[1] ?? ""}\n${text}\n${fence}`;
}

function rawText(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (isTag(node)) return node.name === "br" ? "\n" : node.children.map(rawText).join("");
  return "";
}

// ---------------------------------------------------------------------------------------------------------------
// Inline content

function inlineOf(nodes: readonly AnyNode[]): string {
  let text = "";
  for (const node of nodes) {
    const piece = inlineNode(node);
    // one space between pieces, however many the source had
    text += text.endsWith(" ") || text.endsWith("\n") ? piece.replace(/^ +/, "") : piece;
  }
  return text;
}

function inlineNode(node: AnyNode): string {
  if (isText(node)) return escapeText(node.data.replace(/\s+/g, " "));
  if (!isTag(node) || SKIPPED_TAGS.has(node.name)) return "";
  switch (node.name) {
    case "br":
      return "\\\n";
    case "strong":
    case "b":
      return wrap(inlineOf(node.children), "**");
    case "em":
    case "i":
      return wrap(inlineOf(node.children), "*");
    case "del":
    case "s":
    case "strike":
      return wrap(inlineOf(node.children), "~~");
    case "code":
      return inlineCode(rawText(node));
    case "a":
      return link(node);
    case "img": {
      const alt = node.attribs.alt ?? "";
      return alt === "" ? "" : escapeText(alt);
    }
    default:
      // block elements reached inline (a div inside a span) still read as text
      return isBlock(node) ? ` ${inlineOf(node.children)} ` : inlineOf(node.children);
  }
}

/** `**x**` around the content, with its outer spaces kept outside (markdown needs the markers against the text). */
function wrap(content: string, marker: string): string {
  const trimmed = content.trim();
  if (trimmed === "") return content;
  const leading = content.startsWith(" ") ? " " : "";
  const trailing = content.endsWith(" ") ? " " : "";
  return `${leading}${marker}${trimmed}${marker}${trailing}`;
}

function inlineCode(code: string): string {
  const text = code.replace(/\s+/g, " ");
  if (text.trim() === "") return "";
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longestRun + 1);
  const padded = text.startsWith("`") || text.endsWith("`") ? ` ${text} ` : text;
  return `${fence}${padded}${fence}`;
}

/** A link keeps its URL exactly; only what would end the destination early is escaped (parentheses, spaces, angle brackets). */
function link(anchor: Element): string {
  const text = inlineOf(anchor.children)
    .replace(/\s*\n\s*/g, " ")
    .trim();
  const href = (anchor.attribs.href ?? "").trim();
  if (!/^(https?:|mailto:)/i.test(href)) return text;
  const destination = href
    .replace(/[()\\]/g, "\\$&")
    .replace(/ /g, "%20")
    .replace(/</g, "%3C")
    .replace(/>/g, "%3E");
  if (text === "") return `<${destination}>`;
  return `[${text}](${destination})`;
}

/** Characters that markdown would read as syntax inside a line. */
function escapeText(text: string): string {
  return text.replace(/[\\`*_~[\]]/g, "\\$&");
}

/** Line starts that markdown would read as a heading, quote, list item or rule. */
function escapeLineStarts(text: string): string {
  return text.replace(/^(\s*)(#{1,6}\s|>|[-+]\s|=+\s*$|-+\s*$)/gm, "$1\\$2").replace(/^(\s*)(\d+)([.)]\s)/gm, "$1$2\\$3");
}
