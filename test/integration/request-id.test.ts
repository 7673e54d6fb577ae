/**
 * Issue 36, part 7: a request id on every response. Every answer carries `X-Request-Id` (success, every kind of error,
 * the dashboard, MCP, the docs and status pages); it is the caller's own when well-formed (1 to 128 letters, digits,
 * `.` `_` `:` `-`), else `req_` and 22 base64url characters; error bodies repeat it as `request_id`, MCP tool failures
 * in `_meta`, and the lines logged while handling the request start with it (docs/errors.md, "Request ids").
 */
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { adminApi } from "../support/workers/account-helpers";
import { api, BASE, createTestAccount, query } from "../support/workers/helpers";

/** `req_` and 16 random bytes in base64url without padding (22 characters). */
const GENERATED_ID = /^req_[A-Za-z0-9_-]{22}$/;

/** The operator routes' body cap (src/http/body-limit.ts: 16 KiB). */
const OPERATOR_CAP = 16 * 1024;

afterEach(() => {
  vi.restoreAllMocks();
});

interface Probe {
  name: string;
  request: () => Promise<Response>;
  status: number;
}

/** One request of every kind of answer the brief lists, each with the status the scenario gives it. */
const PROBES: Probe[] = [
  { name: "an API 200", request: async () => api("/account", { apiKey: (await createTestAccount()).apiKey }), status: 200 },
  {
    name: "a 400 (blank prompt)",
    request: async () => api(`/scrapers/grok?${query({ prompt: " " })}`, { apiKey: (await createTestAccount()).apiKey }),
    status: 400,
  },
  { name: "a 401 (no key)", request: () => api("/account"), status: 401 },
  { name: "a 401 (operator token missing)", request: () => adminApi("/admin/accounts", { token: null }), status: 401 },
  {
    name: "a 403 (a scrape key on the webhook settings)",
    request: async () => api("/account/webhook", { apiKey: (await createTestAccount(1500, "scrape")).apiKey }),
    status: 403,
  },
  { name: "a 404 (unknown path)", request: () => api("/nowhere"), status: 404 },
  { name: "a 404 (unknown job)", request: () => api(`/jobs/${crypto.randomUUID()}`), status: 404 },
  { name: "a 405 (wrong method)", request: () => api("/scrapers/grok", { method: "DELETE" }), status: 405 },
  { name: "a 405 (CORS preflight)", request: () => api("/scrapers/grok", { method: "OPTIONS" }), status: 405 },
  {
    name: "a 413 (operator body over its cap)",
    request: () =>
      api("/admin/accounts", {
        method: "POST",
        headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "x".repeat(OPERATOR_CAP) }),
      }),
    status: 413,
  },
  { name: "a 406 (status JSON not acceptable)", request: () => api("/status", { headers: { Accept: "image/png" } }), status: 406 },
  { name: "HEAD of the status page", request: () => api("/status", { method: "HEAD", headers: { Accept: "text/html" } }), status: 200 },
  { name: "the status page", request: () => api("/status", { headers: { Accept: "text/html" } }), status: 200 },
  { name: "the status JSON", request: () => api("/status.json"), status: 200 },
  { name: "/docs", request: () => api("/docs"), status: 200 },
  { name: "/openapi.json", request: () => api("/openapi.json"), status: 200 },
  { name: "a dashboard page", request: () => api("/dashboard/sign-in"), status: 200 },
  { name: "a dashboard redirect (signed out)", request: () => api("/dashboard", { redirect: "manual" }), status: 303 },
  { name: "a dashboard 404 page", request: () => api("/dashboard/nowhere"), status: 404 },
  { name: "MCP without a key", request: () => api("/mcp", { method: "POST" }), status: 401 },
  { name: "MCP with GET", request: () => api("/mcp"), status: 405 },
];

async function errorBodyOf(response: Response): Promise<{ detail: string; code: string; request_id: string }> {
  expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
  return (await response.json()) as { detail: string; code: string; request_id: string };
}

