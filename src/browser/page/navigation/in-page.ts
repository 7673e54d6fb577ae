/**
 * In-page checks the engine and the wall checks share, as source text evaluated in the page.
 */

/** In-page: rendered and not hidden. */
export const IS_VISIBLE = `function () {
  const style = getComputedStyle(this);
  if (style.visibility === "hidden" || style.display === "none") return false;
  return this.getClientRects().length > 0;
}`;
