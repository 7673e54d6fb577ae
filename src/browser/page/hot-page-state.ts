/**
 * The hot-page state of one scrape's page: how the scrape started (the capture rules it installed, the landing it
 * opened first) and, when it was handed a hot page, how far that page's claim and landing skip went. The page session
 * (page-session.ts) holds it; the capture layer and the navigation engine write it; the browser layer reads it to
 * prepare the next scrape's page the same way. Preparing and inspecting hot pages in a browser is the browser layer's
 * work (src/browser/hot-page.ts, which also says why hot pages exist and why their hook buffers); this module only
 * keeps the per-page state, so the page machinery needs nothing from the layer above it.
 */
import { z } from "zod";
import { CAPTURE_HOT, HotHookMarkSchema, type SerializedRule } from "./capture/page-hook";

/**
 * The key a hot page's hook is marked with for the capture rules it was prepared with: a scrape claims the hook's
 * buffer only when its own rules give the same key.
 */
export function rulesKey(rules: readonly SerializedRule[]): string {
  return JSON.stringify(rules);
}

/** What the hook of a hot page says of itself (read back from the page, which is not trusted: checked). */
export const HotMarkSchema = HotHookMarkSchema.extend({ ready: z.boolean() });
export type HotMark = z.infer<typeof HotMarkSchema>;

/** What a hot page's bookkeeping touches of the page: one script to claim the hook's buffer. */
export interface ClaimablePage {
  evaluate(expression: string): Promise<unknown>;
}

/** The capture rules and landing a scrape started with: what the next scrape's hot page repeats. */
export interface HotPageRecipe {
  rules: readonly SerializedRule[];
  landing: string;
}

/**
 * How the scrape on one page started, and whether it started from a hot page: held by the scrape's page session,
 * written by its capture layer and navigation engine, read by the browser layer for the next page. A hot page goes
 * taken → claimed (its capture layer claimed the hook's buffer) → used (its landing navigation was skipped), or is
 * spoiled on the way (other rules, a failed claim, another landing): the scrape then opens its landing normally.
 */
export class HotPageState {
  private rules: readonly SerializedRule[] | null = null;
  private landing: string | null = null;
  private hotState: "taken" | "claimed" | "used" | "spoiled";

  /**
   * `mark`: the hook's mark of the hot page this scrape was handed (`inspectHotPage` in src/browser/hot-page.ts), or
   * null for any other page.
   */
  constructor(
    private readonly page: ClaimablePage,
    private readonly mark: HotMark | null,
  ) {
    this.hotState = mark === null ? "spoiled" : "taken";
  }

  /** Whether the scrape started from a hot page (for the step timings). */
  get startedHot(): boolean {
    return this.mark !== null;
  }

  /** The capture layer installed these rules on the page (before its first navigation). */
  recordCaptureRules(rules: readonly SerializedRule[]): void {
    this.rules = rules;
  }

  /** The capture rules and landing to prepare the next page with, when this scrape had both. */
  recipe(): HotPageRecipe | null {
    if (this.rules === null || this.landing === null) return null;
    return { rules: this.rules, landing: this.landing };
  }

  /**
   * Called by the capture layer once its binding listens: on a hot page prepared with the same rules, the hook's
   * buffer is flushed to the binding (in order) and the hook streams from now on. A hot page with other rules, or whose
   * claim fails, is spoiled: the scrape then opens its landing normally (a new document, with this scrape's hook).
   */
  async claimCapture(rules: readonly SerializedRule[]): Promise<void> {
    if (this.mark === null || this.hotState !== "taken") return;
    if (this.mark.rulesKey !== rulesKey(rules)) {
      this.hotState = "spoiled";
      return;
    }
    const claimed: unknown = await this.page.evaluate(`window.${CAPTURE_HOT.claim}()`).catch(() => false);
    this.hotState = claimed === true ? "claimed" : "spoiled";
  }

  /**
   * Called by the navigation engine for a landing navigation (one that does not depend on the prompt or any other
   * per-request input besides what the URL says): true (skip it) when the page is a claimed hot page on that very
   * landing and this is the scrape's first landing. The first landing is recorded either way, for the next page.
   */
  skipsLanding(url: string): boolean {
    this.landing ??= url;
    if (this.mark === null || this.hotState !== "claimed") return false;
    if (this.mark.landing !== url) {
      this.hotState = "spoiled";
      return false;
    }
    this.hotState = "used";
    return true;
  }
}
