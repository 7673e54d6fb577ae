/**
 * What a Gemini scrape of each answered replica scenario must return, written from the scenario data
 * (replicas/gemini/scenarios.ts: the answer, its hand-written plain text, sources and highlights) by the mapping of
 * providers/gemini.md §4, never by the code under test: nothing of src/ is imported.
 *
 * - `result`: the scenario's hand-written plain text; `result_markdown`: the answer without citation markers, links as
 *   the scenario writes them (already normalised where the wire carries redirects or text fragments);
 * - `citations`: one per distinct source a chip cites, in order of its first chip (§4), with the card's title, the URL
 *   as DESIGN.md "URLs we return" says (Google's /url?q= redirect unwrapped, `#:~:text=` removed: expectedSourceUrl
 *   below, an independent reader), the card's snippet, the chip's site name and the hand-written highlights;
 * - `llm_model`: the display name on the wire, else the mode picker's label ("Flash").
 */
import { GEMINI_PICKER_MODE } from "../../../replicas/gemini/layouts";
import { type GeminiScenario, pickGeminiScenario, splitCitationMarkers } from "../../../replicas/gemini/scenarios";
import type { OracleCase, ProviderOracle } from "./oracle";

/** The prompts of every answered scenario (the capture files' prompts included); fault scenarios are left out. */
export const GEMINI_ORACLE_PROMPTS: readonly string[] = [
  "Who designed the Eiffel Tower?",
  "many-citations: what is new in solar power?",
  "Famous Paris landmarks, many-citations",
  "table-citations for the largest planets",
  "no-citations: reverse a string in Python",
  "card-content: weather in Berlin",
  "with-thoughts: tea or coffee?",
  "unicode-astral 🚀 check",
  "late-citations about the Great Wall",
  "long-answer about rivers",
  "text-artifacts diagram",
  "no-model-name: speed of light",
  "trailing-error: how high is Everest?",
  "wrong-lengths: does honey spoil?",
  "with-drafts: boiling point",
  "inline-links: where do I start?",
];

/** DESIGN.md "URLs we return": Google's `/url?q=` redirect unwrapped, a `#:~:text=` fragment removed, nothing else. */
export function expectedSourceUrl(url: string): string {
  const redirect = /^https:\/\/www\.google\.com\/url\?q=([^&]+)/.exec(url);
  const target = redirect?.[1] !== undefined ? decodeURIComponent(redirect[1]) : url;
  return target.replace(/#:~:text=.*$/, "");
}

/** gemini.md §4 applied to a scenario by hand. */
export function expectedGeminiFields(scenario: GeminiScenario): Record<string, unknown> {
  const { text, points } = splitCitationMarkers(scenario.answer);
  const order: string[] = [];
  for (const point of points) for (const key of point.keys) if (!order.includes(key)) order.push(key);
  return {
    result: scenario.plainText,
    result_markdown: text,
    citations: order.map((key) => {
      const source = scenario.sources.find((candidate) => candidate.key === key);
      if (source === undefined) throw new Error(`scenario ${scenario.id} cites unknown source ${key}`);
      return {
        title: source.title,
        url: expectedSourceUrl(source.url),
        snippet: source.snippet,
        website_name: source.site,
        highlights: [...(scenario.highlights[key] ?? [])],
      };
    }),
    llm_model: scenario.modelName ?? GEMINI_PICKER_MODE,
  };
}

export const geminiOracle: ProviderOracle = {
  provider: "gemini",
  cases(): readonly OracleCase[] {
    return GEMINI_ORACLE_PROMPTS.map((prompt) => {
      const scenario = pickGeminiScenario(prompt);
      return {
        id: scenario.id === "default" ? "default" : `${scenario.id}:${prompt}`,
        params: { prompt },
        expected: expectedGeminiFields(scenario),
      };
    });
  },
};
