/**
 * Deterministic answers of the Gemini replica, chosen by the prompt. Every id, text and source below is fixed data (no
 * clock, no randomness), so tests can compute every expected API field from the exported scenario.
 *
 * Selection rule (`pickGeminiScenario`): the prompt is lower-cased; the first scenario of the table below whose trigger
 * occurs anywhere in it (plain substring) wins. A prompt matching no trigger gets the `default` scenario, whose answer
 * quotes the prompt. Triggers are hyphenated so ordinary prompts do not hit them by accident.
 *
 * | Trigger              | What it exercises (gemini.md §3, §5, §6)                                                       |
 * |----------------------|------------------------------------------------------------------------------------------------|
 * | `many-citations`     | several chips per sentence, a carousel of two chips, adjacent carousels, one source cited in   |
 * |                      | several places, chips in list items and a block quote, a site name with dots ("U.S. …")        |
 * | `table-citations`    | chips inside table cells, one cell with two sources                                            |
 * | `no-citations`       | no chips, no sources; a code block                                                             |
 * | `card-content`       | `[1][0]` is a `card_content` placeholder; the text is in `[22][0]`                             |
 * | `with-thoughts`      | thoughts at `[37][0][0]` in every frame (must not leak into the answer)                         |
 * | `unicode-astral`     | emoji, flags, ZWJ sequences, CJK, math letters: UTF-16 lengths differ from byte counts          |
 * | `late-citations`     | chips render 2 s after the text settled                                                        |
 * | `long-answer`        | about 30 kB of markdown over many cumulative frames, citations in every section               |
 * | `text-artifacts`     | googleusercontent placeholders, a trailing unfinished fence, an escaped `\*` rewrite at the end |
 * | `no-model-name`      | no display name on the wire (the model comes from the mode picker label)                       |
 * | `trailing-error`     | an error envelope (1096) after the complete candidate: not a failure                           |
 * | `wrong-lengths`      | two frames whose length prefix is off (one too long, one too short)                            |
 * | `with-drafts`        | two extra draft candidates after the chosen one                                                |
 * | `inline-links`       | markdown links through a Google redirect and with a text fragment (normalised in the markdown) |
 * | `error-1013` …       | error frames 1013, 1037, 1050, 1060, 1152 instead of an answer                                  |
 * | `invalid-response`   | `[["wrb.fr",null,null,null,null,[8]]]` ("Invalid response")                                      |
 * | `trailers-only`      | nothing but the trailer frames                                                                  |
 * | (anything else)      | `default`: quotes the prompt, two sources (one URL with a text fragment, one Google redirect)  |
 *
 * Citation markers `⟦key,key⟧` in `answer` mark where a chip carousel renders (one chip per key); they are removed from
 * the wire text. `highlights` are written by hand: the DOM text of the span each chip marks (the sentence or clause
 * that ends at the chip, starting after the previous chip of the same block; an empty span repeats the previous one).
 */

export interface GeminiSource {
  key: string;
  /** Title on the source card. */
  title: string;
  /** The card's link as the page renders it (may carry a `#:~:text=` fragment or a Google `/url?q=` wrapper). */
  url: string;
  /** Site name on the chip (`span.source-title`, aria-label) and on the card. */
  site: string;
  /** Card text; "" when the card shows none. */
  snippet: string;
}

export type GeminiStreamError =
  /** `[["wrb.fr",null,null,null,null,[3,null,[["type.googleapis.com/…BardErrorInfo",[code]]]]]]` */
  | { kind: "bard-error"; code: number }
  /** `[["wrb.fr",null,null,null,null,[8]]]` */
  | { kind: "invalid-response" }
  | { kind: "trailers-only" };

