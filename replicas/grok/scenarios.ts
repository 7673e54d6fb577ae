/**
 * Deterministic answers of the Grok replica, chosen by the prompt. Every id, timestamp and text below is fixed data
 * (no clock, no randomness), so tests can compute every expected API field from the exported scenario.
 *
 * Selection rule (`pickGrokScenario`): the prompt is lower-cased; the first scenario of the table below whose trigger
 * occurs anywhere in it (plain substring) wins. A prompt matching no trigger gets the `default` scenario, whose answer
 * and title quote the prompt. Triggers are hyphenated so ordinary prompts do not hit them by accident.
 *
 * | Trigger                 | Scenario: what it exercises (grok.md §6)                                                   |
 * |-------------------------|-------------------------------------------------------------------------------------------|
 * | `no-posts`              | 3 web sources, an empty streamed `xSearchResults`, `xposts: []`                            |
 * | `many-posts`            | 12 posts over two overlapping `xSearchResults` lines; handles with/without `@`; `viewCount`  |
 * |                         | number / string / missing; profile image missing / empty; one empty `createTime`           |
 * | `web-sources-only`      | 4 web sources streamed twice (overlapping), no posts and no `xSearchResults` line at all   |
 * | `unicode-emoji`         | CJK, Hangul, Hebrew, Arabic, combining marks, astral emoji incl. ZWJ families and flags     |
 * | `citation-tags`         | inline citation tags (one with newlines/indentation inside), a repeated card, an          |
 * |                         | unresolved `card_id`, an image-card tag (`image_card` / `render_searched_image`)           |
 * | `thinking-tokens`       | `isThinking:true` tokens before the answer, a non-final `messageTag` token, unknown keys   |
 * | `key-citations`         | no tags, no cards; the answer ends with a `**Key Citations:**` list                         |
 * | `null-optional-fields`  | conversation title null, previews missing/empty, no `followUpSuggestions`, no title line,  |
 * |                         | no `xposts`/`xpostIds` keys, no `model` in `modelResponse`                                  |
 * | `no-conversation-line`  | the stream starts at `userResponse`; no `title` line                                        |
 * | `no-response-wrapper`   | no conversation line; lines are `{"result":{"token":…}}` without `response` (older follow-ups)|
 * | `skip-malformed-line`   | one truncated, unparsable line in the middle of the answer tokens (must be skipped)        |
 * | `long-answer`           | > 30 kB of markdown (headings, lists, tables, code), large token deltas                   |
 * | `xai-artifact`          | an `<xaiArtifact contentType="text/markdown">` wrapper and a ```` ```x-pythonsrc ```` fence   |
 * | (anything else)         | `default`: 2 web sources with citation tags, no posts; the answer quotes the prompt         |
 *
 * `modelResponse.model` (`grok-4-<modeId>`) is present when `includeModel` is true; `null-optional-fields` and
 * `no-response-wrapper` omit it (its presence on the real web stream is unverified).
 */

export const GROK_MODE_IDS = ["auto", "fast", "expert"] as const;
export type GrokModeId = (typeof GROK_MODE_IDS)[number];

export interface GrokWebSearchResult {
  url: string;
  title: string;
  preview?: string;
  siteName?: string;
  citationId?: string;
}

export interface GrokXPost {
  postId: string;
  username: string;
  name: string;
  text: string;
  createTime: string;
  profileImageUrl?: string;
  viewCount?: number | string;
}

/** A card attachment; streamed as `cardAttachment.jsonData` and repeated in `modelResponse.cardAttachmentsJson`, both as JSON strings. */
export interface GrokCard {
  id: string;
  type: string;
  cardType: string;
  url: string;
}

export interface GrokConversation {
  conversationId: string;
  title: string | null;
  starred: boolean;
  createTime: string;
  modifyTime: string;
  systemPromptName: string;
  temporary: boolean;
  mediaTypes: string[];
}

/** A line a scraper must tolerate: extra `response` fields (unknown keys, non-final tokens) or raw unparsable text. */
export type GrokExtraLine =
  | { kind: "response"; position: "before_answer" | "mid_answer"; fields: Record<string, unknown> }
  | { kind: "raw"; position: "before_answer" | "mid_answer"; text: string };

