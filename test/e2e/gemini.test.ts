/**
 * GET /scrapers/gemini end to end: the real Worker, real Chromium through the Browser Rendering binding, the Gemini
 * replica. Expected fields are derived from the replica's scenario data by the mapping of providers/gemini.md §4,
 * written here independently of the parser.
 */
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GEMINI_LAYOUTS } from "../../replicas/gemini/layouts";
import { type GeminiScenario, pickGeminiScenario } from "../../replicas/gemini/scenarios";
import type { CommonScrapeFields } from "../../src/schemas/responses";
import type { GeminiAnswerSchema } from "../../src/scrapers/gemini/declaration";
import { providerById, resolveOrigin } from "../../src/scrapers/registry";
import { expectedGeminiFields, GEMINI_ORACLE_PROMPTS, geminiOracle } from "../support/oracles/gemini";
import {
  api,
  balanceOf,
  createTestAccount,
  query,
  replicaControl,
  replicaLayouts,
  replicaRequests,
  type TestAccount,
} from "../support/workers/helpers";
import { CI_SEEDS, describeFuzzedPages } from "./fuzzed-pages";
import { describeProviderContract } from "./provider-contract";

type GeminiFields = z.infer<typeof GeminiAnswerSchema>;
type GeminiResponse = CommonScrapeFields & GeminiFields;

const PROVIDER = "gemini";

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(1500);
});
afterEach(async () => {
  await replicaControl("reset", { provider: PROVIDER });
});

async function scrape(
  params: Record<string, string>,
  apiKey = account.apiKey,
): Promise<{ status: number; body: GeminiResponse & { detail?: string; code?: string }; headers: Headers }> {
  const response = await api(`/scrapers/${PROVIDER}?${query(params)}`, { apiKey });
  return {
    status: response.status,
    body: await response.json<GeminiResponse & { detail?: string; code?: string }>(),
    headers: response.headers,
  };
}

/** gemini.md §4 applied to the scenario the replica renders, by the oracle (written from the scenario, not the parser). */
function expectedFields(scenario: GeminiScenario): Record<string, unknown> {
  return expectedGeminiFields(scenario);
}

function expectCompleteResponse(body: GeminiResponse, prompt: string, country = "US"): void {
  expect(body.scraper).toBe(PROVIDER);
  expect(body.status).toBe("done");
  expect(body.job_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(body.prompt).toBe(prompt);
  expect(body.country).toBe(country);
  expect(body.credits_used).toBe(3);
  expect(body.elapsed_ms).toBeGreaterThan(0);
  expect(body.markdown_url).toBe(`http://api.test/md/${body.job_id}.md`);
}

/** What the replica recorded of the page's StreamGenerate request (the decoded form body). */
async function lastStreamRequest(): Promise<Record<string, unknown>> {
  const sent = (await replicaRequests(PROVIDER)).at(-1);
  expect(sent?.path).toMatch(/\/_\/BardChatUi\/data\/assistant\.lamda\.BardFrontendService\/StreamGenerate\?/);
  const body: unknown = sent?.body;
  if (typeof body !== "object" || body === null) throw new Error(`no decoded StreamGenerate body: ${JSON.stringify(sent)}`);
  return Object.fromEntries(Object.entries(body));
}

describe("gemini scenarios through real Chromium", () => {
  for (const prompt of GEMINI_ORACLE_PROMPTS.filter((prompt) => !prompt.startsWith("Famous Paris"))) {
    const scenario = pickGeminiScenario(prompt);
    it(`${scenario.id}: every field exact, prompt and language verified on the wire`, async () => {
      const { status, body } = await scrape({ prompt, bypass_cache: "true" });
      expect(status, JSON.stringify(body)).toBe(200);
      expectCompleteResponse(body, prompt);
      expect(body.cached).toBe(false);
      expect({ result: body.result, result_markdown: body.result_markdown, citations: body.citations, llm_model: body.llm_model }).toEqual(
        expectedFields(scenario),
      );
      expect(JSON.stringify(body)).not.toMatch(/THOUGHT-SECRET|DRAFT-|googleusercontent/);
      expect(await lastStreamRequest()).toMatchObject({ prompt, language: "en", hl: "en", bodyLanguage: "en" });
    });
  }

  it("the sheet's error frames map to client-safe failures", async () => {
    const own = await createTestAccount(9);
    // gemini.md §5: 1013 temporary → http_error, 1060 → challenge, 1152 → rate_limited, [8] → empty_answer
    const cases: Array<[string, number, string, RegExp]> = [
      ["error-1013 please", 502, "upstream_error", /temporary/i],
      ["error-1060 please", 502, "provider_challenge", /region/i],
      ["error-1152 please", 502, "provider_rate_limited", /rate limit|CAPTCHA/i],
      ["invalid-response please", 500, "unexpected_result", /empty/i],
    ];
    for (const [prompt, status, code, detail] of cases) {
      const result = await scrape({ prompt, bypass_cache: "true" }, own.apiKey);
      expect(result.status, prompt).toBe(status);
      expect(result.body.code, prompt).toBe(code);
      expect(result.body.detail, prompt).toMatch(detail);
      expect(result.body.detail).not.toMatch(/BardErrorInfo|\b1\d{3}\b/);
    }
    expect(await balanceOf(own.accountId)).toBe(9);
  });
});

describe("gemini on every replica layout", () => {
  it("the replica serves at least two layouts", async () => {
    expect(await replicaLayouts(PROVIDER)).toEqual([...GEMINI_LAYOUTS]);
  });

  for (const layout of GEMINI_LAYOUTS) {
    for (const trigger of ["many-citations", "table-citations", "late-citations", "no-model-name"]) {
      it(`${layout} layout, ${trigger}: every field exact`, async () => {
        await replicaControl("layout", { provider: PROVIDER, layout });
        const prompt = `${trigger} in the ${layout} layout`;
        const { status, body } = await scrape({ prompt, bypass_cache: "true" });
        expect(status, JSON.stringify(body)).toBe(200);
        expectCompleteResponse(body, prompt);
        expect({
          result: body.result,
          result_markdown: body.result_markdown,
          citations: body.citations,
          llm_model: body.llm_model,
        }).toEqual(expectedFields(pickGeminiScenario(prompt)));
      });
    }
  }

  it("chip-dialog layout, long answer: the cards of 45 sources are collected chip by chip", async () => {
    await replicaControl("layout", { provider: PROVIDER, layout: "chip-dialog" });
    const prompt = "long-answer in the chip-dialog layout";
    const { status, body } = await scrape({ prompt, bypass_cache: "true" });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.citations).toHaveLength(45);
    expect(body.citations).toEqual(expectedFields(pickGeminiScenario(prompt)).citations);
  });
});

