/**
 * The Rufus replica's deterministic answers (amazon_rufus.md §3, §6): the single source that the replica streams and
 * renders and that the tests derive their expected fields from. A scenario is a list of steps, each becoming one
 * SSE block of `POST /rufus/cl/streaming` (after the question echo that every answer starts with):
 *
 * - `prose`: one snapshot of a `markdown_processor_*` group (`add` while it grows, `replace` when it is rewritten);
 *   `text` is the group's text; `tree` (optional) is how it goes on the wire when that is not one text node.
 * - `cards`: an `asin_cards_*` group, sent whole (`add "/"`) or as an empty box and one `add "/children/-"` per card.
 * - `footers`: one `inference` block with a `replace` patch per card that has a footer (`<group>_asinFooter_<n>` or
 *   `<group>_asinFooter_<ASIN>`), in card order or reversed.
 * - `pills`: an `affordance` block with the follow-up pills (`button.rufus-pill`), optionally beside another section.
 * - `raw`: a block sent as written (unknown events, unknown node types).
 *
 * Selection: the prompt is lower-cased; the first scenario (in list order) whose trigger occurs in it answers. A prompt
 * that matches none gets the default scenario, which quotes the prompt.
 */

export interface RufusPrice {
  wholeValue: string;
  fractionalValue: string;
  currencySymbol: string;
  strikethrough: boolean;
}

export interface RufusRating {
  valueString: string;
  count: string;
}

export interface RufusCard {
  asin: string;
  /** `onPress.url` as the site sends it: a `/dp/<ASIN>` path, sometimes with a slug before or a ref/query after. */
  href: string;
  /** The title `text` node (with `lines`); null = the card has no text node and only the image's `altText` names it. */
  title: string | null;
  altText: string;
  /** Badge text nodes ("Amazon's Choice"), without `lines`, before the title. */
  badges: readonly string[];
  rating: RufusRating | null;
  /** Sale price first, then the strikethrough list price when there is one. */
  prices: readonly RufusPrice[];
  /** The one-line description of the card's `asinFooter` group; null = no footer group for this card. */
  footer: string | null;
}

export interface RufusCardGroup {
  groupId: string;
  cards: readonly RufusCard[];
  /** How footer groups point at their card: by position (`_asinFooter_0`) or by ASIN (`_asinFooter_B0…`). */
  footerIds: "index" | "asin";
}

/** A UI node as sent on the wire (the sheet's node types plus whatever else a scenario needs to test leniency). */
export type RufusNode = string | { type: string; [field: string]: unknown };

export type RufusStep =
  | { kind: "prose"; groupId: string; op: "add" | "replace"; text: string; tree?: RufusNode }
  | { kind: "cards"; group: RufusCardGroup; delivery: "whole" | "appended" }
  | { kind: "footers"; group: RufusCardGroup; order: "cards" | "reversed" }
  | { kind: "pills"; labels: readonly string[]; beside?: string }
  | { kind: "raw"; id?: string; event: string; data: string };