export interface GrokScenario {
  id: string;
  /** Substring of the lower-cased prompt that selects the scenario; null for the default. */
  trigger: string | null;
  summary: string;
  /** Null: the stream has no conversation line. */
  conversation: GrokConversation | null;
  /** `newTitle` of the final title line; null: no title line. */
  newTitle: string | null;
  userResponseId: string;
  responseId: string;
  userCreateTime: string;
  modelCreateTime: string;
  modelHash: string;
  /** `isThinking:true` token deltas, streamed before the answer. */
  thinking: readonly string[];
  /** One streamed `webSearchResults.results` line per entry (they may overlap). */
  streamedWebSearchResults: readonly (readonly GrokWebSearchResult[])[];
  /** One streamed `xSearchResults.results` line per entry (they may overlap). */
  streamedXSearchResults: readonly (readonly GrokXPost[])[];
  cards: readonly GrokCard[];
  extraLines: readonly GrokExtraLine[];
  /** The complete final markdown: `modelResponse.message`; the `final` token deltas concatenate to exactly this. */
  message: string;
  /** Approximate size of one answer token delta, in characters (cut at whitespace). */
  tokenChars: number;
  /** Labels of `finalMetadata.followUpSuggestions`; null: `finalMetadata` has no such key. */
  followUpSuggestions: readonly string[] | null;
  /** `modelResponse.webSearchResults`. */
  webSearchResults: readonly GrokWebSearchResult[];
  /** `modelResponse.xposts` (and `xpostIds`); null: both keys are absent. */
  xposts: readonly GrokXPost[] | null;
  /** Whether `modelResponse` carries `model: "grok-4-<modeId>"`. */
  includeModel: boolean;
  /** False: lines are `{"result":{…}}` without the `response` wrapper (older follow-up endpoint). */
  wrapResponse: boolean;
}

/** Deterministic ids and times of the scenario numbered `seq` (UUID-shaped like the real ones). */
function fixedIds(seq: number): Pick<GrokScenario, "userResponseId" | "responseId" | "userCreateTime" | "modelCreateTime" | "modelHash"> & {
  conversationId: string;
  conversationTime: string;
} {
  const tail = String(seq).padStart(12, "0");
  const base = Date.UTC(2026, 2, 1 + seq, 9, 26, 53, 589);
  return {
    conversationId: `6a1f0c2e-5b7d-4e8a-9c3f-${tail}`,
    userResponseId: `7b2e1d3f-6c8e-4f9b-8d4a-${tail}`,
    responseId: `8c3f2e4a-7d9f-4a0c-9e5b-${tail}`,
    conversationTime: new Date(base).toISOString(),
    userCreateTime: new Date(base + 81).toISOString(),
    modelCreateTime: new Date(base + 4_412).toISOString(),
    modelHash: `rk${tail}Q2h0Y2dyb2s`,
  };
}

function conversationOf(ids: ReturnType<typeof fixedIds>, title: string | null = "New conversation"): GrokConversation {
  return {
    conversationId: ids.conversationId,
    title,
    starred: false,
    createTime: ids.conversationTime,
    modifyTime: ids.conversationTime,
    systemPromptName: "",
    temporary: false,
    mediaTypes: [],
  };
}

/** Fields shared by most scenarios; each scenario overrides what it exercises. */
function baseScenario(seq: number, id: string, trigger: string | null, summary: string): GrokScenario {
  const ids = fixedIds(seq);
  return {
    id,
    trigger,
    summary,
    conversation: conversationOf(ids),
    newTitle: null,
    userResponseId: ids.userResponseId,
    responseId: ids.responseId,
    userCreateTime: ids.userCreateTime,
    modelCreateTime: ids.modelCreateTime,
    modelHash: ids.modelHash,
    thinking: [],
    streamedWebSearchResults: [],
    streamedXSearchResults: [],
    cards: [],
    extraLines: [],
    message: "",
    tokenChars: 14,
    followUpSuggestions: [],
    webSearchResults: [],
    xposts: [],
    includeModel: true,
    wrapResponse: true,
  };
}

/** A citation tag exactly as Grok writes it inline. */
function cite(cardId: string, citationId: number): string {
  return `<grok:render card_id="${cardId}" card_type="citation_card" type="render_inline_citation"><argument name="citation_id">${citationId}</argument></grok:render>`;
}

function citationCard(id: string, url: string): GrokCard {
  return { id, type: "render_inline_citation", cardType: "citation_card", url };
}

// ---------------------------------------------------------------------------------------------------------------
// no-posts

const NO_POSTS_SOURCES: readonly GrokWebSearchResult[] = [
  {
    url: "https://en.wikipedia.org/wiki/Photosynthesis",
    title: "Photosynthesis - Wikipedia",
    preview:
      "Photosynthesis is a system of biological processes by which photosynthetic organisms convert light energy into chemical energy.",
    siteName: "Wikipedia",
    citationId: "",
  },
  {
    url: "https://www.britannica.com/science/photosynthesis",
    title: "Photosynthesis | Definition, Formula, Process, Diagram, & Facts | Britannica",
    preview: "Photosynthesis, the process by which green plants and certain other organisms transform light energy into chemical energy.",
    siteName: "Britannica",
    citationId: "",
  },
  {
    url: "https://www.nationalgeographic.org/encyclopedia/photosynthesis/",
    title: "Photosynthesis - National Geographic Society",
    preview: "Photosynthesis is the process by which plants use sunlight, water, and carbon dioxide to create oxygen and energy.",
    siteName: "National Geographic",
    citationId: "",
  },
];