describe("gemini parameters on the wire", () => {
  for (const [country, language] of [
    ["DE", "de"],
    ["BR", "pt-BR"],
  ] as const) {
    it(`country ${country} opens the page with hl=${language}, which the request carries in the query and the body`, async () => {
      const prompt = `many-citations for ${country}`;
      const { status, body } = await scrape({ prompt, country, bypass_cache: "true" });
      expect(status, JSON.stringify(body)).toBe(200);
      expectCompleteResponse(body, prompt, country);
      expect(body.citations).toEqual(expectedFields(pickGeminiScenario(prompt)).citations);
      expect(await lastStreamRequest()).toMatchObject({ prompt, hl: language, bodyLanguage: language });
    });
  }

  it("JP and TW are refused with 400", async () => {
    for (const country of ["JP", "TW"]) {
      const { status, body } = await scrape({ prompt: "hello", country });
      expect(status).toBe(400);
      expect(body.detail).toMatch(/country/);
    }
  });
});

describe("async job", () => {
  it("POST /scrapers/gemini/jobs, then GET /jobs/{id} until done, with the sync endpoint's fields", async () => {
    const prompt = `many-citations as a job ${crypto.randomUUID().slice(0, 8)}`;
    const submitted = await api(`/scrapers/${PROVIDER}/jobs?${query({ prompt })}`, { method: "POST", apiKey: account.apiKey });
    expect(submitted.status).toBe(202);
    const { job_id: jobId } = await submitted.json<{ job_id: string; status: string }>();
    let view: { status: string; result?: GeminiResponse | null; error?: string | null } = { status: "pending" };
    for (let attempt = 0; attempt < 120 && view.status === "pending"; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      view = await (await api(`/jobs/${jobId}`)).json();
    }
    expect(view.status, JSON.stringify(view)).toBe("done");
    const result = view.result;
    if (result === null || result === undefined) throw new Error("the done job has no result");
    expect(result.job_id).toBe(jobId);
    expect({
      result: result.result,
      result_markdown: result.result_markdown,
      citations: result.citations,
      llm_model: result.llm_model,
    }).toEqual(expectedFields(pickGeminiScenario(prompt)));
  });
});

describe("provider origin", () => {
  it("targets the replica when overridden and https://gemini.google.com otherwise", () => {
    const gemini = providerById(PROVIDER);
    if (gemini === undefined) throw new Error("gemini is not registered");
    const params = { prompt: "x", country: "US", bypass_cache: false, timeout: 60 };
    expect(resolveOrigin(env, gemini, params)).toBe(`${env.REPLICA_URL}/gemini`);
    const withOverride = (value: string): Env => Object.assign({}, env, { PROVIDER_ORIGIN_GEMINI: value });
    expect(resolveOrigin(withOverride(""), gemini, params)).toBe("https://gemini.google.com");
  });
});

describeProviderContract({ provider: PROVIDER, prompt: "What is the capital of France?", drift: { code: "gemini.composer_missing" } });

describeFuzzedPages({ oracle: geminiOracle, seeds: CI_SEEDS });
