/**
 * Deterministic answers of the Google AI Mode replica, chosen by the prompt. Everything below is fixed data (no clock,
 * no randomness): the replica renders its `/async/folwr` fragments from it, and the tests derive every expected API
 * field from it (google_ai_mode.md §4) without calling the parser.
 *
 * Selection (`pickAiModeScenario`): the prompt is lower-cased; the first scenario whose trigger occurs anywhere in it
 * wins. Anything else gets `default`, whose answer quotes the prompt.
 *
 * | Trigger               | What it exercises (google_ai_mode.md §6)                                                       |
 * |-----------------------|-----------------------------------------------------------------------------------------------|
 * | `duplicate-citations` | one chip citing three sources, the same source behind two chips, a chip repeated later         |
 * | `table-and-list`      | chips inside table cells and list items, a nested bullet list, a numbered list                 |
 * | `no-citations`        | no chips, no sources panel, no `Sv6Kpe` comments                                               |
 * | `redirect-urls`       | `/url?q=` redirects (absolute, relative, wrapping a `#:~:text=` URL), a google.com internal link  |
 * | `deutsch`             | a German answer (umlauts, ß, „quotes“, €)                                                     |
 * | `japanese` / `日本語`  | a Japanese answer                                                                               |
 * | `html-entities`       | named and numeric character references in text, attributes and titles                         |
 * | `emoji`               | astral emoji, ZWJ sequences, flags and skin tones, also in a source title                     |
 * | `long-answer`         | a long answer (headings, lists, tables, code) with many chips and panel entries               |
 * | `many-sources`        | a panel with twelve entries of which two are cited                                            |
 * | `panel-fallback`      | chips but no `Sv6Kpe` comments: citations come from the panel                                  |
 * | `site-name-missing`   | records without a site name (`[]` / `null`), a page URL whose fragment has a `:~:text=` suffix |
 */

/** How a URL is written on the wire; the API must return `url` itself in every case. */
export type UrlWire =
  /** as is */
  | "plain"
  /** `url#:~:text=<words>`, or `url#section:~:text=<words>` when the URL already has a fragment */
  | "text_fragment"
  /** `https://www.google.com/url?q=<url>&sa=U&…` */
  | "redirect"
  /** `/url?sa=t&…&q=<url>&…` (relative to the Google origin) */
  | "relative_redirect"
  /** a `/url?q=` redirect whose target carries a `#:~:text=` fragment */
  | "redirect_text_fragment";

export type Inline =
  | string
  | { strong: Inline[] }
  | { em: Inline[] }
  | { code: string }
  /** An external link inside the answer text (kept as a markdown link). */
  | { link: string; wire: UrlWire; text: string }
  /** A link to a google.com internal page (e.g. a related search): the API keeps its text, not the link. */
  | { googleLink: string; text: string }
  /** A citation chip, by chip key. */
  | { chip: string };

export interface BulletItem {
  inline: Inline[];
  children?: Inline[][];
}

export type Block =
  | { kind: "paragraph"; inline: Inline[] }
  | { kind: "heading"; level: 2 | 3; inline: Inline[] }
  | { kind: "bullets"; items: BulletItem[] }
  | { kind: "numbered"; items: Inline[][] }
  | { kind: "table"; head: Inline[][]; rows: Inline[][][] }
  /** A code block; `text` has no trailing newline. */
  | { kind: "code"; text: string };

/** One source record of an `Sv6Kpe` comment (google_ai_mode.md §2). */
export interface AiModeSource {
  key: string;
  title: string;
  snippet: string;
  /** The page URL the API must return. */
  url: string;
  wire: UrlWire;
  /** Slot `[4]`: `["name"]`; `""` writes `[]`, null writes `null` (the API then uses the hostname of slot `[3]`). */
  siteName: string | null;
  /** Slot `[37]`. */
  date: string | null;
}

/** An inline citation chip: `button[data-icl-uuid]` resolved through the comments of its uuid. */
export interface AiModeChip {
  key: string;
  uuid: string;
  /** The chip's `aria-label` (the first source's site name on the real page). */
  label: string;
  /** Source keys, in comment order. */
  sources: string[];
}

/** One entry of the "N sites" panel: `a[target=_blank][rel=noopener][aria-label=title][href]` + date, description, publisher. */
export interface PanelEntry {
  title: string;
  url: string;
  wire: UrlWire;
  date: string | null;
  snippet: string;
  publisher: string;
}

