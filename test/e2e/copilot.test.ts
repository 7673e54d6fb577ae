/**
 * GET /scrapers/copilot end to end: the real Worker, real Chromium through the Browser Rendering binding, the Copilot
 * replica (chat page, POST /c/api/start, the chat WebSocket). Expected fields come from the Copilot oracle
 * (test/support/oracles/copilot.ts), written from the replica's scenario data and copilot.md §4 by hand, independently
 * of the parser and the renderer; the mode and the prompt are checked in the `send` frame the replica received.
 */
import { env } from "cloudflare:workers";
import type { z } from "@hono/zod-openapi";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { CopilotWireMode } from "../../replicas/copilot/scenarios";
import type { CopilotAnswerSchema } from "../../src/scrapers/copilot/declaration";
import { providerById, resolveOrigin } from "../../src/scrapers/registry";
import type { CommonScrapeFields } from "../../src/schemas/responses";
import { fieldMismatches } from "../support/oracles/draw";
import { copilotExpectation, copilotOracle } from "../support/oracles/copilot";
import { CI_SEEDS, describeFuzzedPages } from "./fuzzed-pages";
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

type CopilotResponse = CommonScrapeFields & z.infer<typeof CopilotAnswerSchema>;

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(1500);
});
afterEach(async () => {
  await replicaControl("reset", { provider: "copilot" });
});

async function scrape(
  params: Record<string, string>,
  apiKey = account.apiKey,
): Promise<{ status: number; body: CopilotResponse & { detail?: string } }> {
  const response = await api(`/scrapers/copilot?${query(params)}`, { apiKey });
  return { status: response.status, body: (await response.json()) as CopilotResponse & { detail?: string } };
}

function expected(prompt: string, mode: CopilotWireMode): Record<string, unknown> {
  return copilotExpectation(prompt, mode);
}

/** What the replica's fuzzed pages reported of their mode menu when they sent (copilot-variation.js). */
async function pageStates(): Promise<{ checkedIndex: number; triggerLabel: string }[]> {
  const response = await fetch(`${env.REPLICA_URL}/copilot/__replica/page-state`);
  return ((await response.json()) as { states: { checkedIndex: number; triggerLabel: string }[] }).states;
}

