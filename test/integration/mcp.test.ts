/**
 * The MCP server at /mcp, driven by the official SDK's client over streamable HTTP into the real Worker: the tools
 * derive from the providers' declarations, a call is a charged scrape through the same pipeline (a cached answer, so
 * no browser is needed), errors carry the API's client-safe detail, and the endpoint wants the API key.
 */
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { MISSING_KEY_DETAIL } from "../../src/auth/api-keys";
import { tooManyRequestsInFlightDetail } from "../../src/limits/request-slot";
import { ACCOUNT_RATE_LIMIT_DETAIL, RATE_LIMIT_DETAIL } from "../../src/http/api-key-auth";
import { JOB_NOT_FOUND_DETAIL } from "../../src/http/jobs";
import { jobStub } from "../../src/jobs/job-record";
import { accountLimits } from "../../src/limits/account-limits";
import { giveBackAccountSlot, takeAccountSlot } from "../../src/limits/account-slots";
import { GROK_MODES } from "../../src/scrapers/grok/declaration";
import { acceptedParameterNames, allProviders, SCRAPER_IDS } from "../../src/scrapers/registry";
import { listDurableObjectIds } from "cloudflare:test";
import { adminJson, newKey, seedCachedGrokAnswer } from "../support/workers/account-helpers";
import { holdGrokScrape, ledgerKindsOnce } from "./held-scrape";
import { api, BASE, balanceOf, createTestAccount, ledgerOf } from "../support/workers/helpers";

const openClients: Client[] = [];
afterEach(async () => {
  await Promise.all(openClients.splice(0).map((client) => client.close()));
});

/** An MCP client connected to this Worker's /mcp with `apiKey` in the X-API-Key header. */
async function connect(apiKey: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    requestInit: { headers: { "X-API-Key": apiKey } },
  });
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(transport);
  openClients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

/** The parts of a tool's input schema the tests read. */
const InputSchemaShape = z.looseObject({
  properties: z.record(z.string(), z.looseObject({ type: z.string().optional(), enum: z.array(z.string()).optional() })),
  required: z.array(z.string()).optional(),
  additionalProperties: z.boolean().optional(),
});

function inputOf(tools: Array<{ name: string; inputSchema: unknown }>, name: string): z.infer<typeof InputSchemaShape> {
  return InputSchemaShape.parse(tools.find((tool) => tool.name === name)?.inputSchema);
}