export interface AiModeScenario {
  id: string;
  /** Lower-case substring of the prompt that selects the scenario; null for the default. */
  trigger: string | null;
  blocks: Block[];
  chips: AiModeChip[];
  sources: AiModeSource[];
  /** The sources panel; null = no "N sites" button and no panel at all. */
  panel: PanelEntry[] | null;
  /** Whether the fragment carries the `Sv6Kpe` comments (false = the chips cannot be resolved). */
  comments: boolean;
}

/** A panel entry listing a cited source (the panel is a superset of the cited sources). */
function panelEntryOf(source: AiModeSource, publisher: string, wire: UrlWire = source.wire): PanelEntry {
  return { title: source.title, url: source.url, wire, date: source.date, snippet: source.snippet, publisher };
}

function uuid(scenario: number, chip: number): string {
  return `0f8b2a52-${String(1000 + scenario)}-4c2d-9e3f-${String(chip).padStart(12, "0")}`;
}

// ---------------------------------------------------------------------------------------------------------------
// default

function defaultScenario(prompt: string): AiModeScenario {
  const sources: AiModeSource[] = [
    {
      key: "wiki",
      title: "Search - Wikipedia",
      snippet: "Wikipedia is a free online encyclopedia, created and edited by volunteers around the world.",
      url: "https://en.wikipedia.org/wiki/Special:Search",
      wire: "text_fragment",
      siteName: "Wikipedia",
      date: null,
    },
    {
      key: "britannica",
      title: "Britannica search",
      snippet: "Trusted reference articles on history, science and culture.",
      url: "https://www.britannica.com/search",
      wire: "plain",
      siteName: "Britannica",
      date: "2 Jan 2026",
    },
  ];
  return {
    id: "default",
    trigger: null,
    blocks: [
      { kind: "paragraph", inline: [`You asked: “${prompt}”.`] },
      {
        kind: "paragraph",
        inline: [
          "This is the replica's default answer. It cites an encyclopedia.",
          { chip: "c1" },
          " And a second reference.",
          { chip: "c2" },
        ],
      },
      {
        kind: "bullets",
        items: [
          { inline: ["It has ", { strong: ["bold"] }, " text and a list."] },
          { inline: ["It has a sources panel with three sites."] },
        ],
      },
    ],
    chips: [
      { key: "c1", uuid: uuid(0, 1), label: "Wikipedia", sources: ["wiki"] },
      { key: "c2", uuid: uuid(0, 2), label: "Britannica", sources: ["britannica"] },
    ],
    sources,
    panel: [
      ...sources.map((source) => panelEntryOf(source, source.siteName ?? "")),
      {
        title: "Reference desk",
        url: "https://www.loc.gov/rr/askalib/",
        wire: "plain",
        date: null,
        snippet: "Ask a librarian.",
        publisher: "Library of Congress",
      },
    ],
    comments: true,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// the library

const DUPLICATE_SOURCES: AiModeSource[] = [
  {
    key: "nasa",
    title: "Mars Facts - NASA Science",
    snippet: "Mars is the fourth planet from the Sun, a dusty, cold, desert world.",
    url: "https://science.nasa.gov/mars/facts/",
    wire: "text_fragment",
    siteName: "NASA Science",
    date: "14 Mar 2025",
  },
  {
    key: "esa",
    title: "Mars Express - ESA",
    snippet: "ESA's first mission to another planet has orbited Mars since 2003.",
    url: "https://www.esa.int/Science_Exploration/Space_Science/Mars_Express",
    wire: "plain",
    siteName: "European Space Agency",
    date: null,
  },
  {
    key: "britannica",
    title: "Mars | Facts, Moons, & Color | Britannica",
    snippet: "Mars, fourth planet in the solar system in order of distance from the Sun.",
    url: "https://www.britannica.com/place/Mars-planet",
    wire: "text_fragment",
    siteName: "Britannica",
    date: "9 Feb 2026",
  },
  {
    key: "nasa-again",
    title: "Mars Facts - NASA Science",
    snippet: "Its days are only slightly longer than Earth's.",
    url: "https://science.nasa.gov/mars/facts/",
    wire: "text_fragment",
    siteName: "NASA Science",
    date: "14 Mar 2025",
  },
  {
    key: "planetary",
    title: "Mars | The Planetary Society",
    snippet: "Why we explore Mars.",
    url: "https://www.planetary.org/worlds/mars",
    wire: "plain",
    siteName: "The Planetary Society",
    date: null,
  },
];

const TABLE_SOURCES: AiModeSource[] = [
  {
    key: "usgs",
    title: "Volcanoes | U.S. Geological Survey",
    snippet: "Volcano hazards and monitoring.",
    url: "https://www.usgs.gov/programs/VHP",
    wire: "plain",
    siteName: "USGS",
    date: null,
  },
  {
    key: "si",
    title: "Global Volcanism Program",
    snippet: "Smithsonian Institution's Global Volcanism Program.",
    url: "https://volcano.si.edu/",
    wire: "text_fragment",
    siteName: "Smithsonian Institution",
    date: "3 Nov 2025",
  },
  {
    key: "natgeo",
    title: "Volcanoes, explained",
    snippet: "A volcano is an opening in a planet's surface.",
    url: "https://www.nationalgeographic.com/environment/article/volcanoes",
    wire: "plain",
    siteName: "National Geographic",
    date: null,
  },
];

const REDIRECT_SOURCES: AiModeSource[] = [
  {
    key: "python",
    title: "The Python Tutorial",
    snippet: "Python is an easy to learn, powerful programming language.",
    url: "https://docs.python.org/3/tutorial/index.html",
    wire: "redirect",
    siteName: "Python documentation",
    date: null,
  },
  {
    key: "mdn",
    title: "JavaScript | MDN",
    snippet: "JavaScript (JS) is a lightweight interpreted programming language.",
    url: "https://developer.mozilla.org/en-US/docs/Web/JavaScript?retiredLocale=de",
    wire: "relative_redirect",
    siteName: "MDN Web Docs",
    date: "20 Aug 2025",
  },
  {
    key: "rust",
    title: "The Rust Programming Language",
    snippet: "Rust is a language empowering everyone to build reliable and efficient software.",
    url: "https://doc.rust-lang.org/book/",
    wire: "redirect_text_fragment",
    siteName: "Rust",
    date: null,
  },
];

const GERMAN_SOURCES: AiModeSource[] = [
  {
    key: "bund",
    title: "Schulpflicht und Ferien – Bundesregierung",
    snippet: "Die Ferientermine der Länder für das Schuljahr 2026/27.",
    url: "https://www.bundesregierung.de/breg-de/themen/ferien",
    wire: "text_fragment",
    siteName: "Die Bundesregierung",
    date: "5 Jan 2026",
  },
  {
    key: "zeit",
    title: "Sommerferien: Wann beginnen sie in Bayern?",
    snippet: "Bayern startet traditionell als letztes Bundesland in die Sommerferien.",
    url: "https://www.zeit.de/gesellschaft/schule/sommerferien-bayern",
    wire: "plain",
    siteName: "ZEIT ONLINE",
    date: null,
  },
];

const JAPANESE_SOURCES: AiModeSource[] = [
  {
    key: "jma",
    title: "桜の開花状況 | 気象庁",
    snippet: "さくらの開花日と満開日の平年値を掲載しています。",
    url: "https://www.data.jma.go.jp/sakura/data/index.html",
    wire: "text_fragment",
    siteName: "気象庁",
    date: "2026年3月20日",
  },
  {
    key: "jnto",
    title: "日本のお花見スポット",
    snippet: "全国の桜の名所を紹介します。",
    url: "https://www.japan.travel/ja/spot/hanami/",
    wire: "plain",
    siteName: "JNTO",
    date: null,
  },
];

const ENTITY_SOURCES: AiModeSource[] = [
  {
    key: "fish",
    title: "Fish & Chips: a <short> history",
    snippet: 'Britain\'s "national dish" since the 1860s.',
    url: "https://www.example.co.uk/food/fish-and-chips?ref=a&lang=en",
    wire: "text_fragment",
    siteName: "Example Food & Drink",
    date: null,
  },
  {
    key: "html",
    title: "HTML character references © W3C",
    snippet: "How to write &amp; and friends.",
    url: "https://www.w3.org/International/questions/qa-escapes",
    wire: "plain",
    siteName: "W3C",
    date: "1 Jul 2024",
  },
];

const EMOJI_SOURCES: AiModeSource[] = [
  {
    key: "unicode",
    title: "Emoji 🎉 Frequency – Unicode",
    snippet: "The most frequently used emoji 😂❤️🤣.",
    url: "https://home.unicode.org/emoji/emoji-frequency/",
    wire: "text_fragment",
    siteName: "Unicode",
    date: null,
  },
  {
    key: "emojipedia",
    title: "👨‍👩‍👧 Family: Man, Woman, Girl",
    snippet: "A ZWJ sequence of three emoji.",
    url: "https://emojipedia.org/family-man-woman-girl",
    wire: "plain",
    siteName: "Emojipedia",
    date: "12 Dec 2025",
  },
];

const MANY_SOURCES: AiModeSource[] = [
  {
    key: "s1",
    title: "Coffee and health - Harvard",
    snippet: "Moderate coffee intake is linked to lower risks.",
    url: "https://www.hsph.harvard.edu/nutritionsource/food-features/coffee/",
    wire: "text_fragment",
    siteName: "Harvard T.H. Chan School of Public Health",
    date: null,
  },
  {
    key: "s2",
    title: "Caffeine: How much is too much?",
    snippet: "Up to 400 milligrams a day appears safe for most adults.",
    url: "https://www.mayoclinic.org/healthy-lifestyle/nutrition-and-healthy-eating/in-depth/caffeine/art-20045678",
    wire: "plain",
    siteName: "Mayo Clinic",
    date: "8 Apr 2025",
  },
];

const MANY_PANEL_EXTRA: PanelEntry[] = [
  ["Coffee - Wikipedia", "https://en.wikipedia.org/wiki/Coffee", "Wikipedia"],
  ["Is coffee good for you?", "https://www.bbc.com/future/article/coffee-health", "BBC"],
  ["Coffee consumption and health", "https://www.bmj.com/content/359/bmj.j5024", "The BMJ"],
  ["Caffeine and sleep", "https://www.sleepfoundation.org/nutrition/caffeine-and-sleep", "Sleep Foundation"],
  ["How coffee affects the heart", "https://www.heart.org/en/news/coffee-and-heart", "American Heart Association"],
  ["Coffee and longevity", "https://www.nih.gov/news-events/coffee-longevity", "NIH"],
  ["Decaf facts", "https://www.fda.gov/consumers/decaf", "FDA"],
  ["Espresso vs drip", "https://www.seriouseats.com/espresso-vs-drip", "Serious Eats"],
  ["Coffee statistics", "https://www.ico.org/trade_statistics.asp", "International Coffee Organization"],
  ["The chemistry of coffee", "https://www.acs.org/pressroom/reactions/coffee.html", "American Chemical Society"],
].map(([title, url, publisher], index) => ({
  title: title ?? "",
  url: url ?? "",
  wire: index % 3 === 0 ? "text_fragment" : "plain",
  date: index % 2 === 0 ? `${index + 1} May 2025` : null,
  snippet: `Panel entry ${index + 1} about coffee.`,
  publisher: publisher ?? "",
}));

const FALLBACK_PANEL: PanelEntry[] = [
  {
    title: "Tides - NOAA",
    url: "https://oceanservice.noaa.gov/facts/tides.html",
    wire: "text_fragment",
    date: null,
    snippet: "Tides are caused by the gravitational pull of the moon.",
    publisher: "NOAA",
  },
  {
    title: "Tide | Definition",
    url: "https://www.britannica.com/science/tide",
    wire: "redirect",
    date: "30 Sep 2025",
    snippet: "Tide, any of the cyclic deformations of one astronomical body.",
    publisher: "Britannica",
  },
  {
    title: "Spring and neap tides",
    url: "https://www.metoffice.gov.uk/weather/learn-about/weather/oceans/tides",
    wire: "plain",
    date: null,
    snippet: "What causes spring and neap tides.",
    publisher: "Met Office",
  },
];

const SITE_NAME_SOURCES: AiModeSource[] = [
  {
    key: "bare",
    title: "Opening hours",
    snippet: "The museum is open daily.",
    url: "https://www.louvre.fr/en/visit/hours#opening",
    wire: "text_fragment",
    siteName: "",
    date: null,
  },
  {
    key: "null-site",
    title: "Tickets",
    snippet: "Buy tickets online.",
    url: "https://tickets.example.org/louvre",
    wire: "plain",
    siteName: null,
    date: null,
  },
  {
    key: "named",
    title: "Louvre Museum - Wikipedia",
    snippet: "The Louvre is the world's most-visited museum.",
    url: "https://en.wikipedia.org/wiki/Louvre",
    wire: "text_fragment",
    siteName: "Wikipedia",
    date: null,
  },
];

const STATIC_SCENARIOS: AiModeScenario[] = [
  {
    id: "duplicate-citations",
    trigger: "duplicate-citations",
    blocks: [
      { kind: "heading", level: 2, inline: ["Mars at a glance"] },
      {
        kind: "paragraph",
        inline: ["Mars is the fourth planet from the Sun and has been orbited by spacecraft for decades.", { chip: "many" }],
      },
      { kind: "paragraph", inline: ["A day on Mars lasts about 24.6 hours.", { chip: "nasa" }] },
      { kind: "paragraph", inline: ["Its red colour comes from iron oxide dust.", { chip: "many" }] },
    ],
    chips: [
      { key: "many", uuid: uuid(1, 1), label: "NASA Science", sources: ["nasa", "esa", "britannica"] },
      { key: "nasa", uuid: uuid(1, 2), label: "NASA Science", sources: ["nasa-again"] },
    ],
    sources: DUPLICATE_SOURCES,
    panel: [
      ...DUPLICATE_SOURCES.filter((source) => source.key !== "nasa-again").map((source) => panelEntryOf(source, source.siteName ?? "")),
    ],
    comments: true,
  },
  {
    id: "table-and-list",
    trigger: "table-and-list",
    blocks: [
      { kind: "paragraph", inline: ["Here are three well-known volcanoes and their last eruptions."] },
      {
        kind: "table",
        head: [["Volcano"], ["Country"], ["Last eruption"]],
        rows: [
          [["Etna"], ["Italy"], ["2025", { chip: "si" }]],
          [["Kilauea"], ["United States"], ["2024", { chip: "usgs" }]],
          [["Fuji"], ["Japan"], ["1707"]],
        ],
      },
      { kind: "heading", level: 3, inline: ["Warning signs"] },
      {
        kind: "bullets",
        items: [
          { inline: [{ strong: ["Earthquakes:"] }, " swarms of small quakes.", { chip: "usgs" }] },
          {
            inline: [{ strong: ["Gas:"] }, " rising sulfur dioxide levels.", { chip: "natgeo" }],
            children: [["measured by satellites"], ["measured on the ground"]],
          },
        ],
      },
      {
        kind: "numbered",
        items: [["Check the alert level.", { chip: "si" }], ["Follow local guidance."]],
      },
    ],
    chips: [
      { key: "si", uuid: uuid(2, 1), label: "Smithsonian Institution", sources: ["si"] },
      { key: "usgs", uuid: uuid(2, 2), label: "USGS", sources: ["usgs"] },
      { key: "natgeo", uuid: uuid(2, 3), label: "National Geographic", sources: ["natgeo"] },
    ],
    sources: TABLE_SOURCES,
    panel: [
      ...TABLE_SOURCES.map((source) => panelEntryOf(source, source.siteName ?? "")),
      {
        title: "Volcano alert levels",
        url: "https://www.usgs.gov/programs/VHP/about-alert-levels",
        wire: "plain",
        date: null,
        snippet: "Alert levels explained.",
        publisher: "USGS",
      },
    ],
    comments: true,
  },
  {
    id: "no-citations",
    trigger: "no-citations",
    blocks: [
      { kind: "heading", level: 3, inline: ["Quick answer"] },
      { kind: "paragraph", inline: ["Water boils at 100 degrees Celsius at sea level."] },
      { kind: "bullets", items: [{ inline: ["Lower pressure lowers the boiling point."] }, { inline: ["Salt raises it slightly."] }] },
    ],
    chips: [],
    sources: [],
    panel: null,
    comments: false,
  },
  {
    id: "redirect-urls",
    trigger: "redirect-urls",
    blocks: [
      {
        kind: "paragraph",
        inline: [
          "Start with the official ",
          { link: "https://docs.python.org/3/", wire: "redirect", text: "Python docs" },
          " and compare ",
          { googleLink: "/search?q=python+vs+javascript&udm=50", text: "Python with JavaScript" },
          ".",
          { chip: "python" },
        ],
      },
      { kind: "paragraph", inline: ["JavaScript runs in every browser.", { chip: "mdn" }] },
      { kind: "paragraph", inline: ["Rust focuses on memory safety.", { chip: "rust" }] },
    ],
    chips: [
      { key: "python", uuid: uuid(3, 1), label: "Python documentation", sources: ["python"] },
      { key: "mdn", uuid: uuid(3, 2), label: "MDN Web Docs", sources: ["mdn"] },
      { key: "rust", uuid: uuid(3, 3), label: "Rust", sources: ["rust"] },
    ],
    sources: REDIRECT_SOURCES,
    // the panel writes each URL in another way than the comments do
    panel: REDIRECT_SOURCES.map((source, index) =>
      panelEntryOf(source, source.siteName ?? "", (["relative_redirect", "redirect", "redirect_text_fragment"] as const)[index]),
    ),
    comments: true,
  },
  {
    id: "deutsch",
    trigger: "deutsch",
    blocks: [
      { kind: "paragraph", inline: ["Die Sommerferien in Bayern beginnen Ende Juli und dauern sechs Wochen.", { chip: "bund" }] },
      {
        kind: "bullets",
        items: [
          { inline: ["Größte Reisewelle: Anfang August."] },
          { inline: ["„Brückentage“ verlängern die Ferien.", { chip: "zeit" }] },
          { inline: ["Ein Ferienticket kostet 29 €."] },
        ],
      },
    ],
    chips: [
      { key: "bund", uuid: uuid(4, 1), label: "Die Bundesregierung", sources: ["bund"] },
      { key: "zeit", uuid: uuid(4, 2), label: "ZEIT ONLINE", sources: ["zeit"] },
    ],
    sources: GERMAN_SOURCES,
    panel: GERMAN_SOURCES.map((source) => panelEntryOf(source, source.siteName ?? "")),
    comments: true,
  },
  {
    id: "japanese",
    trigger: "japanese",
    blocks: [
      { kind: "paragraph", inline: ["東京の桜は例年3月下旬に開花し、4月上旬に満開になります。", { chip: "jma" }] },
      { kind: "bullets", items: [{ inline: ["上野公園"] }, { inline: ["新宿御苑", { chip: "jnto" }] }, { inline: ["目黒川"] }] },
    ],
    chips: [
      { key: "jma", uuid: uuid(5, 1), label: "気象庁", sources: ["jma"] },
      { key: "jnto", uuid: uuid(5, 2), label: "JNTO", sources: ["jnto"] },
    ],
    sources: JAPANESE_SOURCES,
    panel: JAPANESE_SOURCES.map((source) => panelEntryOf(source, source.siteName ?? "")),
    comments: true,
  },
  {
    id: "html-entities",
    trigger: "html-entities",
    blocks: [
      { kind: "paragraph", inline: ['Fish & chips became Britain\'s "national dish" around 1860 — © history.', { chip: "fish" }] },
      { kind: "paragraph", inline: ["In HTML, write <p> as text with character references; a price of 5 € stays 5\u00a0€."] },
      { kind: "bullets", items: [{ inline: ["AT&T and Procter & Gamble use ampersands.", { chip: "html" }] }] },
    ],
    chips: [
      { key: "fish", uuid: uuid(6, 1), label: "Example Food & Drink", sources: ["fish"] },
      { key: "html", uuid: uuid(6, 2), label: "W3C", sources: ["html"] },
    ],
    sources: ENTITY_SOURCES,
    panel: ENTITY_SOURCES.map((source) => panelEntryOf(source, source.siteName ?? "")),
    comments: true,
  },
  {
    id: "emoji",
    trigger: "emoji",
    blocks: [
      { kind: "paragraph", inline: ["The most used emoji is 😂, followed by ❤️ and 🤣.", { chip: "unicode" }] },
      {
        kind: "bullets",
        items: [
          { inline: ["Families like 👨‍👩‍👧 are ZWJ sequences.", { chip: "emojipedia" }] },
          { inline: ["Flags such as 🇩🇪 and 🇯🇵 are pairs of regional indicators."] },
          { inline: ["Skin tones: 👍🏽 👋🏿."] },
        ],
      },
    ],
    chips: [
      { key: "unicode", uuid: uuid(7, 1), label: "Unicode", sources: ["unicode"] },
      { key: "emojipedia", uuid: uuid(7, 2), label: "Emojipedia", sources: ["emojipedia"] },
    ],
    sources: EMOJI_SOURCES,
    panel: EMOJI_SOURCES.map((source) => panelEntryOf(source, source.siteName ?? "")),
    comments: true,
  },
  longAnswerScenario(),
  {
    id: "many-sources",
    trigger: "many-sources",
    blocks: [
      { kind: "paragraph", inline: ["Up to four cups of coffee a day is considered safe for most adults.", { chip: "s2" }] },
      { kind: "paragraph", inline: ["Regular drinkers show lower risks of several diseases.", { chip: "s1" }] },
    ],
    chips: [
      { key: "s2", uuid: uuid(9, 1), label: "Mayo Clinic", sources: ["s2"] },
      { key: "s1", uuid: uuid(9, 2), label: "Harvard T.H. Chan School of Public Health", sources: ["s1"] },
    ],
    sources: MANY_SOURCES,
    // the two cited sources sit first and seventh among twelve entries
    panel: MANY_SOURCES.map((source) => panelEntryOf(source, source.siteName ?? "")).flatMap((entry, index) =>
      index === 0 ? [entry, ...MANY_PANEL_EXTRA.slice(0, 5)] : [entry, ...MANY_PANEL_EXTRA.slice(5)],
    ),
    comments: true,
  },
  {
    id: "panel-fallback",
    trigger: "panel-fallback",
    blocks: [
      { kind: "paragraph", inline: ["Tides are caused mainly by the Moon's gravity.", { chip: "noaa" }] },
      { kind: "paragraph", inline: ["Spring tides happen at new and full moon.", { chip: "met" }] },
    ],
    chips: [
      { key: "noaa", uuid: uuid(10, 1), label: "NOAA", sources: [] },
      { key: "met", uuid: uuid(10, 2), label: "Met Office", sources: [] },
    ],
    sources: [],
    panel: FALLBACK_PANEL,
    comments: false,
  },
  {
    id: "site-name-missing",
    trigger: "site-name-missing",
    blocks: [
      { kind: "paragraph", inline: ["The Louvre opens at 9 in the morning.", { chip: "hours" }] },
      { kind: "paragraph", inline: ["Tickets are cheaper online.", { chip: "tickets" }] },
    ],
    chips: [
      { key: "hours", uuid: uuid(11, 1), label: "louvre.fr", sources: ["bare", "named"] },
      { key: "tickets", uuid: uuid(11, 2), label: "tickets.example.org", sources: ["null-site"] },
    ],
    sources: SITE_NAME_SOURCES,
    panel: SITE_NAME_SOURCES.map((source) => panelEntryOf(source, source.siteName ?? "")),
    comments: true,
  },
];

/** About 35 kB of answer text: twelve sections, each with a heading, a paragraph, a list, every third a table, one code block. */
function longAnswerScenario(): AiModeScenario {
  const topics = [
    "History",
    "Geography",
    "Climate",
    "Economy",
    "Transport",
    "Culture",
    "Cuisine",
    "Sport",
    "Education",
    "Science",
    "Architecture",
    "Tourism",
  ];
  const sources: AiModeSource[] = topics.map((topic, index) => ({
    key: `t${index}`,
    title: `${topic} of the Alps`,
    snippet: `An overview of the ${topic.toLowerCase()} of the Alpine region.`,
    url: `https://alps.example.org/${topic.toLowerCase()}/overview`,
    wire: index % 4 === 0 ? "text_fragment" : index % 4 === 1 ? "redirect" : "plain",
    siteName: index % 5 === 4 ? null : `Alps Guide ${index + 1}`,
    date: index % 2 === 0 ? `${index + 1} Jun 2025` : null,
  }));
  const chips: AiModeChip[] = topics.map((_topic, index) => ({
    key: `t${index}`,
    uuid: uuid(8, index + 1),
    label: `Alps Guide ${index + 1}`,
    sources: index % 3 === 2 ? [`t${index}`, `t${(index + 1) % topics.length}`] : [`t${index}`],
  }));
  const filler =
    "The Alps stretch across eight countries and shape the weather, the rivers and the way of life of millions of people, " +
    "from the shores of the Mediterranean to the plains of the Danube, and they keep drawing travellers in every season";
  const blocks: Block[] = [];
  topics.forEach((topic, index) => {
    blocks.push({ kind: "heading", level: 3, inline: [topic] });
    blocks.push({
      kind: "paragraph",
      inline: [
        `${topic}: ${filler}; this section adds detail number ${index + 1} with enough words to make the answer long. `,
        filler,
        ".",
      ],
    });
    blocks.push({ kind: "paragraph", inline: [`In more detail: ${filler}, and ${filler.toLowerCase()}.`] });
    blocks.push({
      kind: "paragraph",
      inline: [`Looking ahead: ${filler}; ${filler.toLowerCase()}; ${filler.toLowerCase()}; ${filler.toLowerCase()}.`],
    });
    blocks.push({ kind: "paragraph", inline: [`Seen from ${topic.toLowerCase()}: ${filler}, while ${filler.toLowerCase()}.`] });
    blocks.push({ kind: "paragraph", inline: [{ strong: [`Key point ${index + 1}:`] }, ` ${topic} matters.`, { chip: `t${index}` }] });
    blocks.push({
      kind: "bullets",
      items: [
        { inline: [`First fact about ${topic.toLowerCase()}, with `, { em: ["emphasis"] }, " and detail."] },
        { inline: [`Second fact about ${topic.toLowerCase()}.`] },
        { inline: [`Third fact, see `, { code: `alps_${index}` }, " for the data."] },
      ],
    });
    if (index % 3 === 0) {
      blocks.push({
        kind: "table",
        head: [["Region"], ["Peak"], ["Height"]],
        rows: [
          [[`${topic} north`], ["Mont Blanc"], ["4808 m"]],
          [[`${topic} south`], ["Monte Rosa"], ["4634 m", { chip: `t${index}` }]],
        ],
      });
    }
  });
  blocks.push({
    kind: "code",
    text: 'peaks = {"Mont Blanc": 4808, "Monte Rosa": 4634}\nfor name, height in peaks.items():\n    print(name, height)',
  });
  return {
    id: "long-answer",
    trigger: "long-answer",
    blocks,
    chips,
    sources,
    panel: [...sources.map((source) => panelEntryOf(source, source.siteName ?? "Alps Guide"))].concat(
      topics.slice(0, 6).map((topic, index) => ({
        title: `${topic} photos`,
        url: `https://photos.example.net/alps/${index}`,
        wire: "plain",
        date: null,
        snippet: "Photo gallery.",
        publisher: "Photos",
      })),
    ),
    comments: true,
  };
}

/** Triggers that select the same scenario as another one (the Japanese one by its own name too). */
const TRIGGER_ALIASES: ReadonlyArray<[alias: string, scenarioId: string]> = [["日本語", "japanese"]];

export const AI_MODE_SCENARIOS: readonly AiModeScenario[] = STATIC_SCENARIOS;

/** The scenario a prompt selects (see the table at the top). */
export function pickAiModeScenario(prompt: string): AiModeScenario {
  const lower = prompt.toLowerCase();
  for (const scenario of STATIC_SCENARIOS) {
    if (scenario.trigger !== null && lower.includes(scenario.trigger)) return scenario;
  }
  for (const [alias, id] of TRIGGER_ALIASES) {
    const scenario = STATIC_SCENARIOS.find((candidate) => candidate.id === id);
    if (scenario !== undefined && lower.includes(alias)) return scenario;
  }
  return defaultScenario(prompt);
}

/** Every chip key in order of first appearance in the answer (document order). */
export function chipOrder(blocks: readonly Block[]): string[] {
  const order: string[] = [];
  const visit = (inline: readonly Inline[]): void => {
    for (const item of inline) {
      if (typeof item === "string") continue;
      if ("chip" in item) {
        if (!order.includes(item.chip)) order.push(item.chip);
      } else if ("strong" in item) visit(item.strong);
      else if ("em" in item) visit(item.em);
    }
  };
  for (const block of blocks) {
    switch (block.kind) {
      case "paragraph":
      case "heading":
        visit(block.inline);
        break;
      case "bullets":
        for (const item of block.items) {
          visit(item.inline);
          for (const child of item.children ?? []) visit(child);
        }
        break;
      case "numbered":
        for (const item of block.items) visit(item);
        break;
      case "table":
        for (const cell of block.head) visit(cell);
        for (const row of block.rows) for (const cell of row) visit(cell);
        break;
      case "code":
        break;
    }
  }
  return order;
}