export interface RufusScenario {
  id: string;
  /** Lower-case text that selects the scenario; null for the default. */
  trigger: string | null;
  description: string;
  steps: readonly RufusStep[];
  /**
   * The answer's plain text (`result`), written by hand, when the prose carries markdown (bold, tables, links);
   * absent = the prose is plain text already. Test oracles read it; the replica never does.
   */
  plainText?: string;
  /**
   * The prose as `result_markdown` must carry it when it differs from the streamed text (product links written on the
   * real marketplace: `{domain}` stands for it). Absent = the streamed prose as it is.
   */
  expectedMarkdown?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Builders

const usd = (whole: string, fraction: string, strikethrough = false): RufusPrice => ({
  wholeValue: whole,
  fractionalValue: fraction,
  currencySymbol: "$",
  strikethrough,
});

function card(fields: Partial<RufusCard> & { asin: string; title: string | null }): RufusCard {
  return {
    href: `/dp/${fields.asin}`,
    altText: fields.title ?? fields.asin,
    badges: [],
    rating: { valueString: "4.5", count: "1,234" },
    prices: [usd("29", "99")],
    footer: null,
    ...fields,
  };
}

/**
 * Growing snapshots of a prose group, cut after whitespace so every snapshot is a prefix of the final text; the last
 * snapshot is the whole text. `op` of every snapshot is `add`, as the sheet's transcript shows.
 */
export function proseSnapshots(groupId: string, text: string, snapshots: number): RufusStep[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [text];
  const texts: string[] = [];
  for (let index = 1; index <= snapshots; index += 1) {
    const snapshot =
      index === snapshots
        ? text
        : words
            .slice(0, Math.max(1, Math.floor((words.length * index) / snapshots)))
            .join("")
            .trimEnd();
    if (snapshot !== "" && texts.at(-1) !== snapshot) texts.push(snapshot);
  }
  return texts.map((snapshot): RufusStep => ({ kind: "prose", groupId, op: "add", text: snapshot }));
}

function cardsAndFooters(
  group: RufusCardGroup,
  delivery: "whole" | "appended" = "whole",
  order: "cards" | "reversed" = "cards",
): RufusStep[] {
  const steps: RufusStep[] = [{ kind: "cards", group, delivery }];
  if (group.cards.some((c) => c.footer !== null)) steps.push({ kind: "footers", group, order });
  return steps;
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios

const LAMP = card({
  asin: "B0EXAMPLE1",
  title: "Example Lamp, White",
  altText: "Example Lamp, White",
  footer: "Bright and compact",
});
const DESK_LAMP = card({
  asin: "B0DESKLMP2",
  href: "/Clip-Desk-Lamp-Adjustable/dp/B0DESKLMP2/ref=rufus_asin_1?th=1",
  title: "Clip-On Desk Lamp with 3 Color Modes",
  altText: "Clip-On Desk Lamp",
  rating: { valueString: "4.3", count: "8,765" },
  prices: [usd("19", "99")],
  footer: "Clamps to any shelf",
});

const textOnly: RufusScenario = {
  id: "text-only",
  trigger: "text-only",
  description: "prose only: no product cards at all",
  steps: [
    ...proseSnapshots(
      "markdown_processor_0",
      "A good running shoe fits snugly at the heel and leaves a thumb's width at the toe.\n\nTry shoes on in the afternoon, when feet are largest.",
      3,
    ),
    { kind: "pills", labels: ["How often should I replace running shoes?", "What about trail running?"] },
  ],
};

const oneProduct: RufusScenario = {
  id: "one-product",
  trigger: "one-product",
  description: "exactly one product card with a footer",
  steps: [
    ...proseSnapshots("markdown_processor_0", "This lamp is a solid pick for a small desk.", 2),
    ...cardsAndFooters({ groupId: "asin_cards_0", cards: [LAMP], footerIds: "index" }),
    { kind: "pills", labels: ["Is it dimmable?", "Compare with similar lamps"] },
  ],
};

const MANY_CARDS: readonly RufusCard[] = Array.from({ length: 12 }, (_unused, index) => {
  const n = index + 1;
  const asin = `B0MANY${String(n).padStart(4, "0")}`;
  return card({
    asin,
    href: index % 3 === 0 ? `/dp/${asin}?ref_=rufus_${n}` : `/dp/${asin}`,
    title: `Stainless Steel Water Bottle ${n * 100} ml`,
    altText: `Water bottle ${n}`,
    rating: { valueString: `4.${n % 10}`, count: `${n * 37},${String(n * 11).padStart(3, "0")}` },
    prices: [usd(String(10 + n), "49")],
    // every third bottle has no footer group
    footer: n % 3 === 0 ? null : `Keeps drinks cold for ${n + 12} hours`,
  });
});

const manyProducts: RufusScenario = {
  id: "many-products",
  trigger: "many-products",
  description: "twelve cards appended one by one (add /children/-), footers for most of them",
  steps: [
    ...proseSnapshots("markdown_processor_0", "Here are twelve insulated bottles, from small to large.", 2),
    ...cardsAndFooters({ groupId: "asin_cards_0", cards: MANY_CARDS, footerIds: "index" }, "appended"),
    { kind: "pills", labels: ["Which one is lightest?"] },
  ],
};

const DUPLICATED = card({
  asin: "B0DUPL0001",
  title: "Noise Cancelling Headphones, Black",
  rating: { valueString: "4.6", count: "22,101" },
  prices: [usd("199", "00")],
  footer: "Best overall",
});

const duplicateAsin: RufusScenario = {
  id: "duplicate-asin",
  trigger: "duplicate-asin",
  description: "the same ASIN in two card groups (one product, the first card's fields), distinct ones kept in order",
  steps: [
    ...proseSnapshots("markdown_processor_0", "Two headphones stand out; the first is also the best for travel.", 2),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        DUPLICATED,
        card({ asin: "B0DUPL0002", title: "Wireless Earbuds, Blue", prices: [usd("79", "00")], footer: "Great battery" }),
      ],
    }),
    ...proseSnapshots("markdown_processor_1", "For travel:", 1),
    ...cardsAndFooters({
      groupId: "asin_cards_1",
      footerIds: "index",
      cards: [
        { ...DUPLICATED, href: "/dp/B0DUPL0001/ref=rufus_travel", footer: "Folds flat for travel" },
        card({ asin: "B0DUPL0003", title: "Travel Headphone Case", rating: null, prices: [usd("15", "99")], footer: null }),
      ],
    }),
    { kind: "pills", labels: ["Which has the longest battery life?"] },
  ],
};