describe("MCP tools", () => {
  it("lists one scrape tool per declared provider, with the provider's parameters as typed inputs, and get_job", async () => {
    const { apiKey } = await createTestAccount();
    const client = await connect(apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...SCRAPER_IDS.map((id) => `scrape_${id}`), "get_job"]);
    for (const provider of allProviders()) {
      const input = inputOf(tools, `scrape_${provider.id}`);
      const declared = acceptedParameterNames(provider).filter((name) => name !== "api_key");
      expect(Object.keys(input.properties).sort(), provider.id).toEqual([...declared, "as_job"].sort());
      expect(input.required, provider.id).toEqual(["prompt"]);
      expect(input.additionalProperties, provider.id).toBe(false);
      expect(tools.find((tool) => tool.name === `scrape_${provider.id}`)?.outputSchema?.type, provider.id).toBe("object");
    }
    const grok = inputOf(tools, "scrape_grok");
    expect(grok.properties.mode).toMatchObject({ type: "string", enum: [...GROK_MODES], default: "MODEL_MODE_AUTO" });
    expect(grok.properties.bypass_cache).toMatchObject({ type: "boolean", default: false });
    expect(grok.properties.timeout).toMatchObject({ type: "integer", minimum: 10, maximum: 600, default: 300 });
    expect(inputOf(tools, "scrape_chatgpt").properties.markdown_json).toMatchObject({ type: "boolean", default: false });
    expect(inputOf(tools, "get_job").required).toEqual(["job_id"]);
  });

  it("a scrape tool call is a charged scrape through the same pipeline, with the answer as structured content", async () => {
    const account = await createTestAccount(1500);
    const prompt = "What do people say about the MCP launch?";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const client = await connect(account.apiKey);
    const result = await call(client, "scrape_grok", { prompt, bypass_cache: false });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      scraper: "grok",
      status: "done",
      prompt,
      country: "US",
      mode: "MODEL_MODE_AUTO",
      result: `Cached answer to: ${prompt}`,
      credits_used: 3,
      cached: true,
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(result._meta).toEqual({ credits_remaining: 1497 });
    expect(await balanceOf(account.accountId)).toBe(1497);
    const ledger = await ledgerOf(account.accountId);
    expect(ledger.filter((entry) => entry.kind === "charge").map((entry) => entry.delta)).toEqual([-3]);
  });

  it("invalid arguments are tool errors with the API's own detail, and nothing is charged", async () => {
    const account = await createTestAccount(1500);
    const client = await connect(account.apiKey);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ prompt: "   " }, "prompt: must be 1 to 4000 characters and not blank"],
      [{ prompt: "hello", mode: "MODEL_MODE_TURBO" }, "mode: must be one of MODEL_MODE_AUTO, MODEL_MODE_FAST, MODEL_MODE_EXPERT"],
      [{ prompt: "hello", country: "JP" }, "country: JP is not supported by the grok scraper"],
      [{ prompt: "hello", timeout: 5 }, "timeout: must be a number of seconds from 10 to 600"],
      [
        { prompt: "hello", foo: 1 },
        "Unknown parameter: foo. The grok scraper accepts: prompt, country, bypass_cache, timeout, mode, as_job.",
      ],
      [{ prompt: "hello", api_key: account.apiKey }, "api_key: the API key goes with the MCP connection"],
      [{ prompt: "hello", as_job: "yes" }, "as_job: must be a boolean"],
    ];
    for (const [args, detail] of cases) {
      const result = await call(client, "scrape_grok", args);
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(result), JSON.stringify(args)).toContain(detail);
      expect(textOf(result)).not.toContain(account.apiKey);
    }
    expect(await balanceOf(account.accountId)).toBe(1500);
  });

  it("an account without credits gets the 429 detail and when to retry, and is not charged", async () => {
    const account = await createTestAccount(2);
    const prompt = "Credits check over MCP";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const client = await connect(account.apiKey);
    const result = await call(client, "scrape_grok", { prompt });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Credit limit reached: .* Top up to continue\.$/);
    expect(result._meta).toMatchObject({ status: 429 });
    expect(await balanceOf(account.accountId)).toBe(2);
  });

  it("a scrape tool respects the account's bound on scrapes in flight like the HTTP route: browser work is refused and refunded, a cache hit is served", async () => {
    const account = await createTestAccount(1500);
    const cachedPrompt = "Fair sharing over MCP";
    await seedCachedGrokAnswer(cachedPrompt, account.accountId);
    const { concurrentRequests } = accountLimits(env);
    const held = [];
    for (let index = 0; index < concurrentRequests; index += 1) {
      const outcome = await takeAccountSlot(env.DB, {
        accountId: account.accountId,
        kind: "request",
        limit: concurrentRequests,
        ttlMs: 60_000,
      });
      if (outcome.taken) held.push(outcome.slot);
    }
    expect(held).toHaveLength(concurrentRequests);
    const client = await connect(account.apiKey);
    // A prompt that is not cached needs a browser: refused, and the reserved credits are restored.
    const refused = await call(client, "scrape_grok", { prompt: "Not cached, so it needs a browser" });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(tooManyRequestsInFlightDetail(concurrentRequests));
    expect(refused._meta).toMatchObject({ status: 429, code: "concurrency_limit" });
    expect(await balanceOf(account.accountId)).toBe(1500);
    // A cache hit uses no browser, so the full bound does not stop it.
    const served = await call(client, "scrape_grok", { prompt: cachedPrompt });
    expect(served.isError).toBeFalsy();
    expect(served.structuredContent).toMatchObject({ cached: true });
    expect(await balanceOf(account.accountId)).toBe(1497);
    for (const slot of held) await giveBackAccountSlot(env.DB, slot);
  });

  it("as_job submits a charged job, and get_job follows it to done with the full answer", async () => {
    const account = await createTestAccount(1500);
    const prompt = "An MCP job about the launch";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const client = await connect(account.apiKey);
    const submitted = await call(client, "scrape_grok", { prompt, as_job: true });
    expect(submitted.isError).toBeFalsy();
    expect(submitted.structuredContent).toMatchObject({ status: "pending" });
    expect(textOf(submitted)).toContain("get_job");
    const jobId = String(submitted.structuredContent?.job_id);
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await balanceOf(account.accountId)).toBe(1497);

    const deadline = Date.now() + 60_000;
    let status = await call(client, "get_job", { job_id: jobId });
    while (status.structuredContent?.status === "pending" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = await call(client, "get_job", { job_id: jobId });
    }
    expect(status.structuredContent).toMatchObject({ job_id: jobId, status: "done", scraper: "grok" });
    expect(status.structuredContent?.result).toMatchObject({ prompt, result: `Cached answer to: ${prompt}`, cached: true });
    expect(await balanceOf(account.accountId)).toBe(1497);

    const unknown = await call(client, "get_job", { job_id: crypto.randomUUID() });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe(JOB_NOT_FOUND_DETAIL);
  });

  it("an unknown tool is a protocol error", async () => {
    const { apiKey } = await createTestAccount();
    const client = await connect(apiKey);
    await expect(client.callTool({ name: "scrape_nothing", arguments: { prompt: "x" } })).rejects.toThrow(/Unknown tool: scrape_nothing/);
  });
});