const noPosts: GrokScenario = {
  ...baseScenario(1, "no-posts", "no-posts", "3 web sources, empty streamed xSearchResults, xposts []"),
  newTitle: "How photosynthesis works",
  streamedWebSearchResults: [NO_POSTS_SOURCES],
  streamedXSearchResults: [[]],
  cards: [
    citationCard("b1c2d3", "https://en.wikipedia.org/wiki/Photosynthesis"),
    citationCard("e4f5a6", "https://www.britannica.com/science/photosynthesis"),
    citationCard("a7b8c9", "https://www.nationalgeographic.org/encyclopedia/photosynthesis/"),
  ],
  message: [
    `**Photosynthesis** turns light energy into chemical energy stored in glucose${cite("b1c2d3", 0)}.`,
    "",
    "It happens in two stages:",
    "",
    `1. **Light-dependent reactions** in the thylakoid membranes split water and release oxygen${cite("e4f5a6", 1)}.`,
    `2. **The Calvin cycle** in the stroma fixes carbon dioxide into sugars${cite("a7b8c9", 2)}.`,
    "",
    "The overall equation is `6CO2 + 6H2O + light → C6H12O6 + 6O2`.",
  ].join("\n"),
  followUpSuggestions: ["What is the Calvin cycle?", "Why are plants green?"],
  webSearchResults: NO_POSTS_SOURCES.map(({ url, title, preview }) => ({ url, title, preview: preview ?? "" })),
  xposts: [],
};

// ---------------------------------------------------------------------------------------------------------------
// many-posts

const MANY_POSTS: readonly GrokXPost[] = [
  {
    postId: "1901000000000000001",
    username: "@astro_ana",
    name: "Ana Ortiz",
    text: "Starship flight 12 just cleared the tower. Incredible view from the causeway!",
    createTime: "2026-02-10T08:15:00Z",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1901/astro_ana_normal.jpg",
    viewCount: 15230,
  },
  {
    postId: "1901000000000000002",
    username: "orbital_ben",
    name: "Ben Okafor",
    text: "Booster catch attempt confirmed for this flight.",
    createTime: "2026-02-10T08:16:30Z",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1902/orbital_ben_normal.jpg",
    viewCount: "8841",
  },
  {
    postId: "1901000000000000003",
    username: "@launchwatch",
    name: "Launch Watch",
    text: "T-minus 10 minutes. Weather is 90% go.",
    createTime: "2026-02-10T07:58:12Z",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1903/launchwatch_normal.jpg",
  },
  {
    postId: "1901000000000000004",
    username: "spacecoast_daily",
    name: "Space Coast Daily",
    text: "Road closures on Highway 4 lifted after the launch.",
    createTime: "2026-02-10T09:02:44Z",
    profileImageUrl: "",
    viewCount: 402,
  },
  {
    postId: "1901000000000000005",
    username: "@nora_rockets",
    name: "Nora Lindqvist",
    text: "Hot staging ring looked clean on the replay.",
    createTime: "2026-02-10T08:20:05Z",
    viewCount: "120577",
  },
  {
    postId: "1901000000000000006",
    username: "propellant_pete",
    name: "Pete Marsh",
    text: "Fun fact: the ship burns roughly 1,500 t of propellant on ascent.",
    createTime: "",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1906/propellant_pete_normal.jpg",
    viewCount: 9911,
  },
  {
    postId: "1901000000000000007",
    username: "@heatshield_hana",
    name: "Hana Sato",
    text: "Tiles held up far better than on flight 11.",
    createTime: "2026-02-10T09:40:00Z",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1907/heatshield_hana_normal.jpg",
    viewCount: 0,
  },
  {
    postId: "1901000000000000008",
    username: "gridfin_gus",
    name: "Gus Ferreira",
    text: "Grid fins moving during the flip, look at that!",
    createTime: "2026-02-10T08:17:51Z",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1908/gridfin_gus_normal.jpg",
    viewCount: 1234567,
  },
  {
    postId: "1901000000000000009",
    username: "@mission_control_mia",
    name: "Mia Brandt",
    text: "Splashdown confirmed 🌊\nTelemetry all nominal.",
    createTime: "2026-02-10T09:05:33Z",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1909/mission_control_mia_normal.jpg",
    viewCount: "77",
  },
  {
    postId: "1901000000000000010",
    username: "raptor_ray",
    name: "Ray Chen",
    text: "All 33 engines lit on the booster.",
    createTime: "2026-02-10T08:14:59Z",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1910/raptor_ray_normal.jpg",
    viewCount: 50210,
  },
  {
    postId: "1901000000000000011",
    username: "@tower_cam",
    name: "Tower Cam",
    text: "Chopsticks closing in… caught!",
    createTime: "2026-02-10T08:22:10Z",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1911/tower_cam_normal.jpg",
    viewCount: 640000,
  },
  {
    postId: "1901000000000000012",
    username: "orbit_olga",
    name: "Olga Petrova",
    text: "Next flight already stacking in the high bay.",
    createTime: "2026-02-10T10:01:00Z",
    profileImageUrl: "https://pbs.twimg.com/profile_images/1912/orbit_olga_normal.jpg",
    viewCount: "3",
  },
];

const MANY_POSTS_SOURCE: GrokWebSearchResult = {
  url: "https://www.spacex.com/launches/starship-flight-12",
  title: "Starship Flight 12 | SpaceX",
  preview: "Starship's twelfth flight test lifted off from Starbase, Texas.",
  siteName: "SpaceX",
  citationId: "",
};