describe("X-Request-Id on every response", () => {
  it.each(PROBES)("$name: a generated, well-formed id", async ({ request, status }) => {
    const response = await request();
    expect(response.status).toBe(status);
    expect(response.headers.get("X-Request-Id")).toMatch(GENERATED_ID);
    await response.body?.cancel();
  });

  // The dashboard answers its errors as pages, not JSON: the API's error bodies carry request_id.
  it.each(PROBES.filter(({ status, name }) => status >= 400 && !name.startsWith("a dashboard")))(
    "$name: the JSON error body's request_id is the header's",
    async ({ request }) => {
      const response = await request();
      const body = await errorBodyOf(response);
      expect(body).toEqual({ detail: expect.any(String), code: expect.any(String), request_id: response.headers.get("X-Request-Id") });
    },
  );

  it("a 404's body carries the header's id too", async () => {
    const response = await api("/nowhere");
    expect(await errorBodyOf(response)).toEqual({
      detail: "Not found. See /docs for the API reference.",
      code: "not_found",
      request_id: response.headers.get("X-Request-Id"),
    });
  });

  it("two requests get two different ids", async () => {
    const [first, second] = await Promise.all([api("/nowhere"), api("/nowhere")]);
    const ids = [first.headers.get("X-Request-Id"), second.headers.get("X-Request-Id")];
    expect(ids[0]).toMatch(GENERATED_ID);
    expect(ids[1]).toMatch(GENERATED_ID);
    expect(ids[0]).not.toBe(ids[1]);
    expect((await errorBodyOf(first)).request_id).not.toBe((await errorBodyOf(second)).request_id);
  });

  it("the public status JSON lets other sites read the id (Access-Control-Expose-Headers)", async () => {
    const response = await api("/status.json");
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(response.headers.get("Access-Control-Expose-Headers")).toBe("X-Request-Id");
    await response.body?.cancel();
  });
});

describe("the caller's X-Request-Id", () => {
  const WELL_FORMED = [
    "client-trace:01HX.abc_9",
    "0af7651916cd43dd8448eb211c80319c",
    "f47ac10b-58cc-4372-a567-0e02b2c3d479",
    "req_3q2-7wEfXb0XQ9kVdZp1sA",
    "a",
    "x".repeat(128),
  ];

  it.each(WELL_FORMED)("%s is echoed on a success and in an error body", async (id) => {
    const account = await createTestAccount();
    const success = await api("/account", { apiKey: account.apiKey, headers: { "X-Request-Id": id } });
    expect(success.status).toBe(200);
    expect(success.headers.get("X-Request-Id")).toBe(id);
    await success.body?.cancel();

    const refused = await api("/account", { headers: { "X-Request-Id": id } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("X-Request-Id")).toBe(id);
    expect((await errorBodyOf(refused)).request_id).toBe(id);
  });

  const MALFORMED: Array<[string, string]> = [
    ["too long (129 characters)", "x".repeat(129)],
    ["empty", ""],
    ["a space", "abc def"],
    ["a slash", "trace/1"],
    ["a semicolon", "a;b"],
    ["markup", "<script>"],
    ["a quote", 'id"1'],
    ["a comma (two ids joined)", "one,two"],
  ];

  it.each(MALFORMED)("one with %s is replaced by a generated id", async (_what, id) => {
    const response = await api("/nowhere", { headers: { "X-Request-Id": id } });
    expect(response.status).toBe(404);
    const header = response.headers.get("X-Request-Id");
    expect(header).toMatch(GENERATED_ID);
    expect((await errorBodyOf(response)).request_id).toBe(header);
  });
});

describe("MCP tool failures", () => {
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it("carry the request id in _meta", async () => {
    const { apiKey } = await createTestAccount();
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: (url, init) => exports.default.fetch(new Request(url, init)),
      requestInit: { headers: { "X-API-Key": apiKey, "X-Request-Id": "assistant-session.42" } },
    });
    client = new Client({ name: "request-id-test", version: "1.0.0" });
    await client.connect(transport);
    const result = CallToolResultSchema.parse(await client.callTool({ name: "get_job", arguments: { job_id: crypto.randomUUID() } }));
    expect(result.isError).toBe(true);
    expect(result._meta).toMatchObject({ status: 404, code: "not_found", request_id: "assistant-session.42" });
  });
});