export interface GeminiScenario {
  id: string;
  /** Substring of the lower-cased prompt that selects the scenario; null for the default. */
  trigger: string | null;
  /** The answer markdown (the expected `result_markdown`), with citation markers `⟦key,key⟧`. */
  answer: string;
  /**
   * The expected `result`, written by hand (gemini.md §4: the DOM answer text without chips), in the project's plain
   * text conventions (docs/providers.md: blocks separated by a blank line, list markers kept, table rows with tab
   * separated cells, code without fences); "" for scenarios that do not answer.
   */
  plainText: string;
  /** What the text field carries when it differs from the clean answer (artifacts a scraper must strip); null = the answer. */
  wireText: string | null;
  /** Text the in-progress frames are prefixes of, when the final frame rewrites it; null = prefixes of the final text. */
  streamingText: string | null;
  /** The answer arrives as a card: `[1][0]` is a card_content placeholder and `[22][0]` carries the text. */
  cardContent: boolean;
  sources: GeminiSource[];
  /** Expected highlights per source key (hand-written DOM text). */
  highlights: Readonly<Record<string, readonly string[]>>;
  /** Thoughts at `[37][0][0]`; null = none. */
  thoughts: string | null;
  /** Display name on the final inner array; null = absent. */
  modelName: string | null;
  /** Draft candidates after the chosen one in `[4]`. */
  drafts: string[];
  /** Chips and source cards render this long after the text settled. */
  citationDelayMs: number;
  /** Cumulative in-progress frames before the final one. */
  progressFrames: number;
  /** Wrong length prefixes: [index among the data frames (0 = metadata, then progress frames, then final), skew in UTF-16 units]. */
  lengthSkews: ReadonlyArray<readonly [number, number]>;
  /** An error envelope after the complete candidate (1096 is seen on real answers). */
  trailingErrorCode: number | null;
  /** The exchange fails with this instead of answering. */
  error: GeminiStreamError | null;
  conversationId: string;
  responseId: string;
  candidateId: string;
  /** The context string at `[25]` of the final inner array. */
  contextId: string;
}

/** The model display name the replica reports (gemini.md §3, e.g. "3.6 Flash"). */
export const GEMINI_MODEL_NAME = "3.6 Flash";

const BASE: Omit<
  GeminiScenario,
  "id" | "trigger" | "answer" | "plainText" | "conversationId" | "responseId" | "candidateId" | "contextId"
> = {
  wireText: null,
  streamingText: null,
  cardContent: false,
  sources: [],
  highlights: {},
  thoughts: null,
  modelName: GEMINI_MODEL_NAME,
  drafts: [],
  citationDelayMs: 0,
  progressFrames: 4,
  lengthSkews: [],
  trailingErrorCode: null,
  error: null,
};

function ids(suffix: string): Pick<GeminiScenario, "conversationId" | "responseId" | "candidateId" | "contextId"> {
  return {
    conversationId: `c_${suffix}`,
    responseId: `r_${suffix}`,
    candidateId: `rc_${suffix}`,
    contextId: `ctx_${suffix}`,
  };
}

const WIKIPEDIA_PARIS: GeminiSource = {
  key: "wikipedia",
  title: "Paris - Wikipedia",
  url: "https://en.wikipedia.org/wiki/Paris#:~:text=Paris%20is%20the%20capital%20and%20largest%20city",
  site: "Wikipedia",
  snippet: "Paris is the capital and largest city of France, with an estimated population of 2,048,472 residents in January 2025.",
};

const BRITANNICA_EIFFEL: GeminiSource = {
  key: "britannica",
  title: "Eiffel Tower | History, Height, & Facts | Britannica",
  url: "https://www.google.com/url?q=https://www.britannica.com/topic/Eiffel-Tower-Paris-France&sa=D&source=gemini&ust=1763850000000000",
  site: "Britannica",
  snippet: "",
};

function defaultScenario(prompt: string): GeminiScenario {
  return {
    ...BASE,
    ...ids("d3fa17c0e29b4a51"),
    id: "default",
    trigger: null,
    answer: [
      `You asked: "${prompt}".`,
      "",
      "This is the replica's default answer. Paris is the capital and largest city of France.⟦wikipedia⟧ The Eiffel Tower was completed in 1889.⟦britannica⟧",
      "",
      "- It has **bold** text and a list.",
      "- It cites two sources.",
    ].join("\n"),
    plainText: [
      `You asked: "${prompt}".`,
      "",
      "This is the replica's default answer. Paris is the capital and largest city of France. The Eiffel Tower was completed in 1889.",
      "",
      "- It has bold text and a list.",
      "- It cites two sources.",
    ].join("\n"),
    sources: [WIKIPEDIA_PARIS, BRITANNICA_EIFFEL],
    highlights: {
      wikipedia: ["Paris is the capital and largest city of France."],
      britannica: ["The Eiffel Tower was completed in 1889."],
    },
  };
}

