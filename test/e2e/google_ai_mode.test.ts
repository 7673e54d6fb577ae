/**
 * GET /scrapers/google_ai_mode end to end: the real Worker, real Chromium through the Browser Rendering binding, the
 * Google AI Mode replica. Expected fields are derived from the replica's scenario data by the mapping of
 * providers/google_ai_mode.md §4 (test/fixtures/google_ai_mode/expected.ts), independently of the parser; the
 * language, region, prompt and AI Mode are checked in the folwr request the page sent.
 */
import type { z } from "@hono/zod-openapi";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { pickAiModeScenario } from "../../replicas/google_ai_mode/scenarios";
import type { JobView } from "../../src/jobs/job-types";
import type { CommonScrapeFields } from "../../src/schemas/responses";
import type { GoogleAiModeAnswerSchema } from "../../src/scrapers/google_ai_mode/declaration";
import { expectedAnswer } from "../fixtures/google_ai_mode/expected";
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
import { googleAiModeOracle } from "../support/oracles/google_ai_mode";
import { CI_SEEDS, describeFuzzedPages } from "./fuzzed-pages";
import { describeProviderContract } from "./provider-contract";

type AiModeResponse = CommonScrapeFields & z.infer<typeof GoogleAiModeAnswerSchema>;

const PROVIDER = "google_ai_mode";

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
): Promise<{ status: number; body: AiModeResponse & { detail?: string } }> {
  const response = await api(`/scrapers/${PROVIDER}?${query(params)}`, { apiKey });
  return { status: response.status, body: (await response.json()) as AiModeResponse & { detail?: string } };
}

function expectCommonFields(body: AiModeResponse, prompt: string, country: string): void {
  expect(body.scraper).toBe(PROVIDER);
  expect(body.status).toBe("done");
  expect(body.job_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(body.prompt).toBe(prompt);
  expect(body.country).toBe(country);
  expect(body.credits_used).toBe(3);
  expect(body.elapsed_ms).toBeGreaterThan(0);
  expect(body.cached).toBe(false);
  expect(body.markdown_url).toBe(`http://api.test/md/${body.job_id}.md`);
}

/** The folwr request the page sent last: the prompt, AI Mode and the search locale it carried. */
async function lastFolwrQuery(): Promise<Record<string, unknown>> {
  const sent = (await replicaRequests(PROVIDER)).at(-1);
  expect(sent?.method).toBe("GET");
  expect(sent?.path).toMatch(/^\/google_ai_mode\/async\/folwr\?/);
  const body = sent?.body;
  return typeof body === "object" && body !== null ? Object.fromEntries(Object.entries(body)) : {};
}

describe("google_ai_mode scenarios through real Chromium (classic layout)", () => {
  for (const oracleCase of googleAiModeOracle.cases()) {
    const { prompt = "", country = "US" } = oracleCase.params;
    it(`${oracleCase.id}: every field exactly`, async () => {
      const { status, body } = await scrape({ ...oracleCase.params, bypass_cache: "true" });
      expect(status, JSON.stringify(body)).toBe(200);
      expectCommonFields(body, prompt, country);
      const expected = oracleCase.expected;
      expect(body.result_markdown).toBe(expected.result_markdown);
      expect(body.result).toBe(expected.result);
      expect(body.citations).toEqual(expected.citations);
      expect(body.search_results).toEqual(expected.search_results);
      const { hl, gl } = country === "DE" ? { hl: "de", gl: "de" } : { hl: "en", gl: "us" };
      expect(await lastFolwrQuery()).toMatchObject({ q: prompt, udm: "50", hl, gl });
    });
  }

  it("the hosted markdown is the answer's markdown", async () => {
    const { body } = await scrape({ prompt: "table-and-list hosted", bypass_cache: "true" });
    const hosted = await api(new URL(body.markdown_url ?? "").pathname);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toBe(body.result_markdown);
  });
});

describe("country → search language and region, verified on the wire", () => {
  const cases: Array<[country: string, hl: string, gl: string, prompt: string]> = [
    ["DE", "de", "de", "deutsch: Wann beginnen die Sommerferien in Bayern?"],
    ["BR", "pt-BR", "br", "Qual é a capital do Brasil?"],
    ["SE", "en", "se", "emoji in Sweden"],
    ["gb", "en", "gb", "no-citations in Britain"],
  ];
  for (const [country, hl, gl, prompt] of cases) {
    it(`${country} → hl=${hl}, gl=${gl}`, async () => {
      const { status, body } = await scrape({ prompt, country, bypass_cache: "true" });
      expect(status, JSON.stringify(body)).toBe(200);
      expectCommonFields(body, prompt, country.toUpperCase());
      expect(body).toMatchObject(expectedAnswer(pickAiModeScenario(prompt)));
      expect(await lastFolwrQuery()).toMatchObject({ q: prompt, udm: "50", hl, gl });
    });
  }

  it("JP and TW are refused before any scrape (400, nothing charged)", async () => {
    const own = await createTestAccount(9);
    for (const country of ["JP", "tw"]) {
      const { status, body } = await scrape({ prompt: "japanese 日本語", country }, own.apiKey);
      expect(status).toBe(400);
      expect(body.detail).toMatch(/country/);
    }
    expect(await balanceOf(own.accountId)).toBe(9);
  });

  it("a prompt with markdown, quotes and non-Latin text reaches the page unchanged", async () => {
    const prompt = 'Erklär "C++" & *Rust* – 東京? 100% [sicher] #1';
    const { status, body } = await scrape({ prompt, bypass_cache: "true" });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.result_markdown).toBe(expectedAnswer(pickAiModeScenario(prompt)).result_markdown);
    expect(await lastFolwrQuery()).toMatchObject({ q: prompt });
  });
});

