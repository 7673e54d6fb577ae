/**
 * GET /scrapers/grok end to end: the real Worker, real Chromium through the Browser Rendering binding, the Grok
 * replica. Expected fields are derived from the replica's scenario data by the mapping of providers/grok.md §4,
 * written here independently of the parser.
 */
import { env, exports } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { pickGrokScenario, type GrokScenario, type GrokXPost } from "../../replicas/grok/scenarios";
import type { z } from "@hono/zod-openapi";
import type { GrokAnswerSchema } from "../../src/scrapers/grok/declaration";
import { providerById, resolveOrigin } from "../../src/scrapers/registry";
import type { CommonScrapeFields } from "../../src/schemas/responses";
import {
  api,
  BASE,
  balanceOf,
  createTestAccount,
  ledgerOf,
  query,
  replicaControl,
  replicaLayouts,
  replicaRequests,
  type TestAccount,
} from "../integration/helpers";
import { describeProviderContract } from "./provider-contract";

type GrokResponse = CommonScrapeFields & z.infer<typeof GrokAnswerSchema>;

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(1500);
});
afterEach(async () => {
  await replicaControl("reset");
});

const MODE_IDS = { MODEL_MODE_AUTO: "auto", MODEL_MODE_FAST: "fast", MODEL_MODE_EXPERT: "expert" } as const;

function expectedSocial(post: GrokXPost) {
  const views = typeof post.viewCount === "number" ? post.viewCount : Number.parseInt(post.viewCount ?? "", 10);
  return {
    post_id: post.postId,
    user_name: post.username.replace(/^@/, ""),
    name: post.name,
    text: post.text,
    view_count: Number.isFinite(views) ? views : 0,
    profile_image_url: post.profileImageUrl ? post.profileImageUrl : null,
    create_time: post.createTime ? post.createTime : null,
  };
}

function expectedFields(scenario: GrokScenario, mode: keyof typeof MODE_IDS) {
  const streamedSources = scenario.streamedWebSearchResults.flat();
  const sources = scenario.webSearchResults.length > 0 ? scenario.webSearchResults : streamedSources;
  const uniqueSources = [...new Map(sources.map((source) => [source.url, source])).values()];
  const posts = scenario.xposts ?? [...new Map(scenario.streamedXSearchResults.flat().map((post) => [post.postId, post])).values()];
  return {
    mode,
    web_sources: uniqueSources.map((source) => ({ title: source.title, url: source.url, preview: source.preview ? source.preview : null })),
    social_results: posts.map(expectedSocial),
    related_questions: scenario.followUpSuggestions ?? [],
    conversation:
      scenario.conversation === null
        ? null
        : {
            conversation_id: scenario.conversation.conversationId,
            title: scenario.newTitle ?? scenario.conversation.title,
            temporary: scenario.conversation.temporary,
            create_time: scenario.conversation.createTime,
            modify_time: scenario.conversation.modifyTime,
          },
    llm_model: scenario.includeModel ? `grok-4-${MODE_IDS[mode]}` : null,
  };
}

async function scrape(
  params: Record<string, string>,
  apiKey = account.apiKey,
): Promise<{ status: number; body: GrokResponse & { detail?: string }; headers: Headers }> {
  const response = await api(`/scrapers/grok?${query(params)}`, { apiKey });
  return { status: response.status, body: (await response.json()) as GrokResponse & { detail?: string }, headers: response.headers };
}

