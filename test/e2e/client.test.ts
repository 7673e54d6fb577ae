/**
 * The clients against the local stack, inside workerd: the TypeScript client (clients/typescript, generated from the
 * Worker's OpenAPI document plus its hand-written layer) and the MCP server through the SDK's MCP client, both with a
 * `fetch` that goes to this Worker. Cached answers cover the typed calls, errors and polling without a browser; real
 * scrapes through Chromium against the Grok replica cover the rest (one answer, a failed job, the client's time-out).
 */
import { exports } from "cloudflare:workers";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  AnswerScraperClient,
  ApiError,
  AuthenticationError,
  ClientTimeoutError,
  getJob,
  InvalidRequestError,
  JobFailedError,
  NotFoundError,
  RateLimitError,
  SCRAPER_IDS,
} from "../../clients/typescript/src/index";
import { INVALID_KEY_DETAIL } from "../../src/auth/api-keys";
import { JOB_NOT_FOUND_DETAIL } from "../../src/http/jobs";
import { SCRAPER_IDS as WORKER_SCRAPER_IDS } from "../../src/scrapers/registry";
import { seedCachedGrokAnswer } from "../support/workers/account-helpers";
import { BASE, balanceOf, createTestAccount, ledgerOf, replicaControl } from "../support/workers/helpers";

afterEach(async () => {
  await replicaControl("reset");
});

/** Every request the client sent, with when it was sent: the client under test talks to the real Worker through it. */
interface SentRequest {
  method: string;
  url: URL;
  apiKeyHeader: string | null;
  at: number;
}

function workerFetch(sent: SentRequest[] = []): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    sent.push({ method: request.method, url: new URL(request.url), apiKeyHeader: request.headers.get("X-API-Key"), at: Date.now() });
    return exports.default.fetch(request);
  };
}

function clientFor(apiKey: string, sent?: SentRequest[]): AnswerScraperClient {
  return new AnswerScraperClient({ baseUrl: BASE, apiKey, fetch: workerFetch(sent) });
}

