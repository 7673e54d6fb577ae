/**
 * Issue 18: every error body is `{detail, code, request_id}` with a stable code per kind (docs/errors.md); JSON bodies are refused
 * in our own words (415 without a JSON Content-Type, 400 naming malformed JSON or an unknown field); `null` restores a
 * pool setting's default.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ERROR_CODE_STATUSES, ERROR_CODES } from "../../src/errors";
import { JSON_CONTENT_TYPE_DETAIL, MALFORMED_JSON_DETAIL } from "../../src/http/json-body";
import { adminApi, cachedScrape, newAccount } from "../support/workers/account-helpers";
import { api, createTestAccount, query } from "../support/workers/helpers";

interface ErrorBody {
  detail: string;
  code: string;
}

async function errorBody(response: Response): Promise<ErrorBody> {
  expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
  const body: unknown = await response.json();
  expect(body).toEqual({ detail: expect.any(String), code: expect.any(String), request_id: response.headers.get("X-Request-Id") });
  const detail = typeof body === "object" && body !== null ? Reflect.get(body, "detail") : undefined;
  const code = typeof body === "object" && body !== null ? Reflect.get(body, "code") : undefined;
  return { detail: String(detail), code: String(code) };
}

/** An admin POST whose Content-Type and body bytes the test chooses (adminApi always sends JSON). */
function adminPost(path: string, body: string, contentType?: string): Promise<Response> {
  const headers = new Headers({ Authorization: `Bearer ${env.ADMIN_TOKEN}` });
  if (contentType !== undefined) headers.set("Content-Type", contentType);
  return api(path, { method: "POST", headers, body });
}

interface ErrorCase {
  name: string;
  request: () => Promise<Response>;
  status: number;
  code: string;
  detail?: string | RegExp;
}

const CASES: ErrorCase[] = [
  {
    name: "an invalid query parameter",
    request: async () => api(`/scrapers/grok?${query({ prompt: " " })}`, { apiKey: (await createTestAccount()).apiKey }),
    status: 400,
    code: "invalid_parameter",
    detail: /^prompt: /,
  },
  { name: "no API key", request: () => api("/account"), status: 401, code: "missing_api_key" },
  { name: "an unknown API key", request: () => api("/account", { apiKey: "sk_unknown" }), status: 401, code: "invalid_api_key" },
  { name: "no admin token", request: () => adminApi("/admin/accounts", { token: null }), status: 401, code: "invalid_admin_token" },
  { name: "an unknown path", request: () => api("/nowhere"), status: 404, code: "not_found" },
  { name: "an unknown scraper", request: () => api("/scrapers/nope?prompt=x"), status: 404, code: "not_found" },
  { name: "an unknown job", request: () => api(`/jobs/${crypto.randomUUID()}`), status: 404, code: "not_found" },
  { name: "a wrong method", request: () => api("/scrapers/grok", { method: "DELETE" }), status: 405, code: "method_not_allowed" },
  {
    name: "an unacceptable Accept",
    request: () => api("/status", { headers: { Accept: "image/png" } }),
    status: 406,
    code: "not_acceptable",
  },
  {
    name: "a taken email",
    request: async () => {
      const email = `taken-${crypto.randomUUID()}@example.com`;
      await newAccount({ email });
      return adminApi("/admin/accounts", { method: "POST", body: { name: "Again", email } });
    },
    status: 409,
    code: "conflict",
  },
  {
    name: "an admin POST without a Content-Type",
    request: () => adminPost("/admin/accounts", JSON.stringify({ name: "No type" })),
    status: 415,
    code: "unsupported_media_type",
    detail: JSON_CONTENT_TYPE_DETAIL,
  },
  {
    name: "an admin POST as text/plain",
    request: () => adminPost("/admin/accounts", JSON.stringify({ name: "Text" }), "text/plain"),
    status: 415,
    code: "unsupported_media_type",
    detail: JSON_CONTENT_TYPE_DETAIL,
  },
  {
    name: "a JSON body route of the API (webhook URL) without a Content-Type",
    request: async () =>
      api("/account/webhook", {
        method: "PUT",
        apiKey: (await createTestAccount(1500, "manage")).apiKey,
        body: JSON.stringify({ url: "https://hooks.example.com/x" }),
      }),
    status: 415,
    code: "unsupported_media_type",
    detail: JSON_CONTENT_TYPE_DETAIL,
  },
  {
    name: "a batch without a Content-Type",
    request: async () =>
      api("/batches", {
        method: "POST",
        apiKey: (await createTestAccount()).apiKey,
        body: JSON.stringify({ scraper: "grok", items: [{ prompt: "x" }] }),
      }),
    status: 415,
    code: "unsupported_media_type",
    detail: JSON_CONTENT_TYPE_DETAIL,
  },
  {
    name: "malformed JSON",
    request: () => adminPost("/admin/accounts", '{"name": ', "application/json"),
    status: 400,
    code: "malformed_json",
    detail: MALFORMED_JSON_DETAIL,
  },
  {
    name: "an unknown query parameter of a listing",
    request: async () => api("/jobs?sort=newest", { apiKey: (await createTestAccount()).apiKey }),
    status: 400,
    code: "invalid_parameter",
    detail: "Unknown parameter: sort.",
  },
  {
    name: "an unknown body field",
    request: () => adminApi("/admin/accounts", { method: "POST", body: { name: "Plan", plan: "pro" } }),
    status: 400,
    code: "invalid_parameter",
    detail: "Unknown field `plan`. Accepted fields: name, email, credits.",
  },
  {
    name: "two unknown body fields",
    request: () => adminApi("/admin/pools/US/config", { method: "POST", body: { sise: 2, plan: "pro" } }),
    status: 400,
    code: "invalid_parameter",
    detail: "Unknown fields `sise`, `plan`. Accepted fields: size, max_sessions, queue_limit, keep_alive_ms, launches_per_minute.",
  },
  {
    name: "a body that is not an object",
    request: () => adminApi("/admin/accounts", { method: "POST", body: ["name"] }),
    status: 400,
    code: "invalid_parameter",
    detail: "Request body: must be a JSON object.",
  },
  {
    name: "too few credits",
    request: async () => cachedScrape((await createTestAccount(2)).apiKey, "error codes: too few credits"),
    status: 429,
    code: "insufficient_credits",
    detail: /^Credit limit reached/,
  },
  {
    name: "the dashboard's JSON without a session",
    request: () => api("/dashboard/playground/snippets"),
    status: 401,
    code: "signed_out",
  },
];

