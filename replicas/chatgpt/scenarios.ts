/**
 * Deterministic answers of the ChatGPT replica, chosen by the prompt. Every id, text and URL below is fixed data (no
 * clock, no randomness), so tests can derive every expected API field from the exported scenario (see expected.ts).
 *
 * An answer is a list of segments: plain markdown, ordinary markdown links, citation markers (`\ue200cite\ue202turn0search0\ue201`
 * with a `grouped_webpages` content reference), other widgets (`navlist`, `products`, `entity`…), markers without any
 * reference, and stray private-use characters. stream.ts turns them into the raw `parts[0]` text plus the
 * `content_references` of chatgpt.md §3/§4, exactly as the site streams them.
 *
 * Selection rule (`pickChatgptScenario`): the prompt is lower-cased; the first scenario whose trigger occurs anywhere in
 * it wins. A prompt matching no trigger gets `default`, whose answer quotes the prompt. Triggers are hyphenated so
 * ordinary prompts do not hit them by accident.
 *
 * | Trigger               | What it exercises (chatgpt.md §6)                                                                  |
 * |-----------------------|----------------------------------------------------------------------------------------------------|
 * | `no-search`           | no tool messages: `search_queries` empty, no links                                                  |
 * | `uncited-search`      | a search ran (queries) but the reply cites nothing and has no links                                 |
 * | `several-queries`     | two tool messages (`web.run` and `web`), overlapping queries, an assistant tool call in `text`     |
 * | `many-references`     | 12 sources, one marker citing several, `#:~:text=`, Google `/url?q=`, foreign `utm_source`, a       |
 * |                       | Wikipedia URL with parentheses, a repeated citation, a `sources_footnote`, no `resolved_model_slug` |
 * | `table-citations`     | markers and an ordinary link inside markdown table cells                                            |
 * | `widget-markers`      | `navlist`/`products` dropped, `entity` replaced by its alt, an unreferenced marker, stray U+E203/4/6 |
 * | `code-blocks`         | fenced code with `[`, `|` and `](`, inline code that looks like a link, one real link               |
 * | `unicode-rtl`         | emoji (astral, ZWJ, flags), CJK, Arabic and Hebrew, raw UTF-8 private-use markers                   |
 * | `long-answer`         | > 30 kB of markdown with citations, large text frames                                               |
 * | `thinking-commentary` | a `thoughts` message, a `reasoning_recap` and a `commentary` message before the answer             |
 * | `tiny-frames`         | 3-character value-only frames, `add` frames without `c`, unknown typed frames                     |
 * | `max-tokens`          | `finish_details.type:"max_tokens"`, status `finished_partial_completion`                            |
 * | `legacy-format`       | the old non-v1 stream: every `data:` is the whole message, `parts[0]` cumulative                    |
 * | (anything else)       | `default`: one search, two citations; the answer quotes the prompt                                  |
 */

export interface ChatgptSource {
  /** The URL as the API returns it (DESIGN.md: provider tracking parameter, text fragments and redirects removed). */
  url: string;
  /** The URL as the site sends it when it is not simply `url` plus `utm_source=chatgpt.com`. */
  wireUrl?: string;
  title: string;
  snippet: string;
  /** Site name of the citation pill: the link text of the citation's `alt`. */
  attribution: string;
}

export interface ChatgptSearch {
  /** `author.name` of the tool message. */
  toolName: "web.run" | "web";
  queries: readonly string[];
  sources: readonly ChatgptSource[];
  /**
   * The assistant's tool call (`recipient:"web.run"`) sent before the results, and its content type; null: none.
   * A call in `text` must be recognised by its recipient, not by its content type.
   */
  call: "code" | "text" | null;
}

/** A source cited by a marker: `turn<search>search<index>`. */
export interface SourceRef {
  search: number;
  index: number;
}

export type AnswerSegment =
  /** `plain`: the text as `result` shows it (chatgpt.md §4: plain text of the markdown), written by hand; absent = `text`. */
  | { kind: "text"; text: string; plain?: string }
  | { kind: "link"; text: string; url: string; wireUrl?: string }
  | { kind: "cite"; refs: readonly SourceRef[] }
  | { kind: "widget"; widget: string; body: string; alt: string; promptText: string | null }
  | { kind: "orphan"; body: string }
  | { kind: "stray"; char: "\ue203" | "\ue204" | "\ue206" };

