/**
 * Deterministic answers of the Copilot replica, chosen by the prompt (and, for the default, the mode). Every id,
 * timestamp and text below is fixed data (no clock, no randomness), so tests can compute every expected API field from
 * the scenario's steps with the mapping of copilot.md §4.
 *
 * Selection rule (`pickCopilotScenario`): the prompt is lower-cased; the first scenario of the table whose trigger occurs
 * anywhere in it (plain substring) wins. A prompt matching no trigger gets the `default` scenario of the requested mode,
 * whose answer quotes the prompt and names the mode. Triggers are hyphenated so ordinary prompts do not hit them.
 *
 * | Trigger               | What it exercises (copilot.md §6)                                                            |
 * |-----------------------|----------------------------------------------------------------------------------------------|
 * | `many-citations`      | 9 citation events interleaved with text; a missing and a blank title (hostname fallback), a   |
 * |                       | `#:~:text=` fragment, a citation without `iconUrl`                                            |
 * | `no-citations`        | a grounded answer that carries no citation event at all (valid: `citations: []`)              |
 * | `duplicate-citations` | the same url cited three times with different titles, once more with a text fragment          |
 * | `markdown-links`      | inline links, an autolink, a url with parentheses, Copilot/Bing internal links, a mailto link |
 * | `replace-text`        | `replaceText` correcting a part mid-stream, then more `appendText` deltas                     |
 * | `chain-of-thought`    | `chainOfThought` events before and between the answer deltas (must not leak)                 |
 * | `multi-part`          | three text parts with `partCompleted` each and a weather `card` between them                  |
 * | `unicode-emoji`       | CJK, RTL, combining marks, ZWJ emoji and flags, deltas cut inside surrogate pairs             |
 * | `long-answer`         | > 30 kB of markdown (headings, lists, a table, code) in many deltas                            |
 * | `unknown-events`      | events the scraper does not know (`modeSelected`, `taskStart`, `imageGenerated`, made-up ones) |
 * | `concatenated-frames` | a frame holding two concatenated JSON objects and one holding `\x1e`-separated records        |
 * | `wrapped-links`       | a markdown link with a `#:~:text=` directive, one wrapped in Bing's `/ck/a?u=a1…` redirect,   |
 * |                       | and a citation that is the same page with a text fragment (one URL form in every field)       |
 * | (anything else)       | `default`: depends on the mode (search: 2 citations; reasoning: chainOfThought; study: guide) |
 */

/** The five API modes and the `send.mode` value each maps to (copilot.md §1: they are the same strings). */
export const COPILOT_WIRE_MODES = ["search", "smart", "chat", "reasoning", "study"] as const;
export type CopilotWireMode = (typeof COPILOT_WIRE_MODES)[number];
/** Further wire modes the real server knows (copilot.md §1); the replica accepts them and answers like `smart`. */
export const OTHER_WIRE_MODES = ["research", "deep-research", "copilot-beta"] as const;

/** One server event without its `id` (ids are the connection's resume cursor, assigned when the event is sent). */
export type CopilotEvent = { event: string } & Record<string, unknown>;

/** What the answer consists of, in stream order. Each step becomes one or more server events. */
export type AnswerStep =
  /** `appendText` deltas of one part, one event per delta. */
  | { kind: "text"; partId: string; deltas: readonly string[] }
  /** `replaceText`: the part's text so far is replaced by `text`. */
  | { kind: "replace"; partId: string; text: string }
  | { kind: "citation"; url: string; title?: string; iconUrl?: string }
  | { kind: "partCompleted"; partId: string }
  /** `chainOfThought` reasoning text (never part of the answer). */
  | { kind: "thought"; text: string }
  /** Any other event, sent as is in its own frame (cards, unknown events). */
  | { kind: "event"; event: CopilotEvent }
  /** Several answer steps sent in ONE frame: JSON objects concatenated, or separated by `\x1e`. */
  | { kind: "frame"; separator: "" | "\u001e"; steps: readonly AnswerStep[] };

export interface CopilotScenario {
  id: string;
  /** Substring of the lower-cased prompt that selects the scenario; null for the default. */
  trigger: string | null;
  summary: string;
  /** messageId of the user's message (`received`). */
  userMessageId: string;
  /** messageId of the answer (`startMessage`, `appendText`, `done`). */
  messageId: string;
  receivedAt: string;
  startedAt: string;
  /** Whether the server asks for a hashcash proof of work after `send` (the page answers it). */
  hashcash: boolean;
  steps: readonly AnswerStep[];
  /** `titleUpdate` after `done`; null: none. */
  title: string | null;
  /** `suggestedFollowups` after `done`; null: none. */
  followups: readonly string[] | null;
}

