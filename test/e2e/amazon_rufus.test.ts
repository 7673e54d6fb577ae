/**
 * GET /scrapers/amazon_rufus end to end: the real Worker, real Chromium through the Browser Rendering binding, the
 * Amazon Rufus replica (one origin per marketplace through the `{domain}` template). Expected fields come from the
 * oracle (test/support/oracles/amazon_rufus.ts): the replica's scenario data under the mapping of
 * providers/amazon_rufus.md §4, written by hand, independently of the parser and renderer.
 */
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { pickRufusScenario } from "../../replicas/amazon_rufus/scenarios";
import { amazonRufusOracle, expectedRufusAnswer } from "../support/oracles/amazon_rufus";
import { CI_SEEDS, describeFuzzedPages } from "./fuzzed-pages";
import type { CommonScrapeFields } from "../../src/schemas/responses";
import type { RufusAnswerSchema } from "../../src/scrapers/amazon_rufus/declaration";
import { UpstreamError } from "../../src/errors";
import { runScrape } from "../../src/pipeline/pipeline";
import { serviceSubject } from "../../src/util/log-line";
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
import { describeProviderContract } from "./provider-contract";

type RufusResponse = CommonScrapeFields & z.infer<typeof RufusAnswerSchema>;

const PROVIDER = "amazon_rufus";
/** The replica's layouts (replicas/amazon_rufus/page.ts; that module reads files, so it is not imported here). */
const LAYOUTS = ["classic", "alexa", "wrapped"] as const;
const DOMAINS: Readonly<Record<string, string>> = { US: "amazon.com", DE: "amazon.de", JP: "amazon.co.jp", GB: "amazon.co.uk" };

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
): Promise<{ status: number; body: RufusResponse & { detail?: string } }> {
  const response = await api(`/scrapers/${PROVIDER}?${query(params)}`, { apiKey });
  return { status: response.status, body: (await response.json()) as RufusResponse & { detail?: string } };
}

/** The oracle's fields for the scenario a prompt selects, on the marketplace of `domain`. */
function expectedFields(prompt: string, domain: string): Record<string, unknown> {
  return expectedRufusAnswer(pickRufusScenario(prompt), domain);
}

