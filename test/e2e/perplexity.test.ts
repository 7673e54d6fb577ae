/**
 * GET /scrapers/perplexity end to end: the real Worker, real Chromium through the Browser Rendering binding, the
 * Perplexity replica. Expected fields come from the oracle (test/support/oracles/perplexity.ts): the scenario data by
 * the mapping of providers/perplexity.md §4, written by hand, independently of the parser and the renderer.
 */
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolvePerplexityRun } from "../../replicas/perplexity/scenarios";
import type { CommonScrapeFields } from "../../src/schemas/responses";
import type { PerplexityAnswerSchema } from "../../src/scrapers/perplexity/declaration";
import { providerById, resolveOrigin } from "../../src/scrapers/registry";
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
import { expectedPerplexityFields, perplexityOracle } from "../support/oracles/perplexity";
import { CI_SEEDS, describeFuzzedPages } from "./fuzzed-pages";
import { describeProviderContract } from "./provider-contract";

type PerplexityResponse = CommonScrapeFields & z.infer<typeof PerplexityAnswerSchema>;
type PerplexityFields = z.infer<typeof PerplexityAnswerSchema>;

const PROVIDER = "perplexity";
/** The replica's layouts (replicas/perplexity/page.ts; that module reads files, so it is not imported here). */
const LAYOUTS = ["lexical-prose", "textarea-markdown-content", "lexical-split-prose"] as const;

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
): Promise<{ status: number; body: PerplexityResponse & { detail?: string }; headers: Headers }> {
  const response = await api(`/scrapers/${PROVIDER}?${query(params)}`, { apiKey });
  return { status: response.status, body: await response.json<PerplexityResponse & { detail?: string }>(), headers: response.headers };
}

/** perplexity.md §4 applied to the run the replica renders for this prompt and web-search choice (the oracle's mapping). */
function expectedFields(prompt: string, webSearch = true): PerplexityFields {
  return expectedPerplexityFields(resolvePerplexityRun(prompt, { searchEnabled: webSearch }));
}

/** What the page reported of its own controls when it sent the last request (replica instrumentation). */
async function lastPageState(): Promise<{ sources: string[]; web_item_checked: string | null } | undefined> {
  const response = await fetch(`${env.REPLICA_URL}/perplexity/__replica/page-state`);
  const { states } = (await response.json()) as { states: Array<{ sources: string[]; web_item_checked: string | null }> };
  return states.at(-1);
}

function fieldsOf(body: PerplexityResponse): PerplexityFields {
  return { result: body.result, result_markdown: body.result_markdown, sources: body.sources, related_questions: body.related_questions };
}

