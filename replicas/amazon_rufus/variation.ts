/**
 * Page fuzzing of the Rufus replica (issue 29, replicas/shared/variation.ts). Each store page load draws, from the
 * page's VariationDraw:
 * - the generic classes (hydration, interruptions, controlled inputs, decoration, rollout siblings) through
 *   RUFUS_VARIATION_PROFILE, played by replicas/shared/client/variation-runtime.js;
 * - Rufus's own classes, played by client/rufus-page.js (`page`) and by the streaming endpoint (`wire`): the answer
 *   request carries the page's anti-csrftoken-a2z, so the stream of a page follows that page's draw.
 * Every choice stays inside what amazon_rufus.md allows; the sheet line is quoted beside each one.
 */
import type { VariationProfile } from "../shared/page-variation";
import type { VariationDraw } from "../shared/variation";
import type { RufusCardGroup, RufusScenario, RufusStep } from "./scenarios";

/** What the Rufus panel's own script does differently on this page. */
export interface RufusPageVariation {
  /** late_lists, DOM: pills rendered this long after the stream ended; cards shown in this many batches. */
  lateLists: { pillsDelayMs: number; cardBatches: number; batchGapMs: number } | null;
  /** sheet_alternatives: the round send button's accessible name (sheet: "a round send button exists; selector unverified"). */
  sendLabel: string;
  /** sheet_alternatives: which of the nav button's two anchors the markup carries (sheet: "#nav-rufus-disco / .nav-rufus-disco"). */
  navAnchors: "layout" | "id_only" | "class_only";
  /** sheet_alternatives: the panel's id (sheet: "#nav-flyout-rufus / #nav-rufus-content"); null = the layout's. */
  panelId: "nav-flyout-rufus" | "nav-rufus-content" | null;
  /** sheet_alternatives: home pages send "their own URL and no ASIN metadata — unverified": an empty list or none. */
  omitEmptyMetadata: boolean;
}

/** What the streaming endpoint does differently for a page of this draw. */
export interface RufusWireVariation {
  /** sheet_alternatives: "each with an `id:CHUNK…` line (exact suffix format unverified)". */
  idStyle: "dash" | "padded" | "opaque";
  /** sheet_alternatives: rating `valueString` "4.5" or "4.5 out of 5 stars" ("unverified which"), in the marketplace's words. */
  ratingAsText: boolean;
  /** sheet_alternatives: footer ids "exact id format and how it points to its card unverified — match by order or by ASIN". */
  footerIds: "scenario" | "index" | "asin";
  /** sheet_alternatives: `onPress.url` "contains `/dp/<ASIN>`": as the scenario writes it, absolute, or with a slug and ref. */
  hrefStyle: "scenario" | "absolute" | "slug_ref";
  /** sheet_alternatives: "which affordance carries them is unverified": their own, beside a disclaimer, or split in two. */
  pillCarrier: "own" | "beside" | "split";
  /** sheet_alternatives: "Other event names may exist (unverified) — ignore unknown ones". */
  unknownEvents: boolean;
  /** late_lists, wire: cards appended one patch per card (sheet §3 patches with paths), and a pause before the pills. */
  cardsAppended: boolean;
  pillsPauseMs: number;
}

export interface RufusVariation {
  page: RufusPageVariation;
  wire: RufusWireVariation;
}

export const NO_RUFUS_VARIATION: RufusVariation = {
  page: { lateLists: null, sendLabel: "Submit", navAnchors: "layout", panelId: null, omitEmptyMetadata: false },
  wire: {
    idStyle: "dash",
    ratingAsText: false,
    footerIds: "scenario",
    hrefStyle: "scenario",
    pillCarrier: "own",
    unknownEvents: false,
    cardsAppended: false,
    pillsPauseMs: 0,
  },
};

/**
 * The store page for the generic classes. Hydrating: the Rufus entry points (nav button, "Ask Rufus" pill) and the
 * panel's question box and send button, which the store's script mounts ("Rufus can be opened from any page (nav
 * button)"; product-page pill "click may need a retry until hydrated"). Kept classes: every class the sheet names.
 */