/** Splits `text` into deltas of roughly `size` characters, cutting only after whitespace (joins back exactly). */
export function wordDeltas(text: string, size: number): string[] {
  const pieces = text.match(/\S+\s*|\s+/g) ?? [];
  const deltas: string[] = [];
  let current = "";
  for (const piece of pieces) {
    current += piece;
    if (current.length >= size) {
      deltas.push(current);
      current = "";
    }
  }
  if (current !== "") deltas.push(current);
  return deltas;
}

/**
 * Splits `text` every `size` UTF-16 code units, regardless of characters: deltas then cut surrogate pairs (an emoji's
 * two halves arrive in two frames, each JSON-escaped as a lone surrogate) and grapheme clusters.
 */
export function codeUnitDeltas(text: string, size: number): string[] {
  const deltas: string[] = [];
  for (let index = 0; index < text.length; index += size) deltas.push(text.slice(index, index + size));
  return deltas;
}

function ids(seq: number): Pick<CopilotScenario, "userMessageId" | "messageId" | "receivedAt" | "startedAt"> {
  const tail = String(seq).padStart(4, "0");
  const base = Date.UTC(2026, 0, 2 + seq, 3, 4, 5, 0);
  return {
    userMessageId: `Kq7uXbL2mN9pR${tail}`,
    messageId: `Zt3vYcM8wQ1sD${tail}`,
    receivedAt: new Date(base).toISOString(),
    startedAt: new Date(base + 100).toISOString(),
  };
}

function scenario(seq: number, id: string, trigger: string | null, summary: string, rest: Partial<CopilotScenario>): CopilotScenario {
  return {
    id,
    trigger,
    summary,
    ...ids(seq),
    hashcash: false,
    steps: [],
    title: null,
    followups: null,
    ...rest,
  };
}

const text = (partId: string, markdown: string, size = 24): AnswerStep => ({ kind: "text", partId, deltas: wordDeltas(markdown, size) });
const done = (partId: string): AnswerStep => ({ kind: "partCompleted", partId });

// ---------------------------------------------------------------------------------------------------------------
// Default scenarios, one per mode

const MODE_NAMES: Record<CopilotWireMode, string> = {
  search: "Search",
  smart: "Smart",
  chat: "Quick response",
  reasoning: "Think Deeper",
  study: "Study and learn",
};

