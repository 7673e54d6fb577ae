/**
 * What every answered scenario of the Google AI Mode replica must return (test/support/oracles/oracle.ts), written from
 * the scenario data by the mapping of providers/google_ai_mode.md §4 through the independent reader in
 * test/fixtures/google_ai_mode/expected.ts (its own markdown and plain-text writer, the URLs as the scenario states
 * them): nothing from src/ renders, parses or normalises anything here. One case per scenario of the library (faults
 * are not scenarios), plus the prompts of the capture files in test/fixtures/captures/google_ai_mode/.
 */
import { AI_MODE_SCENARIOS, pickAiModeScenario } from "../../../replicas/google_ai_mode/scenarios";
import { expectedAnswer } from "../../fixtures/google_ai_mode/expected";
import type { OracleCase, ProviderOracle } from "./oracle";

/** Prompts beyond one per triggered scenario: the default answer (it quotes the prompt) and the capture files' prompts. */
const EXTRA_CASES: ReadonlyArray<{ id: string; params: Record<string, string> }> = [
  { id: "default", params: { prompt: "Who painted the Mona Lisa?" } },
  // test/fixtures/captures/google_ai_mode/how-long-is-a-day-on-mars-us.json
  { id: "default (capture how-long-is-a-day-on-mars-us)", params: { prompt: "How long is a day on Mars?", country: "US" } },
  // test/fixtures/captures/google_ai_mode/beste-wanderwege-im-harz-deutsch-de.json: a German page (hl=de)
  { id: "deutsch (capture beste-wanderwege-im-harz-deutsch-de)", params: { prompt: "Beste Wanderwege im Harz deutsch", country: "DE" } },
];

function caseOf(id: string, params: Record<string, string>): OracleCase {
  const prompt = params.prompt ?? "";
  return { id, params, expected: { ...expectedAnswer(pickAiModeScenario(prompt)) } };
}

export const googleAiModeOracle: ProviderOracle = {
  provider: "google_ai_mode",
  cases: () => [
    ...AI_MODE_SCENARIOS.map((scenario) => caseOf(scenario.id, { prompt: `${scenario.trigger ?? ""}: tell me more` })),
    ...EXTRA_CASES.map(({ id, params }) => caseOf(id, params)),
  ],
};