const MANY_CITATIONS: GeminiScenario = {
  ...BASE,
  ...ids("5a1e2b3c4d5e6f70"),
  id: "many-citations",
  trigger: "many-citations",
  answer: [
    "## Solar power in 2026",
    "",
    "Solar panels convert sunlight into electricity⟦energy⟧ and now supply a growing share of the grid.⟦iea,energy⟧ Costs fell by about 90% in a decade.⟦irena⟧⟦iea⟧",
    "",
    "- Rooftop systems are common in Germany.⟦cew⟧",
    "- Utility-scale plants dominate in the US.⟦eia⟧ Storage is often added.⟦eia⟧",
    "",
    "> Solar is now the cheapest electricity in history, according to the *IEA*.⟦iea⟧",
  ].join("\n"),
  plainText: [
    "Solar power in 2026",
    "",
    "Solar panels convert sunlight into electricity and now supply a growing share of the grid. Costs fell by about 90% in a decade.",
    "",
    "- Rooftop systems are common in Germany.",
    "- Utility-scale plants dominate in the US. Storage is often added.",
    "",
    "Solar is now the cheapest electricity in history, according to the IEA.",
  ].join("\n"),
  sources: [
    {
      key: "energy",
      title: "How Does Solar Work? | Department of Energy",
      url: "https://www.energy.gov/eere/solar/how-does-solar-work",
      site: "Department of Energy",
      snippet: "Learn the basics of how photovoltaic (PV) technology works.",
    },
    {
      key: "iea",
      title: "Solar PV - IEA",
      url: "https://www.iea.org/energy-system/renewables/solar-pv#:~:text=cheapest",
      site: "IEA",
      snippet: "Solar PV's installed power capacity is poised to surpass that of coal.",
    },
    {
      key: "irena",
      title: "Renewable Power Generation Costs in 2024",
      url: "https://www.irena.org/Publications/2025/Jul/Renewable-Power-Generation-Costs-in-2024",
      site: "IRENA",
      snippet: "The global weighted average cost of electricity from solar PV fell by 90%.",
    },
    {
      key: "cew",
      title: "What German households pay for power",
      url: "https://www.cleanenergywire.org/factsheets/what-german-households-pay-power",
      site: "Clean Energy Wire",
      snippet: "",
    },
    {
      key: "eia",
      title: "Solar explained - U.S. Energy Information Administration (EIA)",
      url: "https://www.eia.gov/energyexplained/solar/",
      site: "U.S. Energy Information Administration (EIA)",
      snippet: "Solar energy is the most abundant of all energy resources.",
    },
  ],
  highlights: {
    energy: ["Solar panels convert sunlight into electricity", "and now supply a growing share of the grid."],
    iea: [
      "and now supply a growing share of the grid.",
      "Costs fell by about 90% in a decade.",
      "Solar is now the cheapest electricity in history, according to the IEA.",
    ],
    irena: ["Costs fell by about 90% in a decade."],
    cew: ["Rooftop systems are common in Germany."],
    eia: ["Utility-scale plants dominate in the US.", "Storage is often added."],
  },
};

