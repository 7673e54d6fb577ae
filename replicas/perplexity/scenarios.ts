/**
 * Deterministic answers of the Perplexity replica, chosen by the prompt. Every id, timestamp and text is fixed data
 * (no clock, no randomness), so tests derive every expected API field from the exported scenarios.
 *
 * Selection (`pickPerplexityScenario`): the prompt is lower-cased; the first scenario below whose trigger occurs in it
 * wins; anything else gets `default`, whose answer quotes the prompt. `resolvePerplexityRun(prompt, {searchEnabled})`
 * turns the scenario into the concrete run the stream renders: with the Web source off (`params.sources:[]`) every
 * scenario answers from "trained knowledge" instead, without web results and without `[n]` markers (perplexity.md §1).
 *
 * | Trigger            | What it exercises (perplexity.md §6)                                                              |
 * |--------------------|--------------------------------------------------------------------------------------------------|
 * | `diffs-only`       | diff mode throughout: one chunk per event, web results added one by one (one added then removed,  |
 * |                    | one snippet replaced), the terminal frame only patches `/progress` (no materialized `answer`)     |
 * | `materialized-only`| no diff blocks: every block materialized, chunks sent from a growing `chunk_starting_offset`      |
 * | `renumbered`       | the terminal `answer` renumbers the `[n]` markers relative to the joined chunks                   |
 * | `many-sources`     | 24 web results, markers up to [24], adjacent markers                                              |
 * | `no-sources`       | the search ran but found nothing: an empty `web_results` list, no markers                         |
 * | `no-snippet`       | results without `snippet` or with `""`; URLs with `#:~:text=`, a Google redirect, `utm_source`    |
 * | `unicode`          | CJK, Hangul, Arabic, combining marks, ZWJ emoji and flags split across chunks                     |
 * | `table-markers`    | `[n]` markers inside a markdown table                                                              |
 * | `code-fence`       | fenced code containing `values[1]`, inline code `arr[2]`, real markers around them                |
 * | `plan-progress`    | a `plan` block (`plan_block`: goals added, `pct_complete`, `eta_seconds_remaining`)              |
 * | `unknown-blocks`   | unknown block kinds (materialized and diff), an `ask_text_0_markdown` twin, `sources_answer_mode`  |
 * | `media-items`      | a `media_items` block (`media_block.media_items[]`)                                               |
 * | `long-answer`      | about 40 kB of markdown in 60-character chunks                                                     |
 * | `crlf`             | SSE lines ended by `\r\n`                                                                          |
 * | `related-legacy`   | only `related_queries` (no `related_query_items`), no `end_of_stream` event                        |
 * | `inline-links`     | markdown links and an autolink carrying the sources' URLs (text fragment, `utm_source=perplexity`)  |
 * | `final-no-answer`  | COMPLETED with an empty answer while web results exist                                              |
 * | (anything else)    | `default`: two sources, diff mode, `end_of_stream`; the answer and the title quote the prompt       |
 */

/** One entry of `web_result_block.web_results` (field names of perplexity.md §4). */
export interface PerplexityWebResult {
  name: string;
  url: string;
  snippet?: string;
  timestamp?: string;
  meta_data?: Record<string, unknown>;
  is_attachment?: boolean;
  is_image?: boolean;
}

export interface PerplexityPlanGoal {
  id: string;
  description: string;
  final: boolean;
  todo_task_status: string;
}

export interface PerplexityMediaItem {
  medium: string;
  image: string;
  url: string;
  name: string;
  source: string;
  image_width: number;
  image_height: number;
}

/** How the answer is streamed. */
export interface PerplexityStreamShape {
  /** `diff`: `diff_block` patches (only when the page lists "diff_blocks"); `materialized`: whole blocks every time. */
  framing: "diff" | "materialized";
  /** `materialized`: the terminal frame carries every block whole, with `answer`; `progress-patch`: only a diff. */
  terminal: "materialized" | "progress-patch";
  /** Web results: in one snapshot, or added one by one (diff framing only). */
  webResults: "whole" | "one-by-one";
  chunksPerEvent: number;
  lineEnding: "\n" | "\r\n";
  /** An `event: end_of_stream` with `{}` before the connection closes. */
  endOfStream: boolean;
  /** `related_query_items` next to `related_queries` (false: the older list only). */
  relatedItems: boolean;
  /** The `ask_text_0_markdown` twin of the answer block. */
  twin: boolean;
}