const altTitle: RufusScenario = {
  id: "alt-title",
  trigger: "alt-title",
  description: "cards without a title text node: the title comes from image altText; a trailing (Packaging May Vary) is dropped",
  steps: [
    ...proseSnapshots("markdown_processor_0", "These detergents are well reviewed.", 1),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        card({ asin: "B0ALTT0001", title: null, altText: "Laundry Detergent Pods, 81 Count (Packaging May Vary)", footer: "Fresh scent" }),
        card({ asin: "B0ALTT0002", title: "Liquid Detergent, 64 Loads (Packaging May Vary)", altText: "Liquid Detergent", footer: null }),
        card({ asin: "B0ALTT0003", title: null, altText: "Wool Dryer Balls, 6 Pack", rating: null, footer: "Reusable" }),
      ],
    }),
    { kind: "pills", labels: ["Are pods better than liquid?"] },
  ],
};

const noRating: RufusScenario = {
  id: "no-rating",
  trigger: "no-rating",
  description: "a new product without any rating node",
  steps: [
    ...proseSnapshots("markdown_processor_0", "One is brand new, so it has no reviews yet.", 1),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        card({
          asin: "B0NORT0001",
          title: "Smart Plug Mini, 2 Pack",
          rating: { valueString: "4.7", count: "51,003" },
          footer: "Works with Alexa",
        }),
        card({ asin: "B0NORT0002", title: "Smart Plug Outdoor", rating: null, footer: "New release" }),
      ],
    }),
    { kind: "pills", labels: ["Do they need a hub?"] },
  ],
};

const noFooter: RufusScenario = {
  id: "no-footer",
  trigger: "no-footer",
  description: "cards and no asinFooter group at all",
  steps: [
    ...proseSnapshots("markdown_processor_0", "Both yoga mats are thick and non-slip.", 2),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        card({ asin: "B0NOFT0001", title: "Yoga Mat 6 mm, Purple", footer: null }),
        card({ asin: "B0NOFT0002", title: "Yoga Mat 10 mm, Grey", rating: { valueString: "4.4", count: "310" }, footer: null }),
      ],
    }),
    { kind: "pills", labels: ["Which is easier to clean?"] },
  ],
};

