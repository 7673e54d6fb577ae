/**
 * What a Copilot scrape of each replica scenario must return, written from the scenario data
 * (replicas/copilot/scenarios.ts) and providers/copilot.md §4 by hand, never by the code under test.
 * `result_markdown` is read off the scenario's steps by the small reader below (§4: each part's `appendText` deltas
 * joined, a `replaceText` replacing the part so far, non-blank parts in order separated by a blank line);
 * `result`, `citations` and `links` are written out per scenario (URLs as the API returns them: a `#:~:text=`
 * directive dropped, a Bing `/ck/a?u=a1…` wrapper unwrapped, Copilot/Bing/Microsoft URLs left out of `links`).
 */
import {
  COPILOT_SCENARIOS,
  defaultScenario,
  pickCopilotScenario,
  type AnswerStep,
  type CopilotScenario,
  type CopilotWireMode,
} from "../../../replicas/copilot/scenarios";
import type { OracleCase, ProviderOracle } from "./oracle";

/** §4 result_markdown from the scenario's steps (an independent reader of the scenario data, not of the wire). */
function markdownOf(scenario: CopilotScenario): string {
  const parts = new Map<string, string>();
  const visit = (step: AnswerStep): void => {
    if (step.kind === "text") parts.set(step.partId, (parts.get(step.partId) ?? "") + step.deltas.join(""));
    else if (step.kind === "replace") parts.set(step.partId, step.text);
    else if (step.kind === "frame") step.steps.forEach(visit);
  };
  scenario.steps.forEach(visit);
  return [...parts.values()].filter((part) => part.trim() !== "").join("\n\n");
}

function scenarioById(id: string): CopilotScenario {
  const found = COPILOT_SCENARIOS.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`copilot oracle: no scenario ${id}`);
  return found;
}

interface Written {
  /** Overrides the reader when the markdown's links are normalised (wrapped-links). */
  markdown?: string;
  result: string;
  citations: { title: string; url: string }[];
  links: string[];
}

function oracleCase(id: string, prompt: string, mode: CopilotWireMode, data: CopilotScenario, written: Written): OracleCase {
  return {
    id,
    params: { prompt, mode },
    expected: {
      mode,
      result_markdown: written.markdown ?? markdownOf(data),
      result: written.result,
      citations: written.citations,
      links: written.links,
    },
  };
}

function lines(...text: string[]): string {
  return text.join("\n");
}

/** The long answer's plain text, section by section as scenarios.ts writes its markdown. */
function longPlain(): string {
  const sections: string[] = [];
  for (let index = 1; index <= 60; index += 1) {
    sections.push(
      `Section ${index}: notes on topic ${index}`,
      `Paragraph ${index} explains the topic in plain words, with emphasis, italics and inline code. It goes on for a while so that the answer grows well beyond thirty kilobytes in total, which is what a long answer looks like.`,
      lines(
        `- Point ${index}.1 about the first aspect`,
        `- Point ${index}.2 about the second aspect, with a reference`,
        `- Point ${index}.3 about the third aspect`,
      ),
      lines("Column A\tColumn B", `value ${index}a\tvalue ${index}b`),
      `const section${index} = ${index} * 2;`,
    );
  }
  return sections.join("\n\n");
}

const DEFAULT_PROMPT = "How do solar panels work?";

/** The default scenario of every mode for `prompt` (a prompt that names no trigger): the answer quotes it. */
function defaults(prompt = DEFAULT_PROMPT): OracleCase[] {
  const opening = (name: string) => `You asked: "${prompt}" (mode: ${name}).`;
  const none = { citations: [], links: [] };
  return [
    // the prompt of test/fixtures/captures/copilot/how-do-solar-panels-work-us-mode-search.json
    oracleCase("default-search", prompt, "search", defaultScenario(prompt, "search"), {
      result: lines(
        opening("Search"),
        "",
        "This is the replica's grounded answer. It draws on an encyclopedia and on a second reference work.",
        "",
        "- It has bold text and a list.",
        "- Its sources arrive as citation events.",
      ),
      citations: [
        { title: "Wikipedia search", url: "https://en.wikipedia.org/wiki/Special:Search" },
        { title: "Britannica", url: "https://www.britannica.com/search" },
      ],
      links: ["https://en.wikipedia.org/wiki/Special:Search", "https://www.britannica.com/search"],
    }),
    oracleCase("default-smart", prompt, "smart", defaultScenario(prompt, "smart"), {
      result: lines(
        opening("Smart"),
        "",
        "This is the replica's balanced answer, written without web sources.",
        "",
        "1. First point.",
        "2. Second point.",
      ),
      ...none,
    }),
    oracleCase("default-chat", prompt, "chat", defaultScenario(prompt, "chat"), {
      result: `${opening("Quick response")} Short and quick.`,
      ...none,
    }),
    oracleCase("default-reasoning", prompt, "reasoning", defaultScenario(prompt, "reasoning"), {
      result: lines(opening("Think Deeper"), "", "After thinking it through: the answer is considered and complete."),
      ...none,
    }),
    oracleCase("default-study", prompt, "study", defaultScenario(prompt, "study"), {
      result: lines(
        opening("Study and learn"),
        "",
        "Study guide",
        "",
        "Key ideas",
        "",
        "- Idea one",
        "- Idea two",
        "",
        "Check yourself",
        "",
        "1. What is idea one?",
        "2. How does idea two follow?",
      ),
      ...none,
    }),
  ];
}

