/** Types of scripts/render-docs-guides.mjs (plain JavaScript, run by node before wrangler) for the tests that import it. */
/** A guide of src/http/docs-guides.json. */
export interface Guide {
  slug: string;
  source: string;
  label: string;
}

export interface GuidePage {
  slug: string;
  html: string;
}

export function renderGuideBody(source: string, guideOfSource: ReadonlyMap<string, Guide>, where?: string): string;
export function guidePages(root: string): GuidePage[];
export function renderGuides(root: string): void;