function expectCommonFields(body: CopilotResponse, prompt: string): void {
  expect(body.scraper).toBe("copilot");
  expect(body.status).toBe("done");
  expect(body.job_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(body.prompt).toBe(prompt);
  expect(body.country).toBe("US");
  expect(body.credits_used).toBe(3);
  expect(body.elapsed_ms).toBeGreaterThan(0);
  expect(body.cached).toBe(false);
  expect(body.markdown_url).toBe(`http://api.test/md/${body.job_id}.md`);
}

/** The page's own `send` frame, as the replica received it: the prompt and the mode on the wire. */
async function expectSent(prompt: string, mode: CopilotWireMode): Promise<void> {
  const sent = (await replicaRequests("copilot")).at(-1);
  expect(sent?.method).toBe("WS");
  expect(sent?.path).toMatch(/\/copilot\/c\/api\/chat\?api-version=2&clientSessionId=/);
  expect(sent?.body).toMatchObject({ event: "send", mode, content: [{ type: "text", text: prompt }] });
}

async function expectScenario(prompt: string, mode: CopilotWireMode): Promise<CopilotResponse> {
  const { status, body } = await scrape({ prompt, mode, bypass_cache: "true" });
  expect(status, JSON.stringify(body)).toBe(200);
  expectCommonFields(body, prompt);
  const {
    scraper,
    status: done,
    job_id,
    prompt: echoed,
    country,
    credits_used,
    elapsed_ms,
    cached,
    markdown_url,
    served_by,
    evidence,
    ...fields
  } = body;
  // no X-Evidence and no account default: nothing kept (docs/evidence.md)
  expect(evidence).toBeNull();
  expect(fields).toEqual(expected(prompt, mode));
  await expectSent(prompt, mode);
  return body;
}

describe("copilot scenarios through real Chromium", () => {
  // every answered scenario of the replica, expected fields from the oracle
  for (const scenario of copilotOracle.cases()) {
    const prompt = scenario.params.prompt ?? "";
    const mode = (scenario.params.mode ?? "search") as CopilotWireMode;
    it(`${scenario.id} (${mode}): every field exact, mode and prompt verified on the wire`, async () => {
      const body = await expectScenario(prompt, mode);
      expect(fieldMismatches(scenario.expected, body)).toEqual([]);
    });
  }

  it("the answer's markdown is hosted, and chainOfThought never reaches it", async () => {
    const body = await expectScenario("chain-of-thought hosted", "reasoning");
    const hosted = await api(new URL(body.markdown_url ?? "").pathname);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toBe(body.result_markdown);
    expect(body.result_markdown).not.toContain("SECRET-REASONING");
  });

  it("a second identical request is a cache hit with the same fields", async () => {
    const prompt = `Cache me ${crypto.randomUUID()}`;
    const first = await scrape({ prompt, mode: "study" });
    expect(first.status).toBe(200);
    const second = await scrape({ prompt, mode: "study" });
    expect(second.body.cached).toBe(true);
    expect(second.body.result_markdown).toBe(first.body.result_markdown);
    expect((await scrape({ prompt, mode: "chat" })).body.cached).toBe(false);
  });
});

describe("copilot on every replica layout", () => {
  // classic: consent banner over the composer, titled option buttons (no menu role), Search is the site default;
  // localised: German labels the scraper does not know, so any mode but the default Smart is patched into the frame.
  const cases: Array<[string, CopilotWireMode]> = [
    ["classic", "reasoning"],
    ["classic", "search"],
    ["localised", "study"],
    ["localised", "smart"],
    ["default", "smart"],
  ];
  it("every layout the replica serves is run below (a layout added to the replica fails here until it is)", async () => {
    expect([...(await replicaLayouts("copilot"))].sort()).toEqual([...new Set(cases.map(([layout]) => layout))].sort());
  });
  for (const [layout, mode] of cases) {
    it(`${layout} layout, ${mode}: every field, the mode verified on the wire`, async () => {
      await replicaControl("layout", { provider: "copilot", layout });
      await expectScenario(`many-citations in the ${layout} layout`, mode);
    });
  }

  // A fuzzed page with every class off is the layout's page plus the replica's page-state report: the test reads the
  // mode menu's own state when the page sent, so a patched frame cannot pass for a choice on the page. The localised
  // layout's German labels are not the scraper's (the mode is patched there, and the menu keeps the default).
  const onPage: Array<[string, CopilotWireMode, number]> = [
    ["default", "reasoning", 3],
    ["default", "search", 0],
    ["classic", "reasoning", -1],
    ["classic", "study", -1],
  ];
  for (const [layout, mode, checkedIndex] of onPage) {
    it(`${layout} layout: chooses ${mode} on the page (the menu's state when the page sent)`, async () => {
      await replicaControl("layout", { provider: "copilot", layout });
      await replicaControl("variation", { provider: "copilot", seed: 1, classes: [] });
      const before = (await pageStates()).length;
      const prompt = `no-citations chosen on the page ${layout} ${mode}`;
      await expectScenario(prompt, mode);
      const state = (await pageStates()).slice(before).at(-1);
      // the classic layout's options are plain buttons without a checked state: its trigger shows the chosen label
      if (checkedIndex >= 0) expect(state?.checkedIndex, JSON.stringify(state)).toBe(checkedIndex);
      const labels: Record<CopilotWireMode, RegExp> = {
        search: /^search/i,
        smart: /^smart/i,
        chat: /^quick/i,
        reasoning: /^think deeper/i,
        study: /^study/i,
      };
      expect(state?.triggerLabel, JSON.stringify(state)).toMatch(labels[mode]);
    });
  }
});

describeFuzzedPages({ oracle: copilotOracle, seeds: CI_SEEDS });

describe("copilot failure variants (copilot.md §5)", () => {
  /** Posts `fault` `count` times and scrapes once per variant; every scrape must fail with `status` and `detail`. */
  async function expectVariants(fault: string, count: number, status: number, detail: RegExp): Promise<void> {
    const own = await createTestAccount(3);
    await replicaControl("faults", { provider: "copilot", fault, count });
    for (let variant = 0; variant < count; variant += 1) {
      const { status: actual, body } = await scrape({ prompt: `variant ${variant} of ${fault}`, bypass_cache: "true" }, own.apiKey);
      expect(actual, `${fault} #${variant}: ${JSON.stringify(body)}`).toBe(status);
      expect(body.detail, `${fault} #${variant}`).toMatch(detail);
    }
    expect(await balanceOf(own.accountId)).toBe(3);
  }

  it("login_wall: 401 start, isBlocked start, banned event", async () => {
    await expectVariants("login_wall", 3, 502, /sign in|login/i);
  });

  it("rate_limited: 429 start, no turns left", async () => {
    await expectVariants("rate_limited", 2, 502, /rate limit/i);
  });

  it("http_error: handshake 460, handshake 403, error event, chatMessageError", async () => {
    await expectVariants("http_error", 4, 502, /retry/i);
  });

  it("challenge: unsolvable cloudflare challenge, then method null", async () => {
    await expectVariants("challenge", 2, 502, /anti-bot challenge/i);
  });
});

interface CopilotJob {
  status: string;
  scraper: string;
  result?: CopilotResponse;
  completed_at: string | null;
}

/** Polls GET /jobs/{id} every second until the job is no longer pending (at most two minutes). */
async function pollJob(jobId: string): Promise<CopilotJob | null> {
  for (let poll = 0; poll < 120; poll += 1) {
    const job = (await (await api(`/jobs/${jobId}`)).json()) as CopilotJob;
    if (job.status !== "pending") return job;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return null;
}

describe("copilot async job", () => {
  it("POST /scrapers/copilot/jobs, then GET /jobs/{id} until done", async () => {
    const prompt = `replace-text job ${crypto.randomUUID().slice(0, 8)}`;
    const submitted = await api(`/scrapers/copilot/jobs?${query({ prompt, mode: "smart" })}`, { method: "POST", apiKey: account.apiKey });
    expect(submitted.status).toBe(202);
    const { job_id: jobId, status } = (await submitted.json()) as { job_id: string; status: string };
    expect(status).toBe("pending");
    const job = await pollJob(jobId);
    expect(job?.status, JSON.stringify(job)).toBe("done");
    expect(job?.scraper).toBe("copilot");
    expect(job?.completed_at).not.toBeNull();
    expect(job?.result).toMatchObject({ scraper: "copilot", job_id: jobId, prompt, ...expected(prompt, "smart") });
    await expectSent(prompt, "smart");
  });
});

describe("provider origin and drift", () => {
  it("targets the replica when overridden and https://copilot.microsoft.com otherwise", () => {
    const copilot = providerById("copilot");
    if (copilot === undefined) throw new Error("copilot is not registered");
    const params = { prompt: "x", country: "US", bypass_cache: false, timeout: 60 };
    expect(resolveOrigin(env, copilot, params)).toBe(`${env.REPLICA_URL}/copilot`);
    expect(resolveOrigin(Object.assign({}, env, { PROVIDER_ORIGIN_COPILOT: "" }), copilot, params)).toBe("https://copilot.microsoft.com");
  });

  it("refuses JP and TW", async () => {
    for (const country of ["JP", "tw"]) {
      const { status, body } = await scrape({ prompt: "hello", country });
      expect(status).toBe(400);
      expect(body.detail).toMatch(/^country:/);
    }
  });
});

describeProviderContract({
  provider: "copilot",
  prompt: "What is the tallest mountain in Europe?",
  drift: { code: "copilot.composer_missing" },
});