async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("TypeScript client (generated from the Worker's document)", () => {
  it("knows exactly the Worker's scrapers", () => {
    expect([...SCRAPER_IDS]).toEqual([...WORKER_SCRAPER_IDS]);
  });

  it("scrape(): a typed answer, the key only in the X-API-Key header, 3 credits charged", async () => {
    const account = await createTestAccount(1500);
    const prompt = "Client check: what is new with Starship?";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const sent: SentRequest[] = [];
    const answer = await clientFor(account.apiKey, sent).scrape("grok", { prompt, mode: "MODEL_MODE_AUTO" });
    // Typed fields of the Grok answer (compile-time: `answer.social_results` exists only on GrokResponse).
    expect(answer.scraper).toBe("grok");
    expect(answer.mode).toBe("MODEL_MODE_AUTO");
    expect(answer.result).toBe(`Cached answer to: ${prompt}`);
    expect(answer.social_results).toEqual([]);
    expect(answer.cached).toBe(true);
    expect(await balanceOf(account.accountId)).toBe(1497);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.apiKeyHeader).toBe(account.apiKey);
    expect(sent[0]?.url.pathname).toBe("/scrapers/grok");
    expect(sent[0]?.url.searchParams.has("api_key")).toBe(false);
  });

  it("errors are typed and carry the API's detail and Retry-After", async () => {
    const account = await createTestAccount(1500);
    const scraper = clientFor(account.apiKey);

    const invalid = await scraper.scrape("grok", { prompt: "   " }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, detail: "prompt: must be 1 to 4000 characters and not blank", retryable: false });

    const unauthorized = await clientFor("sk_unknown")
      .scrape("grok", { prompt: "hello" })
      .catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(AuthenticationError);
    expect(unauthorized).toMatchObject({ status: 401, detail: INVALID_KEY_DETAIL });

    const poor = await createTestAccount(2);
    const prompt = "Client check: not enough credits";
    await seedCachedGrokAnswer(prompt, poor.accountId);
    const shortOfCredits = await clientFor(poor.apiKey)
      .scrape("grok", { prompt })
      .catch((error: unknown) => error);
    expect(shortOfCredits).toBeInstanceOf(RateLimitError);
    expect(shortOfCredits).toBeInstanceOf(ApiError);
    expect(shortOfCredits).toMatchObject({
      status: 429,
      retryAfterSeconds: undefined,
      detail: expect.stringMatching(/^Credit limit reached: /),
      // The id the API generated for the request (no X-Request-Id was sent): `req_` and 22 base64url characters.
      requestId: expect.stringMatching(/^req_[A-Za-z0-9_-]{22}$/),
    });
    expect(await balanceOf(poor.accountId)).toBe(2);

    const missing = await scraper.getJob(crypto.randomUUID()).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, detail: JOB_NOT_FOUND_DETAIL });
  });

  it("submit() + waitForJob(): charged at submission, polled every 3 seconds without the key, the typed answer at the end", async () => {
    const account = await createTestAccount(1500);
    const prompt = "Client check: a job about the launch";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const sent: SentRequest[] = [];
    const scraper = clientFor(account.apiKey, sent);
    const job = await scraper.submit("grok", { prompt });
    expect(job).toMatchObject({ status: "pending", scraper: "grok", creditsRemaining: 1497 });
    const done = await scraper.waitForJob(job);
    expect(done.status).toBe("done");
    expect(done.job_id).toBe(job.job_id);
    expect(done.result.mode).toBe("MODEL_MODE_AUTO");
    expect(done.result.result).toBe(`Cached answer to: ${prompt}`);
    expect(await balanceOf(account.accountId)).toBe(1497);

    const polls = sent.filter((request) => request.method === "GET" && request.url.pathname === `/jobs/${job.job_id}`);
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls) expect(poll.apiKeyHeader).toBeNull();
    const submittedAt = sent[0]?.at ?? 0;
    const times = [submittedAt, ...polls.map((poll) => poll.at)];
    for (let index = 1; index < times.length; index += 1)
      expect((times[index] ?? 0) - (times[index - 1] ?? 0)).toBeGreaterThanOrEqual(2_900);
  });

  it("the generated operations work with the configured client too", async () => {
    const account = await createTestAccount(1500);
    const scraper = clientFor(account.apiKey);
    const { response, error } = await getJob({ client: scraper.raw, path: { job_id: crypto.randomUUID() } });
    expect(response?.status).toBe(404);
    expect(error).toEqual({ detail: JOB_NOT_FOUND_DETAIL, code: "not_found", request_id: response?.headers.get("X-Request-Id") });
    const balance = await scraper.account();
    expect(balance.credits_remaining).toBe(1500);
  });

  it("a real scrape through Chromium against the Grok replica", async () => {
    const account = await createTestAccount(1500);
    const answer = await clientFor(account.apiKey).scrape("grok", {
      prompt: "many-posts about Starship from the client",
      mode: "MODEL_MODE_FAST",
      bypass_cache: true,
      timeout: 60,
    });
    expect(answer).toMatchObject({ scraper: "grok", status: "done", mode: "MODEL_MODE_FAST", cached: false, credits_used: 3 });
    expect(answer.social_results.length).toBeGreaterThan(0);
    expect(answer.web_sources.length).toBeGreaterThan(0);
    expect(answer.markdown_url).toBe(`${BASE}/md/${answer.job_id}.md`);
    expect(answer.evidence).toBeNull();
    expect(await balanceOf(account.accountId)).toBe(1497);
  });

  it("scrape() with `evidence`: the X-Evidence header, and the answer's evidence URLs", async () => {
    const account = await createTestAccount(30);
    const answer = await clientFor(account.apiKey).scrape(
      "grok",
      { prompt: "What is new with Starship?", bypass_cache: true, timeout: 60 },
      { evidence: ["screenshot", "stream"] },
    );
    expect(answer.evidence?.screenshot_url).toMatch(new RegExp(`^${BASE}/evidence/[A-Za-z0-9_-]{32}/screenshot\\.png$`));
    expect(answer.evidence?.stream_url).toMatch(/\/stream\.json$/);
    expect(answer.evidence?.html_url).toBeNull();
  });

  it("waitForJob() throws JobFailedError with the job's error when every attempt failed (credits restored)", async () => {
    const account = await createTestAccount(9);
    await replicaControl("faults", { provider: "grok", fault: "login_wall", count: 1 });
    const scraper = clientFor(account.apiKey);
    const job = await scraper.submit("grok", { prompt: "Client check: a job that meets a login wall", bypass_cache: true, timeout: 60 });
    const failure = await scraper.waitForJob(job, { pollIntervalMs: 1_000, timeoutMs: 90_000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JobFailedError);
    const status = await scraper.getJob(job.job_id);
    expect(status.status).toBe("failed");
    expect(failure).toMatchObject({ jobId: job.job_id, detail: status.error });
    await waitFor(async () => (await balanceOf(account.accountId)) === 9, "the job's refund");
  });

  it("scrape() gives up after its own timeoutMs with ClientTimeoutError, even through a fetch that ignores aborts", async () => {
    const account = await createTestAccount(3);
    await replicaControl("faults", { provider: "grok", fault: "hang", count: 1 });
    // The request reaches the Worker without the client's abort signal, so the scrape runs on to the API's own 408
    // (and its refund) instead of being cut off mid-way; the client must time out by itself all the same.
    const signalFree: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      return exports.default.fetch(new Request(request.url, { method: request.method, headers: request.headers }));
    };
    const startedAt = Date.now();
    const failure = await new AnswerScraperClient({ baseUrl: BASE, apiKey: account.apiKey, fetch: signalFree })
      .scrape("grok", { prompt: "Client check: a provider that hangs", bypass_cache: true, timeout: 10 }, { timeoutMs: 2_000 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ClientTimeoutError);
    expect(failure).toMatchObject({ timeoutMs: 2_000 });
    expect(Date.now() - startedAt).toBeLessThan(9_000);
    // The abandoned scrape ends at the API's 10-second timeout with a 408, which restores the reserved credits.
    await waitFor(async () => (await ledgerOf(account.accountId)).some((entry) => entry.kind === "refund"), "the 408's refund");
    expect(await balanceOf(account.accountId)).toBe(3);
  });
});

describe("MCP server, with the SDK's client", () => {
  it("calls a scraper tool that scrapes the replica through Chromium, charged like any request", async () => {
    const account = await createTestAccount(1500);
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: (url, init) => exports.default.fetch(new Request(url, init)),
      requestInit: { headers: { "X-API-Key": account.apiKey } },
    });
    const client = new McpClient({ name: "e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("scrape_grok");
      const result = CallToolResultSchema.parse(
        await client.callTool({
          name: "scrape_grok",
          arguments: { prompt: "web-sources-only over MCP", mode: "MODEL_MODE_EXPERT", bypass_cache: true, timeout: 60 },
        }),
      );
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ scraper: "grok", mode: "MODEL_MODE_EXPERT", cached: false, credits_used: 3 });
      expect(result.structuredContent?.web_sources).toHaveLength(4);
      expect(result.structuredContent?.social_results).toEqual([]);
      expect(await balanceOf(account.accountId)).toBe(1497);
    } finally {
      await client.close();
    }
  });
});