const TABLE_CITATIONS: GeminiScenario = {
  ...BASE,
  ...ids("7ab1e0c17a7105f1"),
  id: "table-citations",
  trigger: "table-citations",
  answer: [
    "Here is a comparison of the three largest planets.⟦nasa⟧",
    "",
    "| Planet | Diameter (km) | Notes |",
    "|---|---:|---|",
    "| Jupiter | 139,820 | Largest planet⟦nasa⟧ |",
    "| Saturn | 116,460 | Famous rings⟦nasa,esa⟧ |",
    "| Uranus | 50,724 | Rotates on its side⟦esa⟧ |",
    "",
    "All figures are equatorial diameters.",
  ].join("\n"),
  plainText: [
    "Here is a comparison of the three largest planets.",
    "",
    "Planet\tDiameter (km)\tNotes",
    "Jupiter\t139,820\tLargest planet",
    "Saturn\t116,460\tFamous rings",
    "Uranus\t50,724\tRotates on its side",
    "",
    "All figures are equatorial diameters.",
  ].join("\n"),
  sources: [
    {
      key: "nasa",
      title: "Planet Sizes and Locations in Our Solar System - NASA Science",
      url: "https://science.nasa.gov/solar-system/planets/planet-sizes-and-locations-in-our-solar-system/",
      site: "NASA Science",
      snippet: "Jupiter is the largest planet in our solar system.",
    },
    {
      key: "esa",
      title: "Uranus - ESA",
      url: "https://www.esa.int/Science_Exploration/Space_Science/Uranus",
      site: "European Space Agency",
      snippet: "Uranus rotates on its side, with an axial tilt of 98 degrees.",
    },
  ],
  highlights: {
    nasa: ["Here is a comparison of the three largest planets.", "Largest planet", "Famous rings"],
    esa: ["Famous rings", "Rotates on its side"],
  },
};

const NO_CITATIONS: GeminiScenario = {
  ...BASE,
  ...ids("0c17a710b5e5f00d"),
  id: "no-citations",
  trigger: "no-citations",
  answer: [
    "Here is a small Python function that reverses a string:",
    "",
    "```python",
    "def reverse(text: str) -> str:",
    "    return text[::-1]",
    "```",
    "",
    "It uses *slicing* with a step of `-1`.",
  ].join("\n"),
  plainText: [
    "Here is a small Python function that reverses a string:",
    "",
    "def reverse(text: str) -> str:",
    "    return text[::-1]",
    "",
    "It uses slicing with a step of -1.",
  ].join("\n"),
};

const CARD_CONTENT: GeminiScenario = {
  ...BASE,
  ...ids("ca7dc0a7e7700001"),
  id: "card-content",
  trigger: "card-content",
  cardContent: true,
  answer: [
    "**Weather in Berlin**",
    "",
    "- Today: 14 °C, light rain",
    "- Tomorrow: 17 °C, sunny intervals",
    "",
    "Take an umbrella in the morning.",
  ].join("\n"),
  plainText: [
    "Weather in Berlin",
    "",
    "- Today: 14 °C, light rain",
    "- Tomorrow: 17 °C, sunny intervals",
    "",
    "Take an umbrella in the morning.",
  ].join("\n"),
};

const WITH_THOUGHTS: GeminiScenario = {
  ...BASE,
  ...ids("7h0u9h75a1b2c3d4"),
  id: "with-thoughts",
  trigger: "with-thoughts",
  thoughts: "**Weighing the options**\n\nTHOUGHT-SECRET: the user wants a short comparison. I should compare tea and coffee by caffeine.",
  answer: "Coffee has roughly twice as much caffeine as black tea per cup (about 95 mg against 47 mg).",
  plainText: "Coffee has roughly twice as much caffeine as black tea per cup (about 95 mg against 47 mg).",
};

const UNICODE_ASTRAL: GeminiScenario = {
  ...BASE,
  ...ids("a57a1e40c0de7e57"),
  id: "unicode-astral",
  trigger: "unicode-astral",
  answer: [
    "Emoji 🚀🔥 and flags 🇫🇷🇯🇵 take two UTF-16 units per code point; a family 👨‍👩‍👧‍👦 takes eleven.⟦unicode⟧",
    "",
    "東京は日本の首都です。人口は約1400万人です。⟦tokyo⟧",
    "",
    "Math letters 𝔸𝔹ℂ and 𝒳 live outside the BMP too; combining marks: é (e + ́).",
  ].join("\n"),
  plainText: [
    "Emoji 🚀🔥 and flags 🇫🇷🇯🇵 take two UTF-16 units per code point; a family 👨‍👩‍👧‍👦 takes eleven.",
    "",
    "東京は日本の首都です。人口は約1400万人です。",
    "",
    "Math letters 𝔸𝔹ℂ and 𝒳 live outside the BMP too; combining marks: é (e + ́).",
  ].join("\n"),
  sources: [
    {
      key: "unicode",
      title: "Emoji Frequently Asked Questions 🙂",
      url: "https://unicode.org/faq/emoji_dingbats.html",
      site: "Unicode",
      snippet: "Emoji characters take 2 UTF-16 code units 😀 each.",
    },
    {
      key: "tokyo",
      title: "東京都の人口",
      url: "https://www.metro.tokyo.lg.jp/tosei/hodohappyo/press/2025/01/jinko.html",
      site: "東京都",
      snippet: "東京都の人口は約1400万人。",
    },
  ],
  highlights: {
    unicode: ["Emoji 🚀🔥 and flags 🇫🇷🇯🇵 take two UTF-16 units per code point; a family 👨‍👩‍👧‍👦 takes eleven."],
    tokyo: ["人口は約1400万人です。"],
  },
};