const manyPosts: GrokScenario = {
  ...baseScenario(2, "many-posts", "many-posts", "12 posts, overlapping streamed batches, mixed handle/viewCount/image/createTime shapes"),
  newTitle: "Starship flight 12 reactions",
  streamedWebSearchResults: [[MANY_POSTS_SOURCE]],
  streamedXSearchResults: [MANY_POSTS.slice(0, 7), MANY_POSTS.slice(5)],
  cards: [
    citationCard("5b0c01", "https://www.spacex.com/launches/starship-flight-12"),
    citationCard("5b0c02", "https://x.com/astro_ana/status/1901000000000000001"),
    citationCard("5b0c03", "https://x.com/tower_cam/status/1901000000000000011"),
  ],
  message: [
    `Reactions on X to Starship flight 12 were overwhelmingly positive${cite("5b0c01", 0)}.`,
    "",
    `- Spectators praised the view of the liftoff${cite("5b0c02", 1)}.`,
    `- The booster catch drew the most attention${cite("5b0c03", 2)}.`,
    "- Several accounts noted the heat shield performed better than on the previous flight.",
  ].join("\n"),
  followUpSuggestions: ["When is the next Starship flight?", "How does the booster catch work?", "What changed since flight 11?"],
  webSearchResults: [{ url: MANY_POSTS_SOURCE.url, title: MANY_POSTS_SOURCE.title, preview: MANY_POSTS_SOURCE.preview ?? "" }],
  xposts: MANY_POSTS,
};

// ---------------------------------------------------------------------------------------------------------------
// web-sources-only

const WEB_ONLY_SOURCES: readonly GrokWebSearchResult[] = [
  {
    url: "https://www.python.org/doc/essays/blurb/",
    title: "What is Python? Executive Summary",
    preview: "Python is an interpreted, object-oriented, high-level programming language with dynamic semantics.",
    siteName: "Python.org",
    citationId: "",
  },
  {
    url: "https://docs.python.org/3/faq/general.html",
    title: "General Python FAQ — Python 3 documentation",
    preview: "Python is an interpreted, interactive, object-oriented programming language.",
    siteName: "Python documentation",
    citationId: "",
  },
  {
    url: "https://en.wikipedia.org/wiki/Python_(programming_language)",
    title: "Python (programming language) - Wikipedia",
    preview: "Python is a high-level, general-purpose programming language. Its design philosophy emphasizes code readability.",
    siteName: "Wikipedia",
    citationId: "",
  },
  {
    url: "https://realpython.com/python-first-steps/",
    title: "How to Use Python: Your First Steps – Real Python",
    preview: "In this tutorial, you'll learn the basics of how to use Python.",
    siteName: "Real Python",
    citationId: "",
  },
];

const webSourcesOnly: GrokScenario = {
  ...baseScenario(3, "web-sources-only", "web-sources-only", "4 web sources streamed twice with overlap; no posts, no xSearchResults line"),
  newTitle: "What Python is",
  streamedWebSearchResults: [WEB_ONLY_SOURCES.slice(0, 3), WEB_ONLY_SOURCES.slice(1)],
  cards: [
    citationCard("c0de01", "https://www.python.org/doc/essays/blurb/"),
    citationCard("c0de02", "https://en.wikipedia.org/wiki/Python_(programming_language)"),
  ],
  message: [
    "# Python",
    "",
    `Python is an interpreted, high-level, general-purpose programming language${cite("c0de01", 0)}.`,
    `Its design emphasises code readability with significant indentation${cite("c0de02", 1)}.`,
  ].join("\n"),
  followUpSuggestions: ["How do I install Python?"],
  webSearchResults: WEB_ONLY_SOURCES.map(({ url, title, preview }) => ({ url, title, preview: preview ?? "" })),
  xposts: [],
};

// ---------------------------------------------------------------------------------------------------------------
// unicode-emoji

const UNICODE_SOURCES: readonly GrokWebSearchResult[] = [
  {
    url: "https://ja.wikipedia.org/wiki/%E3%83%AD%E3%82%B1%E3%83%83%E3%83%88",
    title: "ロケット - Wikipedia",
    preview: "ロケットは、推進剤を噴射して推進する装置である。🚀",
    siteName: "ウィキペディア",
    citationId: "",
  },
  {
    url: "https://ar.wikipedia.org/wiki/%D8%B5%D8%A7%D8%B1%D9%88%D8%AE",
    title: "صاروخ - ويكيبيديا",
    preview: "الصاروخ هو مركبة تستمد قوة دفعها من محرك صاروخي.",
    siteName: "ويكيبيديا",
    citationId: "",
  },
];

const UNICODE_POST: GrokXPost = {
  postId: "1902000000000000001",
  username: "@宇宙ファン",
  name: "宇宙ファン 👩‍🚀",
  text: "打ち上げ成功！🚀🎉 #ロケット",
  createTime: "2026-03-04T01:02:03Z",
  profileImageUrl: "https://pbs.twimg.com/profile_images/2001/uchu_normal.jpg",
  viewCount: 4321,
};

