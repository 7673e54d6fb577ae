/**
 * The generic half of page fuzzing: what any provider page may do to its controls (hydrate late, ignore input until
 * hydrated, show a consent dialog or a banner, restyle labels, insert a newer feature's control before the real one,
 * keep its composer under script control). A provider describes its page once (a VariationProfile: which elements are
 * its composer, controls, labels…); each page load draws a GenericVariation from the seed, and the page carries it
 * into client/variation-runtime.js, which applies it after the provider's own script has built the page.
 *
 * What is provider-specific (lists that arrive late or only behind their button, the sheet's alternatives) is drawn by
 * the provider's app from the same VariationDraw and played by the provider's own client script.
 */
import { readFileSync } from "node:fs";
import type { VariationDraw } from "./variation";

const RUNTIME = readFileSync(new URL("./client/variation-runtime.js", import.meta.url), "utf8");
if (RUNTIME.includes("</script")) throw new Error("variation-runtime.js must not contain a closing script tag");

/** How a provider's page lends itself to the generic classes. Selectors are CSS, matched in the provider's page. */
export interface VariationProfile {
  /** Controls that hydrate: the composer, send control, mode pickers, entry points (hydration). */
  hydrating: readonly string[];
  /** The composer(s): read-only for a while, script-set values ignored, key input only (controlled_inputs). */
  composer: readonly string[];
  /** Elements whose accessible names may be restyled: `aria-label` case and padding, a badge after the text (decoration). */
  labelled: readonly string[];
  /** Elements that may sit in extra wrapper elements (only where no sheet selector joins them with `>`). */
  wrappable: readonly string[];
  /** Elements whose class names rotate, and the classes the sheet names (kept). */
  rotatable: readonly string[];
  keepClasses: readonly string[];
  /** A newer feature's control, inserted before the first element matching `before` (rollout_siblings). */
  siblings: readonly { before: string; html: string; what: string }[];
}

export type HydrationMode = "late" | "inert";
export type InterruptionKind = "consent" | "survey" | "promo" | "toast" | "update_banner";

/** The generic choices of one page load, as the runtime reads them (JSON). */
export interface GenericVariation {
  hydration: { mode: HydrationMode; delayMs: number; shell: boolean; lateLoadMs: number } | null;
  interruption: { kind: InterruptionKind; trigger: "load" | "request"; atMs: number; wording: number } | null;
  controlledInput: { readOnlyMs: number; ignoreScriptedValue: boolean; keyEventsOnly: boolean } | null;
  decoration: {
    labelCase: "upper" | "lower" | "as_is";
    pad: boolean;
    badge: boolean;
    wrappers: number;
    rotateClasses: boolean;
    salt: number;
  } | null;
  sibling: number | null;
}

/** Draws the generic choices of a page load; each decision is recorded on the draw in words. */
export function drawGenericVariation(draw: VariationDraw, profile: VariationProfile): GenericVariation {
  const variation: GenericVariation = { hydration: null, interruption: null, controlledInput: null, decoration: null, sibling: null };

  if (draw.chance("hydration", 0.85)) {
    const mode = draw.pick("hydration", ["late", "inert"] as const);
    const delayMs = draw.int("hydration", 0, 5_000);
    const shell = draw.chance("hydration", 0.5);
    const lateLoadMs = draw.chance("hydration", 0.5) ? draw.int("hydration", 500, 6_000) : 0;
    variation.hydration = { mode, delayMs, shell, lateLoadMs };
    draw.note(
      "hydration",
      `controls ${mode === "late" ? "inserted" : "inert"} until ${delayMs} ms${shell ? ", loading shell" : ""}${lateLoadMs > 0 ? `, load event at ${lateLoadMs} ms` : ""}`,
    );
  }

  if (draw.chance("interruptions", 0.8)) {
    const kind = draw.pick("interruptions", ["consent", "survey", "promo", "toast", "update_banner"] as const);
    const trigger = draw.pick("interruptions", ["load", "request"] as const);
    const atMs = trigger === "load" ? draw.int("interruptions", 0, 3_000) : draw.int("interruptions", 0, 1_500);
    variation.interruption = { kind, trigger, atMs, wording: draw.int("interruptions", 0, 2) };
    draw.note("interruptions", `${kind} ${atMs} ms after ${trigger}`);
  }

  if (draw.chance("controlled_inputs", 0.85) && profile.composer.length > 0) {
    const readOnlyMs = draw.chance("controlled_inputs", 0.6) ? draw.int("controlled_inputs", 200, 2_500) : 0;
    const ignoreScriptedValue = draw.chance("controlled_inputs", 0.7);
    const keyEventsOnly = draw.chance("controlled_inputs", 0.4);
    variation.controlledInput = { readOnlyMs, ignoreScriptedValue, keyEventsOnly };
    draw.note(
      "controlled_inputs",
      [
        readOnlyMs > 0 ? `read-only for ${readOnlyMs} ms` : "",
        ignoreScriptedValue ? "scripted value ignored" : "",
        keyEventsOnly ? "key events only" : "",
      ]
        .filter((part) => part !== "")
        .join(", ") || "composer under script control",
    );
  }

  if (draw.chance("decoration", 0.85)) {
    const decoration = {
      labelCase: draw.pick("decoration", ["upper", "lower", "as_is"] as const),
      pad: draw.chance("decoration", 0.6),
      badge: draw.chance("decoration", 0.4),
      wrappers: profile.wrappable.length > 0 ? draw.int("decoration", 0, 2) : 0,
      rotateClasses: profile.rotatable.length > 0 && draw.chance("decoration", 0.7),
      salt: draw.int("decoration", 0, 0xffffff),
    };
    variation.decoration = decoration;
    draw.note(
      "decoration",
      `labels ${decoration.labelCase}${decoration.pad ? " padded" : ""}${decoration.badge ? ", badges" : ""}, ${decoration.wrappers} wrapper(s)${decoration.rotateClasses ? ", classes rotated" : ""}`,
    );
  }

  if (profile.siblings.length > 0 && draw.chance("rollout_siblings", 0.7)) {
    const index = draw.int("rollout_siblings", 0, profile.siblings.length - 1);
    variation.sibling = index;
    draw.note("rollout_siblings", profile.siblings[index]?.what ?? "sibling");
  }
  return variation;
}

/**
 * The script element that applies a page's generic variation; put it after the provider's own script. A module script:
 * it runs once the document is parsed, after classic and module page scripts before it, and before DOMContentLoaded.
 */
export function variationScriptTag(variation: GenericVariation, profile: VariationProfile): string {
  const config = JSON.stringify({ variation, profile }).replace(/</g, "\\u003c");
  return `<script type="module">(${RUNTIME.trim()})(${config});</script>`;
}

/** The draw's generic variation as a script tag, or "" when there is no draw (fuzzing off). */
export function genericVariationTag(draw: VariationDraw | null, profile: VariationProfile): string {
  return draw === null ? "" : variationScriptTag(drawGenericVariation(draw, profile), profile);
}
