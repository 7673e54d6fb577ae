/**
 * What a Perplexity scrape of each replica scenario must return, written from the scenario data by the mapping of
 * providers/perplexity.md §4, by hand: `result` is the scenario's hand-written plain text (`resultText`),
 * `result_markdown` the terminal answer (else the joined chunks) with the source URLs written out below in their
 * normalised form (DESIGN.md §4: text fragment removed, Google redirect unwrapped, Perplexity's `utm_source` dropped —
 * in the markdown exactly as in `sources`), `sources` the web results in order (`title=name`, `snippet ?? ""`),
 * `related_questions` the scenario's list. Nothing from src/ is imported.
 */
import { PERPLEXITY_SCENARIOS, type PerplexityRun, resolvePerplexityRun } from "../../../replicas/perplexity/scenarios";
import type { OracleCase, ProviderOracle } from "./oracle";

/** The scenario URLs that need one of the three normalisations, as they must come back (written out by hand). */
export const PERPLEXITY_NORMALISED_URLS: Readonly<Record<string, string>> = {
  "https://www.smithsonianmag.com/science-nature/honey#:~:text=edible%20honey": "https://www.smithsonianmag.com/science-nature/honey",
  "https://www.google.com/url?q=https://www.example.edu/honey-chemistry?lang%3Den&sa=U&ved=2ahUKEwj":
    "https://www.example.edu/honey-chemistry?lang=en",
  "https://www.beekeeping.example.com/how-bees-make-honey?utm_source=perplexity&ref=guide#steps":
    "https://www.beekeeping.example.com/how-bees-make-honey?ref=guide#steps",
};

export interface PerplexityExpected {
  result: string;
  result_markdown: string;
  sources: { title: string; url: string; snippet: string }[];
  related_questions: string[];
}

/** The answer fields a run must give (§4), from the run's data alone. */
export function expectedPerplexityFields(run: PerplexityRun): PerplexityExpected {
  let markdown = run.terminalAnswer ?? run.chunks.join("");
  for (const [raw, normalised] of Object.entries(PERPLEXITY_NORMALISED_URLS)) markdown = markdown.split(raw).join(normalised);
  return {
    result: run.resultText,
    result_markdown: markdown,
    sources: (run.webResults ?? []).map((source) => ({
      title: source.name,
      url: PERPLEXITY_NORMALISED_URLS[source.url] ?? source.url,
      snippet: source.snippet ?? "",
    })),
    related_questions: run.relatedQuestions,
  };
}

/** Prompts without markdown syntax (the default and offline answers quote the prompt). */
const EXTRA_PROMPTS: ReadonlyArray<{ prompt: string; webSearch: boolean }> = [
  // the prompts of test/fixtures/captures/perplexity/
  { prompt: "Who built the Eiffel Tower?", webSearch: true },
  { prompt: "Explain photosynthesis simply", webSearch: false },
  { prompt: "Who designed the Eiffel Tower, without searching?", webSearch: false },
  { prompt: "table-markers without the web", webSearch: false },
];

function oracleCase(prompt: string, webSearch: boolean): OracleCase {
  const run = resolvePerplexityRun(prompt, { searchEnabled: webSearch });
  return {
    id: `${run.scenarioId}${webSearch ? "" : " (web_search=false)"}`,
    params: webSearch ? { prompt } : { prompt, web_search: "false" },
    expected: { ...expectedPerplexityFields(run) },
  };
}

export const perplexityOracle: ProviderOracle = {
  provider: "perplexity",
  cases() {
    const answered = PERPLEXITY_SCENARIOS.filter((scenario) => scenario.trigger !== null && scenario.id !== "final-no-answer").map(
      (scenario) => oracleCase(`${scenario.trigger} question`, true),
    );
    return [...answered, ...EXTRA_PROMPTS.map(({ prompt, webSearch }) => oracleCase(prompt, webSearch))];
  },
};