export const RUFUS_VARIATION_PROFILE: VariationProfile = {
  hydrating: [
    "#nav-rufus-disco",
    ".nav-rufus-disco",
    "#dpx-nice-widget-container .ask-pill",
    "#rufus-text-area",
    "#rufus-container .rufus-send",
  ],
  composer: ["#rufus-text-area"],
  labelled: [
    "#nav-rufus-disco",
    ".nav-rufus-disco",
    "#rufus-container .rufus-send",
    "#rufus-container .rufus-close",
    "#dpx-nice-widget-container .ask-pill",
  ],
  // the sheet joins no selector with ">" (its arrows describe nesting, not direct children)
  wrappable: ["#nav-rufus-disco", ".nav-rufus-disco", "#rufus-text-area", "#rufus-container .rufus-send", "#rufus-conversation-container"],
  rotatable: [
    ".nav-rufus-disco",
    "#rufus-container .rufus-send",
    "#rufus-container .rufus-panel-header",
    ".rufus-papyrus-turn",
    ".rufus-pill",
    ".ask-pill",
  ],
  keepClasses: [
    "nav-rufus-disco",
    "ask-pill",
    "rufus-dialog-customer",
    "rufus-papyrus-turn",
    "rufus-papyrus-active-turn",
    "rufus-pill",
    "rufus-pills",
    "rufus-customer-text-wrap",
  ],
  siblings: [
    {
      // sheet intro: "Amazon started branding parts of the assistant 'Alexa' / 'Alexa for Shopping' (#nav-alexa,
      // #alexa-shopping-container appear beside #nav-rufus; unverified rollout)": the newer assistant's box first
      before: "#rufus-text-area",
      html: '<textarea class="alexa-shopping-input" rows="1" placeholder="Ask Alexa for Shopping" aria-label="Ask Alexa for Shopping"></textarea><button type="button" class="alexa-shopping-send" aria-label="Send to Alexa">➤</button>',
      what: "an Alexa for Shopping box and send button before #rufus-text-area",
    },
    {
      // same rollout: the newer assistant's nav entry before Rufus's (no #nav-rufus-disco / .nav-rufus-disco on it)
      before: "#nav-rufus-disco, .nav-rufus-disco",
      html: '<a href="javascript:void(0)" class="nav-a nav-alexa-disco" role="button" aria-expanded="false">Alexa for Shopping</a>',
      what: "an Alexa for Shopping nav button before the Rufus button",
    },
    {
      // sheet §2: "beware hidden feedback boxes #rufus-text-area-inner-N ('Add your feedback…')": one shown, first
      before: "#rufus-text-area",
      html: '<textarea id="rufus-text-area-inner-0" rows="1" placeholder="Add your feedback…" aria-label="Add your feedback…"></textarea>',
      what: "a visible feedback box #rufus-text-area-inner-0 before #rufus-text-area",
    },
  ],
};

/** Rufus's own classes for one page load; every choice is noted on the draw. */
export function drawRufusVariation(draw: VariationDraw): RufusVariation {
  const page: RufusPageVariation = { ...NO_RUFUS_VARIATION.page };
  const wire: RufusWireVariation = { ...NO_RUFUS_VARIATION.wire };

  // late_lists. Sheet §2 "Completion: … the active turn stops changing (public scrapers wait ~4 s of stable text
  // after a new turn appears); pills rendered": pills and cards may render after the text, and cards arrive as
  // patches (§3 `add` with a path), so in batches.
  if (draw.chance("late_lists", 0.8)) {
    page.lateLists = {
      pillsDelayMs: draw.int("late_lists", 0, 4_000),
      cardBatches: draw.int("late_lists", 1, 3),
      batchGapMs: draw.int("late_lists", 200, 1_200),
    };
    wire.cardsAppended = draw.chance("late_lists", 0.5);
    wire.pillsPauseMs = draw.chance("late_lists", 0.5) ? draw.int("late_lists", 300, 4_000) : 0;
    draw.note(
      "late_lists",
      `pills shown ${page.lateLists.pillsDelayMs} ms after the answer, cards in ${page.lateLists.cardBatches} batch(es)` +
        `${wire.cardsAppended ? ", cards appended one patch each on the wire" : ""}${wire.pillsPauseMs > 0 ? `, ${wire.pillsPauseMs} ms pause before the pills on the wire` : ""}`,
    );
  }

  if (draw.on("sheet_alternatives")) {
    page.sendLabel = draw.pick("sheet_alternatives", ["Submit", "Send", "Send message"] as const);
    page.navAnchors = draw.pick("sheet_alternatives", ["layout", "id_only", "class_only"] as const);
    page.panelId = draw.pick("sheet_alternatives", [null, "nav-flyout-rufus", "nav-rufus-content"] as const);
    page.omitEmptyMetadata = draw.chance("sheet_alternatives", 0.5);
    wire.idStyle = draw.pick("sheet_alternatives", ["dash", "padded", "opaque"] as const);
    wire.ratingAsText = draw.chance("sheet_alternatives", 0.5);
    wire.footerIds = draw.pick("sheet_alternatives", ["scenario", "index", "asin"] as const);
    wire.hrefStyle = draw.pick("sheet_alternatives", ["scenario", "absolute", "slug_ref"] as const);
    wire.pillCarrier = draw.pick("sheet_alternatives", ["own", "beside", "split"] as const);
    wire.unknownEvents = draw.chance("sheet_alternatives", 0.5);
    draw.note(
      "sheet_alternatives",
      `send button "${page.sendLabel}", nav anchors ${page.navAnchors}, panel ${page.panelId ?? "of the layout"}` +
        `${page.omitEmptyMetadata ? ", no targetPageMetadata" : ""}; wire ids ${wire.idStyle}, ratings ${wire.ratingAsText ? "as text" : "as numbers"}, ` +
        `footer ids ${wire.footerIds}, card urls ${wire.hrefStyle}, pills ${wire.pillCarrier}${wire.unknownEvents ? ", unknown events" : ""}`,
    );
  }
  return { page, wire };
}

