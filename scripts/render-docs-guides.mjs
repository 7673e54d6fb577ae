/**
 * Renders the customer guides (the list in src/http/docs-guides.json) from docs/*.md to static pages in
 * public/docs/guides/<slug>.html (git-ignored), served at /docs/guides/<slug> by the Worker's assets and linked from
 * /docs. Called by scripts/copy-docs-assets.mjs, which wrangler runs before `dev`, `deploy` and `types`.
 *
 * markdown-it (already the providers' markdown library); no raw HTML is served, so nothing in a guide becomes markup
 * the page's CSP would have to allow; the pages load one stylesheet and no script. The same files are read in the
 * repository by operators and contributors, so what a repository reader's markdown viewer does and a served page must
 * do itself:
 * - a section whose heading follows a `<!-- not served -->` line (operator settings, code, tests) is left out, up to
 *   the next heading of its level or higher; the marker before any other block leaves out that block; a
 *   `<!-- served: … -->` comment is Markdown shown on the served page only (docs/api-reference.md, "Guides");
 * - headings get GitHub's anchor ids, so `errors#request-ids` and in-page `#…` links land;
 * - a link to another served guide (`async-jobs.md#webhooks`) becomes that page (`async-jobs#webhooks`), a link to
 *   api-reference.md becomes /docs (a link text that is the bare file name becomes the guide's label), and a link to a
 *   file a customer cannot reach (another doc, a source file) keeps its text without the link;
 * - every other comment (the `<!-- example: … -->` markers the examples test reads) is dropped.
 */
import { readFileSync, renameSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import MarkdownIt from "markdown-it";

const STYLESHEET = "/docs/assets/guides.css";
/** /docs's icon; without a link of its own, the browser would ask the Worker for /favicon.ico (a 404). */
const ICON = "/docs/assets/swagger-ui/favicon-32x32.png";
const REFERENCE_PAGE = "/docs";

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
function anchorOf(text, seen) {
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count === 0 ? base : `${base}-${count}`;
}

/**
 * Where a link of a guide points once served, and what its text becomes when it is the bare file name
 * (`[errors.md](errors.md)` reads "Errors" on the page); null when its target is not served (the link is then dropped).
 */
function servedLink(href, guideOfSource) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#") || href.startsWith("/")) return { href, fileName: null, label: null };
  const [file, fragment] = href.split("#", 2);
  const anchor = fragment === undefined ? "" : `#${fragment}`;
  const fileName = basename(file);
  if (fileName === "api-reference.md") return { href: `${REFERENCE_PAGE}${anchor}`, fileName, label: "the API reference" };
  const guide = guideOfSource.get(fileName);
  return guide === undefined ? null : { href: `${guide.slug}${anchor}`, fileName, label: guide.label };
}

/** The marker a doc writer puts right before a heading (or any other block) to keep it out of the served page. */
const NOT_SERVED = /^<!--\s*not served\s*-->\s*$/;
/** A comment whose Markdown is shown on the served page only (a repository reader's viewer hides comments). */
const SERVED_ONLY = /^<!--\s*served:\s*([\s\S]*?)\s*-->\s*$/;
const COMMENT = /^<!--[\s\S]*?-->\s*$/;

function headingLevel(token) {
  return Number(token.tag.slice(1));
}

/** The index just past the block that starts at `start`: its closing token, or the token itself for a leaf block. */
function endOfBlock(tokens, start) {
  const opening = tokens[start];
  if (opening.nesting !== 1) return start + 1;
  let index = start + 1;
  while (!(tokens[index].nesting === -1 && tokens[index].level === opening.level)) index += 1;
  return index + 1;
}

/**
 * The index just past what a `not served` marker at `marker` drops: from a heading, everything up to the next heading
 * of the same or a higher level (or the end); from any other block, that block.
 */
function endOfUnserved(tokens, marker, where) {
  const start = marker + 1;
  const target = tokens[start];
  if (target === undefined || target.type === "html_block") {
    throw new Error(
      `${where}:${(tokens[marker].map?.[0] ?? 0) + 1}: <!-- not served --> must come right before the heading or block it keeps out`,
    );
  }
  if (target.type !== "heading_open") return endOfBlock(tokens, start);
  let index = endOfBlock(tokens, start);
  while (index < tokens.length && !(tokens[index].type === "heading_open" && headingLevel(tokens[index]) <= headingLevel(target))) {
    index += 1;
  }
  // Comments right before that heading belong to it (its own `not served` marker, say), not to the dropped section.
  while (index < tokens.length && tokens[index - 1].type === "html_block" && COMMENT.test(tokens[index - 1].content.trim())) {
    index -= 1;
  }
  return index;
}