/** The default answer of `mode`; it quotes the prompt so a test can see that the prompt reached the server. */
export function defaultScenario(prompt: string, mode: CopilotWireMode): CopilotScenario {
  const opening = `You asked: "${prompt}" (mode: ${MODE_NAMES[mode]}).`;
  const base = { title: "Replica conversation", followups: ["Tell me more", "Can you give an example?"], hashcash: true };
  switch (mode) {
    case "search":
      return scenario(1, "default", null, "search: two citations between the deltas", {
        ...base,
        steps: [
          text("part-1", `${opening}\n\nThis is the replica's grounded answer. It draws on an encyclopedia`),
          {
            kind: "citation",
            url: "https://en.wikipedia.org/wiki/Special:Search",
            title: "Wikipedia search",
            iconUrl: "https://en.wikipedia.org/favicon.ico",
          },
          text("part-1", " and on a second reference work."),
          {
            kind: "citation",
            url: "https://www.britannica.com/search",
            title: "Britannica",
            iconUrl: "https://www.britannica.com/favicon.ico",
          },
          text("part-1", "\n\n- It has **bold** text and a list.\n- Its sources arrive as citation events."),
          done("part-1"),
        ],
      });
    case "smart":
      return scenario(2, "default", null, "smart: no citations", {
        ...base,
        steps: [
          text(
            "part-1",
            `${opening}\n\nThis is the replica's balanced answer, written without web sources.\n\n1. First point.\n2. Second point.`,
          ),
          done("part-1"),
        ],
      });
    case "chat":
      return scenario(3, "default", null, "chat: one short delta", {
        ...base,
        hashcash: false,
        steps: [{ kind: "text", partId: "part-1", deltas: [`${opening} Short and quick.`] }, done("part-1")],
      });
    case "reasoning":
      return scenario(4, "default", null, "reasoning: chainOfThought before the answer", {
        ...base,
        steps: [
          { kind: "thought", text: "The user wants a careful answer. " },
          { kind: "thought", text: "Consider the question step by step before answering." },
          text("part-1", `${opening}\n\nAfter thinking it through: the answer is *considered* and complete.`),
          done("part-1"),
        ],
      });
    case "study":
      return scenario(5, "default", null, "study: a structured guide", {
        ...base,
        steps: [
          text(
            "part-1",
            `${opening}\n\n## Study guide\n\n### Key ideas\n\n- Idea one\n- Idea two\n\n### Check yourself\n\n1. What is idea one?\n2. How does idea two follow?`,
          ),
          done("part-1"),
        ],
      });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Triggered scenarios

const LONG_SECTION = (index: number): string =>
  [
    `## Section ${index}: notes on topic ${index}`,
    "",
    `Paragraph ${index} explains the topic in plain words, with **emphasis**, *italics* and \`inline code\`. It goes on for a while so that the answer grows well beyond thirty kilobytes in total, which is what a long answer looks like.`,
    "",
    `- Point ${index}.1 about the first aspect`,
    `- Point ${index}.2 about the second aspect, with a [reference](https://example.org/topics/${index})`,
    `- Point ${index}.3 about the third aspect`,
    "",
    "| Column A | Column B |",
    "|---|---|",
    `| value ${index}a | value ${index}b |`,
    "",
    "```ts",
    `const section${index} = ${index} * 2;`,
    "```",
  ].join("\n");

const UNICODE_TEXT = [
  "Grüße aus Köln! 東京タワーは333メートルです。서울은 한국의 수도입니다.",
  "",
  "עברית: שלום עולם. العربية: مرحبا بالعالم.",
  "",
  "Combining marks: e\u0301 a\u0308 n\u0303. Emoji: 👩‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 🇩🇪 🇯🇵, 🚀✨ and 👍🏽.",
].join("\n");

export const COPILOT_SCENARIOS: readonly CopilotScenario[] = [
  scenario(11, "many-citations", "many-citations", "9 citations, missing/blank titles, a text fragment", {
    hashcash: true,
    steps: [
      text("part-1", "Solar panels convert sunlight into electricity using photovoltaic cells."),
      {
        kind: "citation",
        url: "https://www.energy.gov/eere/solar/how-does-solar-work",
        title: "How Does Solar Work?",
        iconUrl: "https://www.energy.gov/favicon.ico",
      },
      {
        kind: "citation",
        url: "https://en.wikipedia.org/wiki/Solar_panel",
        title: "Solar panel - Wikipedia",
        iconUrl: "https://en.wikipedia.org/favicon.ico",
      },
      text("part-1", " Efficiency of commercial panels is typically between 15 and 23 percent."),
      {
        kind: "citation",
        url: "https://www.nrel.gov/pv/cell-efficiency.html",
        title: "Best Research-Cell Efficiency Chart",
        iconUrl: "https://www.nrel.gov/favicon.ico",
      },
      { kind: "citation", url: "https://www.iea.org/energy-system/renewables/solar-pv", iconUrl: "https://www.iea.org/favicon.ico" },
      {
        kind: "citation",
        url: "https://www.seia.org/solar-industry-research-data",
        title: "   ",
        iconUrl: "https://www.seia.org/favicon.ico",
      },
      text("part-1", "\n\nCosts fell by about 90 percent over the last decade."),
      {
        kind: "citation",
        url: "https://ourworldindata.org/cheap-renewables-growth#:~:text=solar%20fell%20by%2090%25",
        title: "Why did renewables become so cheap so fast?",
        iconUrl: "https://ourworldindata.org/favicon.ico",
      },
      {
        kind: "citation",
        url: "https://www.irena.org/Publications/2023/Aug/Renewable-power-generation-costs-in-2022",
        title: "Renewable power generation costs in 2022",
      },
      { kind: "citation", url: "https://www.pv-magazine.com/", title: "pv magazine", iconUrl: "https://www.pv-magazine.com/favicon.ico" },
      {
        kind: "citation",
        url: "https://www.bloomberg.com/energy",
        title: "Bloomberg Energy",
        iconUrl: "https://www.bloomberg.com/favicon.ico",
      },
      done("part-1"),
    ],
    title: "Solar panels",
    followups: ["How long do solar panels last?"],
  }),
  scenario(12, "no-citations", "no-citations", "a search answer without any citation event", {
    hashcash: true,
    steps: [
      text("part-1", "Water boils at 100 degrees Celsius at sea level. At higher altitudes it boils at lower temperatures."),
      done("part-1"),
    ],
    title: "Boiling point",
    followups: [],
  }),
  scenario(13, "duplicate-citations", "duplicate-citations", "the same url cited several times", {
    steps: [
      text("part-1", "The Eiffel Tower is 330 metres tall."),
      {
        kind: "citation",
        url: "https://www.toureiffel.paris/en/the-monument/key-figures",
        title: "Key figures | Eiffel Tower",
        iconUrl: "https://www.toureiffel.paris/favicon.ico",
      },
      { kind: "citation", url: "https://en.wikipedia.org/wiki/Eiffel_Tower", title: "Eiffel Tower - Wikipedia" },
      text("part-1", " It was completed in 1889 for the World's Fair."),
      { kind: "citation", url: "https://www.toureiffel.paris/en/the-monument/key-figures", title: "Eiffel Tower key figures (repeat)" },
      {
        kind: "citation",
        url: "https://en.wikipedia.org/wiki/Eiffel_Tower#:~:text=completed%20in%201889",
        title: "Eiffel Tower (fragment)",
      },
      text("part-1", " Its designer was Gustave Eiffel's company."),
      { kind: "citation", url: "https://www.toureiffel.paris/en/the-monument/key-figures", title: "Key figures again" },
      done("part-1"),
    ],
    title: "Eiffel Tower",
    followups: ["Who designed it?"],
  }),
  scenario(14, "markdown-links", "markdown-links", "links in the text, internal ones, a citation repeated as a link", {
    hashcash: true,
    steps: [
      text(
        "part-1",
        [
          "Start with [The Rust Book](https://doc.rust-lang.org/book/) and the [Rust website](https://www.rust-lang.org/).",
          "",
          "- Background: [Rust (programming language)](https://en.wikipedia.org/wiki/Rust_(programming_language))",
          "- Examples: <https://doc.rust-lang.org/rust-by-example/>",
          "- Search more on [Bing](https://www.bing.com/search?q=learn+rust) or continue in [Copilot](https://copilot.microsoft.com/chats/abc123)",
          "- Write to [the team](mailto:rust@example.org)",
          "- Again: [the book](https://doc.rust-lang.org/book/)",
        ].join("\n"),
        40,
      ),
      {
        kind: "citation",
        url: "https://www.rust-lang.org/",
        title: "Rust Programming Language",
        iconUrl: "https://www.rust-lang.org/favicon.ico",
      },
      { kind: "citation", url: "https://blog.rust-lang.org/", title: "Rust Blog" },
      done("part-1"),
    ],
    title: "Learning Rust",
    followups: ["What are Rust's main features?"],
  }),
  scenario(15, "replace-text", "replace-text", "replaceText corrects the part, then more deltas follow", {
    steps: [
      text("part-1", "The capital of Australia is Sydney, the largest city."),
      { kind: "replace", partId: "part-1", text: "The capital of Australia is Canberra." },
      text("part-1", " It became the capital in 1913."),
      done("part-1"),
    ],
    title: "Capital of Australia",
    followups: ["Why not Sydney?"],
  }),
  scenario(16, "chain-of-thought", "chain-of-thought", "reasoning text before and between the answer deltas", {
    hashcash: true,
    steps: [
      { kind: "thought", text: "SECRET-REASONING: the user asks about primes. " },
      { kind: "thought", text: "SECRET-REASONING: check small numbers first." },
      text("part-1", "The first five prime numbers are 2, 3, 5, 7 and 11."),
      { kind: "thought", text: "SECRET-REASONING: also mention that 1 is not prime." },
      text("part-1", "\n\nNote that 1 is not a prime number."),
      done("part-1"),
    ],
    title: "Prime numbers",
    followups: null,
  }),
  scenario(17, "multi-part", "multi-part", "three text parts with a card between them", {
    steps: [
      text("part-a", "Here is today's weather in Seattle."),
      done("part-a"),
      {
        kind: "event",
        event: {
          event: "card",
          type: "weather",
          partId: "part-card",
          location: "Seattle, WA",
          temperature: 14,
          unit: "C",
          condition: "Light rain",
        },
      },
      text("part-b", "Expect light rain in the afternoon, so take an umbrella."),
      done("part-b"),
      text("part-c", "**Tip:** temperatures drop after sunset."),
      done("part-c"),
    ],
    title: "Seattle weather",
    followups: ["What about tomorrow?"],
  }),
  scenario(18, "unicode-emoji", "unicode-emoji", "multilingual text and emoji cut inside surrogate pairs", {
    steps: [{ kind: "text", partId: "part-1", deltas: codeUnitDeltas(UNICODE_TEXT, 7) }, done("part-1")],
    title: "Unicode 🌍",
    followups: ["Mehr dazu? 🤔"],
  }),
  scenario(19, "long-answer", "long-answer", "more than 30 kB of markdown", {
    hashcash: true,
    steps: [text("part-1", Array.from({ length: 60 }, (_, index) => LONG_SECTION(index + 1)).join("\n\n"), 400), done("part-1")],
    title: "A long answer",
    followups: ["Summarise it"],
  }),
  scenario(20, "unknown-events", "unknown-events", "events the scraper must ignore", {
    steps: [
      { kind: "event", event: { event: "modeSelected", mode: "smart" } },
      { kind: "event", event: { event: "taskStart", taskId: "task-1", title: "Searching the web" } },
      text("part-1", "Here is a picture of a lighthouse."),
      { kind: "event", event: { event: "generatingImage", prompt: "a lighthouse at dusk" } },
      { kind: "event", event: { event: "partialImageGenerated", progress: 0.5 } },
      {
        kind: "event",
        event: {
          event: "imageGenerated",
          url: "https://th.bing.com/th/id/OIG.lighthouse",
          thumbnailUrl: "https://th.bing.com/th/id/OIG.lighthouse?w=270",
        },
      },
      { kind: "event", event: { event: "taskUpdate", taskId: "task-1", status: "completed" } },
      { kind: "event", event: { event: "modelStatement", statement: "Generated with an image model." } },
      { kind: "event", event: { event: "sparkleStatus", sparkles: 3, nested: { deep: [1, 2, { text: "not an answer" }] } } },
      text("part-1", " The lighthouse stands on a rocky cape."),
      done("part-1"),
    ],
    title: "Lighthouse",
    followups: ["Make it a painting"],
  }),
  scenario(21, "concatenated-frames", "concatenated-frames", "two JSON objects in one frame; \\x1e-separated records", {
    steps: [
      text("part-1", "Frames may carry more than one event."),
      {
        kind: "frame",
        separator: "",
        steps: [
          { kind: "text", partId: "part-1", deltas: [" This sentence arrived"] },
          { kind: "text", partId: "part-1", deltas: [" in a frame with two objects."] },
        ],
      },
      {
        kind: "frame",
        separator: "\u001e",
        steps: [
          { kind: "citation", url: "https://developer.mozilla.org/en-US/docs/Web/API/WebSocket", title: "WebSocket - Web APIs | MDN" },
          { kind: "text", partId: "part-1", deltas: [" Records can also be separated by U+001E."] },
        ],
      },
      done("part-1"),
    ],
    title: "Frames",
    followups: null,
  }),
  scenario(22, "wrapped-links", "wrapped-links", "links with a text fragment and a Bing redirect wrapper, in the text and as citations", {
    steps: [
      text(
        "part-1",
        [
          "Photovoltaic cells turn light into current ([how solar works](https://www.energy.gov/eere/solar/how-does-solar-work#:~:text=photovoltaic%20cells)).",
          "",
          "A primer is on [energy.gov](https://www.bing.com/ck/a?!&&p=3f2a9c0d&u=a1aHR0cHM6Ly93d3cuZW5lcmd5Lmdvdi9zb2xhci1lbmVyZ3ktMTAxI2hvdw&ntb=1).",
        ].join("\n"),
        40,
      ),
      {
        kind: "citation",
        url: "https://www.energy.gov/eere/solar/how-does-solar-work#:~:text=photovoltaic%20cells",
        title: "How Does Solar Work?",
      },
      done("part-1"),
    ],
    title: "Solar links",
    followups: ["What is a solar inverter?"],
  }),
];

/** The scenario a prompt selects (see the table at the top); the default depends on the mode. */
export function pickCopilotScenario(prompt: string, mode: CopilotWireMode): CopilotScenario {
  const lower = prompt.toLowerCase();
  return (
    COPILOT_SCENARIOS.find((candidate) => candidate.trigger !== null && lower.includes(candidate.trigger)) ?? defaultScenario(prompt, mode)
  );
}