describe("log lines", () => {
  it("every line logged while handling a failing request starts with its id, and never holds the key", async () => {
    const lines: string[] = [];
    const capture = (...parts: unknown[]) => {
      lines.push(parts.map(String).join(" "));
    };
    vi.spyOn(console, "error").mockImplementation(capture);
    vi.spyOn(console, "warn").mockImplementation(capture);
    vi.spyOn(console, "log").mockImplementation(capture);

    // No PUBLIC_BASE_URL and a public host: the sync route refuses to build links (a 500 logged twice: where the
    // base URL was refused, and by the error handler), before any scrape or charge.
    const account = await createTestAccount();
    const request = new Request(`https://api.example.com/scrapers/grok?${query({ prompt: "Logged?", api_key: account.apiKey })}`, {
      headers: { "X-Request-Id": "ticket-4711" },
    });
    const response = await worker.fetch(request, { ...env, PUBLIC_BASE_URL: "" }, createExecutionContext());
    expect(response.status).toBe(500);
    expect(response.headers.get("X-Request-Id")).toBe("ticket-4711");
    expect((await errorBodyOf(response)).request_id).toBe("ticket-4711");

    expect(lines.length).toBe(2);
    for (const line of lines) {
      expect(line.startsWith("[ticket-4711] ")).toBe(true);
      expect(line).not.toContain(account.apiKey);
    }
    expect(lines.some((line) => line.startsWith("[ticket-4711] GET /scrapers/grok?") && line.includes("api_key=%5Bredacted%5D"))).toBe(
      true,
    );
  });
  it("the access log: one line per answered request, with its id, method, path, status and time; no query, so no prompt and no key", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...parts: unknown[]) => {
      lines.push(parts.map(String).join(" "));
    });
    const account = await createTestAccount();
    const on = { ...env, ACCESS_LOG: "1" };
    const refused = new Request(`${BASE}/scrapers/grok?${query({ prompt: "A secret prompt", country: "JP", api_key: account.apiKey })}`, {
      headers: { "X-Request-Id": "ticket-access.1" },
    });
    expect((await worker.fetch(refused, on, createExecutionContext())).status).toBe(400);
    const unknown = new Request(`${BASE}/nope`, { headers: { "X-Request-Id": "ticket-access.2" } });
    expect((await worker.fetch(unknown, on, createExecutionContext())).status).toBe(404);
    const wrongMethod = new Request(`${BASE}/jobs`, { method: "DELETE", headers: { "X-Request-Id": "ticket-access.3" } });
    expect((await worker.fetch(wrongMethod, on, createExecutionContext())).status).toBe(405);

    const access = lines.filter((line) => /^\[ticket-access\.\d\] [A-Z]+ \//.test(line));
    expect(access).toHaveLength(3);
    expect(access[0]).toMatch(/^\[ticket-access\.1\] GET \/scrapers\/grok -> 400 \(\d+ ms\)$/);
    expect(access[1]).toMatch(/^\[ticket-access\.2\] GET \/nope -> 404 \(\d+ ms\)$/);
    expect(access[2]).toMatch(/^\[ticket-access\.3\] DELETE \/jobs -> 405 \(\d+ ms\)$/);
    for (const line of lines) {
      expect(line).not.toContain("secret prompt");
      expect(line).not.toContain(account.apiKey);
    }

    // Off where ACCESS_LOG is 0 (the test levels' default).
    const before = lines.length;
    await worker.fetch(new Request(`${BASE}/nope`), env, createExecutionContext());
    expect(lines.length).toBe(before);
  });
});