describe("error bodies carry {detail, code}", () => {
  it.each(CASES)("$name → $status $code", async ({ request, status, code, detail }) => {
    const response = await request();
    expect(response.status).toBe(status);
    const body = await errorBody(response);
    expect(body.code).toBe(code);
    expect(Reflect.get(ERROR_CODE_STATUSES, code)).toBe(status);
    if (typeof detail === "string") expect(body.detail).toBe(detail);
    else if (detail !== undefined) expect(body.detail).toMatch(detail);
    // Never validator wording or a stack.
    expect(body.detail).not.toMatch(/Unrecognized key|Invalid input|ZodError|\n\s+at /);
  });

  it("the published set: snake_case, unique, each with one status; the OpenAPI error schema lists exactly these", async () => {
    for (const code of ERROR_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    const document: unknown = await (await api("/openapi.json")).json();
    const errorSchema: unknown = Reflect.get(Reflect.get(Reflect.get(Object(document), "components"), "schemas"), "Error");
    expect(errorSchema).toMatchObject({ required: expect.arrayContaining(["detail", "code"]) });
    expect(Reflect.get(Reflect.get(Object(errorSchema), "properties"), "code")).toMatchObject({ enum: [...ERROR_CODES] });
  });
});

describe("pool settings: null restores the default", () => {
  interface PoolSettings {
    size: number;
    queue_limit: number;
  }

  async function configure(body: unknown): Promise<PoolSettings> {
    const response = await adminApi("/admin/pools/IS/config", { method: "POST", body });
    expect(response.status).toBe(200);
    return response.json<PoolSettings>();
  }

  it('{"size": null} is accepted and puts size back to its default, leaving the other overrides alone', async () => {
    const defaults = await configure(null);
    const overridden = await configure({ size: defaults.size + 1, queue_limit: defaults.queue_limit + 3 });
    expect(overridden).toMatchObject({ size: defaults.size + 1, queue_limit: defaults.queue_limit + 3 });
    const restored = await configure({ size: null });
    expect(restored).toMatchObject({ size: defaults.size, queue_limit: defaults.queue_limit + 3 });
    expect(await configure(null)).toEqual(defaults);
  });
});