const unicodeEmoji: GrokScenario = {
  ...baseScenario(4, "unicode-emoji", "unicode-emoji", "CJK, RTL, combining marks and astral emoji split across chunks"),
  newTitle: "ロケット 🚀 في كل اللغات",
  thinking: ["考え中… 🤔 ", "多言語で答えます。"],
  streamedWebSearchResults: [UNICODE_SOURCES],
  streamedXSearchResults: [[UNICODE_POST]],
  cards: [
    citationCard("aa0001", "https://ja.wikipedia.org/wiki/%E3%83%AD%E3%82%B1%E3%83%83%E3%83%88"),
    citationCard("aa0002", "https://ar.wikipedia.org/wiki/%D8%B5%D8%A7%D8%B1%D9%88%D8%AE"),
  ],
  message: [
    "## 🚀 Rocket in many scripts",
    "",
    `- 日本語: ロケットの打ち上げは成功しました${cite("aa0001", 0)}。`,
    "- 中文：火箭发射成功，助推器已回收。",
    "- 한국어: 로켓 발사가 성공했습니다.",
    "- עברית: שיגור הרקטה הצליח.",
    `- العربية: نجح إطلاق الصاروخ${cite("aa0002", 1)}.`,
    "- Ελληνικά: Η εκτόξευση ήταν επιτυχής.",
    "",
    "Families and flags: 👩‍👩‍👧 👨‍👩‍👧‍👦 🇯🇵 🇸🇦 👍🏽 — math: 𝐀𝐁𝐂 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 — combining: e\u0301te\u0301 (café vs cafe\u0301).",
    "",
    "Emoji at the very end 🛰️🌍🪐",
  ].join("\n"),
  tokenChars: 6,
  followUpSuggestions: ["ロケットの歴史は？", "ما هو أول صاروخ؟"],
  webSearchResults: UNICODE_SOURCES.map(({ url, title, preview }) => ({ url, title, preview: preview ?? "" })),
  xposts: [UNICODE_POST],
};

// ---------------------------------------------------------------------------------------------------------------
// citation-tags

const CITATION_SOURCES: readonly GrokWebSearchResult[] = [
  {
    url: "https://www.spacex.com/vehicles/falcon-9/",
    title: "Falcon 9 | SpaceX",
    preview: "Falcon 9 is a reusable, two-stage rocket designed and manufactured by SpaceX.",
    siteName: "SpaceX",
    citationId: "",
  },
  {
    url: "https://en.wikipedia.org/wiki/Falcon_9",
    title: "Falcon 9 - Wikipedia",
    preview: "Falcon 9 is a partially reusable, two-stage-to-orbit, medium-lift launch vehicle.",
    siteName: "Wikipedia",
    citationId: "",
  },
  {
    url: "https://spaceflightnow.com/launch-schedule/",
    title: "Launch Schedule – Spaceflight Now",
    preview: "Launch times and dates for upcoming rocket launches.",
    siteName: "Spaceflight Now",
    citationId: "",
  },
];

const citationTags: GrokScenario = {
  ...baseScenario(5, "citation-tags", "citation-tags", "inline, multi-line, repeated, unresolved and image-card tags"),
  newTitle: "Falcon 9 reuse record",
  streamedWebSearchResults: [CITATION_SOURCES],
  cards: [
    citationCard("f9a001", "https://www.spacex.com/vehicles/falcon-9/"),
    citationCard("f9a002", "https://en.wikipedia.org/wiki/Falcon_9"),
    citationCard("f9a003", "https://spaceflightnow.com/launch-schedule/"),
    {
      id: "img001",
      type: "render_searched_image",
      cardType: "image_card",
      url: "https://upload.wikimedia.org/wikipedia/commons/falcon9-landing.jpg",
    },
  ],
  message: [
    `Falcon 9 is a partially reusable two-stage rocket${cite("f9a001", 0)}. Its first stage has landed more than 400 times<grok:render card_id="f9a002" card_type="citation_card" type="render_inline_citation">`,
    `    <argument name="citation_id">1</argument>`,
    `</grok:render> and single boosters have flown up to 30 times${cite("f9a001", 0)}${cite("f9a003", 2)}.`,
    "",
    "A landing seen from the drone ship:",
    "",
    `<grok:render card_id="img001" card_type="image_card" type="render_searched_image">`,
    `<argument name="image_id">0</argument>`,
    `<argument name="size">"LARGE"</argument>`,
    `</grok:render>`,
    "",
    `Some figures could not be confirmed${cite("dead00", 7)}.`,
  ].join("\n"),
  followUpSuggestions: ["How does booster landing work?", "What is the Falcon 9 payload capacity?"],
  webSearchResults: CITATION_SOURCES.map(({ url, title, preview }) => ({ url, title, preview: preview ?? "" })),
  xposts: [],
};

// ---------------------------------------------------------------------------------------------------------------
// thinking-tokens