const LATE_CITATIONS: GeminiScenario = {
  ...BASE,
  ...ids("1a7ec17a710a5000"),
  id: "late-citations",
  trigger: "late-citations",
  citationDelayMs: 2000,
  answer: "The Great Wall of China is about 21,196 km long.⟦unesco⟧ It was built over many dynasties.⟦history⟧",
  plainText: "The Great Wall of China is about 21,196 km long. It was built over many dynasties.",
  sources: [
    {
      key: "unesco",
      title: "The Great Wall - UNESCO World Heritage Centre",
      url: "https://whc.unesco.org/en/list/438/",
      site: "UNESCO World Heritage Centre",
      snippet: "In c. 220 B.C., under Qin Shi Huang, sections of earlier fortifications were joined together.",
    },
    {
      key: "history",
      title: "Great Wall of China - Length, Location & Map | HISTORY",
      url: "https://www.history.com/articles/great-wall-of-china",
      site: "HISTORY",
      snippet: "",
    },
  ],
  highlights: {
    unesco: ["The Great Wall of China is about 21,196 km long."],
    history: ["It was built over many dynasties."],
  },
};

const LONG_SECTIONS = 45;

function longAnswer(): { answer: string; plainText: string; sources: GeminiSource[]; highlights: Record<string, string[]> } {
  const sources: GeminiSource[] = [];
  const highlights: Record<string, string[]> = {};
  const sections: string[] = ["# A long report on European rivers", ""];
  // the same report as plain text, written along (blocks separated by a blank line, table cells by tabs, no fences)
  const plain: string[] = ["A long report on European rivers"];
  for (let section = 1; section <= LONG_SECTIONS; section += 1) {
    const key = `river${section}`;
    sources.push({
      key,
      title: `River study ${section} - European Environment Agency`,
      url: `https://www.eea.europa.eu/en/analysis/publications/river-study-${section}`,
      site: `EEA report ${section}`,
      snippet: `Findings of river study number ${section}.`,
    });
    const sentence = `Section ${section} summarises measurements taken along ${section * 37} km of river bank.`;
    highlights[key] = [sentence];
    sections.push(
      `## Section ${section}: observations`,
      "",
      `${sentence}⟦${key}⟧ The water quality in this stretch was rated good in ${2000 + section} and stayed stable afterwards. ` +
        "Sediment samples were collected at regular intervals, dried, weighed and compared with the reference values of the " +
        "previous decade, which showed a slow but steady improvement in most tributaries and a few local setbacks after floods.",
      "",
      `- Temperature: ${10 + (section % 9)} °C on average`,
      `- Flow: ${120 + section * 11} m³/s in spring`,
      `- Species counted: ${40 + section}`,
      "",
      "| Station | Nitrate (mg/l) | Phosphate (mg/l) |",
      "|---|---|---|",
      `| Upstream ${section} | ${(1.2 + section / 10).toFixed(2)} | ${(0.05 + section / 1000).toFixed(3)} |`,
      `| Downstream ${section} | ${(2.4 + section / 10).toFixed(2)} | ${(0.09 + section / 1000).toFixed(3)} |`,
      "",
      "```text",
      `station=${section} samples=${section * 12} status=ok`,
      "```",
      "",
    );
    plain.push(
      `Section ${section}: observations`,
      `${sentence} The water quality in this stretch was rated good in ${2000 + section} and stayed stable afterwards. ` +
        "Sediment samples were collected at regular intervals, dried, weighed and compared with the reference values of the " +
        "previous decade, which showed a slow but steady improvement in most tributaries and a few local setbacks after floods.",
      [
        `- Temperature: ${10 + (section % 9)} °C on average`,
        `- Flow: ${120 + section * 11} m³/s in spring`,
        `- Species counted: ${40 + section}`,
      ].join("\n"),
      [
        "Station\tNitrate (mg/l)\tPhosphate (mg/l)",
        `Upstream ${section}\t${(1.2 + section / 10).toFixed(2)}\t${(0.05 + section / 1000).toFixed(3)}`,
        `Downstream ${section}\t${(2.4 + section / 10).toFixed(2)}\t${(0.09 + section / 1000).toFixed(3)}`,
      ].join("\n"),
      `station=${section} samples=${section * 12} status=ok`,
    );
  }
  sections.push("That concludes the report.");
  plain.push("That concludes the report.");
  return { answer: sections.join("\n"), plainText: plain.join("\n\n"), sources, highlights };
}

