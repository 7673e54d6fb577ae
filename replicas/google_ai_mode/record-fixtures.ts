/**
 * Records the parser fixtures of test/fixtures/google_ai_mode/ from the replica's renderer: every scenario in the two
 * markup layouts, and the fault bodies (truncated, cut, empty, the unusual-traffic page, Google's error page).
 * Hand-written fixtures (the sheet's sample and odd markup) live beside them and are not touched.
 *
 *   tsx replicas/google_ai_mode/record-fixtures.ts
 *
 * The parser test checks that the recorded files still equal what this module renders.
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { renderFolwrBody } from "./fragment";
import { type AiModeLayoutId, aiModeLayout } from "./layouts";
import { renderGoogleError, renderSorryPage } from "./pages";
import { AI_MODE_SCENARIOS, type AiModeScenario, pickAiModeScenario } from "./scenarios";

/** The prompt of the recorded default scenario (its answer quotes the prompt). */
export const DEFAULT_FIXTURE_PROMPT = "What is the capital of France?";
export const FIXTURE_LAYOUTS: readonly AiModeLayoutId[] = ["classic", "rotated"];

export interface RecordedFixture {
  file: string;
  html: string;
  /** The scenario whose answer the fixture holds, when it is a normal answer. */
  scenario: AiModeScenario | null;
}

const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

export function recordedFixtures(): RecordedFixture[] {
  const fixtures: RecordedFixture[] = [];
  for (const scenario of [pickAiModeScenario(DEFAULT_FIXTURE_PROMPT), ...AI_MODE_SCENARIOS]) {
    for (const layout of FIXTURE_LAYOUTS) {
      fixtures.push({
        file: `${scenario.id}.${layout}.html`,
        html: decode(renderFolwrBody(scenario, aiModeLayout(layout), null).bytes),
        scenario,
      });
    }
  }
  const faulted = pickAiModeScenario("table-and-list");
  for (const layout of FIXTURE_LAYOUTS) {
    fixtures.push({
      file: `malformed-stream.${layout}.html`,
      html: decode(renderFolwrBody(faulted, aiModeLayout(layout), "malformed_stream").bytes),
      scenario: null,
    });
    fixtures.push({
      file: `empty-answer.${layout}.html`,
      html: decode(renderFolwrBody(faulted, aiModeLayout(layout), "empty_answer").bytes),
      scenario: null,
    });
  }
  fixtures.push({
    file: "disconnect.classic.html",
    html: decode(renderFolwrBody(faulted, aiModeLayout("classic"), "disconnect").bytes),
    scenario: null,
  });
  fixtures.push({
    file: "sorry-page.html",
    html: renderSorryPage("https://www.google.com/search?udm=50&q=weather&hl=en&gl=us", "EgQKAAABGOfP"),
    scenario: null,
  });
  fixtures.push({
    file: "google-error-500.html",
    html: renderGoogleError(500, "There was an error. Please try again later."),
    scenario: null,
  });
  return fixtures;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const directory = new URL("../../test/fixtures/google_ai_mode/", import.meta.url);
  for (const fixture of recordedFixtures()) writeFileSync(new URL(fixture.file, directory), fixture.html);
  console.log(`recorded ${recordedFixtures().length} fixtures in ${directory.pathname}`);
}