const deals: RufusScenario = {
  id: "deals",
  trigger: "deals",
  description: "badges as text nodes before the title, a sale price with a strikethrough list price",
  steps: [
    ...proseSnapshots("markdown_processor_0", "Two air fryers are on sale today.", 1),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        card({
          asin: "B0DEAL0001",
          title: "Air Fryer 5.8 QT, Black",
          badges: ["Amazon's Choice"],
          rating: { valueString: "4.6", count: "41,870" },
          prices: [usd("69", "99"), usd("119", "99", true)],
          footer: "Lowest price in 30 days",
        }),
        card({
          asin: "B0DEAL0002",
          title: "Compact Air Fryer 2 QT",
          badges: ["Best Seller", "Limited time deal"],
          rating: { valueString: "4.4", count: "9,912" },
          prices: [usd("39", "95"), usd("49", "99", true)],
          footer: "Fits small kitchens",
        }),
      ],
    }),
    { kind: "pills", labels: ["Is the sale price a good deal?", "Compare air fryer sizes"] },
  ],
};

const euro = (whole: string, fraction: string, strikethrough = false): RufusPrice => ({
  wholeValue: whole,
  fractionalValue: fraction,
  currencySymbol: "€",
  strikethrough,
});

const german: RufusScenario = {
  id: "german",
  trigger: "kaffeemaschine",
  description: "amazon.de: German prose, prices shown as 29,99 €, ratings with decimal commas",
  steps: [
    ...proseSnapshots(
      "markdown_processor_0",
      "Für eine kleine Küche eignen sich diese beiden Kaffeemaschinen besonders gut. Beide sind leise und schnell aufgeheizt.",
      3,
    ),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        card({
          asin: "B0DEKAFFE1",
          title: "Filterkaffeemaschine mit Glaskanne, 1,25 l, Schwarz",
          altText: "Filterkaffeemaschine",
          rating: { valueString: "4,5", count: "1.234" },
          prices: [euro("29", "99")],
          footer: "Kompakt und leise",
        }),
        card({
          asin: "B0DEKAFFE2",
          title: "Kaffeevollautomat mit Milchaufschäumer",
          badges: ["Amazons Tipp"],
          rating: { valueString: "4,2", count: "987" },
          prices: [euro("349", "00"), euro("429", "99", true)],
          footer: "Für Cappuccino-Fans",
        }),
      ],
    }),
    { kind: "pills", labels: ["Welche ist am leisesten?", "Gibt es Modelle mit Thermoskanne?"] },
  ],
};

const japanese: RufusScenario = {
  id: "japanese",
  trigger: "炊飯器",
  description: "amazon.co.jp: Japanese prose, prices shown as ¥2,980 (no fraction)",
  steps: [
    ...proseSnapshots("markdown_processor_0", "一人暮らしに向いている炊飯器を2つ紹介します。どちらも3合炊きでコンパクトです。", 2),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        card({
          asin: "B0JPRICE01",
          title: "マイコン式 炊飯器 3合 ホワイト",
          altText: "炊飯器 ホワイト",
          rating: { valueString: "4.3", count: "2,345" },
          prices: [{ wholeValue: "2,980", fractionalValue: "", currencySymbol: "¥", strikethrough: false }],
          footer: "早炊きモード付き",
        }),
        card({
          asin: "B0JPRICE02",
          title: "IH炊飯器 3合 ブラック",
          rating: { valueString: "4.1", count: "678" },
          prices: [
            { wholeValue: "8,480", fractionalValue: "", currencySymbol: "¥", strikethrough: false },
            { wholeValue: "9,980", fractionalValue: "", currencySymbol: "¥", strikethrough: true },
          ],
          footer: null,
        }),
      ],
    }),
    { kind: "pills", labels: ["保温機能はありますか？"] },
  ],
};

