/**
 * docs/examples.md cannot rot: every code block marked `<!-- example: … -->` is run as it is written — curl under bash,
 * Python with python3 (standard library only), JavaScript with node — against the whole Worker under `wrangler dev`
 * and the provider replicas (test/browser/global-setup.ts), with only `API_KEY` and `API_URL` in its environment, and
 * its output is checked. The stack runs on a free port, so an example that ignored `API_URL` would fail.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAccountKey, runSnippet } from "../support/snippet-runner";

const baseUrl = inject("dashboardBaseUrl");
const adminToken = inject("dashboardAdminToken");
const EXAMPLES = resolve(import.meta.dirname, "../../docs/examples.md");
const RUN_TIMEOUT_MS = 150_000;

interface Example {
  name: string;
  language: "sh" | "python" | "js";
  code: string;
}

/** The marked blocks of docs/examples.md, in order: `<!-- example: name -->`, a blank line, a fenced block. */
function examplesOf(markdown: string): Example[] {
  const pattern = /<!-- example: (\w+) -->\s*\n```(sh|python|js)\n([\s\S]*?)\n```/g;
  return [...markdown.matchAll(pattern)].flatMap(([, name, language, code]) =>
    name !== undefined && code !== undefined && (language === "sh" || language === "python" || language === "js")
      ? [{ name, language, code }]
      : [],
  );
}

const examples = examplesOf(readFileSync(EXAMPLES, "utf8"));
let apiKey = "";
let workDir = "";

async function execute(example: Example): Promise<string> {
  // Nothing of this test's environment but PATH: the example must get by with API_KEY and API_URL.
  return runSnippet(example.language, example.code, {
    dir: workDir,
    env: { API_KEY: apiKey, API_URL: baseUrl },
    timeoutMs: RUN_TIMEOUT_MS,
  });
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "docs-examples-"));
  apiKey = await createAccountKey(baseUrl, adminToken, "Examples");
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe("docs/examples.md, executed", () => {
  it("has the sync request, the job loop and error handling in curl, Python and JavaScript, and the evidence download in curl", () => {
    expect(examples.map((example) => `${example.name}:${example.language}`)).toEqual([
      "sync:sh",
      "sync:python",
      "sync:js",
      "job:sh",
      "job:python",
      "job:js",
      "errors:sh",
      "errors:python",
      "errors:js",
      "evidence:sh",
    ]);
  });

  it("the synchronous request answers with Grok's reply, its sources and the credits left", async () => {
    for (const example of examples.filter(({ name }) => name === "sync")) {
      const output = await execute(example);
      if (example.language === "sh") {
        const answer: unknown = JSON.parse(output);
        expect(answer, "curl").toMatchObject({ scraper: "grok", status: "done", prompt: "What is new with Starship?" });
        continue;
      }
      expect(output, example.language).toContain('You asked: "What is new with Starship?"');
      expect(output, example.language).toMatch(/^sources: https:\/\/en\.wikipedia\.org\/\S+, https:\/\//m);
      expect(output, example.language).toMatch(/credits left: \d+/);
    }
  });

  it("the job loop submits, polls until done and prints the result", async () => {
    for (const example of examples.filter(({ name }) => name === "job")) {
      const output = await execute(example);
      expect(output, example.language).toMatch(/^submitted [0-9a-f-]{36}$/m);
      if (example.language === "sh") {
        const job: unknown = JSON.parse(output.split("\n").slice(1).join("\n"));
        expect(job, "curl").toMatchObject({ status: "done", scraper: "perplexity", result: { prompt: "Who built the Eiffel Tower?" } });
        continue;
      }
      expect(output, example.language).toContain('You asked: "Who built the Eiffel Tower?"');
      expect(output, example.language).toMatch(/^sources: https:\/\/\S+, https:\/\//m);
    }
  });

  it("error handling reports a 400 with its code and detail instead of retrying it", async () => {
    for (const example of examples.filter(({ name }) => name === "errors")) {
      const output = await execute(example);
      expect(output, example.language).toMatch(/error 400/);
      expect(output, example.language).toContain("invalid_parameter");
      expect(output, example.language).toMatch(/country: JP/);
    }
  });

  it("the evidence example downloads the answer's screenshot, a PNG", async () => {
    for (const example of examples.filter(({ name }) => name === "evidence")) {
      expect(await execute(example), example.language).toMatch(/^image\/png \d{4,} bytes$/m);
      const png = readFileSync(join(workDir, "answer.png"));
      expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    }
  });
});