const LONG = longAnswer();

const LONG_ANSWER: GeminiScenario = {
  ...BASE,
  ...ids("10e9a115e7000000"),
  id: "long-answer",
  trigger: "long-answer",
  progressFrames: 10,
  answer: LONG.answer,
  plainText: LONG.plainText,
  sources: LONG.sources,
  highlights: LONG.highlights,
};

const TEXT_ARTIFACTS: GeminiScenario = {
  ...BASE,
  ...ids("a1f2a3c4a5f6a7c8"),
  id: "text-artifacts",
  trigger: "text-artifacts",
  answer: [
    "Here is the diagram you asked for.",
    "",
    "The formula is 2 \\* 3 = 6, and the picture is described below.",
    "",
    "```",
    "a -> b",
    "```",
  ].join("\n"),
  plainText: ["Here is the diagram you asked for.", "", "The formula is 2 * 3 = 6, and the picture is described below.", "", "a -> b"].join(
    "\n",
  ),
  wireText: [
    "Here is the diagram you asked for.",
    "",
    "http://googleusercontent.com/image_generation_content/0",
    "",
    "The formula is 2 \\* 3 = 6, and the picture is described below.http://googleusercontent.com/youtube_content/1",
    "",
    "```",
    "a -> b",
    "```",
    "```",
  ].join("\n"),
  streamingText: [
    "Here is the diagram you asked for.",
    "",
    "http://googleusercontent.com/image_generation_content/0",
    "",
    "The formula is 2 * 3 = 6, and the picture is described below.http://googleusercontent.com/youtube_content/1",
  ].join("\n"),
};

const NO_MODEL_NAME: GeminiScenario = {
  ...BASE,
  ...ids("0a0de1a0e0000001"),
  id: "no-model-name",
  trigger: "no-model-name",
  modelName: null,
  answer: "The speed of light in vacuum is exactly 299,792,458 m/s.⟦bipm⟧",
  plainText: "The speed of light in vacuum is exactly 299,792,458 m/s.",
  sources: [
    {
      key: "bipm",
      title: "SI base unit: metre (m) - BIPM",
      url: "https://www.bipm.org/en/si-base-units/metre",
      site: "BIPM",
      snippet: "The metre is defined by taking the fixed numerical value of the speed of light.",
    },
  ],
  highlights: { bipm: ["The speed of light in vacuum is exactly 299,792,458 m/s."] },
};

const TRAILING_ERROR: GeminiScenario = {
  ...BASE,
  ...ids("7a11e1096e000000"),
  id: "trailing-error",
  trigger: "trailing-error",
  trailingErrorCode: 1096,
  answer: "Mount Everest is 8,849 m high.",
  plainText: "Mount Everest is 8,849 m high.",
};

const WRONG_LENGTHS: GeminiScenario = {
  ...BASE,
  ...ids("b4d1e9c7f5000000"),
  id: "wrong-lengths",
  trigger: "wrong-lengths",
  lengthSkews: [
    [1, 3],
    [3, -2],
  ],
  answer: "Honey never spoils: archaeologists have found edible honey in ancient Egyptian tombs. 🍯",
  plainText: "Honey never spoils: archaeologists have found edible honey in ancient Egyptian tombs. 🍯",
};