const htmlEntities: RufusScenario = {
  id: "html-entities",
  trigger: "html-entities",
  description: "characters that are HTML entities in the affordance HTML (&, quotes, <, >) and plain in the JSON",
  steps: [
    ...proseSnapshots("markdown_processor_0", 'Salt & pepper grinders: the "Classic" set is <10 inches> tall.', 1),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [card({ asin: "B0ENTITY01", title: 'Salt & Pepper Grinder Set "Classic"', footer: "Stainless steel & glass" })],
    }),
    { kind: "pills", labels: ['Is it "dishwasher-safe"?', "Tom & Jerry's <mini> set?", "What's the warranty?"] },
  ],
};

const table: RufusScenario = {
  plainText:
    "Here is how the two kettles compare:\n\nKettle\tCapacity\tPrice\nAlpha\t1.0 L\t$24.99\nBeta\t1.7 L\t$39.99\n\nBeta boils fastest.",
  id: "table",
  trigger: "compare-table",
  description: "prose with a markdown table",
  steps: [
    ...proseSnapshots(
      "markdown_processor_0",
      [
        "Here is how the two kettles compare:",
        "",
        "| Kettle | Capacity | Price |",
        "|---|---|---|",
        "| Alpha | 1.0 L | $24.99 |",
        "| Beta | 1.7 L | $39.99 |",
        "",
        "Beta boils fastest.",
      ].join("\n"),
      3,
    ),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        card({ asin: "B0KETTLE01", title: "Alpha Electric Kettle 1.0 L", prices: [usd("24", "99")], footer: "Small and light" }),
        card({ asin: "B0KETTLE02", title: "Beta Electric Kettle 1.7 L", prices: [usd("39", "99")], footer: "Fastest boil" }),
      ],
    }),
    { kind: "pills", labels: ["Which is quieter?"] },
  ],
};

const emoji: RufusScenario = {
  id: "emoji",
  trigger: "emoji",
  description: "astral emoji (ZWJ family, flag, skin tone) in prose, titles, footers and pills",
  steps: [
    ...proseSnapshots("markdown_processor_0", "Cozy picks for a reading corner ☕🛋️ that families 👨‍👩‍👧 love 🇺🇸 👍🏽", 3),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        card({ asin: "B0EMOJI001", title: "Mug Warmer 🔥 Set", footer: "Keeps coffee hot ☕" }),
        card({ asin: "B0EMOJI002", title: "Throw Blanket 🧶 Sherpa", footer: "Soft & warm 😊" }),
      ],
    }),
    { kind: "pills", labels: ["Any 🎁 gift ideas?"] },
  ],
};

const rewrite: RufusScenario = {
  id: "rewrite",
  trigger: "rewrite",
  description: "the prose is streamed, then a replace rewrites it completely (the last value wins)",
  steps: [
    ...proseSnapshots("markdown_processor_0", "Searching for the best tents for two people, one moment", 2),
    {
      kind: "prose",
      groupId: "markdown_processor_0",
      op: "replace",
      text: "These two-person tents are light and quick to pitch.",
    },
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [card({ asin: "B0TENT0001", title: "Backpacking Tent, 2 Person", footer: "Under 2 kg" })],
    }),
    { kind: "pills", labels: ["Is it waterproof?"] },
  ],
};

const noPills: RufusScenario = {
  id: "no-pills",
  trigger: "no-pills",
  description: "no follow-up pills affordance at all",
  steps: [
    ...proseSnapshots("markdown_processor_0", "This toothbrush has a two-minute timer.", 1),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [card({ asin: "B0NOPILL01", title: "Electric Toothbrush", footer: "Two-minute timer" })],
    }),
  ],
};

const LONG_TOPICS = ["cotton", "linen", "bamboo", "microfiber", "flannel", "percale", "sateen", "jersey"] as const;

/**
 * More than 30 kB of prose with headings, lists and tables, built from fixed text; `plain` is the same text written
 * as plain text by the rules of the API (headings as their text, bold markers dropped, list markers "- " kept, table
 * rows as tab-separated cells without the separator row, blocks separated by one blank line).
 */
