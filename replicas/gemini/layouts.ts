/**
 * The Gemini replica's markup variants and the mode its picker shows, kept free of Node APIs so that tests running in
 * workerd can import them (page.ts reads the client script from disk).
 */
export const GEMINI_LAYOUTS = ["side-panel", "sources-list", "chip-dialog"] as const;
export type GeminiLayout = (typeof GEMINI_LAYOUTS)[number];

export function isGeminiLayout(value: string): value is GeminiLayout {
  return GEMINI_LAYOUTS.some((layout) => layout === value);
}

/** The mode the picker shows ("Open mode picker, currently Flash"): what a scraper reports when the wire names no model. */
export const GEMINI_PICKER_MODE = "Flash";
