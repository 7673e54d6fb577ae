/**
 * A provider's `result_markdown` as HTML for the result viewer. Provider text never runs as script:
 * - markdown-it with `html: false` writes any HTML in the answer (`<script>`, `<img onerror>`, `<iframe>`) as text;
 * - its link check refuses `javascript:`, `vbscript:`, `file:` and `data:` URLs (they stay text);
 * - images are shown as links, never loaded: a provider's image URL would tell its host who reads the answer (and the
 *   dashboard's Content-Security-Policy, `img-src 'self' data:`, would block it anyway);
 * - links open in a new tab without an opener or a referrer;
 * and the dashboard's Content-Security-Policy (`script-src 'self'`, no inline script) is the second wall.
 */
import MarkdownIt from "markdown-it";

const renderer = new MarkdownIt("default", { html: false, linkify: true, typographer: false });

renderer.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  const token = tokens[index];
  if (token !== undefined) {
    token.attrSet("target", "_blank");
    token.attrSet("rel", "noopener noreferrer nofollow");
  }
  return self.renderToken(tokens, index, options);
};

renderer.renderer.rules.image = (tokens, index) => {
  const token = tokens[index];
  if (token === undefined) return "";
  const source = String(token.attrGet("src") ?? "");
  const alt = token.children === null ? token.content : renderer.renderer.renderInlineAsText(token.children, renderer.options, {});
  const label = `Image: ${alt.trim() === "" ? source : alt}`;
  const escapedLabel = renderer.utils.escapeHtml(label);
  // markdown-it has already put `src` through its link check: a refused URL arrives here as "".
  if (source === "") return escapedLabel;
  return `<a href="${renderer.utils.escapeHtml(source)}" target="_blank" rel="noopener noreferrer nofollow">${escapedLabel}</a>`;
};

/** The answer's markdown as safe HTML (see above). */
export function answerHtml(markdown: string): string {
  return renderer.render(markdown);
}