function longProse(): { markdown: string; plain: string } {
  const plain: string[] = ["Choosing bed sheets"];
  for (let index = 0; index < 80; index += 1) {
    const topic = LONG_TOPICS[index % LONG_TOPICS.length] ?? "cotton";
    const n = index + 1;
    plain.push(`${n}. ${topic.charAt(0).toUpperCase()}${topic.slice(1)} sheets`);
    plain.push(
      `Sheets made of ${topic} feel different from the others: part ${n} explains breathability, durability and care. ` +
        `Thread count matters less than the fibre and the weave, and ${topic} is judged by how it feels after many washes. ` +
        `This paragraph is long on purpose so the whole answer is larger than thirty kilobytes (section ${n} of 80).`,
    );
    plain.push(`- Feel: ${topic} ${n % 2 === 0 ? "stays cool" : "warms quickly"}\n- Care: wash at ${30 + (n % 3) * 10} °C`);
    if (n % 12 === 0) plain.push(`Fibre\tWarmth\tPrice\n${topic}\t${n % 5}\t$${n}.00`);
  }
  plain.push("Pick the fibre first, then the size.");
  return { markdown: longMarkdown(), plain: plain.join("\n\n") };
}

function longMarkdown(): string {
  const sections: string[] = ["# Choosing bed sheets", ""];
  for (let index = 0; index < 80; index += 1) {
    const topic = LONG_TOPICS[index % LONG_TOPICS.length] ?? "cotton";
    const n = index + 1;
    sections.push(`## ${n}. ${topic.charAt(0).toUpperCase()}${topic.slice(1)} sheets`, "");
    sections.push(
      `Sheets made of ${topic} feel different from the others: part ${n} explains breathability, durability and care. ` +
        `Thread count matters less than the fibre and the weave, and ${topic} is judged by how it feels after many washes. ` +
        `This paragraph is long on purpose so the whole answer is larger than thirty kilobytes (section ${n} of 80).`,
      "",
    );
    sections.push(
      `- **Feel**: ${topic} ${n % 2 === 0 ? "stays cool" : "warms quickly"}`,
      `- **Care**: wash at ${30 + (n % 3) * 10} °C`,
      "",
    );
    if (n % 12 === 0) sections.push("| Fibre | Warmth | Price |", "|---|---|---|", `| ${topic} | ${n % 5} | $${n}.00 |`, "");
  }
  sections.push("Pick the fibre first, then the size.");
  return sections.join("\n");
}

const LONG_PROSE = longProse();

const longAnswer: RufusScenario = {
  plainText: LONG_PROSE.plain,
  id: "long-answer",
  trigger: "long-answer",
  description: "more than 30 kB of prose in six growing snapshots, then one card",
  steps: [
    ...proseSnapshots("markdown_processor_0", LONG_PROSE.markdown, 6),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [card({ asin: "B0SHEETS01", title: "Percale Sheet Set, Queen", footer: "Crisp and cool" })],
    }),
    { kind: "pills", labels: ["What thread count is best?"] },
  ],
};

const footerByAsin: RufusScenario = {
  id: "footer-by-asin",
  trigger: "footer-by-asin",
  description: "footer groups named by ASIN and sent in reverse order; matching must not rely on arrival order",
  steps: [
    ...proseSnapshots("markdown_processor_0", "Three backpacks for daily commuting.", 1),
    { kind: "cards", group: footerByAsinGroup(), delivery: "whole" },
    { kind: "footers", group: footerByAsinGroup(), order: "reversed" },
    { kind: "pills", labels: ["Which fits a 16-inch laptop?"] },
  ],
};

