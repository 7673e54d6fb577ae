/**
 * The code samples /docs shows (`x-codeSamples` of /openapi.json, generated from the operations' declarations by
 * src/http/openapi-code-samples.ts) run as a customer would copy them: curl under bash, Python with python3 (standard
 * library only), JavaScript with node, with only `API_KEY` and `API_URL` in their environment, against the whole Worker
 * under `wrangler dev` and the provider replicas (test/browser/global-setup.ts). The stack runs on a free port, so a
 * sample that ignored `API_URL` would fail. Covered: the synchronous scrape, job submission and the job status.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createAccountKey, runSnippet, type SnippetLanguage } from "../support/snippet-runner";

const baseUrl = inject("dashboardBaseUrl");
const adminToken = inject("dashboardAdminToken");
const RUN_TIMEOUT_MS = 150_000;
/** The prompt the scrape operations declare as their example (src/params/common-params.ts). */
const DECLARED_PROMPT = "What are people saying about the new Falcon launch?";

interface CodeSample {
  lang: string;
  label: string;
  source: string;
}
interface Operation {
  "x-codeSamples"?: CodeSample[];
  parameters?: Array<{ name: string; in: string; schema?: { example?: unknown } }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

const LANGUAGE_OF_LABEL: Readonly<Record<string, SnippetLanguage>> = { curl: "sh", Python: "python", JavaScript: "js" };

let apiKey = "";
let workDir = "";
let document: Document;

function samplesOf(path: string, method: string): Array<{ label: string; language: SnippetLanguage; source: string }> {
  const samples = document.paths[path]?.[method]?.["x-codeSamples"] ?? [];
  expect(
    samples.map((sample) => sample.label),
    `${method} ${path}`,
  ).toEqual(["curl", "Python", "JavaScript"]);
  return samples.flatMap((sample) => {
    const language = LANGUAGE_OF_LABEL[sample.label];
    return language === undefined ? [] : [{ label: sample.label, language, source: sample.source }];
  });
}

async function execute(language: SnippetLanguage, source: string): Promise<unknown> {
  const output = await runSnippet(language, source, {
    dir: workDir,
    env: { API_KEY: apiKey, API_URL: baseUrl },
    timeoutMs: RUN_TIMEOUT_MS,
  });
  // Each sample prints the JSON answer and nothing else.
  return JSON.parse(output);
}

interface JobStatus {
  status: string;
}

async function waitUntilEnded(jobId: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const job = (await (await fetch(`${baseUrl}/jobs/${jobId}`)).json()) as JobStatus;
    if (job.status !== "pending") return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 1_000));
  }
  throw new Error(`job ${jobId} still pending after 120 s`);
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "docs-code-samples-"));
  apiKey = await createAccountKey(baseUrl, adminToken, "Code samples");
  document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Document;
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe("/docs code samples, executed", () => {
  it("the synchronous scrape answers with Grok's reply to the declared prompt, in all three languages", async () => {
    for (const sample of samplesOf("/scrapers/grok", "get")) {
      const answer = await execute(sample.language, sample.source);
      expect(answer, sample.label).toMatchObject({ scraper: "grok", status: "done", prompt: DECLARED_PROMPT, country: "US" });
      expect(JSON.stringify(answer), sample.label).toContain(`You asked: \\"${DECLARED_PROMPT}\\"`);
    }
  });

  it("job submission answers a pending job, and the job status sample, given its id, shows it done with the answer", async () => {
    const [exampleId] = (document.paths["/jobs/{job_id}"]?.get?.parameters ?? [])
      .filter((parameter) => parameter.name === "job_id")
      .map((parameter) => String(parameter.schema?.example));
    expect(exampleId).toMatch(/^[0-9a-f-]{36}$/);
    const statusSamples = samplesOf("/jobs/{job_id}", "get");
    for (const sample of samplesOf("/scrapers/grok/jobs", "post")) {
      const submitted = (await execute(sample.language, sample.source)) as { job_id?: unknown };
      expect(submitted, sample.label).toMatchObject({
        job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: "pending",
      });
      const jobId = String(submitted.job_id);
      await waitUntilEnded(jobId);
      // What a reader does with the status sample: put the id the submission answered in place of the example's.
      for (const status of statusSamples) {
        const job = await execute(status.language, status.source.replaceAll(exampleId ?? "", jobId));
        expect(job, `${sample.label} → ${status.label}`).toMatchObject({
          job_id: jobId,
          status: "done",
          scraper: "grok",
          result: { scraper: "grok", prompt: DECLARED_PROMPT },
        });
      }
    }
  });

  it("an error is reported with its status, code and detail, the process exiting non-zero", async () => {
    for (const sample of samplesOf("/scrapers/grok", "get")) {
      // The samples as a customer with a mistyped key would run them.
      const failure = runSnippet(sample.language, sample.source, {
        dir: workDir,
        env: { API_KEY: "sk_not_a_key", API_URL: baseUrl },
        timeoutMs: RUN_TIMEOUT_MS,
      });
      await expect(failure, sample.label).rejects.toThrow(/invalid_api_key|401/);
    }
  });
});
