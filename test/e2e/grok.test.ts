/**
 * GET /scrapers/grok end to end: the real Worker, real Chromium through the Browser Rendering binding, the Grok
 * replica. Expected fields come from the Grok oracle (test/support/oracles/grok.ts), written by hand from the replica's
 * scenario data and providers/grok.md §4, never by the parser or the renderer; a mode chosen on the page is asserted
 * through the picker's own state, and every field is compared on seeded page variants (describeFuzzedPages).
 */
import { env, exports } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
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
} from "../support/workers/helpers";
import { describeProviderContract } from "./provider-contract";
import { CI_SEEDS, describeFuzzedPages } from "./fuzzed-pages";
import { fieldMismatches } from "../support/oracles/draw";
import { grokExpectation, grokOracle, type GrokMode } from "../support/oracles/grok";

type GrokResponse = CommonScrapeFields & z.infer<typeof GrokAnswerSchema>;

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(1500);
});
afterEach(async () => {
  await replicaControl("reset");
});

const MODE_IDS = { MODEL_MODE_AUTO: "auto", MODEL_MODE_FAST: "fast", MODEL_MODE_EXPERT: "expert" } as const;

/** What the replica's fuzzed pages reported of their mode picker when they sent (grok-variation.js). */
async function pageStates(): Promise<{ checkedIndex: number; checkedLabel: string | null }[]> {
  const response = await fetch(`${env.REPLICA_URL}/grok/__replica/page-state`);
  return ((await response.json()) as { states: { checkedIndex: number; checkedLabel: string | null }[] }).states;
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
  // every answered scenario of the replica, expected fields from the oracle (written from the scenario data)
  for (const scenario of grokOracle.cases()) {
    const prompt = scenario.params.prompt ?? "";
    const mode = (scenario.params.mode ?? "MODEL_MODE_AUTO") as GrokMode;
    it(`${scenario.id} (${mode}): every field exact`, async () => {
      const { status, body, headers } = await scrape({ prompt, mode, bypass_cache: "true" });
      expect(status, JSON.stringify(body)).toBe(200);
      expectCompleteResponse(body, prompt);
      expect(body.cached).toBe(false);
      expect(fieldMismatches(scenario.expected, body)).toEqual([]);
      // The site ran in the requested mode: the page's own request carried its modeId.
      expect((await replicaRequests("grok")).at(-1)?.body).toMatchObject({ message: prompt, modeId: MODE_IDS[mode] });
      expect(Number(headers.get("X-Credits-Remaining"))).toBe(await balanceOf(account.accountId));
    });
  }

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
    expect(fieldMismatches(grokExpectation("citation-tags slowly", "MODEL_MODE_AUTO"), body)).toEqual([]);
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
        expect(fieldMismatches(grokExpectation(prompt, mode), body)).toEqual([]);
        const sent = (await replicaRequests("grok")).at(-1);
        expect(sent?.body).toMatchObject({ message: prompt, modeId: MODE_IDS[mode] });
      });
    }
  }

  // A fuzzed page with every class off is the layout's page plus the replica's page-state report: the test reads the
  // picker's own state (the checked item) when the page sent, so a patched request cannot pass for a choice on the page.
  for (const layout of layouts) {
    for (const mode of ["MODEL_MODE_FAST", "MODEL_MODE_EXPERT"] as const) {
      it(`${layout} layout: chooses ${mode} on the page (the picker's checked item when the page sent)`, async () => {
        await replicaControl("layout", { provider: "grok", layout });
        await replicaControl("variation", { provider: "grok", seed: 1, classes: [] });
        const before = (await pageStates()).length;
        const prompt = `no-posts chosen on the page ${layout} ${mode}`;
        const { status, body } = await scrape({ prompt, mode, bypass_cache: "true" });
        expect(status, JSON.stringify(body)).toBe(200);
        const states = (await pageStates()).slice(before);
        expect(states.at(-1)?.checkedIndex, JSON.stringify(states)).toBe(Object.keys(MODE_IDS).indexOf(mode));
        expect((await replicaRequests("grok")).at(-1)?.body).toMatchObject({ message: prompt, modeId: MODE_IDS[mode] });
      });
    }
  }
});

describe("log lines from the page", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("the mode choice the page work logs starts with the request's id, like every other line of the request", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...parts: unknown[]) => {
      lines.push(parts.map(String).join(" "));
    });
    const response = await api(
      `/scrapers/grok?${query({ prompt: "no-posts logged choice", mode: "MODEL_MODE_FAST", bypass_cache: "true" })}`,
      {
        apiKey: account.apiKey,
        headers: { "X-Request-Id": "support-ticket-4711" },
      },
    );
    expect(response.status, await response.text()).toBe(200);
    const choices = lines.filter((line) => line.includes('"event":"choice"'));
    expect(choices.length, lines.join("\n")).toBeGreaterThan(0);
    for (const line of choices) {
      expect(line).toMatch(/^\[support-ticket-4711\] \{"event":"choice","provider":"grok","what":"mode","via":"(page|patch)"\}$/);
    }
  });
});

describeFuzzedPages({ oracle: grokOracle, seeds: CI_SEEDS });

describeProviderContract({
  provider: "grok",
  prompt: "What is the tallest mountain in Europe?",
  drift: { code: "grok.composer_missing" },
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