function footerByAsinGroup(): RufusCardGroup {
  return {
    groupId: "asin_cards_0",
    footerIds: "asin",
    cards: [
      card({ asin: "B0BAGS0001", title: "Commuter Backpack 20 L", footer: "Laptop sleeve" }),
      card({ asin: "B0BAGS0002", title: "Rolltop Backpack 25 L", footer: null }),
      card({ asin: "B0BAGS0003", title: "Slim Backpack 15 L", footer: "Lightest" }),
    ],
  };
}

const unknownEvents: RufusScenario = {
  id: "unknown-events",
  trigger: "unknown-events",
  description: "unknown event names (one with non-JSON data), unknown node types and fields, another id suffix format",
  steps: [
    { kind: "raw", id: "CHUNK-meta-1", event: "metadata", data: JSON.stringify({ conversationId: "amzn1.conversation.0001", turn: 1 }) },
    { kind: "raw", event: "heartbeat", data: "keep-alive" },
    {
      kind: "prose",
      groupId: "markdown_processor_0",
      op: "add",
      text: "These bike lights are bright and USB rechargeable.",
      tree: {
        type: "text",
        styleId: "rufus-body",
        children: ["These bike lights are bright and USB rechargeable.", { type: "spacer", height: 8 }],
      },
    },
    {
      kind: "raw",
      event: "inference",
      data: JSON.stringify({
        patches: [{ groupId: "feedback_0", op: "add", path: "/", value: { type: "thumbs", children: [] } }],
        traceId: "t-0001",
      }),
    },
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [card({ asin: "B0LIGHT001", title: "Bike Light Set, USB-C", footer: "400 lumens" })],
    }),
    { kind: "raw", event: "done-ish", data: "{}" },
    { kind: "pills", labels: ["Are they waterproof?"], beside: '<div class="rufus-disclaimer">Rufus can make mistakes.</div>' },
  ],
};

const ratingText: RufusScenario = {
  id: "rating-text",
  trigger: "rating-text",
  description: 'valueString as "4.5 out of 5 stars" (normalised to "4.5")',
  steps: [
    ...proseSnapshots("markdown_processor_0", "This coffee grinder is a favourite.", 1),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [
        card({
          asin: "B0GRIND001",
          title: "Burr Coffee Grinder",
          rating: { valueString: "4.5 out of 5 stars", count: "12,345" },
          footer: "Consistent grind",
        }),
      ],
    }),
    { kind: "pills", labels: ["Is it loud?"] },
  ],
};

const twoProseGroups: RufusScenario = {
  plainText: "For a home office, start with a good chair.\n\nThen add a monitor arm to free desk space.",
  id: "two-prose-groups",
  trigger: "two-prose-groups",
  description: "prose before and after the cards, in two markdown_processor groups joined by a blank line",
  steps: [
    ...proseSnapshots("markdown_processor_0", "For a home office, start with a good chair.", 2),
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [card({ asin: "B0CHAIR001", title: "Ergonomic Office Chair", footer: "Adjustable lumbar support" })],
    }),
    ...proseSnapshots("markdown_processor_1", "Then add a **monitor arm** to free desk space.", 2),
  ],
};

const nestedProse: RufusScenario = {
  plainText: "Look for low noise models.\n\nA HEPA filter catches pollen.",
  id: "nested-prose",
  trigger: "nested-prose",
  description: "prose as a box of paragraphs with nested text nodes (children joined; paragraphs separated by a blank line)",
  steps: [
    {
      kind: "prose",
      groupId: "markdown_processor_0",
      op: "add",
      text: "Look for **low noise** models.\n\nA HEPA filter catches pollen.",
      tree: {
        type: "box",
        children: [
          { type: "text", children: ["Look for ", { type: "text", children: ["**low noise**"] }, " models."] },
          { type: "text", children: ["A HEPA filter catches pollen."] },
        ],
      },
    },
    ...cardsAndFooters({
      groupId: "asin_cards_0",
      footerIds: "index",
      cards: [card({ asin: "B0PURIFY01", title: "HEPA Air Purifier", footer: "Quiet sleep mode" })],
    }),
    { kind: "pills", labels: ["How often to change the filter?"] },
  ],
};

