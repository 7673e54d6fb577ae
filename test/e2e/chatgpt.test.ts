/**
 * GET /scrapers/chatgpt end to end: the real Worker, real Chromium through the Browser Rendering binding, the ChatGPT
 * replica. Expected fields come from the replica's scenario data through replicas/chatgpt/expected.ts (the mapping of
 * providers/chatgpt.md §4 applied to structured data by hand, not to the wire and not through the parser; `result` from
 * each segment's hand-written plain form) — the same source as the oracle (test/support/oracles/chatgpt.ts) the fuzzed
 * pages are checked against; `result_markdown_json` is markdown-it's own tokens, serialised here.
 */
import type { z } from "@hono/zod-openapi";
import MarkdownIt from "markdown-it";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectedChatgptFields } from "../../replicas/chatgpt/expected";
import { CHATGPT_SCENARIOS, pickChatgptScenario } from "../../replicas/chatgpt/scenarios";
import type { JobView } from "../../src/jobs/job-types";
import type { CommonScrapeFields } from "../../src/schemas/responses";
import type { ChatgptAnswerSchema } from "../../src/scrapers/chatgpt/declaration";
import {
  api,
  balanceOf,
  createTestAccount,
  type RecordedReplicaRequest,
  query,
  replicaControl,
  replicaLayouts,
  replicaRequests,
  type TestAccount,
} from "../support/workers/helpers";
import { chatgptOracle } from "../support/oracles/chatgpt";
import { CI_SEEDS, describeFuzzedPages } from "./fuzzed-pages";
import { describeProviderContract } from "./provider-contract";

type ChatgptResponse = CommonScrapeFields & z.infer<typeof ChatgptAnswerSchema> & { detail?: string };

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(1500);
});
afterEach(async () => {
  await replicaControl("reset", { provider: "chatgpt" });
});

async function scrape(params: Record<string, string>, apiKey = account.apiKey): Promise<{ status: number; body: ChatgptResponse }> {
  const response = await api(`/scrapers/chatgpt?${query(params)}`, { apiKey });
  return { status: response.status, body: (await response.json()) as ChatgptResponse };
}

/** Every answer field of the scenario for this prompt, by the sheet's mapping. */
function expectedAnswer(prompt: string) {
  return expectedChatgptFields(pickChatgptScenario(prompt), prompt);
}

function expectCommonFields(body: ChatgptResponse, prompt: string): void {
  expect(body.scraper).toBe("chatgpt");
  expect(body.status).toBe("done");
  expect(body.job_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(body.prompt).toBe(prompt);
  expect(body.country).toBe("US");
  expect(body.credits_used).toBe(3);
  expect(body.elapsed_ms).toBeGreaterThan(0);
  expect(body.cached).toBe(false);
  expect(body.markdown_url).toBe(`http://api.test/md/${body.job_id}.md`);
}

/** Nothing of the marker syntax, the provider's tracking parameter or hidden messages reaches the client. */
function expectNothingLeaked(body: ChatgptResponse): void {
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/[\ue200-\ue206]/);
  expect(text).not.toContain("utm_source=chatgpt.com");
  expect(text).not.toContain(":~:text=");
  expect(text).not.toContain("SECRET-");
}

/** What the page sent: the prompt as the user message and web search asked for (verified on the wire). */
function expectRequestSent(sent: RecordedReplicaRequest | undefined, prompt: string, path: string): void {
  expect(sent?.path).toBe(`/chatgpt${path}`);
  expect(sent?.body).toMatchObject({
    action: "next",
    messages: [{ author: { role: "user" }, content: { content_type: "text", parts: [prompt] } }],
    parent_message_id: "client-created-root",
  });
  expect(Reflect.get(Object(sent?.body), "system_hints")).toContain("search");
  expect(sent?.headers["openai-sentinel-chat-requirements-token"]).toMatch(/^gAAAAAB/);
}