// ---------------------------------------------------------------------------------------------------------------
// The wire alternatives applied to a scenario (the stream of a fuzzed page)

/** How a marketplace words a rating as text (sheet §4: "some captures show '4.5 out of 5 stars'"). */
function ratingText(valueString: string, domain: string): string {
  if (!/^\d+(?:[.,]\d+)?$/.test(valueString)) return valueString;
  if (domain === "amazon.de") return `${valueString} von 5 Sternen`;
  if (domain === "amazon.co.jp") return `5つ星のうち${valueString}`;
  return `${valueString} out of 5 stars`;
}

function cardHref(asin: string, scenarioHref: string, style: RufusWireVariation["hrefStyle"], domain: string): string {
  if (style === "absolute") return `https://www.${domain}/dp/${asin}`;
  if (style === "slug_ref") return `/Product-Name-Here/dp/${asin}/ref=rufus_asin_0?pd_rd_w=x1&th=1`;
  return scenarioHref;
}

function varyGroup(group: RufusCardGroup, wire: RufusWireVariation, domain: string): RufusCardGroup {
  return {
    ...group,
    footerIds: wire.footerIds === "scenario" ? group.footerIds : wire.footerIds,
    cards: group.cards.map((card) => ({
      ...card,
      href: cardHref(card.asin, card.href, wire.hrefStyle, domain),
      rating:
        card.rating === null || !wire.ratingAsText
          ? card.rating
          : { ...card.rating, valueString: ratingText(card.rating.valueString, domain) },
    })),
  };
}

const DISCLAIMER = '<div class="rufus-disclaimer">Rufus can make mistakes. Check important info.</div>';

/** The scenario as a page of this draw streams it: same fields under §4, other sheet-legal wire forms. */
export function varyScenario(scenario: RufusScenario, wire: RufusWireVariation, domain: string): RufusScenario {
  const steps = scenario.steps.flatMap((step): RufusStep[] => {
    switch (step.kind) {
      case "cards":
        return [{ ...step, group: varyGroup(step.group, wire, domain), delivery: wire.cardsAppended ? "appended" : step.delivery }];
      case "footers":
        return [{ ...step, group: varyGroup(step.group, wire, domain) }];
      case "pills": {
        if (wire.pillCarrier === "beside" && step.beside === undefined) return [{ ...step, beside: DISCLAIMER }];
        if (wire.pillCarrier === "split" && step.labels.length > 1) {
          const half = Math.ceil(step.labels.length / 2);
          return [
            { ...step, labels: step.labels.slice(0, half) },
            { kind: "pills", labels: step.labels.slice(half) },
          ];
        }
        return [step];
      }
      default:
        return [step];
    }
  });
  if (wire.unknownEvents) {
    steps.splice(Math.min(1, steps.length), 0, {
      kind: "raw",
      event: "metadata",
      data: JSON.stringify({ conversationTurnId: "turn-0001" }),
    });
    steps.push({ kind: "raw", event: "heartbeat", data: "ping" });
  }
  return { ...scenario, steps };
}

/** The block id of the n-th block (1-based) in the drawn suffix format. */
export function blockId(style: RufusWireVariation["idStyle"], n: number): string {
  if (style === "padded") return `CHUNK_${String(n).padStart(4, "0")}`;
  if (style === "opaque") return `CHUNK-${(0x5f3a9c + n * 7919).toString(16)}-${n}`;
  return `CHUNK-${n}`;
}