/** Everything one answer renders; the parser's expected output is derived from these fields alone. */
export interface PerplexityRun {
  scenarioId: string;
  threadTitle: string;
  slug: string;
  /** The chunks of the answer block, as streamed. */
  chunks: string[];
  /** The terminal `markdown_block.answer` (authoritative); null when the terminal frame carries none. */
  terminalAnswer: string | null;
  /**
   * The answer as plain text (the API's `result`), written by hand from the answer by the team's rules (markers kept as
   * `[n]`, emphasis dropped, list markers kept, table rows tab-separated, code verbatim), for the test oracles.
   */
  resultText: string;
  /** The final web results, in order ([] = an empty list; null = no web_results block at all). */
  webResults: PerplexityWebResult[] | null;
  /** Streamed, then removed again (diff framing, one-by-one results). */
  withdrawnResult: PerplexityWebResult | null;
  /** Index of a result first streamed with `snippetDraft`, later replaced by its final snippet. */
  revisedSnippet: { index: number; draft: string } | null;
  relatedQuestions: string[];
  plan: { goals: PerplexityPlanGoal[]; etaSeconds: number } | null;
  media: PerplexityMediaItem[] | null;
  /** Blocks of kinds a scraper does not know (sent as they are, in the second event and in the terminal frame). */
  unknownBlocks: Array<Record<string, unknown>>;
  /** A `sources_answer_mode` block repeating the web results. */
  sourcesAnswerMode: boolean;
  shape: PerplexityStreamShape;
  ids: { backendUuid: string; contextUuid: string; uuid: string; readWriteToken: string };
}

interface PerplexityScenario {
  id: string;
  trigger: string | null;
  build(prompt: string): Omit<PerplexityRun, "scenarioId" | "ids" | "shape"> & { shape?: Partial<PerplexityStreamShape> };
}

const DEFAULT_SHAPE: PerplexityStreamShape = {
  framing: "diff",
  terminal: "materialized",
  webResults: "whole",
  chunksPerEvent: 2,
  lineEnding: "\n",
  endOfStream: true,
  relatedItems: true,
  twin: false,
};

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/**
 * Splits `text` into chunks of roughly `size` characters, cutting after whitespace, so that joining them gives back
 * `text` exactly (like the site's token chunks).
 */
export function splitIntoAnswerChunks(text: string, size: number): string[] {
  const pieces = text.match(/\S+\s*|\s+/g) ?? [];
  const chunks: string[] = [];
  let current = "";
  for (const piece of pieces) {
    current += piece;
    if (current.length >= size) {
      chunks.push(current);
      current = "";
    }
  }
  if (current !== "") chunks.push(current);
  return chunks;
}