/** A message before the answer that is not part of it. */
export type HiddenMessage =
  | { kind: "thoughts"; summary: string; content: string }
  | { kind: "reasoning_recap"; text: string }
  | { kind: "commentary"; text: string };

export interface ChatgptScenario {
  id: string;
  trigger: string | null;
  /** "v1": delta encoding; "legacy": the old cumulative snapshots (also served when the page does not offer v1). */
  encoding: "v1" | "legacy";
  modelSlug: string;
  /** `metadata.resolved_model_slug`; null: the key is absent. */
  resolvedModelSlug: string | null;
  searches: readonly ChatgptSearch[];
  hidden: readonly HiddenMessage[];
  answer: (prompt: string) => AnswerSegment[];
  finish: "stop" | "max_tokens";
  title: string;
  /** Characters of answer text per value-only frame. */
  frameChars: number;
  /** true: JSON with every non-ASCII character as a `\u` escape (markers arrive as `\ue200`); false: raw UTF-8. */
  escapeNonAscii: boolean;
  /** true: `add` frames carry the message index `c`. */
  withMessageIndex: boolean;
  /** true: a `sources_footnote` reference whose `matched_text` is a single space ends the references (as on the site). */
  sourcesFootnote: boolean;
}

export const SEARCH_HINT = "search";

// ---------------------------------------------------------------------------------------------------------------
// Segment helpers

/** Markdown text; `plain` is its plain-text form written by hand when it differs (markup, or blank lines a block gap absorbs). */
const text = (value: string, plain?: string): AnswerSegment =>
  plain === undefined ? { kind: "text", text: value } : { kind: "text", text: value, plain };
const cite = (...refs: Array<[search: number, index: number]>): AnswerSegment => ({
  kind: "cite",
  refs: refs.map(([search, index]) => ({ search, index })),
});
const link = (label: string, url: string, wireUrl?: string): AnswerSegment =>
  wireUrl === undefined ? { kind: "link", text: label, url } : { kind: "link", text: label, url, wireUrl };

const widget = (name: string, body: string, alt: string, promptText: string | null = null): AnswerSegment => ({
  kind: "widget",
  widget: name,
  body,
  alt,
  promptText,
});

function source(url: string, title: string, attribution: string, snippet: string, wireUrl?: string): ChatgptSource {
  return wireUrl === undefined ? { url, title, attribution, snippet } : { url, title, attribution, snippet, wireUrl };
}

