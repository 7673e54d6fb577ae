/**
 * What a ChatGPT scrape of each answered replica scenario must return (providers/chatgpt.md §4), written from the
 * scenario data by replicas/chatgpt/expected.ts — the sheet's mapping applied by hand to structured data, `result`
 * from each segment's hand-written plain form — never through the parser, the shared markdown renderer or the URL
 * helpers of src/. `result_markdown_json` is what the sheet defines it as: markdown-it's own `parse` of the expected
 * markdown, serialised with every Token field.
 *
 * One case per scenario of the replica's library (faults are not scenarios), plus the prompts of the recorded captures
 * in test/fixtures/captures/chatgpt/.
 */
import MarkdownIt from "markdown-it";
import { expectedChatgptFields } from "../../../replicas/chatgpt/expected";
import { CHATGPT_SCENARIOS, pickChatgptScenario } from "../../../replicas/chatgpt/scenarios";
import type { OracleCase, ProviderOracle } from "./oracle";

/** The prompt of a scenario's case: its trigger in a sentence (the default scenario quotes the prompt back). */
function promptFor(trigger: string | null): string {
  return trigger === null ? "What is a replica fixture?" : `Tell me about ${trigger} please`;
}

function chatgptCase(id: string, prompt: string, markdownJson = false): OracleCase {
  const fields = expectedChatgptFields(pickChatgptScenario(prompt), prompt);
  const expected: Record<string, unknown> = { ...fields };
  if (markdownJson) expected.result_markdown_json = JSON.parse(JSON.stringify(new MarkdownIt().parse(fields.result_markdown, {})));
  const params: Record<string, string> = { prompt, country: "US" };
  if (markdownJson) params.markdown_json = "true";
  return { id, params, expected };
}

export const chatgptOracle: ProviderOracle = {
  provider: "chatgpt",
  cases: () => [
    ...CHATGPT_SCENARIOS.map((scenario) => chatgptCase(scenario.id, promptFor(scenario.trigger))),
    // the prompts of the recorded captures (test/fixtures/captures/chatgpt/)
    chatgptCase("default (capture)", "What is the tallest building in the world?"),
    chatgptCase("several-queries, markdown_json (capture)", "Compare the tallest towers, several-queries", true),
  ],
};