/**
 * The block tokens of the served page: sections and blocks after a `not served` marker dropped, `served:` comments
 * replaced by their Markdown, every other comment (the examples test's markers) dropped. Read from the token stream,
 * so a `# comment` line or an HTML comment inside a fenced block is text, never a heading or a marker.
 */
function servedTokens(tokens, parser, where) {
  const served = [];
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index];
    const content = token.type === "html_block" ? token.content.trim() : "";
    if (NOT_SERVED.test(content)) {
      index = endOfUnserved(tokens, index, where);
      continue;
    }
    const servedOnly = SERVED_ONLY.exec(content);
    if (servedOnly !== null) served.push(...parser.parse(servedOnly[1], {}));
    else if (!COMMENT.test(content)) served.push(token);
    index += 1;
  }
  return served;
}

/** Heading anchors, and links rewritten for the served pages (or dropped, keeping their text). */
function linkAndAnchor(tokens, guideOfSource) {
  const seen = new Map();
  tokens.forEach((token, index) => {
    if (token.type === "heading_open") {
      const inline = tokens[index + 1];
      token.attrSet("id", anchorOf(inline?.children?.map((child) => child.content).join("") ?? "", seen));
    }
    if (token.type !== "inline" || token.children === null) return;
    const kept = [];
    const dropped = [];
    token.children.forEach((child, index) => {
      if (child.type === "html_inline" && COMMENT.test(child.content)) return;
      if (child.type === "link_open") {
        const link = servedLink(child.attrGet("href") ?? "", guideOfSource);
        dropped.push(link === null);
        if (link === null) return;
        child.attrSet("href", link.href);
        const text = token.children[index + 1];
        const fileNameOnly = text?.type === "text" && text.content === link.fileName && token.children[index + 2]?.type === "link_close";
        if (fileNameOnly && link.label !== null) text.content = link.label;
      } else if (child.type === "link_close" && dropped.pop() === true) {
        return;
      }
      kept.push(child);
    });
    token.children = kept;
  });
}

/**
 * Renders one guide's Markdown to the HTML of its page's body. `guideOfSource` maps a served guide's file name
 * (`async-jobs.md`) to its `{ slug, label }`; `where` names the source in errors.
 *
 * The parser reads HTML (so comments are tokens of their own, and the markers can be found), but nothing of it is
 * served as markup: a comment is dropped, any other HTML is shown as text, as with markdown-it's `html: false`.
 */
export function renderGuideBody(source, guideOfSource, where = "guide") {
  const parser = new MarkdownIt({ html: true, linkify: false, typographer: false });
  parser.renderer.rules.html_block = (tokens, index) => `<p>${escapeHtml(tokens[index].content.trim())}</p>\n`;
  parser.renderer.rules.html_inline = (tokens, index) => escapeHtml(tokens[index].content);
  const tokens = servedTokens(parser.parse(source, {}), parser, where);
  linkAndAnchor(tokens, guideOfSource);
  return parser.renderer.render(tokens, parser.options, {});
}

function escapeHtml(text) {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

function page(title, body, guides, current) {
  const links = guides
    .map((guide) => `<a href="${guide.slug}"${guide.slug === current ? ' aria-current="page"' : ""}>${escapeHtml(guide.label)}</a>`)
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="${ICON}">
<link rel="stylesheet" href="${STYLESHEET}">
</head>
<body>
<header class="guide-header">
<a class="guide-header-title" href="${REFERENCE_PAGE}">API reference</a>
<nav aria-label="Guides">
${links}
</nav>
</header>
<main class="guide">
${body}</main>
</body>
</html>
`;
}

/** Writes `content` to `path` through a temporary file, unless the file already holds exactly that. */
function writeIfChanged(path, content) {
  try {
    if (readFileSync(path, "utf8") === content) return;
  } catch {
    // not written yet
  }
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

/** Every listed guide of the repository at `root`, as its served page: `{ slug, html }`. */
export function guidePages(root) {
  const guides = JSON.parse(readFileSync(join(root, "src", "http", "docs-guides.json"), "utf8"));
  const guideOfSource = new Map(guides.map((guide) => [basename(guide.source), guide]));
  return guides.map((guide) => {
    const source = readFileSync(join(root, guide.source), "utf8");
    const title = (/^# (.+)$/m.exec(source)?.[1] ?? guide.label).replaceAll("`", "");
    return { slug: guide.slug, html: page(title, renderGuideBody(source, guideOfSource, guide.source), guides, guide.slug) };
  });
}

/** Renders every listed guide of the repository at `root` into public/docs/guides/. */
export function renderGuides(root) {
  const target = join(root, "public", "docs", "guides");
  mkdirSync(target, { recursive: true });
  for (const { slug, html } of guidePages(root)) writeIfChanged(join(target, `${slug}.html`), html);
}