const productLinks: RufusScenario = {
  id: "product-links",
  trigger: "product-links",
  description:
    "prose whose markdown links open product pages (a relative /dp/ path with a ref, an absolute URL with a slug): every field carries the same product URL, https://www.<marketplace>/dp/<ASIN>",
  steps: [
    ...proseSnapshots(
      "markdown_processor_0",
      "The [Example Lamp](/dp/B0EXAMPLE1/ref=rufus_txt_1?th=1) is bright; the [clip-on lamp](https://www.amazon.com/Clip-Desk-Lamp-Adjustable/dp/B0DESKLMP2?psc=1) saves space.",
      2,
    ),
    ...cardsAndFooters({ groupId: "asin_cards_0", cards: [LAMP, DESK_LAMP], footerIds: "index" }),
    { kind: "pills", labels: ["Is it dimmable?"] },
  ],
  expectedMarkdown:
    "The [Example Lamp](https://www.{domain}/dp/B0EXAMPLE1) is bright; the [clip-on lamp](https://www.{domain}/dp/B0DESKLMP2) saves space.",
  plainText: "The Example Lamp is bright; the clip-on lamp saves space.",
};

/** Every scenario with a trigger, in matching order. */
export const RUFUS_SCENARIOS: readonly RufusScenario[] = [
  textOnly,
  oneProduct,
  manyProducts,
  duplicateAsin,
  altTitle,
  noRating,
  noFooter,
  deals,
  german,
  japanese,
  htmlEntities,
  table,
  emoji,
  rewrite,
  noPills,
  longAnswer,
  footerByAsin,
  unknownEvents,
  ratingText,
  twoProseGroups,
  nestedProse,
  productLinks,
];

/** The answer to a prompt that matches no trigger: quotes the prompt, shows the sheet's two example cards. */
export function defaultRufusScenario(prompt: string): RufusScenario {
  const oneLine = prompt.replace(/\s+/g, " ").trim();
  return {
    id: "default",
    trigger: null,
    description: "quotes the prompt; two cards with footers and two pills",
    steps: [
      ...proseSnapshots("markdown_processor_0", `You asked Rufus: "${oneLine}". Here are two example picks for small desks.`, 3),
      ...cardsAndFooters({ groupId: "asin_cards_0", cards: [LAMP, DESK_LAMP], footerIds: "index" }),
      { kind: "pills", labels: ["Is it dimmable?", "Compare with similar lamps"] },
    ],
  };
}

export function pickRufusScenario(prompt: string): RufusScenario {
  const lowered = prompt.toLowerCase();
  for (const scenario of RUFUS_SCENARIOS) {
    if (scenario.trigger !== null && lowered.includes(scenario.trigger)) return scenario;
  }
  return defaultRufusScenario(prompt);
}

// ---------------------------------------------------------------------------------------------------------------
// Views of a scenario (what the page shows), used by the page renderer and the tests alike

/** The final text of every prose group, in the order the groups first appear. */
export function finalProse(scenario: RufusScenario): Array<{ groupId: string; text: string }> {
  const order: string[] = [];
  const texts = new Map<string, string>();
  for (const step of scenario.steps) {
    if (step.kind !== "prose") continue;
    if (!texts.has(step.groupId)) order.push(step.groupId);
    texts.set(step.groupId, step.text);
  }
  return order.map((groupId) => ({ groupId, text: texts.get(groupId) ?? "" }));
}

/** Every card of every card group, in stream order (duplicates included). */
export function allCards(scenario: RufusScenario): RufusCard[] {
  return scenario.steps.flatMap((step) => (step.kind === "cards" ? [...step.group.cards] : []));
}

/** The follow-up pill labels, in order (empty when the scenario has none). */
export function pillLabels(scenario: RufusScenario): string[] {
  return scenario.steps.flatMap((step) => (step.kind === "pills" ? [...step.labels] : []));
}