describe("MCP endpoint", () => {
  it("needs the API key: without one the client cannot connect, and the answer is 401 {detail}", async () => {
    await expect(connect("sk_not_a_key")).rejects.toThrow();
    const response = await api("/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      detail: MISSING_KEY_DETAIL,
      code: "missing_api_key",
      request_id: response.headers.get("X-Request-Id"),
    });
  });

  it("takes the key as the api_key query parameter too", async () => {
    const { apiKey } = await createTestAccount();
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp?api_key=${encodeURIComponent(apiKey)}`), {
      fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    });
    const client = new Client({ name: "mcp-test", version: "1.0.0" });
    await client.connect(transport);
    openClients.push(client);
    expect((await client.listTools()).tools.length).toBe(SCRAPER_IDS.length + 1);
  });

  it("serves POST only (stateless: no stream to open, no session to end): GET and DELETE are 405 with Allow", async () => {
    const { apiKey } = await createTestAccount();
    for (const method of ["GET", "DELETE"]) {
      const response = await api("/mcp", { method, apiKey, headers: { accept: "text/event-stream" } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("Allow")).toBe("POST");
      expect(await response.json()).toEqual({
        detail: "Method not allowed here. Use POST.",
        code: "method_not_allowed",
        request_id: response.headers.get("X-Request-Id"),
      });
    }
  });
});

/** Headers of a client that negotiated MCP 2025-03-26, the protocol version whose transport carries JSON-RPC arrays. */
const RAW_MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-03-26",
};

function rawMcpPost(apiKey: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return api("/mcp", { method: "POST", apiKey, headers: RAW_MCP_HEADERS, body: JSON.stringify(body), signal });
}

const RpcResponse = z.object({
  id: z.union([z.number(), z.string()]),
  result: CallToolResultSchema.optional(),
  error: z.object({ code: z.number(), message: z.string() }).optional(),
});

/** The JSON-RPC responses of a POST's event stream, in id order. */
async function rpcResponses(response: Response): Promise<Array<z.infer<typeof RpcResponse>>> {
  expect(response.status).toBe(200);
  const events = (await response.text()).split("\n").filter((line) => line.startsWith("data: "));
  const parsed = events.map((line) => RpcResponse.parse(JSON.parse(line.slice("data: ".length))));
  return parsed.sort((left, right) => Number(left.id) - Number(right.id));
}

function getJobCalls(count: number): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, index) => ({
    jsonrpc: "2.0",
    id: index + 1,
    method: "tools/call",
    params: { name: "get_job", arguments: { job_id: crypto.randomUUID() } },
  }));
}

function setRequestLimits(accountId: string, body: Record<string, number>): Promise<unknown> {
  return adminJson(`/admin/accounts/${accountId}/limits`, { method: "PATCH", body });
}

describe("MCP is as tight as HTTP", () => {
  it("a JSON-RPC array of tool calls counts one request per call against the key's limit: past it, each call is the 429", async () => {
    const account = await createTestAccount();
    await setRequestLimits(account.accountId, { key_requests_per_minute: 5 });
    const replies = await rpcResponses(await rawMcpPost(account.apiKey, getJobCalls(12)));
    expect(replies).toHaveLength(12);
    const results = replies.map((reply) => reply.result);
    // 5 a minute: the POST's own admission covers the first call, four more fit, the other seven are refused.
    expect(results.slice(0, 5).map((result) => result?.content)).toEqual(Array(5).fill([{ type: "text", text: JOB_NOT_FOUND_DETAIL }]));
    for (const refused of results.slice(5)) {
      expect(refused?.isError).toBe(true);
      expect(refused?._meta).toMatchObject({ status: 429, code: "rate_limited" });
      expect(refused?.content[0]).toMatchObject({ type: "text", text: expect.stringContaining(RATE_LIMIT_DETAIL) });
    }
    // The key's minute is spent: the next HTTP request is refused too.
    expect((await api("/account", { apiKey: account.apiKey })).status).toBe(429);
  });

  it("and against the account's limit, all its keys together", async () => {
    const account = await createTestAccount();
    const second = await newKey(account.accountId, "second");
    await setRequestLimits(account.accountId, { account_requests_per_minute: 4 });
    const first = (await rpcResponses(await rawMcpPost(account.apiKey, getJobCalls(3)))).map((reply) => reply.result);
    expect(first.map((result) => result?.isError === true && result._meta?.code === "rate_limited")).toEqual([false, false, false]);
    const other = (await rpcResponses(await rawMcpPost(second.api_key, getJobCalls(3)))).map((reply) => reply.result);
    // One request of the account's four is left: the POST takes it, its other two calls are refused.
    expect(other.map((result) => (result?._meta?.code === "rate_limited" ? "refused" : "served"))).toEqual([
      "served",
      "refused",
      "refused",
    ]);
    expect(other[1]?.content[0]).toMatchObject({ text: expect.stringContaining(ACCOUNT_RATE_LIMIT_DETAIL) });
  });

  it("get_job answers only the caller's own jobs: another account's is not found, with the HTTP route's detail", async () => {
    const owner = await createTestAccount(1500);
    const stranger = await createTestAccount(1500);
    const prompt = "A job only its account may read over MCP";
    await seedCachedGrokAnswer(prompt, owner.accountId);
    const ownerClient = await connect(owner.apiKey);
    const submitted = await call(ownerClient, "scrape_grok", { prompt, as_job: true });
    const jobId = String(submitted.structuredContent?.job_id);
    expect(await jobStub(env, jobId).view()).not.toBeNull();
    expect((await call(ownerClient, "get_job", { job_id: jobId })).structuredContent).toMatchObject({ job_id: jobId });

    const strangerClient = await connect(stranger.apiKey);
    const foreign = await call(strangerClient, "get_job", { job_id: jobId });
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toBe(JOB_NOT_FOUND_DETAIL);
    expect(foreign._meta).toMatchObject({ status: 404 });
  });

  it("get_job asks the jobs index first, as GET /jobs/{id} does: an id that was never submitted wakes no Durable Object", async () => {
    const account = await createTestAccount(1500);
    const prompt = "A job whose object exists";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const client = await connect(account.apiKey);
    const jobId = String((await call(client, "scrape_grok", { prompt, as_job: true })).structuredContent?.job_id);
    const madeUp = crypto.randomUUID();
    const unknown = await call(client, "get_job", { job_id: madeUp });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe(JOB_NOT_FOUND_DETAIL);
    const objects = await listDurableObjectIds(env.JOB);
    expect(objects.some((id) => id.equals(env.JOB.idFromName(jobId)))).toBe(true);
    expect(objects.some((id) => id.equals(env.JOB.idFromName(madeUp)))).toBe(false);
  });

  it("a sync scrape tool call whose client leaves mid-scrape is refunded, after the client is gone", async () => {
    const account = await createTestAccount(1500);
    const prompt = "A client that leaves in the middle of an MCP scrape";
    const held = await holdGrokScrape(account.accountId, { prompt, timeout: 600 });
    try {
      const client = new AbortController();
      const response = await rawMcpPost(
        account.apiKey,
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "scrape_grok", arguments: { prompt, timeout: 600 } } },
        client.signal,
      );
      expect(response.status).toBe(200);
      // Charged, and waiting for the held scrape's answer.
      expect(await ledgerKindsOnce(account.accountId, 1)).toEqual(["charge"]);
      client.abort(new Error("the assistant closed the connection"));
      await response.body?.cancel().catch(() => undefined);
      expect(await ledgerKindsOnce(account.accountId, 2)).toEqual(["charge", "refund"]);
      expect(await balanceOf(account.accountId)).toBe(1500);
    } finally {
      held.release();
    }
  });
});