describe("chatgpt scenarios through real Chromium", () => {
  const prompts = [
    "What is the tallest mountain in Europe?",
    ...CHATGPT_SCENARIOS.flatMap((scenario) => (scenario.trigger === null ? [] : [`${scenario.trigger} please`])),
  ];
  for (const prompt of prompts) {
    it(`${pickChatgptScenario(prompt).id}: every field`, async () => {
      const { status, body } = await scrape({ prompt, bypass_cache: "true" });
      expect(status, JSON.stringify(body).slice(0, 500)).toBe(200);
      expectCommonFields(body, prompt);
      expect(body).toEqual({ ...body, ...expectedAnswer(prompt) });
      expect(body).not.toHaveProperty("result_markdown_json");
      expectNothingLeaked(body);
      expectRequestSent((await replicaRequests("chatgpt")).at(-1), prompt, "/backend-anon/f/conversation");
    });
  }

  it("the default answer quotes the prompt, with citation links resolved and clean URLs", async () => {
    const prompt = "Who designed the Eiffel Tower?";
    const { body } = await scrape({ prompt, bypass_cache: "true" });
    expect(body.result_markdown).toBe(
      [
        `You asked: "${prompt}".`,
        "",
        "This is the replica's default answer. An encyclopedia says so ([Wikipedia](https://en.wikipedia.org/wiki/Special:Search)), " +
          "and a second reference agrees ([Britannica](https://www.britannica.com/search)).",
        "",
        "- It has **bold** text and a list.",
        "- It has `inline code`.",
      ].join("\n"),
    );
    expect(body.result).toContain("An encyclopedia says so (Wikipedia), and a second reference agrees (Britannica).");
    expect(body.links).toEqual([
      { text: "Wikipedia", url: "https://en.wikipedia.org/wiki/Special:Search" },
      { text: "Britannica", url: "https://www.britannica.com/search" },
    ]);
    expect(body.search_queries).toEqual(["replica default answer"]);
    expect(body.llm_model).toBe("gpt-5-2026-10-14");
  });

  it("markdown_json=true adds markdown-it's full token tree of result_markdown, children included", async () => {
    const prompt = "table-citations as tokens";
    const { status, body } = await scrape({ prompt, markdown_json: "true", bypass_cache: "true" });
    expect(status).toBe(200);
    const expected = expectedAnswer(prompt);
    expect(body.result_markdown).toBe(expected.result_markdown);
    // markdown-it's Token objects serialise to exactly their fields
    const tokens: unknown = JSON.parse(JSON.stringify(new MarkdownIt().parse(expected.result_markdown, {})));
    expect(body.result_markdown_json).toEqual(tokens);
    const first = body.result_markdown_json?.[0] ?? {};
    expect(Object.keys(first).sort()).toEqual(
      ["attrs", "block", "children", "content", "hidden", "info", "level", "map", "markup", "meta", "nesting", "tag", "type"].sort(),
    );
    expect(body.result_markdown_json?.some((token) => Array.isArray(token.children) && token.children.length > 0)).toBe(true);
  });

  it("markdown_json=false leaves the field out; it is part of the cache key", async () => {
    const prompt = `no-search tokens ${crypto.randomUUID().slice(0, 8)}`;
    const plain = await scrape({ prompt, markdown_json: "false" });
    expect(plain.body).not.toHaveProperty("result_markdown_json");
    const withTokens = await scrape({ prompt, markdown_json: "true" });
    expect(withTokens.body.cached).toBe(false);
    expect(Array.isArray(withTokens.body.result_markdown_json)).toBe(true);
  });

  it("a long answer over 30 kB arrives whole", async () => {
    const { body } = await scrape({ prompt: "long-answer", bypass_cache: "true" });
    expect(new TextEncoder().encode(body.result_markdown ?? "").length).toBeGreaterThan(30_000);
    expect(body.result_markdown).toBe(expectedAnswer("long-answer").result_markdown);
  });

  it("a slow stream still answers completely", async () => {
    await replicaControl("pacing", { provider: "chatgpt", delay_ms: 1_500, chunk_ms: 30 });
    const prompt = "many-references slowly";
    const { status, body } = await scrape({ prompt, bypass_cache: "true", timeout: "60" });
    expect(status).toBe(200);
    expect(body).toEqual({ ...body, ...expectedAnswer(prompt) });
    expect(body.elapsed_ms).toBeGreaterThan(1_500);
  });
});

