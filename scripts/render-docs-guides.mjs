/**
 * Renders the customer guides (the list in src/http/docs-guides.json) from docs/*.md to static pages in
 * public/docs/guides/<slug>.html (git-ignored), served at /docs/guides/<slug> by the Worker's assets and linked from
 * /docs. Called by scripts/copy-docs-assets.mjs, which wrangler runs before `dev`, `deploy` and `types`.
 *
 * markdown-it (already the providers' markdown library) with raw HTML off, so nothing in a guide becomes markup the
 * page's CSP would have to allow; the pages load one stylesheet and no script. What a repository reader's markdown
 * viewer does and a served page must do itself:
 * - headings get GitHub's anchor ids, so `errors#request-ids` and in-page `#…` links land;
 * - a link to another served guide (`async-jobs.md#webhooks`) becomes that page (`async-jobs#webhooks`), a link to
 *   api-reference.md becomes /docs, and a link to a file a customer cannot reach (another doc, a source file) keeps
 *   its text without the link;
 * - the `<!-- example: … -->` markers the examples test reads are dropped.
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

/** Where a link of a guide points once served, or null when its target is not served (the link is then dropped). */
function servedHref(href, slugOfSource) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#") || href.startsWith("/")) return href;
  const [file, fragment] = href.split("#", 2);
  const anchor = fragment === undefined ? "" : `#${fragment}`;
  const name = basename(file);
  if (name === "api-reference.md") return `${REFERENCE_PAGE}${anchor}`;
  const slug = slugOfSource.get(name);
  return slug === undefined ? null : `${slug}${anchor}`;
}

function guideRenderer(slugOfSource) {
  const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });
  markdown.core.ruler.push("served_guides", (state) => {
    const seen = new Map();
    state.tokens.forEach((token, index) => {
      if (token.type === "heading_open") {
        const inline = state.tokens[index + 1];
        token.attrSet("id", anchorOf(inline?.children?.map((child) => child.content).join("") ?? "", seen));
      }
      if (token.type !== "inline" || token.children === null) return;
      const kept = [];
      const dropped = [];
      for (const child of token.children) {
        if (child.type === "link_open") {
          const href = servedHref(child.attrGet("href") ?? "", slugOfSource);
          dropped.push(href === null);
          if (href === null) continue;
          child.attrSet("href", href);
        } else if (child.type === "link_close" && dropped.pop() === true) {
          continue;
        }
        kept.push(child);
      }
      token.children = kept;
    });
  });
  return markdown;
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

/** Renders every listed guide of the repository at `root` into public/docs/guides/. */
export function renderGuides(root) {
  const guides = JSON.parse(readFileSync(join(root, "src", "http", "docs-guides.json"), "utf8"));
  const slugOfSource = new Map(guides.map((guide) => [basename(guide.source), guide.slug]));
  const markdown = guideRenderer(slugOfSource);
  const target = join(root, "public", "docs", "guides");
  mkdirSync(target, { recursive: true });
  for (const guide of guides) {
    const source = readFileSync(join(root, guide.source), "utf8").replace(/^<!--[\s\S]*?-->\n/gm, "");
    const title = (/^# (.+)$/m.exec(source)?.[1] ?? guide.label).replaceAll("`", "");
    writeIfChanged(join(target, `${guide.slug}.html`), page(title, markdown.render(source), guides, guide.slug));
  }
}