const THINKING_SOURCE: GrokWebSearchResult = {
  url: "https://en.wikipedia.org/wiki/Monty_Hall_problem",
  title: "Monty Hall problem - Wikipedia",
  preview: "The Monty Hall problem is a brain teaser, in the form of a probability puzzle.",
  siteName: "Wikipedia",
  citationId: "",
};

const thinkingTokens: GrokScenario = {
  ...baseScenario(6, "thinking-tokens", "thinking-tokens", "thinking tokens before the answer, a non-final tag, unknown keys"),
  newTitle: "Monty Hall problem",
  thinking: [
    "The user asks about the Monty Hall problem. ",
    "Let me recall: three doors, one car. ",
    "After the host opens a goat door,\n\nswitching wins with probability 2/3. ",
    "I should explain it with the cases.",
  ],
  streamedWebSearchResults: [[THINKING_SOURCE]],
  cards: [citationCard("9e0001", "https://en.wikipedia.org/wiki/Monty_Hall_problem")],
  extraLines: [
    { kind: "response", position: "before_answer", fields: { rolloutId: "rollout-6" } },
    {
      kind: "response",
      position: "before_answer",
      fields: { toolUsageCardId: "tool-6", toolUsageCard: { webSearch: { query: "Monty Hall problem probability" } } },
    },
    {
      kind: "response",
      position: "before_answer",
      fields: {
        token: '{"results":["search done"]}',
        isThinking: false,
        isSoftStop: false,
        messageTag: "raw_function_result",
        messageStepId: 0,
      },
    },
    { kind: "response", position: "mid_answer", fields: { uiLayout: { reasoningUiLayout: "FUNCTION_CALL" } } },
  ],
  message: [
    `**Switch.** Switching doors wins the car with probability 2/3${cite("9e0001", 0)}.`,
    "",
    "| Your first pick | Host opens | Switching gives |",
    "|---|---|---|",
    "| Car | a goat | a goat |",
    "| Goat A | goat B | the car |",
    "| Goat B | goat A | the car |",
  ].join("\n"),
  followUpSuggestions: ["Why is it not 50/50?"],
  webSearchResults: [{ url: THINKING_SOURCE.url, title: THINKING_SOURCE.title, preview: THINKING_SOURCE.preview ?? "" }],
  xposts: [],
};

// ---------------------------------------------------------------------------------------------------------------
// key-citations

const KEY_CITATION_SOURCES: readonly GrokWebSearchResult[] = [
  {
    url: "https://www.nasa.gov/mission/artemis-ii/",
    title: "Artemis II - NASA",
    preview: "Artemis II will be the first crewed flight of the Space Launch System and Orion.",
    siteName: "NASA",
    citationId: "",
  },
  {
    url: "https://www.esa.int/Science_Exploration/Human_and_Robotic_Exploration/Orion",
    title: "ESA - Orion",
    preview: "ESA's European Service Module powers the Orion spacecraft.",
    siteName: "ESA",
    citationId: "",
  },
];

const keyCitations: GrokScenario = {
  ...baseScenario(7, "key-citations", "key-citations", "no tags; the answer ends with a Key Citations list"),
  newTitle: "Artemis II overview",
  streamedWebSearchResults: [KEY_CITATION_SOURCES],
  message: [
    "### Artemis II",
    "",
    "- **Crew:** four astronauts on a lunar flyby.",
    "- **Vehicle:** the Space Launch System with the Orion capsule.",
    "- **Service module:** built by ESA.",
    "",
    "**Key Citations:**",
    "- [Artemis II - NASA](https://www.nasa.gov/mission/artemis-ii/)",
    "- [ESA - Orion](https://www.esa.int/Science_Exploration/Human_and_Robotic_Exploration/Orion)",
  ].join("\n"),
  followUpSuggestions: ["Who is on the Artemis II crew?"],
  webSearchResults: KEY_CITATION_SOURCES.map(({ url, title, preview }) => ({ url, title, preview: preview ?? "" })),
  xposts: [],
};

// ---------------------------------------------------------------------------------------------------------------
// null-optional-fields

const NULLABLE_SOURCES: readonly GrokWebSearchResult[] = [
  { url: "https://example.org/tides", title: "Why there are two tides a day" },
  { url: "https://example.net/moon-gravity", title: "The Moon's pull", preview: "" },
];

const nullOptionalFields: GrokScenario = {
  ...baseScenario(
    8,
    "null-optional-fields",
    "null-optional-fields",
    "null title, missing/empty previews, no follow-ups, no title line, no model",
  ),
  conversation: conversationOf(fixedIds(8), null),
  newTitle: null,
  streamedWebSearchResults: [NULLABLE_SOURCES],
  message: "Tides are caused mainly by the Moon's gravity acting on the oceans.",
  followUpSuggestions: null,
  webSearchResults: NULLABLE_SOURCES,
  xposts: null,
  includeModel: false,
};

// ---------------------------------------------------------------------------------------------------------------
// no-conversation-line