export function copilotCases(): OracleCase[] {
  const triggered = (id: string, prompt: string, mode: CopilotWireMode, written: Written): OracleCase =>
    oracleCase(id, prompt, mode, scenarioById(id), written);
  return [
    triggered("many-citations", "many-citations: how do solar panels work?", "search", {
      result: lines(
        "Solar panels convert sunlight into electricity using photovoltaic cells. Efficiency of commercial panels is typically between 15 and 23 percent.",
        "",
        "Costs fell by about 90 percent over the last decade.",
      ),
      citations: [
        { title: "How Does Solar Work?", url: "https://www.energy.gov/eere/solar/how-does-solar-work" },
        { title: "Solar panel - Wikipedia", url: "https://en.wikipedia.org/wiki/Solar_panel" },
        { title: "Best Research-Cell Efficiency Chart", url: "https://www.nrel.gov/pv/cell-efficiency.html" },
        // no title, and a blank one: the hostname (§4)
        { title: "www.iea.org", url: "https://www.iea.org/energy-system/renewables/solar-pv" },
        { title: "www.seia.org", url: "https://www.seia.org/solar-industry-research-data" },
        { title: "Why did renewables become so cheap so fast?", url: "https://ourworldindata.org/cheap-renewables-growth" },
        {
          title: "Renewable power generation costs in 2022",
          url: "https://www.irena.org/Publications/2023/Aug/Renewable-power-generation-costs-in-2022",
        },
        { title: "pv magazine", url: "https://www.pv-magazine.com/" },
        { title: "Bloomberg Energy", url: "https://www.bloomberg.com/energy" },
      ],
      links: [
        "https://www.energy.gov/eere/solar/how-does-solar-work",
        "https://en.wikipedia.org/wiki/Solar_panel",
        "https://www.nrel.gov/pv/cell-efficiency.html",
        "https://www.iea.org/energy-system/renewables/solar-pv",
        "https://www.seia.org/solar-industry-research-data",
        "https://ourworldindata.org/cheap-renewables-growth",
        "https://www.irena.org/Publications/2023/Aug/Renewable-power-generation-costs-in-2022",
        "https://www.pv-magazine.com/",
        "https://www.bloomberg.com/energy",
      ],
    }),
    triggered("no-citations", "no-citations: when does water boil?", "search", {
      result: "Water boils at 100 degrees Celsius at sea level. At higher altitudes it boils at lower temperatures.",
      citations: [],
      links: [],
    }),
    triggered("duplicate-citations", "duplicate-citations about the Eiffel Tower", "smart", {
      result:
        "The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair. Its designer was Gustave Eiffel's company.",
      citations: [
        { title: "Key figures | Eiffel Tower", url: "https://www.toureiffel.paris/en/the-monument/key-figures" },
        { title: "Eiffel Tower - Wikipedia", url: "https://en.wikipedia.org/wiki/Eiffel_Tower" },
      ],
      links: ["https://www.toureiffel.paris/en/the-monument/key-figures", "https://en.wikipedia.org/wiki/Eiffel_Tower"],
    }),
    triggered("markdown-links", "markdown-links: how do I learn Rust?", "chat", {
      result: lines(
        "Start with The Rust Book and the Rust website.",
        "",
        "- Background: Rust (programming language)",
        "- Examples: https://doc.rust-lang.org/rust-by-example/",
        "- Search more on Bing or continue in Copilot",
        "- Write to the team",
        "- Again: the book",
      ),
      citations: [
        { title: "Rust Programming Language", url: "https://www.rust-lang.org/" },
        { title: "Rust Blog", url: "https://blog.rust-lang.org/" },
      ],
      links: [
        "https://doc.rust-lang.org/book/",
        "https://www.rust-lang.org/",
        "https://en.wikipedia.org/wiki/Rust_(programming_language)",
        "https://doc.rust-lang.org/rust-by-example/",
        "https://blog.rust-lang.org/",
      ],
    }),
    triggered("replace-text", "replace-text: capital of Australia", "reasoning", {
      result: "The capital of Australia is Canberra. It became the capital in 1913.",
      citations: [],
      links: [],
    }),
    triggered("chain-of-thought", "chain-of-thought: first primes", "reasoning", {
      result: lines("The first five prime numbers are 2, 3, 5, 7 and 11.", "", "Note that 1 is not a prime number."),
      citations: [],
      links: [],
    }),
    // the prompt of test/fixtures/captures/copilot/plan-a-week-of-meals-multi-part-us-mode-smart.json
    triggered("multi-part", "Plan a week of meals, multi-part", "smart", {
      result: lines(
        "Here is today's weather in Seattle.",
        "",
        "Expect light rain in the afternoon, so take an umbrella.",
        "",
        "Tip: temperatures drop after sunset.",
      ),
      citations: [],
      links: [],
    }),
    triggered("unicode-emoji", "unicode-emoji 🌍 please", "study", {
      result: lines(
        "Grüße aus Köln! 東京タワーは333メートルです。서울은 한국의 수도입니다.",
        "",
        "עברית: שלום עולם. العربية: مرحبا بالعالم.",
        "",
        "Combining marks: e\u0301 a\u0308 n\u0303. Emoji: 👩‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 🇩🇪 🇯🇵, 🚀✨ and 👍🏽.",
      ),
      citations: [],
      links: [],
    }),
    triggered("long-answer", "long-answer please", "smart", {
      result: longPlain(),
      citations: [],
      links: Array.from({ length: 60 }, (_, index) => `https://example.org/topics/${index + 1}`),
    }),
    triggered("unknown-events", "unknown-events: a lighthouse", "smart", {
      result: "Here is a picture of a lighthouse. The lighthouse stands on a rocky cape.",
      citations: [],
      links: [],
    }),
    triggered("concatenated-frames", "concatenated-frames test", "search", {
      result:
        "Frames may carry more than one event. This sentence arrived in a frame with two objects. Records can also be separated by U+001E.",
      citations: [{ title: "WebSocket - Web APIs | MDN", url: "https://developer.mozilla.org/en-US/docs/Web/API/WebSocket" }],
      links: ["https://developer.mozilla.org/en-US/docs/Web/API/WebSocket"],
    }),
    triggered("wrapped-links", "wrapped-links: how does solar work?", "search", {
      // the text fragment directive dropped and the Bing redirect unwrapped in the markdown too
      markdown: lines(
        "Photovoltaic cells turn light into current ([how solar works](https://www.energy.gov/eere/solar/how-does-solar-work)).",
        "",
        "A primer is on [energy.gov](https://www.energy.gov/solar-energy-101#how).",
      ),
      result: lines("Photovoltaic cells turn light into current (how solar works).", "", "A primer is on energy.gov."),
      citations: [{ title: "How Does Solar Work?", url: "https://www.energy.gov/eere/solar/how-does-solar-work" }],
      links: ["https://www.energy.gov/eere/solar/how-does-solar-work", "https://www.energy.gov/solar-energy-101#how"],
    }),
    ...defaults(),
  ];
}

/** The expected fields for any prompt and mode (e2e layouts, unit fixtures): the oracle case of the prompt's scenario. */
export function copilotExpectation(prompt: string, mode: CopilotWireMode): Record<string, unknown> {
  const id = pickCopilotScenario(prompt, mode).id;
  const known =
    id === "default"
      ? defaults(prompt).find((candidate) => candidate.params.mode === mode)
      : copilotCases().find((candidate) => candidate.id === id);
  if (known === undefined) throw new Error(`copilot oracle: no case for ${id} (${mode})`);
  return { ...known.expected, mode };
}

export const copilotOracle: ProviderOracle = { provider: "copilot", cases: copilotCases };
