/**
 * Replays every capture file under test/fixtures/captures/ (written by `npm run capture`, docs/real-sites.md): the
 * provider's pure parser must turn the recorded exchanges into the recorded answer. When a site changes, the capture an
 * operator records of it fails here, and the message says what moved, field by field; the fix lands with the capture.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { type CaptureFile, CaptureFileSchema } from "../../src/capture-files/format";
import { redactCaptureFile } from "../../src/capture-files/redact";
import { replayCapture } from "../../src/capture-files/replay";
import { PROVIDERS } from "../../src/scrapers/provider-list";
import { fieldMismatches } from "../support/oracles/draw";
import { ORACLES } from "../support/oracles/index";
import type { OracleCase } from "../support/oracles/oracle";

const ROOT = join(import.meta.dirname, "..", "..");
const CAPTURES = join(ROOT, "test", "fixtures", "captures");

function captureFiles(): string[] {
  return readdirSync(CAPTURES, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".json"))
    .map((name) => join(CAPTURES, name))
    .sort();
}

function readCapture(path: string): CaptureFile {
  return CaptureFileSchema.parse(JSON.parse(readFileSync(path, "utf8")));
}

function providerOf(id: string) {
  const provider = PROVIDERS.find((candidate) => candidate.id === id);
  if (provider === undefined) throw new Error(`no provider ${id}`);
  return provider;
}

/** Everything wrong with a capture's replay, as the lines an operator reads (empty when it replays). */
function replayProblems(file: CaptureFile): string[] {
  const outcome = replayCapture(providerOf(file.scraper), file);
  if (outcome.kind === "failed") return [outcome.problem];
  if (file.answer === null) {
    const failure = file.failure === null ? "" : ` (the recorded scrape failed: ${file.failure.status} ${file.failure.detail})`;
    return [
      `the capture has no expected answer${failure}; once the parser's answer below is right, run npm run capture -- --accept <file>`,
      JSON.stringify(outcome.answer, null, 2),
    ];
  }
  return outcome.differences;
}

describe("capture replay", () => {
  const files = captureFiles();

  it("ships at least one capture per provider", () => {
    const scrapers = new Set(files.map((path) => readCapture(path).scraper));
    expect([...scrapers].sort()).toEqual(PROVIDERS.map((provider) => provider.id).sort());
  });

  for (const path of files) {
    it(relative(CAPTURES, path), () => {
      const file = readCapture(path);
      expect(file.scraper, "the folder names the scraper").toBe(relative(CAPTURES, path).split(/[\\/]/)[0]);
      const problems = replayProblems(file);
      expect(problems, `replay of ${relative(ROOT, path)}:\n  ${problems.join("\n  ")}`).toEqual([]);
    });
  }
});

describe("the shipped captures, redacted again with today's rules, still replay to their answers", () => {
  // The capture endpoint redacts, then replays (src/capture-files/record-capture.ts): a rule that masked something a
  // parser reads would make every new capture of that provider fail. What it masks in these replica captures is listed.
  for (const path of captureFiles()) {
    it(relative(CAPTURES, path), () => {
      const file = readCapture(path);
      const redacted = redactCaptureFile(file);
      const problems = replayProblems(redacted);
      expect(problems, `replay of ${relative(ROOT, path)} after redaction:\n  ${problems.join("\n  ")}`).toEqual([]);
      expect(redacted.answer).toEqual(file.answer);
    });
  }
});

/**
 * The oracle case a shipped capture was recorded from: the same prompt, and every parameter both name equal (a case
 * may leave a default out).
 */
function oracleCaseOf(file: CaptureFile): OracleCase | undefined {
  const oracle = ORACLES.find((candidate) => candidate.provider === file.scraper);
  const query = file.query;
  return oracle
    ?.cases()
    .find(
      (candidate) =>
        Object.entries(candidate.params).every(([name, value]) => query[name] === undefined || String(query[name]) === value) &&
        candidate.params.prompt === query.prompt,
    );
}

describe("the shipped captures' expected answers are the scenarios' answers", () => {
  // `npm run capture -- --accept` stores what the parser said; for the captures shipped here (recorded on the
  // replicas), what it accepted is checked against the provider's oracle, written from the scenario by hand.
  for (const path of captureFiles()) {
    it(relative(CAPTURES, path), () => {
      const file = readCapture(path);
      const scenario = oracleCaseOf(file);
      expect(scenario, `no oracle case for ${JSON.stringify(file.query)}`).toBeDefined();
      if (scenario === undefined || file.answer === null) return;
      expect(fieldMismatches(scenario.expected, file.answer)).toEqual([]);
    });
  }
});

describe("a replay that no longer matches says what moved", () => {
  // Grok's default answer cites two web sources and no posts
  const file = readCapture(join(CAPTURES, "grok", "what-is-new-with-starship-us-mode-model-mode-fast.json"));
  const exchange = file.exchanges.conversation;
  if (exchange?.body_text === undefined) throw new Error("the grok capture has no text body");

  it("a changed answer field is named with both values", () => {
    const answer = { ...file.answer, llm_model: "grok-9" };
    expect(replayProblems({ ...file, answer })).toEqual([expect.stringMatching(/^llm_model: differs at character 5: expected .*"grok-9"/)]);
  });

  it("a site that renamed a field of its stream shows as the fields it took away", () => {
    const renamed = (exchange.body_text ?? "").replaceAll('"webSearchResults"', '"webResults"');
    expect(renamed).not.toBe(exchange.body_text);
    const problems = replayProblems(withBody(file, renamed));
    expect(problems).toContain("web_sources: expected 2 items, got 0");
  });

  it("a stream that no longer parses fails with the parser's error", () => {
    const problems = replayProblems(withBody(file, "<html>Sorry, something changed</html>"));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^the parser failed: \w+Error \d{3} /);
  });

  it("a capture recorded while the parser failed asks for its expected answer", () => {
    const problems = replayProblems({
      ...file,
      answer: null,
      failure: { status: 502, detail: "The grok page did not look as expected.", code: "grok.x" },
    });
    expect(problems[0]).toMatch(/no expected answer \(the recorded scrape failed: 502 .*npm run capture -- --accept/);
  });
});

/** The file with the conversation's body replaced by `text`, in one chunk. */
function withBody(file: CaptureFile, text: string): CaptureFile {
  const exchange = file.exchanges.conversation;
  if (exchange === undefined) throw new Error("no conversation exchange");
  const bytes = new TextEncoder().encode(text).byteLength;
  return { ...file, exchanges: { conversation: { ...exchange, body_text: text, chunks: [{ bytes, at_ms: 0 }] } } };
}