function expectCompleteResponse(body: GrokResponse, prompt: string): void {
  expect(body.scraper).toBe("grok");
  expect(body.status).toBe("done");
  expect(body.job_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(body.prompt).toBe(prompt);
  expect(body.country).toBe("US");
  expect(body.credits_used).toBe(3);
  expect(typeof body.elapsed_ms).toBe("number");
  expect(body.elapsed_ms).toBeGreaterThan(0);
  expect(body.markdown_url).toBe(`http://api.test/md/${body.job_id}.md`);
  expect(body.result_markdown).not.toContain("<grok:render");
  expect(body.result_markdown).not.toContain("xaiArtifact");
  expect(body.result.trim().length).toBeGreaterThan(0);
  expect(body.result).not.toMatch(/\]\(https?:/);
}

describe("grok scenarios through real Chromium", () => {
  const scenarios: Array<[string, keyof typeof MODE_IDS]> = [
    ["What is the tallest mountain in Europe?", "MODEL_MODE_AUTO"],
    ["many-posts: what do people say about the launch?", "MODEL_MODE_EXPERT"],
    ["web-sources-only please", "MODEL_MODE_FAST"],
    ["unicode-emoji 🚀 test", "MODEL_MODE_AUTO"],
    ["citation-tags check", "MODEL_MODE_AUTO"],
    ["null-optional-fields", "MODEL_MODE_FAST"],
    ["thinking-tokens first", "MODEL_MODE_EXPERT"],
    ["no-conversation-line", "MODEL_MODE_AUTO"],
    ["long-answer", "MODEL_MODE_AUTO"],
    ["xai-artifact", "MODEL_MODE_AUTO"],
  ];
  for (const [prompt, mode] of scenarios) {
    it(`${pickGrokScenario(prompt).id} (${mode})`, async () => {
      const scenario = pickGrokScenario(prompt);
      const { status, body, headers } = await scrape({ prompt, mode, bypass_cache: "true" });
      expect(status, JSON.stringify(body)).toBe(200);
      expectCompleteResponse(body, prompt);
      expect(body.cached).toBe(false);
      expect(body).toMatchObject(expectedFields(scenario, mode));
      // The site ran in the requested mode: the page's own request carried its modeId.
      expect((await replicaRequests("grok")).at(-1)?.body).toMatchObject({ message: prompt, modeId: MODE_IDS[mode] });
      expect(Number(headers.get("X-Credits-Remaining"))).toBe(await balanceOf(account.accountId));
    });
  }

  it("default scenario: exact markdown with citation links and exact plain text", async () => {
    const prompt = "Who designed the Eiffel Tower?";
    const { body } = await scrape({ prompt, bypass_cache: "true" });
    expect(body.result_markdown).toBe(
      [
        `You asked: "${prompt}".`,
        "",
        "This is the replica's default answer. It cites an encyclopedia[1](https://en.wikipedia.org/wiki/Special:Search) and a second reference[2](https://www.britannica.com/search).",
        "",
        "- It has **bold** text and a list.",
        "- It has no posts from X.",
      ].join("\n"),
    );
    expect(body.result).toContain(`You asked: "${prompt}".`);
    expect(body.result).toContain("It has bold text and a list.");
    expect(body.result).not.toContain("**");
  });

  it("long answer over 30 kB arrives whole", async () => {
    const { body } = await scrape({ prompt: "long-answer", bypass_cache: "true" });
    expect(new TextEncoder().encode(body.result_markdown ?? "").length).toBeGreaterThan(30_000);
  });
});

describe("cache, hosted markdown and credits", () => {
  it("second identical request is a cache hit, charged, with its own job id; bypass_cache forces a fresh scrape", async () => {
    const prompt = `Cache me ${crypto.randomUUID()}`;
    const before = await balanceOf(account.accountId);
    const first = await scrape({ prompt, country: "us" });
    expect(first.body.cached).toBe(false);
    const second = await scrape({ prompt, country: "US", timeout: "30" });
    expect(second.status).toBe(200);
    expect(second.body.cached).toBe(true);
    expect(second.body.job_id).not.toBe(first.body.job_id);
    expect(second.body.result_markdown).toBe(first.body.result_markdown);
    const third = await scrape({ prompt, bypass_cache: "true" });
    expect(third.body.cached).toBe(false);
    const otherMode = await scrape({ prompt, mode: "MODEL_MODE_FAST" });
    expect(otherMode.body.cached).toBe(false);
    expect(await balanceOf(account.accountId)).toBe(before - 4 * 3);
  });

  it("markdown_url serves the markdown as text/markdown; unknown ids are 404", async () => {
    const { body } = await scrape({ prompt: "citation-tags markdown", bypass_cache: "true" });
    const path = new URL(body.markdown_url ?? "").pathname;
    const hosted = await api(path);
    expect(hosted.status).toBe(200);
    expect(hosted.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(await hosted.text()).toBe(body.result_markdown);
    expect((await api(`/md/${crypto.randomUUID()}.md`)).status).toBe(404);
    expect((await api("/md/not-a-uuid.md")).status).toBe(404);
  });

  it("charges exactly once per 200, with one ledger row", async () => {
    const own = await createTestAccount(9);
    const { status, body } = await scrape({ prompt: "web-sources-only ledger", bypass_cache: "true" }, own.apiKey);
    expect(status).toBe(200);
    expect(await balanceOf(own.accountId)).toBe(6);
    expect(await ledgerOf(own.accountId)).toEqual([{ kind: "charge", delta: -3, operation_id: body.job_id }]);
  });

  it("an upstream failure answers 502 and restores the credits", async () => {
    const own = await createTestAccount(9);
    await replicaControl("faults", { provider: "grok", fault: "http_error", count: 1 });
    const { status, body } = await scrape({ prompt: "fails upstream", bypass_cache: "true" }, own.apiKey);
    expect(status).toBe(502);
    expect(body.detail).toMatch(/retry/i);
    expect(await balanceOf(own.accountId)).toBe(9);
    const ledger = await ledgerOf(own.accountId);
    expect(ledger.map((row) => row.kind)).toEqual(["charge", "refund"]);
  });

  it("an anti-bot challenge is a 502; an empty answer is a 500; both restore credits", async () => {
    const own = await createTestAccount(9);
    await replicaControl("faults", { provider: "grok", fault: "challenge", count: 1 });
    expect((await scrape({ prompt: "challenge me", bypass_cache: "true" }, own.apiKey)).status).toBe(502);
    await replicaControl("faults", { provider: "grok", fault: "empty_answer", count: 1 });
    expect((await scrape({ prompt: "empty please", bypass_cache: "true" }, own.apiKey)).status).toBe(500);
    await replicaControl("faults", { provider: "grok", fault: "disconnect", count: 1 });
    expect((await scrape({ prompt: "cut me off", bypass_cache: "true" }, own.apiKey)).status).toBe(502);
    expect(await balanceOf(own.accountId)).toBe(9);
  });

  it("every other provider failure maps to a client-safe 502 and restores credits", async () => {
    const own = await createTestAccount(9);
    const cases: Array<[string, RegExp]> = [
      ["login_wall", /sign in|login/i],
      ["rate_limited", /rate limit|usage limit/i],
      ["malformed_stream", /retry/i],
    ];
    for (const [fault, detail] of cases) {
      await replicaControl("faults", { provider: "grok", fault, count: 1 });
      const { status, body } = await scrape({ prompt: `fault ${fault}`, bypass_cache: "true" }, own.apiKey);
      expect(status, fault).toBe(502);
      expect(body.detail, fault).toMatch(detail);
      expect(body.detail).not.toMatch(/\{|at \w+ \(/);
    }
    expect(await balanceOf(own.accountId)).toBe(9);
  });

  it("a slow provider still answers completely within the timeout", async () => {
    await replicaControl("pacing", { provider: "grok", delay_ms: 1_500, chunk_ms: 40 });
    const { status, body } = await scrape({ prompt: "citation-tags slowly", bypass_cache: "true", timeout: "60" });
    expect(status).toBe(200);
    expect(body).toMatchObject(expectedFields(pickGrokScenario("citation-tags"), "MODEL_MODE_AUTO"));
    expect(body.result_markdown).not.toContain("<grok:render");
    expect(body.elapsed_ms).toBeGreaterThan(1_500);
  });

  it("a scrape that outlives timeout answers 408 and restores the credits", async () => {
    const own = await createTestAccount(3);
    await replicaControl("faults", { provider: "grok", fault: "hang", count: 1 });
    const startedAt = Date.now();
    const { status, body } = await scrape({ prompt: "hang forever", bypass_cache: "true", timeout: "10" }, own.apiKey);
    expect(status).toBe(408);
    expect(body.detail).toMatch(/timeout=10/);
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect(await balanceOf(own.accountId)).toBe(3);
  });

  it("429 when the balance is short, without charging", async () => {
    const own = await createTestAccount(2);
    const { status, body, headers } = await scrape({ prompt: "short on credits" }, own.apiKey);
    expect(status).toBe(429);
    expect(body.detail).toMatch(/credit/i);
    // no Retry-After: waiting does not help a short balance, only a top-up does
    expect(headers.get("Retry-After")).toBeNull();
    expect(await balanceOf(own.accountId)).toBe(2);
  });

  it("20 concurrent requests on a 15-credit account never overdraw", async () => {
    const prompt = `Concurrent ${crypto.randomUUID()}`;
    await scrape({ prompt }); // warm the cache so the burst is decided by credits, not by the browser pool
    const own = await createTestAccount(15);
    const results = await Promise.all(Array.from({ length: 20 }, () => scrape({ prompt }, own.apiKey)));
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    expect(await balanceOf(own.accountId)).toBe(0);
    const ledger = await ledgerOf(own.accountId);
    expect(ledger).toHaveLength(5);
    expect(ledger.every((row) => row.kind === "charge" && row.delta === -3)).toBe(true);
  });
});

describe("provider origin", () => {
  it("targets the replica when overridden and https://grok.com otherwise", () => {
    const grok = providerById("grok");
    if (grok === undefined) throw new Error("grok is not registered");
    const params = { prompt: "x", country: "US", bypass_cache: false, timeout: 60 };
    expect(resolveOrigin(env, grok, params)).toBe(`${env.REPLICA_URL}/grok`);
    const withOverride = (value: string): Env => Object.assign({}, env, { PROVIDER_ORIGIN_GROK: value });
    expect(resolveOrigin(withOverride(""), grok, params)).toBe("https://grok.com");
    expect(resolveOrigin(withOverride("http://127.0.0.1:9/grok/"), grok, params)).toBe("http://127.0.0.1:9/grok");
  });
});

describe("grok on every replica layout", () => {
  afterEach(async () => {
    await replicaControl("reset", { provider: "grok" });
  });

  const layouts = ["classic", "described", "legacy"];
  it("every layout the replica serves is run below (a layout added to the replica fails here until it is)", async () => {
    expect([...(await replicaLayouts("grok"))].sort()).toEqual([...layouts].sort());
  });

  for (const layout of layouts) {
    for (const mode of ["MODEL_MODE_AUTO", "MODEL_MODE_FAST", "MODEL_MODE_EXPERT"] as const) {
      it(`${layout} layout, ${mode}: every field, the mode chosen on the page and verified on the wire`, async () => {
        await replicaControl("layout", { provider: "grok", layout });
        const prompt = `many-posts in ${layout} ${mode}`;
        const { status, body } = await scrape({ prompt, mode, bypass_cache: "true" });
        expect(status, JSON.stringify(body)).toBe(200);
        expectCompleteResponse(body, prompt);
        expect(body).toMatchObject(expectedFields(pickGrokScenario(prompt), mode));
        const sent = (await replicaRequests("grok")).at(-1);
        expect(sent?.body).toMatchObject({ message: prompt, modeId: MODE_IDS[mode] });
      });
    }
  }
});

describeProviderContract({
  provider: "grok",
  prompt: "What is the tallest mountain in Europe?",
  drift: { code: "grok.composer_missing", persistentAsync: true },
});

describe("a client that disconnects", () => {
  it("stops the scrape and gets its credits back at once, not at the timeout", async () => {
    const own = await createTestAccount(3);
    await replicaControl("faults", { provider: "grok", fault: "hang", count: 1 });
    const controller = new AbortController();
    const request = exports.default.fetch(
      new Request(`${BASE}/scrapers/grok?${query({ prompt: "I will hang up", bypass_cache: "true", timeout: "120" })}`, {
        headers: { "X-API-Key": own.apiKey },
        signal: controller.signal,
      }),
    );
    request.catch(() => undefined);
    // hang up once the page has sent the prompt
    for (
      let poll = 0;
      poll < 200 && !(await replicaRequests("grok")).some((sent) => JSON.stringify(sent.body).includes("I will hang up"));
      poll += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await balanceOf(own.accountId)).toBe(0);
    const hungUpAt = Date.now();
    controller.abort();
    for (let poll = 0; poll < 200 && (await balanceOf(own.accountId)) !== 3; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await balanceOf(own.accountId)).toBe(3);
    expect(Date.now() - hungUpAt).toBeLessThan(15_000);
    expect((await ledgerOf(own.accountId)).map((row) => row.kind)).toEqual(["charge", "refund"]);
  });
});