function expectCommonFields(body: PerplexityResponse, prompt: string): void {
  expect(body.scraper).toBe(PROVIDER);
  expect(body.status).toBe("done");
  expect(body.job_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(body.prompt).toBe(prompt);
  expect(body.country).toBe("US");
  expect(body.credits_used).toBe(3);
  expect(body.elapsed_ms).toBeGreaterThan(0);
  expect(body.cached).toBe(false);
  expect(body.markdown_url).toBe(`http://api.test/md/${body.job_id}.md`);
}

/** The page's own request carried the prompt and the web-search choice (perplexity.md §1, §3). */
async function expectRequestSent(prompt: string, webSearch: boolean): Promise<void> {
  const sent = (await replicaRequests(PROVIDER)).at(-1);
  expect(sent?.method).toBe("POST");
  expect(sent?.path).toBe("/perplexity/rest/sse/perplexity_ask");
  expect(sent?.headers.accept).toBe("text/event-stream");
  expect(sent?.headers["content-type"]).toBe("application/json");
  expect(sent?.body).toMatchObject({
    query_str: prompt,
    params: webSearch
      ? { sources: ["web"], skip_search_enabled: false, dsl_query: prompt, use_schematized_api: true, version: "2.18" }
      : { sources: [], skip_search_enabled: true, dsl_query: prompt, use_schematized_api: true, version: "2.18" },
  });
}

describe("perplexity scenarios through real Chromium", () => {
  const prompts = [
    "Who designed the Eiffel Tower?",
    "diffs-only: how does photosynthesis work?",
    "materialized-only tides",
    "renumbered: why is Rust memory safe?",
    "many-sources renewables",
    "no-sources: two plus two",
    "no-snippet honey",
    "unicode 東京 🌏",
    "table-markers for moons",
    "code-fence python lists",
    "plan-progress webb",
    "unknown-blocks everest",
    "media-items great wall",
    "long-answer navigation",
    "crlf boiling water",
    "related-legacy light speed",
    "inline-links bees",
  ];
  for (const prompt of prompts) {
    it(`${resolvePerplexityRun(prompt, { searchEnabled: true }).scenarioId}: every field`, async () => {
      const { status, body, headers } = await scrape({ prompt, bypass_cache: "true" });
      expect(status, JSON.stringify(body).slice(0, 500)).toBe(200);
      expectCommonFields(body, prompt);
      expect(fieldsOf(body)).toEqual(expectedFields(prompt));
      await expectRequestSent(prompt, true);
      expect(Number(headers.get("X-Credits-Remaining"))).toBe(await balanceOf(account.accountId));
    });
  }

  it("the default scenario, exactly", async () => {
    const prompt = "Who built the Eiffel Tower?";
    const { status, body } = await scrape({ prompt, bypass_cache: "true" });
    expect(status).toBe(200);
    expect(body.result_markdown).toBe(
      [
        'You asked: "Who built the Eiffel Tower?".',
        "",
        "This is the replica's default answer, built from two sources[1][2]. It has **bold** text and a list:",
        "",
        "- The first point cites one source[1].",
        "- The second point cites the other[2].",
      ].join("\n"),
    );
    expect(body.result).toBe(
      [
        'You asked: "Who built the Eiffel Tower?".',
        "",
        "This is the replica's default answer, built from two sources[1][2]. It has bold text and a list:",
        "",
        "- The first point cites one source[1].",
        "- The second point cites the other[2].",
      ].join("\n"),
    );
    expect(body.sources).toEqual([
      {
        title: "Eiffel Tower - Wikipedia",
        url: "https://en.wikipedia.org/wiki/Eiffel_Tower",
        snippet: "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.",
      },
      {
        title: "Eiffel Tower | History, Height, & Facts | Britannica",
        url: "https://www.britannica.com/topic/Eiffel-Tower-Paris-France",
        snippet: "Eiffel Tower, Parisian landmark that is also a technological masterpiece in building-construction history.",
      },
    ]);
    expect(body.related_questions).toEqual(["What else should I know about this?", "Where can I read more about it?"]);
  });

  it("a completed answer without text (final_no_answer) is a 500 and restores the credits", async () => {
    const own = await createTestAccount(3);
    const { status, body } = await scrape({ prompt: "final-no-answer please", bypass_cache: "true" }, own.apiKey);
    expect(status).toBe(500);
    expect(body.detail).toMatch(/empty answer/);
    expect(await balanceOf(own.accountId)).toBe(3);
  });
});

describe("web_search", () => {
  it("web_search=false switches the Web source off: verified on the wire, no sources, no markers", async () => {
    const prompt = "Who designed the Eiffel Tower, without searching?";
    const { status, body } = await scrape({ prompt, web_search: "false", bypass_cache: "true" });
    expect(status, JSON.stringify(body)).toBe(200);
    expectCommonFields(body, prompt);
    expect(fieldsOf(body)).toEqual(expectedFields(prompt, false));
    expect(body.sources).toEqual([]);
    expect(body.result_markdown).not.toMatch(/\[\d+\]/);
    await expectRequestSent(prompt, false);
    // chosen on the page (the default layout's menu is known): the page's own Web item is unchecked
    expect(await lastPageState()).toMatchObject({ web_item_checked: "false", sources: [] });
  });

  it("web_search=true is the site default (nothing touched) and still verified on the wire", async () => {
    const prompt = "table-markers with web_search=true";
    const { status, body } = await scrape({ prompt, web_search: "yes", bypass_cache: "true" });
    expect(status).toBe(200);
    expect(fieldsOf(body)).toEqual(expectedFields(prompt, true));
    await expectRequestSent(prompt, true);
  });

  it("web_search is part of the cache key", async () => {
    const prompt = `cache key ${crypto.randomUUID().slice(0, 8)}`;
    const on = await scrape({ prompt });
    expect(on.body.cached).toBe(false);
    const off = await scrape({ prompt, web_search: "false" });
    expect(off.body.cached).toBe(false);
    expect(off.body.sources).toEqual([]);
    const again = await scrape({ prompt, web_search: "off" });
    expect(again.body.cached).toBe(true);
  });

  it("an invalid web_search is a 400 naming the parameter", async () => {
    const { status, body } = await scrape({ prompt: "x", web_search: "maybe" });
    expect(status).toBe(400);
    expect(body.detail).toMatch(/^web_search: /);
  });
});

describe("perplexity on every replica layout", () => {
  it("the replica serves these layouts", async () => {
    expect(await replicaLayouts(PROVIDER)).toEqual([...LAYOUTS]);
  });

  // web_search=false: the first two layouts switch "Web" off in the sources menu (chosen on the page: the Web item is
  // unchecked in the page's own menu); the third labels its sources control in a way the scraper does not know, so the
  // choice is patched into the request instead (the page's menu still has Web checked). Both verified on the wire.
  const CHOSEN_ON_PAGE: Record<(typeof LAYOUTS)[number], boolean> = {
    "lexical-prose": true,
    "textarea-markdown-content": true,
    "lexical-split-prose": false,
  };
  for (const layout of LAYOUTS) {
    for (const webSearch of [true, false]) {
      const how = webSearch ? "the default left untouched" : CHOSEN_ON_PAGE[layout] ? "chooses Web off on the page" : "patched";
      it(`${layout}, web_search=${webSearch}: every field, ${how}, verified on the wire`, async () => {
        await replicaControl("layout", { provider: PROVIDER, layout });
        const prompt = `table-markers in the ${layout} layout`;
        const { status, body } = await scrape({ prompt, web_search: String(webSearch), bypass_cache: "true" });
        expect(status, JSON.stringify(body).slice(0, 500)).toBe(200);
        expectCommonFields(body, prompt);
        expect(fieldsOf(body)).toEqual(expectedFields(prompt, webSearch));
        await expectRequestSent(prompt, webSearch);
        // the page's own control state: Web unchecked only when the scraper switched it off in the menu
        const pageState = await lastPageState();
        const webOnInPage = webSearch || !CHOSEN_ON_PAGE[layout];
        expect(pageState).toMatchObject({ web_item_checked: String(webOnInPage), sources: webOnInPage ? ["web"] : [] });
      });
    }
  }
});

describe("asynchronous job", () => {
  it("POST /scrapers/perplexity/jobs, then GET /jobs/{id} until done, with the sync fields", async () => {
    const prompt = "renumbered as a job";
    const submitted = await api(`/scrapers/${PROVIDER}/jobs?${query({ prompt, bypass_cache: "true" })}`, {
      method: "POST",
      apiKey: account.apiKey,
    });
    expect(submitted.status).toBe(202);
    const { job_id: jobId } = await submitted.json<{ job_id: string }>();
    const deadline = Date.now() + 90_000;
    let job: { status: string; result?: PerplexityResponse; error?: string } = { status: "pending" };
    while (job.status === "pending" && Date.now() < deadline) {
      job = await (await api(`/jobs/${jobId}`)).json<typeof job>();
      if (job.status === "pending") await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(job.status, JSON.stringify(job)).toBe("done");
    expect(job.result?.job_id).toBe(jobId);
    expect(job.result?.scraper).toBe(PROVIDER);
    expect(job.result === undefined ? null : fieldsOf(job.result)).toEqual(expectedFields(prompt));
  });
});

describe("provider origin and drift", () => {
  it("targets the replica when overridden and https://www.perplexity.ai otherwise", () => {
    const provider = providerById(PROVIDER);
    if (provider === undefined) throw new Error("perplexity is not registered");
    const params = { prompt: "x", country: "US", bypass_cache: false, timeout: 60, web_search: true };
    expect(resolveOrigin(env, provider, params)).toBe(`${env.REPLICA_URL}/perplexity`);
    const real: Env = Object.assign({}, env, { PROVIDER_ORIGIN_PERPLEXITY: "" });
    expect(resolveOrigin(real, provider, params)).toBe("https://www.perplexity.ai");
    expect(provider.allowedDomains("https://www.perplexity.ai")).toContain("www.perplexity.ai");
  });
});

describeFuzzedPages({ oracle: perplexityOracle, seeds: CI_SEEDS });

describeProviderContract({ provider: PROVIDER, prompt: "Who designed the Eiffel Tower?", drift: { code: "perplexity.composer_missing" } });