describe("google_ai_mode on every replica layout", () => {
  const cases: Array<[layout: string, prompt: string]> = [
    ["rotated", "duplicate-citations on the rotated layout"],
    ["rotated", "table-and-list on the rotated layout"],
    ["rotated", "long-answer on the rotated layout"],
    ["rotated", "panel-fallback on the rotated layout"],
    ["rotated", "redirect-urls on the rotated layout"],
    ["consent", "many-sources behind the consent page"],
    ["consent", "html-entities behind the consent page"],
  ];
  it("every layout the replica serves is run (classic by the scenarios above, the others below)", async () => {
    const covered = new Set(["classic", ...cases.map(([layout]) => layout)]);
    expect([...(await replicaLayouts(PROVIDER))].sort()).toEqual([...covered].sort());
  });
  for (const [layout, prompt] of cases) {
    it(`${layout}: ${pickAiModeScenario(prompt).id}, every field`, async () => {
      await replicaControl("layout", { provider: PROVIDER, layout });
      const { status, body } = await scrape({ prompt, bypass_cache: "true" });
      expect(status, JSON.stringify(body)).toBe(200);
      expectCommonFields(body, prompt, "US");
      expect(body).toMatchObject(expectedAnswer(pickAiModeScenario(prompt)));
      expect(await lastFolwrQuery()).toMatchObject({ q: prompt, udm: "50", hl: "en", gl: "us" });
    });
  }
});

describe("async job", () => {
  it("POST /scrapers/google_ai_mode/jobs then GET /jobs/{id} until done", async () => {
    const own = await createTestAccount(9);
    const prompt = "duplicate-citations as a job";
    const submitted = await api(`/scrapers/${PROVIDER}/jobs?${query({ prompt, bypass_cache: "true" })}`, {
      method: "POST",
      apiKey: own.apiKey,
    });
    expect(submitted.status).toBe(202);
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    expect(await balanceOf(own.accountId)).toBe(6);

    let job: JobView | null = null;
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const response = await api(`/jobs/${jobId}`);
      expect(response.status).toBe(200);
      const view = (await response.json()) as JobView;
      if (view.status !== "pending") {
        job = view;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(job?.status, JSON.stringify(job)).toBe("done");
    expect(job?.result).toMatchObject({
      scraper: PROVIDER,
      status: "done",
      job_id: jobId,
      prompt,
      country: "US",
      credits_used: 3,
      ...expectedAnswer(pickAiModeScenario(prompt)),
    });
    expect(await balanceOf(own.accountId)).toBe(6);
  });
});

describe("the sources list behind its button", () => {
  // sheet §2: the "N sites" button opens the list; a page may load it only then, late and in batches
  const cases: Array<[layout: string, classes: string[], prompt: string]> = [
    ["classic", ["late_lists"], "many-sources behind the button"],
    ["rotated", ["late_lists"], "long-answer behind the button"],
  ];
  for (const [layout, classes, prompt] of cases) {
    it(`${layout}: the list the page builds on opening is read once all its entries arrived`, async () => {
      await replicaControl("layout", { provider: PROVIDER, layout });
      // seeds whose page load draws an on-click list (checked below through the replica's recorded draw)
      let served: string[] = [];
      for (let seed = 1; seed < 200; seed += 1) {
        await replicaControl("variation", { provider: PROVIDER, seed, classes });
        const { status, body } = await scrape({ prompt, bypass_cache: "true" });
        expect(status, JSON.stringify(body)).toBe(200);
        served = await drawNotes();
        if (!served.some((note) => note.includes("on_click"))) continue;
        expect(body).toMatchObject(expectedAnswer(pickAiModeScenario(prompt)));
        return;
      }
      throw new Error(`no seed drew an on-click list: ${served.join("; ")}`);
    });
  }
});

/** What the replica's last page load drew (control state). */
async function drawNotes(): Promise<string[]> {
  const state = (await (await fetch(`${env.REPLICA_URL}/__control/state`)).json()) as {
    providers: Record<string, { variation: { draws: Array<{ applied: Record<string, string[]> }> } | null }>;
  };
  const draws = state.providers[PROVIDER]?.variation?.draws ?? [];
  return Object.values(draws.at(-1)?.applied ?? {}).flat();
}

describeFuzzedPages({ oracle: googleAiModeOracle, seeds: CI_SEEDS });

describeProviderContract({ provider: PROVIDER, prompt: "How long is a day on Mars?", drift: { code: "google_ai_mode.request_not_sent" } });