const noConversationLine: GrokScenario = {
  ...baseScenario(9, "no-conversation-line", "no-conversation-line", "the stream starts at userResponse; no title line"),
  conversation: null,
  newTitle: null,
  streamedWebSearchResults: [
    [
      {
        url: "https://example.com/boiling",
        title: "Boiling point of water",
        preview: "100 °C at sea level.",
        siteName: "Example",
        citationId: "",
      },
    ],
  ],
  message: "Water boils at **100 °C** (212 °F) at sea level.",
  followUpSuggestions: ["Why does altitude change the boiling point?"],
  webSearchResults: [{ url: "https://example.com/boiling", title: "Boiling point of water", preview: "100 °C at sea level." }],
  xposts: [],
};

// ---------------------------------------------------------------------------------------------------------------
// no-response-wrapper

const noResponseWrapper: GrokScenario = {
  ...baseScenario(10, "no-response-wrapper", "no-response-wrapper", 'older follow-up framing: {"result":{"token":…}} without response'),
  conversation: null,
  newTitle: null,
  streamedWebSearchResults: [
    [
      {
        url: "https://example.com/speed-of-light",
        title: "Speed of light",
        preview: "299,792,458 m/s",
        siteName: "Example",
        citationId: "",
      },
    ],
  ],
  cards: [citationCard("11ce01", "https://example.com/speed-of-light")],
  message: `Light travels at exactly 299,792,458 m/s in vacuum${cite("11ce01", 0)}.`,
  followUpSuggestions: ["How long does sunlight take to reach Earth?"],
  webSearchResults: [{ url: "https://example.com/speed-of-light", title: "Speed of light", preview: "299,792,458 m/s" }],
  xposts: [],
  includeModel: false,
  wrapResponse: false,
};

// ---------------------------------------------------------------------------------------------------------------
// skip-malformed-line

const skipMalformedLine: GrokScenario = {
  ...baseScenario(11, "skip-malformed-line", "skip-malformed-line", "a truncated, unparsable line mid-answer that must be skipped"),
  newTitle: "Largest planet",
  streamedWebSearchResults: [
    [
      {
        url: "https://science.nasa.gov/jupiter/",
        title: "Jupiter - NASA Science",
        preview: "Jupiter is the largest planet in our solar system.",
        siteName: "NASA Science",
        citationId: "",
      },
    ],
  ],
  extraLines: [{ kind: "raw", position: "mid_answer", text: '{"result":{"response":{"token":" brok' }],
  message: "Jupiter is the largest planet in the Solar System, more than twice as massive as all the others combined.",
  followUpSuggestions: ["How many moons does Jupiter have?"],
  webSearchResults: [
    {
      url: "https://science.nasa.gov/jupiter/",
      title: "Jupiter - NASA Science",
      preview: "Jupiter is the largest planet in our solar system.",
    },
  ],
  xposts: [],
};

// ---------------------------------------------------------------------------------------------------------------
// long-answer

const LONG_SOURCES: readonly GrokWebSearchResult[] = [
  {
    url: "https://en.wikipedia.org/wiki/History_of_computing",
    title: "History of computing - Wikipedia",
    preview: "The history of computing is longer than the history of computing hardware.",
    siteName: "Wikipedia",
    citationId: "",
  },
  {
    url: "https://www.computerhistory.org/timeline/",
    title: "Timeline of Computer History | Computer History Museum",
    preview: "A timeline of computer history from 1931 to today.",
    siteName: "Computer History Museum",
    citationId: "",
  },
];

/** The topics of the long answer's sections (the oracle rebuilds the answer from them independently). */
export const LONG_TOPICS = [
  "mechanical calculators",
  "punched cards",
  "vacuum tubes",
  "transistors",
  "integrated circuits",
  "microprocessors",
  "personal computers",
  "graphical interfaces",
  "networking",
  "the web",
  "mobile devices",
  "cloud computing",
] as const;

/** Builds the long answer from fixed text so it is identical on every run (about 35 kB). */
function longAnswer(): string {
  const sections: string[] = ["# A long history of computing", ""];
  for (let i = 0; i < 40; i += 1) {
    const topic = LONG_TOPICS[i % LONG_TOPICS.length] ?? "computing";
    const n = i + 1;
    sections.push(`## ${n}. Era of ${topic}`);
    sections.push("");
    sections.push(
      `Section ${n} looks at ${topic}. Each generation of machines made computation cheaper, faster and more reliable than the one before it, ` +
        `and ${topic} changed who could build and use computers${cite(i % 2 === 0 ? "1a0001" : "1a0002", i % 2)}. ` +
        `Engineers traded size for speed, then speed for power efficiency, and finally power efficiency for ubiquity. ` +
        `The paragraph is deliberately long so that the whole answer exceeds thirty kilobytes of markdown (part ${n} of 40).`,
    );
    sections.push("");
    sections.push(`- Key idea ${n}.1: ${topic} reduced the cost per operation.`);
    sections.push(`- Key idea ${n}.2: ${topic} changed programming practice.`);
    sections.push(`  - Nested detail ${n}.2.1: tooling followed the hardware.`);
    sections.push(`- Key idea ${n}.3: ${topic} opened new markets.`);
    sections.push("");
    if (n % 6 === 0) {
      sections.push(
        "| Metric | Before | After |",
        "|---|---:|---:|",
        `| Ops per second | ${n}k | ${n * 10}k |`,
        `| Cost per op | $${n}.00 | $0.${n} |`,
        "",
      );
    }
    if (n % 9 === 0) {
      sections.push("```python", `def era_${n}(ops: int) -> float:`, `    return ops / ${n}.0`, "```", "");
    }
  }
  sections.push("That concludes the overview.");
  return sections.join("\n");
}