describe("chatgpt on every replica layout", () => {
  const cases: Array<[layout: string, prompt: string, path: string]> = [
    ["anonymous", "widget-markers on the anonymous page", "/backend-anon/f/conversation"],
    ["signed-in", "many-references on the signed-in page", "/backend-api/f/conversation"],
    ["signed-in", "thinking-commentary on the signed-in page", "/backend-api/f/conversation"],
    ["legacy-build", "table-citations on the legacy page", "/backend-anon/conversation"],
    ["legacy-build", "unicode-rtl on the legacy page", "/backend-anon/conversation"],
  ];
  it("every layout the replica serves is run below (a layout added to the replica fails here until it is)", async () => {
    expect([...(await replicaLayouts("chatgpt"))].sort()).toEqual([...new Set(cases.map(([layout]) => layout))].sort());
  });
  for (const [layout, prompt, path] of cases) {
    it(`${layout}: ${pickChatgptScenario(prompt).id}, every field, prompt and search verified on the wire`, async () => {
      await replicaControl("layout", { provider: "chatgpt", layout });
      const { status, body } = await scrape({ prompt, bypass_cache: "true" });
      expect(status, JSON.stringify(body).slice(0, 500)).toBe(200);
      expectCommonFields(body, prompt);
      expect(body).toEqual({ ...body, ...expectedAnswer(prompt) });
      expectNothingLeaked(body);
      const sent = (await replicaRequests("chatgpt")).at(-1);
      expectRequestSent(sent, prompt, path);
      // the older build offers no delta encoding, so its answer came in the old cumulative format
      expect(Reflect.get(Object(sent?.body), "supported_encodings")).toEqual(layout === "legacy-build" ? undefined : ["v1"]);
    });
  }
});

describe("chatgpt failures", () => {
  it("a login wall is a 502 that says a login is needed; a rate limit says to retry later", async () => {
    const own = await createTestAccount(9);
    await replicaControl("faults", { provider: "chatgpt", fault: "login_wall", count: 1 });
    const walled = await scrape({ prompt: "login wall please", bypass_cache: "true" }, own.apiKey);
    expect(walled.status).toBe(502);
    expect(walled.body.detail).toMatch(/login/i);
    await replicaControl("faults", { provider: "chatgpt", fault: "rate_limited", count: 1 });
    const limited = await scrape({ prompt: "rate limit please", bypass_cache: "true" }, own.apiKey);
    expect(limited.status).toBe(502);
    expect(limited.body.detail).toMatch(/rate limit/i);
    await replicaControl("faults", { provider: "chatgpt", fault: "challenge", count: 1 });
    const challenged = await scrape({ prompt: "challenge please", bypass_cache: "true" }, own.apiKey);
    expect(challenged.status).toBe(502);
    expect(challenged.body.detail).toMatch(/challenge/i);
    expect(await balanceOf(own.accountId)).toBe(9);
  });

  it("a redirect to auth.openai.com (an expired signed-in session) is a login wall, even though that host is unreachable", async () => {
    const own = await createTestAccount(3);
    await replicaControl("layout", { provider: "chatgpt", layout: "signed-in" });
    await replicaControl("faults", { provider: "chatgpt", fault: "login_wall", count: 1 });
    const { status, body } = await scrape({ prompt: "expired session", bypass_cache: "true" }, own.apiKey);
    expect(status, JSON.stringify(body)).toBe(502);
    expect(body.detail).toMatch(/login/i);
    expect(await balanceOf(own.accountId)).toBe(3);
  });
});

describe("chatgpt async job", () => {
  it("POST /scrapers/chatgpt/jobs, then GET /jobs/{id} until done: the full response", async () => {
    const own = await createTestAccount(9);
    const prompt = "several-queries as a job";
    const submitted = await api(`/scrapers/chatgpt/jobs?${query({ prompt, markdown_json: "true" })}`, {
      method: "POST",
      apiKey: own.apiKey,
    });
    expect(submitted.status).toBe(202);
    const { job_id: jobId, status } = (await submitted.json()) as { job_id: string; status: string };
    expect(status).toBe("pending");
    expect(await balanceOf(own.accountId)).toBe(6);

    const deadline = Date.now() + 90_000;
    let job: JobView;
    for (;;) {
      job = (await (await api(`/jobs/${jobId}`)).json()) as JobView;
      if (job.status !== "pending" || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(job.status, JSON.stringify(job)).toBe("done");
    const result = (job.result ?? {}) as ChatgptResponse;
    expect(result).toMatchObject({ scraper: "chatgpt", status: "done", job_id: jobId, prompt, credits_used: 3, ...expectedAnswer(prompt) });
    expect(Array.isArray(result.result_markdown_json)).toBe(true);
    expect(await balanceOf(own.accountId)).toBe(6);
  });
});

describeProviderContract({
  provider: "chatgpt",
  prompt: "What is the tallest building in the world?",
  drift: { code: "chatgpt.composer_missing" },
});

describeFuzzedPages({ oracle: chatgptOracle, seeds: CI_SEEDS });