const WITH_DRAFTS: GeminiScenario = {
  ...BASE,
  ...ids("d4af75000c0ffee0"),
  id: "with-drafts",
  trigger: "with-drafts",
  drafts: ["DRAFT-TWO-SECRET: a second draft the page does not show.", "DRAFT-THREE-SECRET: a third draft."],
  answer: "The chosen draft: water boils at 100 °C at sea level.",
  plainText: "The chosen draft: water boils at 100 °C at sea level.",
};

const INLINE_LINKS: GeminiScenario = {
  ...BASE,
  ...ids("11e1a5c0ffee0042"),
  id: "inline-links",
  trigger: "inline-links",
  // DESIGN.md "URLs we return": one normalisation in every field, so the markdown's links read as citation URLs do
  answer: "Read the [overview](https://example.com/guide) and the [details](https://example.com/details) before you start.",
  plainText: "Read the overview and the details before you start.",
  wireText:
    "Read the [overview](https://www.google.com/url?q=https://example.com/guide&sa=D&source=gemini) and the [details](https://example.com/details#:~:text=exact%20words) before you start.",
};

function errorScenario(id: string, error: GeminiStreamError): GeminiScenario {
  return {
    ...BASE,
    ...ids(`e770${id.replace(/[^0-9a-z]/g, "").slice(-12)}`),
    id,
    trigger: id,
    answer: "",
    plainText: "",
    modelName: null,
    error,
  };
}

/** Error codes of gemini.md §5 that the replica can send as a scenario (`error-<code>`). */
export const GEMINI_ERROR_CODES = [1013, 1037, 1050, 1060, 1152] as const;

export const GEMINI_SCENARIOS: readonly GeminiScenario[] = [
  MANY_CITATIONS,
  TABLE_CITATIONS,
  NO_CITATIONS,
  CARD_CONTENT,
  WITH_THOUGHTS,
  UNICODE_ASTRAL,
  LATE_CITATIONS,
  LONG_ANSWER,
  TEXT_ARTIFACTS,
  NO_MODEL_NAME,
  TRAILING_ERROR,
  WRONG_LENGTHS,
  WITH_DRAFTS,
  INLINE_LINKS,
  ...GEMINI_ERROR_CODES.map((code) => errorScenario(`error-${code}`, { kind: "bard-error", code })),
  errorScenario("invalid-response", { kind: "invalid-response" }),
  errorScenario("trailers-only", { kind: "trailers-only" }),
];

export function pickGeminiScenario(prompt: string): GeminiScenario {
  const lowered = prompt.toLowerCase();
  for (const scenario of GEMINI_SCENARIOS) {
    if (scenario.trigger !== null && lowered.includes(scenario.trigger)) return scenario;
  }
  return defaultScenario(prompt);
}

/** A chip carousel: where it renders in the displayed text (UTF-16 offset) and the sources of its chips. */
export interface CitationPoint {
  offset: number;
  keys: string[];
}

const MARKER = /⟦([^⟧]*)⟧/g;

/** The answer without citation markers, and where the markers were. */
export function splitCitationMarkers(answer: string): { text: string; points: CitationPoint[] } {
  const points: CitationPoint[] = [];
  let text = "";
  let last = 0;
  for (const match of answer.matchAll(MARKER)) {
    text += answer.slice(last, match.index);
    last = match.index + match[0].length;
    const keys = (match[1] ?? "")
      .split(",")
      .map((key) => key.trim())
      .filter((key) => key !== "");
    points.push({ offset: text.length, keys });
  }
  text += answer.slice(last);
  return { text, points };
}

/** Source keys in order of their first chip (the order a scraper returns citations in). */
export function citedSourceOrder(scenario: GeminiScenario): GeminiSource[] {
  const byKey = new Map(scenario.sources.map((source) => [source.key, source]));
  const order: GeminiSource[] = [];
  for (const point of splitCitationMarkers(scenario.answer).points) {
    for (const key of point.keys) {
      const source = byKey.get(key);
      if (source !== undefined && !order.includes(source)) order.push(source);
    }
  }
  return order;
}