function expectCommonFields(body: RufusResponse, prompt: string, country: string): void {
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

/** The page's own request went to the marketplace's streaming endpoint with the query and that marketplace's page. */
async function expectRequestSent(prompt: string, domain: string): Promise<void> {
  const sent = (await replicaRequests(PROVIDER)).at(-1);
  expect(sent?.method).toBe("POST");
  expect(sent?.path).toBe(`/amazon_rufus/${domain}/rufus/cl/streaming?tabId=tab-1&programId=NILE_CLASSIC%3Adesktop-cl`);
  expect(sent?.headers["content-type"]).toBe("application/json");
  expect(sent?.headers["anti-csrftoken-a2z"]).toMatch(/\S{20,}/);
  expect(sent?.body).toEqual({
    queryContext: { query: prompt },
    pageContext: { targetUrl: `https://www.${domain}/`, targetPageMetadata: [] },
  });
}

describe("amazon_rufus scenarios through real Chromium", () => {
  const DOMAIN_OF: Readonly<Record<string, string>> = { ...DOMAINS, FR: "amazon.fr", IN: "amazon.in" };
  for (const scenario of amazonRufusOracle.cases()) {
    const prompt = scenario.params.prompt ?? "";
    const country = scenario.params.country ?? "US";
    it(scenario.id, async () => {
      const domain = DOMAIN_OF[country] ?? "amazon.com";
      const { status, body } = await scrape({ prompt, country, bypass_cache: "true" });
      expect(status, JSON.stringify(body)).toBe(200);
      expectCommonFields(body, prompt, country);
      expect({
        result: body.result,
        result_markdown: body.result_markdown,
        products: body.products,
        related_questions: body.related_questions,
      }).toEqual(scenario.expected);
      await expectRequestSent(prompt, domain);
    });
  }

  it("the default scenario, exactly", async () => {
    const prompt = "Which lamp for a small desk?";
    const { body } = await scrape({ prompt, bypass_cache: "true" });
    expect(body.result_markdown).toBe('You asked Rufus: "Which lamp for a small desk?". Here are two example picks for small desks.');
    expect(body.products).toEqual([
      {
        asin: "B0EXAMPLE1",
        title: "Example Lamp, White",
        rating: "4.5",
        reviews: "1,234",
        url: "https://www.amazon.com/dp/B0EXAMPLE1",
        footer: "Bright and compact",
      },
      {
        asin: "B0DESKLMP2",
        title: "Clip-On Desk Lamp with 3 Color Modes",
        rating: "4.3",
        reviews: "8,765",
        url: "https://www.amazon.com/dp/B0DESKLMP2",
        footer: "Clamps to any shelf",
      },
    ]);
    expect(body.related_questions).toEqual(["Is it dimmable?", "Compare with similar lamps"]);
  });
});

describe("amazon_rufus on every replica layout", () => {
  it("the replica serves these layouts", async () => {
    expect(await replicaLayouts(PROVIDER)).toEqual([...LAYOUTS]);
  });

  for (const layout of LAYOUTS) {
    it(`${layout}: every field, the query verified on the wire`, async () => {
      await replicaControl("layout", { provider: PROVIDER, layout });
      const prompt = `deals in the ${layout} layout`;
      const { status, body } = await scrape({ prompt, country: "DE", bypass_cache: "true" });
      expect(status, JSON.stringify(body)).toBe(200);
      expectCommonFields(body, prompt, "DE");
      expect(body).toMatchObject(expectedFields(prompt, "amazon.de"));
      await expectRequestSent(prompt, "amazon.de");
    });
  }
});

describe("marketplaces and parameters", () => {
  it("a country without an Amazon marketplace is a 400 naming country, without charging", async () => {
    const own = await createTestAccount(3);
    const { status, body } = await scrape({ prompt: "lamp", country: "FI" }, own.apiKey);
    expect(status).toBe(400);
    expect(body.detail).toMatch(/^country: FI has no Amazon marketplace with Rufus; use one of US, GB, DE/);
    expect(await balanceOf(own.accountId)).toBe(3);
  });

  it("the origin is the marketplace of the country: the replica template when overridden, https://www.<domain> otherwise", () => {
    const provider = providerById(PROVIDER);
    if (provider === undefined) throw new Error("amazon_rufus is not registered");
    const params = (country: string) => ({ prompt: "x", country, bypass_cache: false, timeout: 60 });
    expect(resolveOrigin(env, provider, params("DE"))).toBe(`${env.REPLICA_URL}/amazon_rufus/amazon.de`);
    expect(resolveOrigin(env, provider, params("JP"))).toBe(`${env.REPLICA_URL}/amazon_rufus/amazon.co.jp`);
    const real = Object.assign({}, env, { PROVIDER_ORIGIN_AMAZON_RUFUS: "" });
    expect(resolveOrigin(real, provider, params("US"))).toBe("https://www.amazon.com");
    expect(resolveOrigin(real, provider, params("GB"))).toBe("https://www.amazon.co.uk");
    expect(provider.allowedDomains("https://www.amazon.de")).toContain("www.amazon.de");
  });

  it("a second identical request is a cache hit with the same fields", async () => {
    const prompt = `one-product cached ${crypto.randomUUID().slice(0, 8)}`;
    const first = await scrape({ prompt, country: "DE" });
    expect(first.status).toBe(200);
    const second = await scrape({ prompt, country: "de" });
    expect(second.body.cached).toBe(true);
    expect(second.body.products).toEqual(first.body.products);
  });
});

describe("asynchronous job", () => {
  it("POST /scrapers/amazon_rufus/jobs, then GET /jobs/{id} until done, with the sync fields", async () => {
    const prompt = "footer-by-asin as a job";
    const submitted = await api(`/scrapers/${PROVIDER}/jobs?${query({ prompt, country: "GB", bypass_cache: "true" })}`, {
      method: "POST",
      apiKey: account.apiKey,
    });
    expect(submitted.status).toBe(202);
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    const deadline = Date.now() + 90_000;
    let job: { status: string; result?: RufusResponse; error?: string } = { status: "pending" };
    while (job.status === "pending" && Date.now() < deadline) {
      job = (await (await api(`/jobs/${jobId}`)).json()) as typeof job;
      if (job.status === "pending") await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(job.status, JSON.stringify(job)).toBe("done");
    expect(job.result?.job_id).toBe(jobId);
    expect(job.result?.country).toBe("GB");
    expect(job.result).toMatchObject(expectedFields(prompt, "amazon.co.uk"));
  });
});

describe("each failure signature is recognised as what it is", () => {
  const cases: Array<[fault: string, status: number, code: string, detail: RegExp]> = [
    ["challenge", 502, "provider_challenge", /robot check/],
    ["login_wall", 502, "provider_login_required", /sign in/],
    ["rate_limited", 502, "provider_rate_limited", /rate limiting/],
    ["http_error", 502, "upstream_error", /stale session token/],
    ["malformed_stream", 502, "upstream_error", /could not be read/],
    ["disconnect", 502, "upstream_error", /ended before the answer was complete/],
    ["empty_answer", 500, "unexpected_result", /empty answer/],
  ];
  for (const [fault, status, code, detail] of cases) {
    it(`${fault} → ${status} ${code} "${detail.source}"`, async () => {
      await replicaControl("faults", { provider: PROVIDER, fault, count: 1 });
      const response = await scrape({ prompt: `deals ${fault}`, country: "DE", bypass_cache: "true" });
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect((response.body as { code?: string }).code).toBe(code);
      expect(response.body.detail).toMatch(detail);
    });
  }
});

describe("a store page without Rufus", () => {
  it("is a 502 that a retry cannot fix (permanent for that marketplace)", async () => {
    // the origin points at a page of the marketplace that has no Rufus nav button
    const withoutRufus: Env = Object.assign({}, env, {
      PROVIDER_ORIGIN_AMAZON_RUFUS: `${env.REPLICA_URL}/amazon_rufus/{domain}/customer-service`,
    });
    const failure = await runScrape(
      withoutRufus,
      {
        scraper: PROVIDER,
        params: { prompt: "lamp", country: "US", bypass_cache: true, timeout: 60 },
        jobId: crypto.randomUUID(),
        baseUrl: "http://api.test",
        logSubject: serviceSubject("amazon_rufus without Rufus"),
        startedAt: Date.now(),
      },
      60,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    if (!(failure instanceof UpstreamError)) return;
    expect([failure.status, failure.retryable]).toEqual([502, false]);
    expect(failure.detail).toMatch(/Rufus is not available on this Amazon marketplace/);
  });
});

describeProviderContract({
  provider: PROVIDER,
  prompt: "one-product desk lamp",
  drift: { code: "amazon_rufus.rufus_panel_missing" },
  queuePath: true,
});

describeFuzzedPages({ oracle: amazonRufusOracle, seeds: CI_SEEDS });