/** The thread slug the site derives from the question: lower-case words, a dash, a short id. */
export function threadSlug(prompt: string): string {
  const words = prompt
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return `${words === "" ? "question" : words}-${shortId(prompt)}`;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** FNV-1a of the text, in base 62: stable ids per prompt without randomness. */
function shortId(text: string, length = 8): string {
  let hash = 0x811c9dc5;
  for (const char of text) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  let id = "";
  for (let index = 0; index < length; index += 1) {
    id += BASE62[hash % 62];
    hash = Math.imul(hash ^ (index + 1), 0x9e3779b1) >>> 0;
  }
  return id;
}

function uuidFrom(seed: string): string {
  const hex = Array.from({ length: 4 }, (_, index) => shortHex(`${seed}:${index}`)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function shortHex(text: string): string {
  let hash = 0x811c9dc5;
  for (const char of text) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

function result(name: string, url: string, snippet: string | undefined, domain: string, day: number): PerplexityWebResult {
  const date = `2026-0${1 + (day % 9)}-${String(1 + (day % 27)).padStart(2, "0")}`;
  return {
    name,
    url,
    ...(snippet === undefined ? {} : { snippet }),
    timestamp: `${date}T08:${String(10 + (day % 50)).padStart(2, "0")}:00`,
    meta_data: { citation_domain_name: domain, domain_name: domain, description: snippet ?? "", published_date: date },
    is_attachment: false,
    is_image: false,
  };
}

/** The optional parts of a run, all absent. */
const none: Pick<PerplexityRun, "withdrawnResult" | "revisedSnippet" | "plan" | "media" | "unknownBlocks" | "sourcesAnswerMode"> = {
  withdrawnResult: null,
  revisedSnippet: null,
  plan: null,
  media: null,
  unknownBlocks: [],
  sourcesAnswerMode: false,
};

// ---------------------------------------------------------------------------------------------------------------
// Scenarios

const EIFFEL_SOURCES = [
  result(
    "Eiffel Tower - Wikipedia",
    "https://en.wikipedia.org/wiki/Eiffel_Tower",
    "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.",
    "wikipedia",
    1,
  ),
  result(
    "Eiffel Tower | History, Height, & Facts | Britannica",
    "https://www.britannica.com/topic/Eiffel-Tower-Paris-France",
    "Eiffel Tower, Parisian landmark that is also a technological masterpiece in building-construction history.",
    "britannica",
    2,
  ),
];

function defaultPlainText(prompt: string): string {
  return [
    `You asked: "${prompt}".`,
    "",
    "This is the replica's default answer, built from two sources[1][2]. It has bold text and a list:",
    "",
    "- The first point cites one source[1].",
    "- The second point cites the other[2].",
  ].join("\n");
}

function defaultAnswer(prompt: string): string {
  return [
    `You asked: "${prompt}".`,
    "",
    "This is the replica's default answer, built from two sources[1][2]. It has **bold** text and a list:",
    "",
    "- The first point cites one source[1].",
    "- The second point cites the other[2].",
  ].join("\n");
}

const defaultScenario: PerplexityScenario = {
  id: "default",
  trigger: null,
  build: (prompt) => {
    const answer = defaultAnswer(prompt);
    return {
      ...none,
      threadTitle: prompt.trim().slice(0, 80),
      slug: threadSlug(prompt),
      chunks: splitIntoAnswerChunks(answer, 24),
      terminalAnswer: answer,
      resultText: defaultPlainText(prompt),
      webResults: EIFFEL_SOURCES,
      relatedQuestions: ["What else should I know about this?", "Where can I read more about it?"],
    };
  },
};

const DIFF_SOURCES = [
  result(
    "Photosynthesis - Wikipedia",
    "https://en.wikipedia.org/wiki/Photosynthesis",
    "Photosynthesis is a biological process.",
    "wikipedia",
    3,
  ),
  result(
    "How plants make food | Khan Academy",
    "https://www.khanacademy.org/science/biology/photosynthesis-in-plants",
    "Light-dependent reactions and the Calvin cycle.",
    "khanacademy",
    4,
  ),
  result("Chlorophyll | Britannica", "https://www.britannica.com/science/chlorophyll", "Chlorophyll absorbs light.", "britannica", 5),
];

const diffsOnly: PerplexityScenario = {
  id: "diffs-only",
  trigger: "diffs-only",
  build: () => {
    const answer =
      "Photosynthesis turns light into chemical energy[1]. It happens in two stages: the light-dependent reactions and the Calvin cycle[2]. Chlorophyll absorbs mostly blue and red light[3].";
    return {
      ...none,
      threadTitle: "How does photosynthesis work?",
      slug: "how-does-photosynthesis-work-Df0nLy01",
      chunks: splitIntoAnswerChunks(answer, 12),
      terminalAnswer: null,
      resultText: answer,
      webResults: DIFF_SOURCES,
      withdrawnResult: result("Photosynthesis (draft)", "https://example.org/withdrawn", "A result the site withdrew.", "example", 6),
      revisedSnippet: { index: 1, draft: "Light reactions." },
      relatedQuestions: ["What is the Calvin cycle?", "Why are plants green?"],
      shape: { terminal: "progress-patch", webResults: "one-by-one", chunksPerEvent: 1 },
    };
  },
};

const materializedOnly: PerplexityScenario = {
  id: "materialized-only",
  trigger: "materialized-only",
  build: () => {
    const answer = [
      "## Tides",
      "",
      "Tides are caused mainly by the Moon's gravity[1], with a smaller contribution from the Sun[2].",
      "",
      "1. Spring tides happen at new and full moon[2].",
      "2. Neap tides happen at the quarter moons[1].",
    ].join("\n");
    return {
      ...none,
      threadTitle: "What causes tides?",
      slug: "what-causes-tides-MaTer1al",
      chunks: splitIntoAnswerChunks(answer, 20),
      terminalAnswer: answer,
      resultText: [
        "Tides",
        "",
        "Tides are caused mainly by the Moon's gravity[1], with a smaller contribution from the Sun[2].",
        "",
        "1. Spring tides happen at new and full moon[2].",
        "2. Neap tides happen at the quarter moons[1].",
      ].join("\n"),
      webResults: [
        result("Tide - Wikipedia", "https://en.wikipedia.org/wiki/Tide", "Tides are the rise and fall of sea levels.", "wikipedia", 7),
        result(
          "What causes tides? | NOAA",
          "https://oceanservice.noaa.gov/facts/moon-tides.html",
          "The Sun and the Moon both pull on the oceans.",
          "noaa",
          8,
        ),
      ],
      relatedQuestions: ["How high can tides get?"],
      shape: { framing: "materialized", chunksPerEvent: 3 },
    };
  },
};

const renumbered: PerplexityScenario = {
  id: "renumbered",
  trigger: "renumbered",
  build: () => ({
    ...none,
    threadTitle: "Why is Rust memory safe?",
    slug: "why-is-rust-memory-safe-ReNum8er",
    // the streamed text cites in the order the model found the pages; the terminal answer renumbers by first use
    chunks: [
      "Rust guarantees memory safety without a garbage collector [3].",
      " Its ownership model is checked at compile time [1],",
      " and the borrow checker enforces it [2].",
    ],
    terminalAnswer:
      "Rust guarantees memory safety without a garbage collector [1]. Its ownership model is checked at compile time [2], and the borrow checker enforces it [3].",
    resultText:
      "Rust guarantees memory safety without a garbage collector [1]. Its ownership model is checked at compile time [2], and the borrow checker enforces it [3].",
    webResults: [
      result(
        "Rust (programming language) - Wikipedia",
        "https://en.wikipedia.org/wiki/Rust_(programming_language)",
        "Rust is memory safe.",
        "wikipedia",
        9,
      ),
      result(
        "What is Ownership? - The Rust Programming Language",
        "https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html",
        "Ownership is a set of rules.",
        "rust-lang",
        10,
      ),
      result(
        "References and Borrowing - The Rust Programming Language",
        "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
        "The borrow checker.",
        "rust-lang",
        11,
      ),
    ],
    relatedQuestions: ["What is a lifetime in Rust?", "Is Rust faster than C++?"],
  }),
};

const MANY = Array.from({ length: 24 }, (_, index) => {
  const n = index + 1;
  return result(
    `Survey of renewable energy, part ${n}`,
    `https://energy.example.org/reports/${2000 + n}/renewables?page=${n}`,
    `Finding ${n}: capacity grew in region ${n}.`,
    "energy.example.org",
    12 + n,
  );
});

const manySources: PerplexityScenario = {
  id: "many-sources",
  trigger: "many-sources",
  build: () => {
    const lines = ["Renewable capacity grew almost everywhere in 2026[1][2][3]."];
    for (let n = 4; n <= 24; n += 3) lines.push(`- Region ${n} to ${n + 2} reported growth[${n}][${n + 1}][${n + 2}].`);
    const answer = `${lines[0]}\n\n${lines.slice(1).join("\n")}`;
    return {
      ...none,
      threadTitle: "How fast did renewables grow?",
      slug: "how-fast-did-renewables-grow-M4nySrcs",
      chunks: splitIntoAnswerChunks(answer, 30),
      terminalAnswer: answer,
      // no markup: the plain text is the markdown itself
      resultText: answer,
      webResults: MANY,
      relatedQuestions: ["Which country added the most solar?", "How much wind power was installed?", "What about storage?"],
    };
  },
};

const noSources: PerplexityScenario = {
  id: "no-sources",
  trigger: "no-sources",
  build: () => {
    const answer = "Two plus two is four. No web page was needed for that.";
    return {
      ...none,
      threadTitle: "What is two plus two?",
      slug: "what-is-two-plus-two-N0Src000",
      chunks: splitIntoAnswerChunks(answer, 16),
      terminalAnswer: answer,
      // no markup: the plain text is the markdown itself
      resultText: answer,
      webResults: [],
      relatedQuestions: [],
    };
  },
};

const noSnippet: PerplexityScenario = {
  id: "no-snippet",
  trigger: "no-snippet",
  build: () => {
    const answer =
      "Honey never spoils when sealed[1]. Archaeologists found edible honey in Egyptian tombs[2][3]. Bees make it from nectar[4].";
    const withoutSnippet = result("Honey | National Honey Board", "https://honey.com/about-honey", undefined, "honey.com", 40);
    const emptySnippet = {
      ...result("Ancient honey", "https://www.smithsonianmag.com/science-nature/honey#:~:text=edible%20honey", "", "smithsonianmag", 41),
    };
    return {
      ...none,
      threadTitle: "Does honey expire?",
      slug: "does-honey-expire-Sn1ppetX",
      chunks: splitIntoAnswerChunks(answer, 18),
      terminalAnswer: answer,
      // no markup: the plain text is the markdown itself
      resultText: answer,
      webResults: [
        withoutSnippet,
        emptySnippet,
        result(
          "Why honey lasts",
          "https://www.google.com/url?q=https://www.example.edu/honey-chemistry?lang%3Den&sa=U&ved=2ahUKEwj",
          "Low water content and acidity.",
          "example.edu",
          42,
        ),
        result(
          "How bees make honey",
          "https://www.beekeeping.example.com/how-bees-make-honey?utm_source=perplexity&ref=guide#steps",
          "Nectar is evaporated in the hive.",
          "beekeeping.example.com",
          43,
        ),
      ],
      relatedQuestions: ["Can honey go bad?"],
    };
  },
};

const unicode: PerplexityScenario = {
  id: "unicode",
  trigger: "unicode",
  build: () => ({
    ...none,
    threadTitle: "東京とソウル 🌏",
    slug: "unicode-U1n1c0de",
    // chunks cut between the parts of ZWJ sequences, flags and combining marks (each chunk stays valid UTF-16)
    chunks: [
      "東京は日本の首都です[1]。서울은 한국의",
      " 수도입니다[2]. Family: 👨‍👩",
      "‍👧‍👦, flags: 🇯",
      "🇵 🇰🇷, café with a combining accent: cafe",
      "\u0301, Arabic: مرحبا بالعالم, math: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✅",
    ],
    terminalAnswer:
      "東京は日本の首都です[1]。서울은 한국의 수도입니다[2]. Family: 👨‍👩‍👧‍👦, flags: 🇯🇵 🇰🇷, café with a combining accent: cafe\u0301, Arabic: مرحبا بالعالم, math: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✅",
    resultText:
      "東京は日本の首都です[1]。서울은 한국의 수도입니다[2]. Family: 👨‍👩‍👧‍👦, flags: 🇯🇵 🇰🇷, café with a combining accent: cafe\u0301, Arabic: مرحبا بالعالم, math: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✅",
    webResults: [
      result("東京 - ウィキペディア", "https://ja.wikipedia.org/wiki/東京", "東京は日本の首都。", "wikipedia", 44),
      result("서울특별시 - 위키백과", "https://ko.wikipedia.org/wiki/%EC%84%9C%EC%9A%B8", "대한민국의 수도 🇰🇷", "wikipedia", 45),
    ],
    relatedQuestions: ["東京の人口は？", "서울의 인구는?"],
  }),
};

const tableMarkers: PerplexityScenario = {
  id: "table-markers",
  trigger: "table-markers",
  build: () => {
    const answer = [
      "Here are the moons of three planets[1]:",
      "",
      "| Planet | Moons | Source |",
      "|---|---:|---|",
      "| Earth | 1 | [1] |",
      "| Mars | 2 | [2][3] |",
      "| Jupiter | 95 | [3] |",
      "",
      "Counts change as new moons are confirmed[3].",
    ].join("\n");
    return {
      ...none,
      threadTitle: "How many moons do planets have?",
      slug: "how-many-moons-do-planets-have-T4bleMrk",
      chunks: splitIntoAnswerChunks(answer, 15),
      terminalAnswer: answer,
      resultText: [
        "Here are the moons of three planets[1]:",
        "",
        "Planet\tMoons\tSource",
        "Earth\t1\t[1]",
        "Mars\t2\t[2][3]",
        "Jupiter\t95\t[3]",
        "",
        "Counts change as new moons are confirmed[3].",
      ].join("\n"),
      webResults: [
        result("Moon - Wikipedia", "https://en.wikipedia.org/wiki/Moon", "Earth's only natural satellite.", "wikipedia", 46),
        result("Moons of Mars | NASA", "https://science.nasa.gov/mars/moons/", "Phobos and Deimos.", "nasa", 47),
        result(
          "Jupiter Moons | NASA",
          "https://science.nasa.gov/jupiter/jupiter-moons/",
          "Jupiter has 95 officially recognized moons.",
          "nasa",
          48,
        ),
      ],
      relatedQuestions: ["Which planet has the most moons?"],
    };
  },
};

const codeFence: PerplexityScenario = {
  id: "code-fence",
  trigger: "code-fence",
  build: () => {
    const answer = [
      "Python lists are zero-indexed[1], so `arr[2]` is the third element:",
      "",
      "```python",
      "values = [10, 20, 30]",
      "print(values[1])  # prints 20",
      "```",
      "",
      "Negative indexes count from the end[2].",
    ].join("\n");
    return {
      ...none,
      threadTitle: "How do Python list indexes work?",
      slug: "how-do-python-list-indexes-work-C0deF3nc",
      chunks: splitIntoAnswerChunks(answer, 14),
      terminalAnswer: answer,
      resultText: [
        "Python lists are zero-indexed[1], so arr[2] is the third element:",
        "",
        "values = [10, 20, 30]",
        "print(values[1])  # prints 20",
        "",
        "Negative indexes count from the end[2].",
      ].join("\n"),
      webResults: [
        result(
          "5. Data Structures — Python documentation",
          "https://docs.python.org/3/tutorial/datastructures.html",
          "More on lists.",
          "python",
          49,
        ),
        result(
          "Python Lists | W3Schools",
          "https://www.w3schools.com/python/python_lists.asp",
          "Lists are used to store multiple items.",
          "w3schools",
          50,
        ),
      ],
      relatedQuestions: ["How do slices work in Python?"],
    };
  },
};

const planProgress: PerplexityScenario = {
  id: "plan-progress",
  trigger: "plan-progress",
  build: () => {
    const answer = "The James Webb Space Telescope orbits the Sun near L2[1], about 1.5 million km from Earth[2].";
    return {
      ...none,
      threadTitle: "Where is the James Webb telescope?",
      slug: "where-is-the-james-webb-telescope-Pl4nStep",
      chunks: splitIntoAnswerChunks(answer, 20),
      terminalAnswer: answer,
      // no markup: the plain text is the markdown itself
      resultText: answer,
      webResults: [
        result(
          "James Webb Space Telescope - Wikipedia",
          "https://en.wikipedia.org/wiki/James_Webb_Space_Telescope",
          "JWST orbits L2.",
          "wikipedia",
          51,
        ),
        result("Webb's Orbit | NASA", "https://science.nasa.gov/mission/webb/orbit/", "1.5 million kilometers from Earth.", "nasa", 52),
      ],
      plan: {
        etaSeconds: 9,
        goals: [
          { id: "g1", description: "Searching for the telescope's orbit", final: false, todo_task_status: "DONE" },
          { id: "g2", description: "Reading NASA's mission pages", final: false, todo_task_status: "DONE" },
          { id: "g3", description: "Writing the answer", final: true, todo_task_status: "DONE" },
        ],
      },
      relatedQuestions: ["What is the L2 point?"],
    };
  },
};

const unknownBlocks: PerplexityScenario = {
  id: "unknown-blocks",
  trigger: "unknown-blocks",
  build: () => {
    const answer = "Mount Everest is 8,849 m tall[1]. K2 is the second highest[2].";
    return {
      ...none,
      threadTitle: "How tall is Mount Everest?",
      slug: "how-tall-is-mount-everest-Unkn0wnB",
      chunks: splitIntoAnswerChunks(answer, 16),
      terminalAnswer: answer,
      // no markup: the plain text is the markdown itself
      resultText: answer,
      webResults: [
        result("Mount Everest - Wikipedia", "https://en.wikipedia.org/wiki/Mount_Everest", "Earth's highest mountain.", "wikipedia", 53),
        result("K2 - Wikipedia", "https://en.wikipedia.org/wiki/K2", "The second-highest mountain on Earth.", "wikipedia", 54),
      ],
      unknownBlocks: [
        { intended_usage: "entity_group_v2", entity_group_block: { entities: [{ name: "Mount Everest", type: "mountain", score: 0.98 }] } },
        { intended_usage: "knowledge_cards", knowledge_card_block: { cards: [{ title: "Mount Everest", facts: { height: "8,849 m" } }] } },
        { intended_usage: "answer_tabs", answer_tabs_block: { tabs: ["answer", "images", "sources"] }, extra_field: [1, 2, 3] },
        {
          intended_usage: "in_context_suggestions",
          diff_block: { field: "suggestions_block", patches: [{ op: "replace", path: "", value: { items: [] } }] },
        },
      ],
      sourcesAnswerMode: true,
      relatedQuestions: ["How tall is K2?", "Who first climbed Everest?"],
      shape: { twin: true },
    };
  },
};

const mediaItems: PerplexityScenario = {
  id: "media-items",
  trigger: "media-items",
  build: () => {
    const answer = "The Great Wall of China is over 21,000 km long[1] and was built over many centuries[2].";
    return {
      ...none,
      threadTitle: "How long is the Great Wall?",
      slug: "how-long-is-the-great-wall-Med1aIts",
      chunks: splitIntoAnswerChunks(answer, 18),
      terminalAnswer: answer,
      // no markup: the plain text is the markdown itself
      resultText: answer,
      webResults: [
        result(
          "Great Wall of China - Wikipedia",
          "https://en.wikipedia.org/wiki/Great_Wall_of_China",
          "Series of fortifications.",
          "wikipedia",
          55,
        ),
        result("Great Wall | UNESCO", "https://whc.unesco.org/en/list/438/", "World Heritage since 1987.", "unesco", 56),
      ],
      media: [
        {
          medium: "image",
          image: "https://upload.wikimedia.org/wikipedia/commons/2/23/The_Great_Wall_of_China_at_Jinshanling-edit.jpg",
          url: "https://en.wikipedia.org/wiki/Great_Wall_of_China",
          name: "The Great Wall at Jinshanling",
          source: "web",
          image_width: 1600,
          image_height: 1067,
        },
        {
          medium: "video",
          image: "https://i.ytimg.com/vi/23oHqdRLMxQ/hqdefault.jpg",
          url: "https://www.youtube.com/watch?v=23oHqdRLMxQ",
          name: "The Great Wall from above",
          source: "web",
          image_width: 480,
          image_height: 360,
        },
      ],
      relatedQuestions: ["Can you see the Great Wall from space?"],
    };
  },
};

/**
 * The long answer's plain text, written part by part beside longAnswer() by the rules of `result` (headings as text,
 * list markers and nesting kept, table rows tab-separated without the divider, code verbatim without fences).
 */
function longAnswerPlainText(): string {
  const blocks: string[] = ["A long history of navigation"];
  for (let n = 1; n <= 75; n += 1) {
    const cite = ((n - 1) % 6) + 1;
    blocks.push(
      `Part ${n}: instruments and ideas`,
      `Navigators relied on the stars, the sun and careful record keeping[${cite}]. This paragraph is part ${n} of 75 and is deliberately long, so that the whole answer exceeds forty kilobytes of markdown and arrives in hundreds of chunks.`,
      [
        `- Instrument ${n}: the astrolabe, the quadrant or the sextant[${((n + 1) % 6) + 1}]`,
        `  - nested detail ${n}: accuracy improved with every generation`,
        `- Method ${n}: dead reckoning checked against celestial fixes`,
      ].join("\n"),
      `Century\tInstrument\tAccuracy\n${n + 10}th\tsextant ${n}\t${n} arc-minutes`,
    );
    if (n % 9 === 0) blocks.push(`log entry ${n}: noon sight taken, latitude 48°51′N`);
  }
  blocks.push("In short, navigation combined astronomy, mathematics and craft[1][6].");
  return blocks.join("\n\n");
}

/** About 40 kB of markdown from fixed text (identical on every run). */
function longAnswer(): string {
  const sections: string[] = ["# A long history of navigation", ""];
  for (let n = 1; n <= 75; n += 1) {
    const cite = ((n - 1) % 6) + 1;
    sections.push(
      `## Part ${n}: instruments and ideas`,
      "",
      `Navigators relied on the stars, the sun and careful record keeping[${cite}]. This paragraph is part ${n} of 75 and is deliberately long, so that the whole answer exceeds forty kilobytes of markdown and arrives in hundreds of chunks.`,
      "",
      `- Instrument ${n}: the astrolabe, the quadrant or the sextant[${((n + 1) % 6) + 1}]`,
      `  - nested detail ${n}: accuracy improved with every generation`,
      `- Method ${n}: dead reckoning checked against celestial fixes`,
      "",
      "| Century | Instrument | Accuracy |",
      "|---|---|---|",
      `| ${n + 10}th | sextant ${n} | ${n} arc-minutes |`,
      "",
    );
    if (n % 9 === 0) sections.push("```text", `log entry ${n}: noon sight taken, latitude 48°51′N`, "```", "");
  }
  sections.push("In short, navigation combined astronomy, mathematics and craft[1][6].");
  return sections.join("\n");
}

const LONG_SOURCES = [
  result(
    "History of navigation - Wikipedia",
    "https://en.wikipedia.org/wiki/History_of_navigation",
    "Navigation history.",
    "wikipedia",
    57,
  ),
  result("Astrolabe - Wikipedia", "https://en.wikipedia.org/wiki/Astrolabe", "An ancient astronomical instrument.", "wikipedia", 58),
  result("Sextant - Wikipedia", "https://en.wikipedia.org/wiki/Sextant", "A doubly reflecting navigation instrument.", "wikipedia", 59),
  result(
    "Dead reckoning - Wikipedia",
    "https://en.wikipedia.org/wiki/Dead_reckoning",
    "Estimating position from speed and time.",
    "wikipedia",
    60,
  ),
  result(
    "Celestial navigation - Wikipedia",
    "https://en.wikipedia.org/wiki/Celestial_navigation",
    "Position fixing by the stars.",
    "wikipedia",
    61,
  ),
  result(
    "Longitude prize - Royal Museums Greenwich",
    "https://www.rmg.co.uk/stories/topics/longitude-found-john-harrison",
    "Harrison's clocks.",
    "rmg",
    62,
  ),
];

const longAnswerScenario: PerplexityScenario = {
  id: "long-answer",
  trigger: "long-answer",
  build: () => {
    const answer = longAnswer();
    return {
      ...none,
      threadTitle: "History of navigation",
      slug: "history-of-navigation-L0ngAnsw",
      chunks: splitIntoAnswerChunks(answer, 60),
      terminalAnswer: answer,
      resultText: longAnswerPlainText(),
      webResults: LONG_SOURCES,
      relatedQuestions: ["Who invented the sextant?", "How was longitude solved?"],
      shape: { chunksPerEvent: 8 },
    };
  },
};

const crlf: PerplexityScenario = {
  id: "crlf",
  trigger: "crlf",
  build: () => {
    const answer = "Water boils at 100 °C at sea level[1].\n\nAt altitude it boils at a lower temperature[2].";
    return {
      ...none,
      threadTitle: "At what temperature does water boil?",
      slug: "at-what-temperature-does-water-boil-CrLf0000",
      chunks: splitIntoAnswerChunks(answer, 14),
      terminalAnswer: answer,
      // no markup: the plain text is the markdown itself
      resultText: answer,
      webResults: [
        result("Boiling point - Wikipedia", "https://en.wikipedia.org/wiki/Boiling_point", "The boiling point of water.", "wikipedia", 63),
        result(
          "Altitude and boiling | USGS",
          "https://www.usgs.gov/special-topics/water-science-school/science/boiling-point",
          "Lower pressure.",
          "usgs",
          64,
        ),
      ],
      relatedQuestions: ["Why does water boil faster at altitude?"],
      shape: { lineEnding: "\r\n" },
    };
  },
};

const relatedLegacy: PerplexityScenario = {
  id: "related-legacy",
  trigger: "related-legacy",
  build: () => {
    const answer = "The speed of light is 299,792,458 m/s[1].";
    return {
      ...none,
      threadTitle: "Speed of light",
      slug: "speed-of-light-ReLaTed0",
      chunks: splitIntoAnswerChunks(answer, 12),
      terminalAnswer: answer,
      // no markup: the plain text is the markdown itself
      resultText: answer,
      webResults: [
        result("Speed of light - Wikipedia", "https://en.wikipedia.org/wiki/Speed_of_light", "c = 299792458 m/s.", "wikipedia", 65),
      ],
      relatedQuestions: ["Is anything faster than light?", "How was the speed of light measured?"],
      shape: { relatedItems: false, endOfStream: false },
    };
  },
};

const BEE_GUIDE = "https://www.beekeeping.example.com/how-bees-make-honey?utm_source=perplexity&ref=guide#steps";
const HONEY_STORY = "https://www.smithsonianmag.com/science-nature/honey#:~:text=edible%20honey";

/** Links in the answer's markdown carrying the same URLs as the sources, with a text fragment and `utm_source`. */
const inlineLinks: PerplexityScenario = {
  id: "inline-links",
  trigger: "inline-links",
  build: () => {
    const answer = `Bees turn nectar into honey by evaporating it[1]; see the [beekeeping guide](${BEE_GUIDE}) and the [Smithsonian story](${HONEY_STORY})[2].\n\nRead more at <${BEE_GUIDE}>.`;
    return {
      ...none,
      threadTitle: "How do bees make honey?",
      slug: "how-do-bees-make-honey-L1nksUrl",
      chunks: splitIntoAnswerChunks(answer, 22),
      terminalAnswer: answer,
      resultText:
        "Bees turn nectar into honey by evaporating it[1]; see the beekeeping guide and the Smithsonian story[2].\n\nRead more at https://www.beekeeping.example.com/how-bees-make-honey?ref=guide#steps.",
      webResults: [
        result("How bees make honey", BEE_GUIDE, "Nectar is evaporated in the hive.", "beekeeping.example.com", 66),
        result("Ancient honey", HONEY_STORY, "Edible honey in tombs.", "smithsonianmag", 67),
      ],
      relatedQuestions: ["Why do bees make honey?"],
    };
  },
};

const finalNoAnswer: PerplexityScenario = {
  id: "final-no-answer",
  trigger: "final-no-answer",
  build: () => ({
    ...none,
    threadTitle: "Unanswered question",
    slug: "unanswered-question-N0Answer",
    chunks: [],
    terminalAnswer: "",
    resultText: "",
    webResults: EIFFEL_SOURCES,
    relatedQuestions: [],
  }),
};

export const PERPLEXITY_SCENARIOS: readonly PerplexityScenario[] = [
  diffsOnly,
  materializedOnly,
  renumbered,
  manySources,
  noSources,
  noSnippet,
  unicode,
  tableMarkers,
  codeFence,
  planProgress,
  unknownBlocks,
  mediaItems,
  longAnswerScenario,
  crlf,
  relatedLegacy,
  inlineLinks,
  finalNoAnswer,
  defaultScenario,
];

export function pickPerplexityScenario(prompt: string): PerplexityScenario {
  const lower = prompt.toLowerCase();
  return PERPLEXITY_SCENARIOS.find((scenario) => scenario.trigger !== null && lower.includes(scenario.trigger)) ?? defaultScenario;
}

/** offlineAnswer() as plain text (written by hand: it has no markup, so it is the same text). */
export function offlinePlainText(prompt: string): string {
  return [
    `You asked: "${prompt}".`,
    "",
    "This answer comes from trained knowledge only: the web was not searched, so nothing is cited.",
  ].join("\n");
}

/** What the replica answers when the page turned the Web source off: no search, no results, no markers. */
export function offlineAnswer(prompt: string): string {
  return [
    `You asked: "${prompt}".`,
    "",
    "This answer comes from trained knowledge only: the web was not searched, so nothing is cited.",
  ].join("\n");
}

/** The concrete run the replica renders for `prompt` (see the table at the top). */
export function resolvePerplexityRun(prompt: string, options: { searchEnabled: boolean }): PerplexityRun {
  const scenario = pickPerplexityScenario(prompt);
  const built = scenario.build(prompt);
  const ids = {
    backendUuid: uuidFrom(`backend:${scenario.id}:${prompt}`),
    contextUuid: uuidFrom(`context:${scenario.id}:${prompt}`),
    uuid: uuidFrom(`entry:${scenario.id}:${prompt}`),
    readWriteToken: uuidFrom(`rw:${scenario.id}:${prompt}`),
  };
  const shape = { ...DEFAULT_SHAPE, ...built.shape };
  const run: PerplexityRun = { ...built, scenarioId: scenario.id, ids, shape };
  if (options.searchEnabled) return run;
  const answer = offlineAnswer(prompt);
  return {
    ...run,
    chunks: splitIntoAnswerChunks(answer, 24),
    terminalAnswer: answer,
    resultText: offlinePlainText(prompt),
    webResults: null,
    withdrawnResult: null,
    revisedSnippet: null,
    sourcesAnswerMode: false,
    media: null,
    plan: null,
  };
}