const longAnswerScenario: GrokScenario = {
  ...baseScenario(12, "long-answer", "long-answer", "more than 30 kB of markdown with large token deltas"),
  newTitle: "History of computing",
  streamedWebSearchResults: [LONG_SOURCES],
  cards: [citationCard("1a0001", LONG_SOURCES[0]?.url ?? ""), citationCard("1a0002", LONG_SOURCES[1]?.url ?? "")],
  message: longAnswer(),
  tokenChars: 400,
  followUpSuggestions: ["Who built the first computer?", "What came after microprocessors?"],
  webSearchResults: LONG_SOURCES.map(({ url, title, preview }) => ({ url, title, preview: preview ?? "" })),
  xposts: [],
};

// ---------------------------------------------------------------------------------------------------------------
// xai-artifact

const xaiArtifact: GrokScenario = {
  ...baseScenario(13, "xai-artifact", "xai-artifact", "an xaiArtifact wrapper and an x-pythonsrc code fence"),
  newTitle: "Launch checklist",
  message: [
    "Here is the checklist you asked for.",
    "",
    '<xaiArtifact artifact_id="3f6b2a10-1c2d-4e5f-8a9b-0c1d2e3f4a5b" artifact_version_id="9c1d2e3f-4a5b-4c6d-8e7f-a0b1c2d3e4f5" title="launch-checklist.md" contentType="text/markdown">',
    "# Launch checklist",
    "",
    "1. Propellant load complete",
    "2. Range is green",
    "3. Flight termination system armed",
    "</xaiArtifact>",
    "",
    "And a countdown helper:",
    "",
    "```x-pythonsrc",
    "def countdown(n: int) -> None:",
    "    for i in range(n, 0, -1):",
    "        print(i)",
    '    print("Liftoff")',
    "```",
  ].join("\n"),
  followUpSuggestions: ["Turn the checklist into a table"],
  xposts: [],
};

/** Every scenario with a trigger, in matching order. */
export const GROK_SCENARIOS: readonly GrokScenario[] = [
  noPosts,
  manyPosts,
  webSourcesOnly,
  unicodeEmoji,
  citationTags,
  thinkingTokens,
  keyCitations,
  nullOptionalFields,
  noConversationLine,
  noResponseWrapper,
  skipMalformedLine,
  longAnswerScenario,
  xaiArtifact,
];

/** Web sources of the default scenario; its answer cites both. */
export const GROK_DEFAULT_SOURCES: readonly GrokWebSearchResult[] = [
  {
    url: "https://en.wikipedia.org/wiki/Special:Search",
    title: "Search results - Wikipedia",
    preview: "Encyclopedia articles matching the question.",
    siteName: "Wikipedia",
    citationId: "",
  },
  {
    url: "https://www.britannica.com/search",
    title: "Britannica search",
    preview: "Reference entries related to the question.",
    siteName: "Britannica",
    citationId: "",
  },
];

/** The answer for a prompt that matches no trigger: quotes the prompt, cites two web sources, no posts. */
export function defaultGrokScenario(prompt: string): GrokScenario {
  const oneLine = prompt.replace(/\s+/g, " ").trim();
  return {
    ...baseScenario(0, "default", null, "2 web sources with citation tags, no posts; quotes the prompt"),
    // Code points, not UTF-16 units, so a title never ends in half an emoji.
    newTitle: Array.from(oneLine).slice(0, 50).join(""),
    streamedWebSearchResults: [GROK_DEFAULT_SOURCES],
    cards: [
      citationCard("d0f001", "https://en.wikipedia.org/wiki/Special:Search"),
      citationCard("d0f002", "https://www.britannica.com/search"),
    ],
    message: [
      `You asked: "${oneLine}".`,
      "",
      `This is the replica's default answer. It cites an encyclopedia${cite("d0f001", 0)} and a second reference${cite("d0f002", 1)}.`,
      "",
      "- It has **bold** text and a list.",
      "- It has no posts from X.",
    ].join("\n"),
    followUpSuggestions: ["Tell me more", "Give me an example"],
    webSearchResults: GROK_DEFAULT_SOURCES.map(({ url, title, preview }) => ({ url, title, preview: preview ?? "" })),
    xposts: [],
  };
}

/** The scenario the replica answers `prompt` with (see the selection rule at the top of this file). */
export function pickGrokScenario(prompt: string): GrokScenario {
  const lowered = prompt.toLowerCase();
  for (const scenario of GROK_SCENARIOS) {
    if (scenario.trigger !== null && lowered.includes(scenario.trigger)) return scenario;
  }
  return defaultGrokScenario(prompt);
}
