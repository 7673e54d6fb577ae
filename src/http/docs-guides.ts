/**
 * The guides served next to the API reference, rendered from docs/*.md to public/docs/guides/<slug>.html at build time
 * by scripts/copy-docs-assets.mjs, which reads the same list (docs-guides.json: plain JSON, so that script needs no
 * TypeScript). /docs links them in its header and the document's description links the examples.
 */
import guides from "./docs-guides.json";

export interface DocsGuide {
  /** The page's address under /docs/guides/ (and its file's name without `.html`). */
  slug: string;
  /** The markdown file in the repository it is rendered from. */
  source: string;
  /** The link's text in the /docs header. */
  label: string;
}

export const DOCS_GUIDES: readonly DocsGuide[] = guides;

export const DOCS_GUIDES_PATH = "/docs/guides";

export function guideUrl(slug: string): string {
  return `${DOCS_GUIDES_PATH}/${slug}`;
}
