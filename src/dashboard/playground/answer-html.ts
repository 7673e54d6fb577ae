/**
 * A provider's `result_markdown` as HTML for the result viewer. Provider text never runs as script:
 * - markdown-it with `html: false` writes any HTML in the answer (`<script>`, `<img onerror>`, `<iframe>`) as text;
 * - its link check refuses `javascript:`, `vbscript:`, `file:` and `data:` URLs (they stay text);
 * - images are shown as links, never loaded: a provider's image URL would tell its host who reads the answer (and the
 *   dashboard's Content-Security-Policy, `img-src 'self' data:`, would block it anyway);
 * - links open in a new tab without an opener or a referrer;
 * and the dashboard's Content-Security-Policy (`script-src 'self'`, no inline script) is the second wall.
 *
 * The first link to each URL gets an id (`answer-link-1`, …), so a source card can point at where the answer cites it
 * ("Show in answer"). The ids are ours, never text from the answer.
 */
import MarkdownIt, { type Env } from "markdown-it";

const renderer = new MarkdownIt("default", { html: false, linkify: true, typographer: false });

/** The render's state: the id given to the first link of each href (as markdown-it normalised it). */
interface AnswerRenderState {
  anchors: Map<string, string>;
}

function isRenderState(value: unknown): value is AnswerRenderState {
  return typeof value === "object" && value !== null && "anchors" in value && value.anchors instanceof Map;
}

renderer.renderer.rules.link_open = (tokens, index, options, env: unknown, self) => {
  const token = tokens[index];
  if (token !== undefined) {
    token.attrSet("target", "_blank");
    token.attrSet("rel", "noopener noreferrer nofollow");
    const href = token.attrGet("href");
    if (typeof href === "string" && href !== "" && isRenderState(env) && !env.anchors.has(href)) {
      const id = `answer-link-${env.anchors.size + 1}`;
      env.anchors.set(href, id);
      token.attrSet("id", id);
    }
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

export interface RenderedAnswer {
  html: string;
  /** The id of the answer's first link to `url` (a source's URL as the API answered it), or null when it links none. */
  anchorOf(url: string): string | null;
}

/** The answer's markdown as safe HTML (see above), with the ids of its links. */
export function renderAnswer(markdown: string): RenderedAnswer {
  const anchors = new Map<string, string>();
  const state: Env = { anchors };
  const html = renderer.render(markdown, state);
  // A URL is compared as markdown-it writes a link's href (percent-encoded the same way), so the same string matches.
  return { html, anchorOf: (url) => anchors.get(renderer.normalizeLink(url)) ?? null };
}