function base(id: string, trigger: string | null): ChatgptScenario {
  return {
    id,
    trigger,
    encoding: "v1",
    modelSlug: "gpt-5",
    resolvedModelSlug: "gpt-5-2026-10-14",
    searches: [],
    hidden: [],
    answer: () => [],
    finish: "stop",
    title: "Replica conversation",
    frameChars: 18,
    escapeNonAscii: true,
    withMessageIndex: true,
    sourcesFootnote: true,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// default

const DEFAULT_SOURCES: readonly ChatgptSource[] = [
  source(
    "https://en.wikipedia.org/wiki/Special:Search",
    "Search - Wikipedia",
    "Wikipedia",
    "Wikipedia is a free online encyclopedia that anyone can edit.",
  ),
  source("https://www.britannica.com/search", "Search Britannica", "Britannica", "Britannica's articles are written by experts."),
];

const DEFAULT: ChatgptScenario = {
  ...base("default", null),
  searches: [{ toolName: "web.run", queries: ["replica default answer"], sources: DEFAULT_SOURCES, call: null }],
  answer: (prompt) => [
    text(`You asked: "${prompt.replace(/\s+/g, " ").trim()}".\n\nThis is the replica's default answer. An encyclopedia says so `),
    cite([0, 0]),
    text(", and a second reference agrees "),
    cite([0, 1]),
    text(".\n\n- It has **bold** text and a list.\n- It has `inline code`.", ".\n\n- It has bold text and a list.\n- It has inline code."),
  ],
  title: "Replica default answer",
};

// ---------------------------------------------------------------------------------------------------------------
// no-search, uncited-search

const NO_SEARCH: ChatgptScenario = {
  ...base("no-search", "no-search"),
  modelSlug: "gpt-5-mini",
  resolvedModelSlug: "gpt-5-mini-2026-09-02",
  sourcesFootnote: false,
  answer: () => [
    text(
      "## Boiling an egg\n\n" +
        "1. Bring a pot of water to a **rolling boil**.\n" +
        "2. Lower the egg in gently.\n" +
        "3. Cook for *nine* minutes, then cool it in ice water.\n\n" +
        "> Older eggs peel more easily than fresh ones.\n\n" +
        "No sources were needed for this one.",
      "Boiling an egg\n\n" +
        "1. Bring a pot of water to a rolling boil.\n" +
        "2. Lower the egg in gently.\n" +
        "3. Cook for nine minutes, then cool it in ice water.\n\n" +
        "Older eggs peel more easily than fresh ones.\n\n" +
        "No sources were needed for this one.",
    ),
  ],
  title: "Boiling an egg",
};

const UNCITED_SEARCH: ChatgptScenario = {
  ...base("uncited-search", "uncited-search"),
  searches: [
    {
      toolName: "web.run",
      queries: ["opening hours example museum", "example museum tickets"],
      sources: [
        source("https://museum.example.org/visit", "Visit | Example Museum", "Example Museum", "Open Tuesday to Sunday, 10:00 to 18:00."),
      ],
      call: "code",
    },
  ],
  sourcesFootnote: false,
  answer: () => [text("The museum opens at ten and closes at six, Tuesday to Sunday. Tickets are sold at the door.")],
  title: "Museum opening hours",
};

// ---------------------------------------------------------------------------------------------------------------
// several-queries

const SEVERAL_QUERIES: ChatgptScenario = {
  ...base("several-queries", "several-queries"),
  searches: [
    {
      toolName: "web.run",
      queries: ["heat pump efficiency cold climate", "heat pump COP -20C"],
      sources: [
        source(
          "https://www.energy.gov/energysaver/heat-pump-systems",
          "Heat Pump Systems | Department of Energy",
          "Energy.gov",
          "Heat pumps offer an energy-efficient alternative to furnaces.",
        ),
        source(
          "https://www.iea.org/energy-system/buildings/heat-pumps",
          "Heat Pumps - IEA",
          "IEA",
          "Heat pumps are a key technology for decarbonising heat.",
        ),
      ],
      call: "text",
    },
    {
      toolName: "web",
      queries: ["heat pump COP -20C", "cold climate heat pump list"],
      sources: [
        source(
          "https://neep.org/heating-electrification/ccashp-specification-product-list",
          "Cold Climate Air Source Heat Pump List | NEEP",
          "NEEP",
          "A list of heat pumps that perform well in cold climates.",
        ),
      ],
      call: "code",
    },
  ],
  answer: () => [
    text("Modern cold-climate heat pumps keep working well below freezing "),
    cite([0, 0]),
    text(". Their efficiency drops as it gets colder, but stays above that of resistive heating "),
    cite([0, 1]),
    text(".\n\nLook for models on the cold-climate product list "),
    cite([1, 0]),
    text("."),
  ],
  title: "Heat pumps in cold climates",
};

// ---------------------------------------------------------------------------------------------------------------
// many-references

const MANY_SOURCES_A: readonly ChatgptSource[] = [
  source("https://en.wikipedia.org/wiki/Mercury_(planet)", "Mercury (planet) - Wikipedia", "Wikipedia", "Mercury is the first planet."),
  source("https://science.nasa.gov/mercury/", "Mercury - NASA Science", "NASA Science", "Mercury is the smallest planet."),
  source(
    "https://www.esa.int/Science_Exploration/Space_Science/BepiColombo",
    "BepiColombo | ESA",
    "ESA",
    "BepiColombo is Europe's first mission to Mercury.",
    "https://www.esa.int/Science_Exploration/Space_Science/BepiColombo?utm_source=chatgpt.com#:~:text=first%20mission",
  ),
  source(
    "https://news.example.com/story?id=42&lang=en",
    "Mercury flyby returns new images",
    "Example News",
    "The spacecraft passed within 165 km of the surface.",
  ),
  source(
    "https://example.net/article?id=7",
    "Why Mercury has a magnetic field",
    "Example Net",
    "Its iron core is unusually large.",
    "https://www.google.com/url?q=https%3A%2F%2Fexample.net%2Farticle%3Fid%3D7&sa=D&source=editors&ust=1700000000000000",
  ),
  source(
    "https://blog.example.com/mercury?utm_source=newsletter",
    "Observing Mercury at dusk",
    "Example Blog",
    "Mercury is best seen shortly after sunset.",
  ),
];

const MANY_SOURCES_B: readonly ChatgptSource[] = [
  source(
    "https://shop.example/p?ref=abc",
    "Telescope for planets",
    "Example Shop",
    "A small refractor for planetary viewing.",
    "https://shop.example/p?utm_source=chatgpt.com&ref=abc",
  ),
  source("https://www.space.com/mercury-planet", "Mercury: Facts about the planet", "Space.com", "Mercury has almost no atmosphere."),
  source("https://www.britannica.com/place/Mercury-planet", "Mercury | Planet", "Britannica", "Mercury has a highly eccentric orbit."),
  source(
    "https://www.planetary.org/worlds/mercury",
    "Mercury, the closest planet to the Sun",
    "The Planetary Society",
    "Mercury's day is longer than its year.",
  ),
  source(
    "https://www.nationalgeographic.com/science/article/mercury",
    "Mercury facts and information",
    "National Geographic",
    "Temperatures swing from 430 to minus 180 degrees Celsius.",
  ),
  source("https://arxiv.org/abs/2601.01234", "The interior structure of Mercury", "arXiv", "We model the core radius from MESSENGER data."),
];

const MANY_REFERENCES: ChatgptScenario = {
  ...base("many-references", "many-references"),
  resolvedModelSlug: null,
  modelSlug: "gpt-5-thinking",
  searches: [
    { toolName: "web.run", queries: ["mercury planet facts", "bepicolombo mercury flyby"], sources: MANY_SOURCES_A, call: "code" },
    { toolName: "web.run", queries: ["mercury interior core size"], sources: MANY_SOURCES_B, call: "code" },
  ],
  answer: () => [
    text(
      "# Mercury\n\nMercury is the smallest planet and the closest to the Sun ",
      "Mercury\n\nMercury is the smallest planet and the closest to the Sun ",
    ),
    cite([0, 0], [0, 3]),
    text(". NASA describes it as barely larger than the Moon "),
    cite([0, 1]),
    text(".\n\n## Missions\n\nBepiColombo is on its way ", ".\n\nMissions\n\nBepiColombo is on its way "),
    cite([0, 2]),
    text(", and its latest flyby returned new images "),
    cite([0, 3]),
    text(".\n\n## Interior\n\n- The iron core is unusually large ", ".\n\nInterior\n\n- The iron core is unusually large "),
    cite([0, 4]),
    text(".\n- The core takes up most of the radius "),
    cite([1, 5]),
    text(".\n- The planet has almost no atmosphere "),
    cite([1, 1]),
    text(".\n\n## Observing\n\nIt is best seen just after sunset ", ".\n\nObserving\n\nIt is best seen just after sunset "),
    cite([0, 5]),
    text(" with a small telescope "),
    cite([1, 0]),
    text(".\n\n## Odd facts\n\nIts orbit is the most eccentric ", ".\n\nOdd facts\n\nIts orbit is the most eccentric "),
    cite([1, 2]),
    text(", its day is longer than its year "),
    cite([1, 3]),
    text(", and its temperature swings are extreme "),
    cite([1, 4]),
    text(". Again, NASA has more "),
    cite([0, 1]),
    text("."),
  ],
  title: "Facts about Mercury",
};

// ---------------------------------------------------------------------------------------------------------------
// table-citations

const TABLE_SOURCES: readonly ChatgptSource[] = [
  source("https://www.python.org/downloads/", "Download Python", "Python.org", "The official home of Python."),
  source("https://nodejs.org/en/about/previous-releases", "Node.js Releases", "Node.js", "Release schedule of Node.js."),
  source("https://go.dev/doc/devel/release", "Release History - The Go Programming Language", "Go", "Release history of Go."),
];

const TABLE_CITATIONS: ChatgptScenario = {
  ...base("table-citations", "table-citations"),
  searches: [{ toolName: "web.run", queries: ["latest python node go versions"], sources: TABLE_SOURCES, call: "code" }],
  answer: () => [
    text(
      "Current releases:\n\n| Language | Latest | Source |\n|---|:---:|---|\n| Python | 3.14 | ",
      "Current releases:\n\nLanguage\tLatest\tSource\nPython\t3.14\t",
    ),
    cite([0, 0]),
    text(" |\n| Node.js | 24 LTS | ", "\nNode.js\t24 LTS\t"),
    cite([0, 1]),
    text(" |\n| Go | 1.25 | ", "\nGo\t1.25\t"),
    cite([0, 2]),
    text(" |\n| Rust | 1.90 | ", "\nRust\t1.90\t"),
    link("releases", "https://blog.rust-lang.org/releases/"),
    text(" |\n\nVersions change often; check before you upgrade.", "\n\nVersions change often; check before you upgrade."),
  ],
  title: "Latest language versions",
};

// ---------------------------------------------------------------------------------------------------------------
// widget-markers

const WIDGET_SOURCES: readonly ChatgptSource[] = [
  source(
    "https://www.nobelprize.org/prizes/physics/1903/marie-curie/biographical/",
    "Marie Curie – Biographical",
    "NobelPrize.org",
    "Marie Curie was born in Warsaw.",
  ),
];

const WIDGET_MARKERS: ChatgptScenario = {
  ...base("widget-markers", "widget-markers"),
  searches: [{ toolName: "web.run", queries: ["marie curie biography"], sources: WIDGET_SOURCES, call: null }],
  answer: () => [
    widget("entity", '["people","Marie Curie",{"disambiguation":"physicist and chemist"}]', "Marie Curie"),
    text(" won two Nobel Prizes "),
    cite([0, 0]),
    text(". She was born in Warsaw"),
    { kind: "stray", char: "\ue203" },
    text(" and worked in Paris"),
    { kind: "stray", char: "\ue204" },
    text(".\n\n"),
    widget("navlist", "Further reading\ue202turn0news1,turn0news4", ""),
    text("\n\nBooks about her:\n\n", "Books about her:\n\n"),
    widget("products", '{"selections":[["turn0product1","Madame Curie"],["turn0product3","Radioactive"]]}', ""),
    text("\n\n", ""),
    { kind: "orphan", body: 'genui\ue202{"math_block_widget_always_prefetch_v2":{"content":"E=mc^2"}}' },
    text("That is all"),
    { kind: "stray", char: "\ue206" },
    text("."),
  ],
  title: "Marie Curie",
};

// ---------------------------------------------------------------------------------------------------------------
// code-blocks

const CODE_SOURCES: readonly ChatgptSource[] = [
  source(
    "https://docs.python.org/3/library/stdtypes.html#str.split",
    "Built-in Types — Python documentation",
    "Python documentation",
    "str.split returns a list of the words in the string.",
    "https://docs.python.org/3/library/stdtypes.html?utm_source=chatgpt.com#str.split",
  ),
];

const CODE_BLOCKS: ChatgptScenario = {
  ...base("code-blocks", "code-blocks"),
  searches: [{ toolName: "web.run", queries: ["python str.split separator"], sources: CODE_SOURCES, call: "code" }],
  answer: () => [
    text(
      "Here is a tiny table-row parser:\n\n" +
        "```python\n" +
        "def parse(row: str) -> list[str]:\n" +
        '    # split "a|b|c" into cells, keep [brackets] and ](parens)\n' +
        '    return [cell.strip() for cell in row.split("|")]\n' +
        "\n" +
        'print(parse("[x](y) | [1] | z"))\n' +
        "```\n\n" +
        "`str.split` cuts at every separator ",
      "Here is a tiny table-row parser:\n\n" +
        "def parse(row: str) -> list[str]:\n" +
        '    # split "a|b|c" into cells, keep [brackets] and ](parens)\n' +
        '    return [cell.strip() for cell in row.split("|")]\n' +
        "\n" +
        'print(parse("[x](y) | [1] | z"))\n\n' +
        "str.split cuts at every separator ",
    ),
    cite([0, 0]),
    text(". Inline, `[not](a-link)` is code, and so is `a | b`. The ", ". Inline, [not](a-link) is code, and so is a | b. The "),
    link(
      "docs",
      "https://docs.python.org/3/library/stdtypes.html#str.split",
      "https://docs.python.org/3/library/stdtypes.html?utm_source=chatgpt.com#str.split",
    ),
    text(" have the details.\n\n```bash\necho \"[ok]\" | tr '[' '('\n```", " have the details.\n\necho \"[ok]\" | tr '[' '('"),
  ],
  title: "Parsing table rows",
};

// ---------------------------------------------------------------------------------------------------------------
// unicode-rtl

const UNICODE_SOURCES: readonly ChatgptSource[] = [
  source("https://ja.wikipedia.org/wiki/%E6%8C%A8%E6%8B%B6", "挨拶 - Wikipedia", "ウィキペディア", "挨拶は人と人が交わす言葉。"),
  source("https://ar.wikipedia.org/wiki/%D8%AA%D8%AD%D9%8A%D8%A9", "تحية - ويكيبيديا", "ويكيبيديا", "التحية هي كلمات تقال عند اللقاء."),
];

const UNICODE_RTL: ChatgptScenario = {
  ...base("unicode-rtl", "unicode-rtl"),
  escapeNonAscii: false,
  frameChars: 7,
  searches: [{ toolName: "web.run", queries: ["こんにちは 意味", "تحية بالعربية"], sources: UNICODE_SOURCES, call: null }],
  answer: () => [
    text("Greetings in many scripts 🌍:\n\n- Japanese: こんにちは "),
    cite([0, 0]),
    text("\n- Chinese: 你好，世界\n- Korean: 안녕하세요\n- Arabic: مرحبا بالعالم "),
    cite([0, 1]),
    text(
      "\n- Hebrew: שלום עולם\n- Emoji: 👋🏽 👨‍👩‍👧‍👦 🇯🇵 🇮🇱\n- Combining marks: e\u0301 and n\u0303\n\n" +
        "Mixed direction: the word «שלום» means peace — 평화 in Korean.",
    ),
  ],
  title: "Greetings 🌍",
};

// ---------------------------------------------------------------------------------------------------------------
// long-answer

const LONG_SOURCES: readonly ChatgptSource[] = [
  source(
    "https://en.wikipedia.org/wiki/History_of_computing",
    "History of computing - Wikipedia",
    "Wikipedia",
    "The history of computing.",
  ),
  source("https://www.computerhistory.org/timeline/", "Timeline of Computer History", "Computer History Museum", "A timeline from 1931."),
  source(
    "https://www.britannica.com/technology/computer",
    "Computer | History & Facts",
    "Britannica",
    "A computer is a programmable device.",
  ),
  source("https://ethw.org/Milestones:List_of_IEEE_Milestones", "List of IEEE Milestones", "ETHW", "Milestones in electrical engineering."),
];

const LONG_TOPICS = [
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

/** About 35 kB of fixed markdown: headings, lists, tables and code, with a citation in every section. */
function longAnswer(): AnswerSegment[] {
  const segments: AnswerSegment[] = [text("# A long history of computing\n\n", "A long history of computing\n\n")];
  for (let section = 0; section < 52; section += 1) {
    const topic = LONG_TOPICS[section % LONG_TOPICS.length] ?? "computing";
    segments.push(
      text(
        `## ${section + 1}. On ${topic}\n\n` +
          `Section ${section + 1} looks at ${topic} and why they mattered for everything that came after them. ` +
          "Engineers kept trading speed, cost and reliability against each other, and every step made the next one possible ",
        `${section + 1}. On ${topic}\n\n` +
          `Section ${section + 1} looks at ${topic} and why they mattered for everything that came after them. ` +
          "Engineers kept trading speed, cost and reliability against each other, and every step made the next one possible ",
      ),
      cite([0, section % LONG_SOURCES.length]),
      text(
        ".\n\n" +
          `- Cost of ${topic} fell steadily over the decades.\n` +
          `- Reliability of ${topic} improved with every generation.\n` +
          `- The people who built ${topic} often moved on to the next big thing.\n\n` +
          "| Year | Milestone | Note |\n|---|---|---|\n" +
          `| ${1900 + section * 3} | ${topic} | step ${section + 1} |\n` +
          `| ${1901 + section * 3} | follow-up work | refinement ${section + 1} |\n\n` +
          "```text\n" +
          `milestone[${section}] = "${topic}" | year ${1900 + section * 3}\n` +
          "```\n\n",
        ".\n\n" +
          `- Cost of ${topic} fell steadily over the decades.\n` +
          `- Reliability of ${topic} improved with every generation.\n` +
          `- The people who built ${topic} often moved on to the next big thing.\n\n` +
          "Year\tMilestone\tNote\n" +
          `${1900 + section * 3}\t${topic}\tstep ${section + 1}\n` +
          `${1901 + section * 3}\tfollow-up work\trefinement ${section + 1}\n\n` +
          `milestone[${section}] = "${topic}" | year ${1900 + section * 3}\n\n`,
      ),
    );
  }
  segments.push(text("That is the whole story, in short."));
  return segments;
}

const LONG_ANSWER: ChatgptScenario = {
  ...base("long-answer", "long-answer"),
  searches: [{ toolName: "web.run", queries: ["history of computing timeline"], sources: LONG_SOURCES, call: "code" }],
  answer: longAnswer,
  frameChars: 90,
  title: "A long history of computing",
};

// ---------------------------------------------------------------------------------------------------------------
// thinking-commentary

const THINKING_COMMENTARY: ChatgptScenario = {
  ...base("thinking-commentary", "thinking-commentary"),
  modelSlug: "gpt-5-thinking",
  resolvedModelSlug: "gpt-5-thinking-2026-10-14",
  hidden: [
    {
      kind: "thoughts",
      summary: "Checking the boiling point at altitude",
      content: "SECRET-THOUGHT: the user asks about altitude; I should search before answering.",
    },
    { kind: "reasoning_recap", text: "Thought for 6s" },
    { kind: "commentary", text: "SECRET-COMMENTARY: I'll look up a reliable altitude table first." },
  ],
  searches: [
    {
      toolName: "web.run",
      queries: ["boiling point of water at 2000 m"],
      sources: [
        source(
          "https://www.engineeringtoolbox.com/boiling-points-water-altitude-d_1344.html",
          "Water - Boiling Points at Higher Altitudes",
          "The Engineering ToolBox",
          "Boiling point of water at altitudes from sea level to 10,000 m.",
        ),
      ],
      call: "code",
    },
  ],
  answer: () => [text("At 2,000 m water boils at about 93 °C "), cite([0, 0]), text(", so pasta takes a little longer.")],
  title: "Boiling point at altitude",
};

// ---------------------------------------------------------------------------------------------------------------
// tiny-frames, max-tokens, legacy-format

const TINY_FRAMES: ChatgptScenario = {
  ...base("tiny-frames", "tiny-frames"),
  frameChars: 3,
  withMessageIndex: false,
  searches: [
    {
      toolName: "web.run",
      queries: ["tiny frames test"],
      sources: [source("https://example.com/tiny", "Tiny page", "Example", "A tiny page.")],
      call: null,
    },
  ],
  answer: () => [
    text("Small frames add up to a *whole* answer ", "Small frames add up to a whole answer "),
    cite([0, 0]),
    text(".\n\nSecond paragraph, still whole."),
  ],
  title: "Tiny frames",
};

const MAX_TOKENS: ChatgptScenario = {
  ...base("max-tokens", "max-tokens"),
  finish: "max_tokens",
  searches: [
    {
      toolName: "web.run",
      queries: ["reasons to learn rust"],
      sources: [source("https://www.rust-lang.org/", "Rust Programming Language", "Rust", "A language empowering everyone.")],
      call: null,
    },
  ],
  answer: () => [
    text("There are three reasons to learn Rust. The first is memory safety "),
    cite([0, 0]),
    text(". The second is performance. And the third reason is"),
  ],
  title: "Reasons to learn Rust",
};

const LEGACY_FORMAT: ChatgptScenario = {
  ...base("legacy-format", "legacy-format"),
  encoding: "legacy",
  modelSlug: "gpt-4o",
  resolvedModelSlug: "gpt-4o-2024-11-20",
  frameChars: 12,
  searches: [
    {
      toolName: "web",
      queries: ["tallest building in the world"],
      sources: [
        source(
          "https://en.wikipedia.org/wiki/Burj_Khalifa",
          "Burj Khalifa - Wikipedia",
          "Wikipedia",
          "The Burj Khalifa is a skyscraper in Dubai.",
        ),
      ],
      call: null,
    },
  ],
  answer: () => [text("The tallest building is the Burj Khalifa in Dubai, 828 m tall "), cite([0, 0]), text(".")],
  title: "Tallest building",
};

// ---------------------------------------------------------------------------------------------------------------
// Registry

export const CHATGPT_SCENARIOS: readonly ChatgptScenario[] = [
  NO_SEARCH,
  UNCITED_SEARCH,
  SEVERAL_QUERIES,
  MANY_REFERENCES,
  TABLE_CITATIONS,
  WIDGET_MARKERS,
  CODE_BLOCKS,
  UNICODE_RTL,
  LONG_ANSWER,
  THINKING_COMMENTARY,
  TINY_FRAMES,
  MAX_TOKENS,
  LEGACY_FORMAT,
  DEFAULT,
];

export function pickChatgptScenario(prompt: string): ChatgptScenario {
  const lower = prompt.toLowerCase();
  return CHATGPT_SCENARIOS.find((scenario) => scenario.trigger !== null && lower.includes(scenario.trigger)) ?? DEFAULT;
}
