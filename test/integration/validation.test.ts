/** Every parameter rule of spec §4.1 and §4.3 (DESIGN.md §4), checked through the real Worker. */
import { beforeAll, describe, expect, it } from "vitest";
import { SCRAPER_IDS } from "../../src/scrapers/registry";
import { adminApi } from "../support/workers/account-helpers";
import { api, balanceOf, createTestAccount, query, type TestAccount } from "../support/workers/helpers";

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(1500);
});

/**
 * Validation runs before authentication, so requests here carry no key: an invalid parameter answers 400 naming it, and
 * valid parameters get as far as the key check (401) without starting a scrape.
 */
async function detailOf(path: string, apiKey?: string): Promise<{ status: number; detail: string }> {
  const response = await api(path, apiKey === undefined ? {} : { apiKey });
  const body = (await response.json()) as { detail: string };
  return { status: response.status, detail: body.detail };
}

/** The whole 400 detail for a bad `timeout`: it names the parameter, the range and the accepted form. */
const TIMEOUT_DETAIL = /^timeout: must be a number of seconds from 10 to 600, written in digits only \(such as 300\)$/;

describe("common parameters", () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ["missing prompt", {}, /^prompt: is required$/],
    ["empty prompt", { prompt: "" }, /^prompt: must be 1 to 4000 characters and not blank$/],
    ["blank prompt", { prompt: "  \n\t " }, /^prompt: must be 1 to 4000 characters and not blank$/],
    ["prompt over 4000", { prompt: "x".repeat(4001) }, /^prompt: must be 1 to 4000 characters and not blank$/],
    ["country too long", { prompt: "hi", country: "USA" }, /^country: must be exactly 2 characters/],
    ["country too short", { prompt: "hi", country: "U" }, /^country: must be exactly 2 characters/],
    ["country unassigned", { prompt: "hi", country: "XX" }, /^country: XX is not an assigned ISO 3166-1 alpha-2 country code$/],
    ["timeout below 10", { prompt: "hi", timeout: "9" }, TIMEOUT_DETAIL],
    ["timeout above 600", { prompt: "hi", timeout: "601" }, TIMEOUT_DETAIL],
    ["timeout with a fraction", { prompt: "hi", timeout: "45.5" }, TIMEOUT_DETAIL],
    ["timeout not a number", { prompt: "hi", timeout: "soon" }, /^timeout: must be a number/],
    ["bypass_cache not boolean", { prompt: "hi", bypass_cache: "maybe" }, /^bypass_cache: must be a boolean/],
    [
      "unknown parameter",
      { prompt: "hi", temperature: "1" },
      /^Unknown parameter: temperature\. The grok scraper accepts: prompt, country, bypass_cache, timeout, api_key, mode\.$/,
    ],
    [
      "grok mode invalid",
      { prompt: "hi", mode: "MODEL_MODE_HEAVY" },
      /^mode: must be one of MODEL_MODE_AUTO, MODEL_MODE_FAST, MODEL_MODE_EXPERT$/,
    ],
    ["grok refuses JP", { prompt: "hi", country: "JP" }, /^country: JP is not supported by the grok scraper$/],
    ["grok refuses tw (case-insensitive)", { prompt: "hi", country: "tw" }, /^country: TW is not supported by the grok scraper$/],
  ];
  for (const [name, params, expected] of cases) {
    it(`400 for ${name}, naming the parameter`, async () => {
      const { status, detail } = await detailOf(`/scrapers/grok?${query(params)}`);
      expect(status).toBe(400);
      expect(detail).toMatch(expected);
    });
  }

  it("accepts the boundaries and every boolean spelling (valid parameters reach authentication: 401 without a key)", async () => {
    for (const value of ["true", "FALSE", "1", "0", "yes", "No", "on", "OFF"]) {
      const { status } = await detailOf(`/scrapers/gemini?${query({ prompt: "x".repeat(4000), timeout: "10", bypass_cache: value })}`);
      expect(status).toBe(401);
    }
    expect((await detailOf(`/scrapers/gemini?${query({ prompt: "a", timeout: "600", country: "de" })}`)).status).toBe(401);
  });

  it("validation failures charge nothing", async () => {
    const before = await balanceOf(account.accountId);
    expect((await detailOf(`/scrapers/grok?${query({ prompt: "" })}`, account.apiKey)).status).toBe(400);
    expect(await balanceOf(account.accountId)).toBe(before);
  });
});

describe("whole-number parameters: plain decimal digits only", () => {
  // Each of these is a number to `Number()` (60, 600, 10 or Infinity) and was accepted before.
  const NOT_DIGITS = ["0x3c", "6e2", "60.0", " 60", "60 ", "+60", "1e1", "Infinity", "٦٠", ""];

  for (const raw of NOT_DIGITS) {
    it(`timeout=${JSON.stringify(raw)} is a 400 naming timeout and the accepted form`, async () => {
      expect(await detailOf(`/scrapers/grok?${query({ prompt: "hi", timeout: raw })}`)).toEqual({
        status: 400,
        detail: "timeout: must be a number of seconds from 10 to 600, written in digits only (such as 300)",
      });
    });
  }

  it("digits in range are accepted, leading zeros included (valid parameters reach authentication: 401)", async () => {
    for (const raw of ["10", "60", "060", "600"]) {
      expect((await detailOf(`/scrapers/grok?${query({ prompt: "hi", timeout: raw })}`)).status, raw).toBe(401);
    }
  });

  it("a batch item's timeout: the same rule for strings; a JSON number is read as its text", async () => {
    // 1e21's text is "1e+21"
    for (const timeout of ["0x3c", "6e2", " 60", 600.5, 1e21]) {
      const response = await api("/batches", {
        method: "POST",
        apiKey: account.apiKey,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ scraper: "grok", items: [{ prompt: "hi", timeout }] }),
      });
      expect(response.status, String(timeout)).toBe(400);
      expect(((await response.json()) as { detail: string }).detail, String(timeout)).toBe(
        "items[0].timeout: must be a number of seconds from 10 to 600, written in digits only (such as 300)",
      );
    }
  });

  it("GET /jobs?limit= takes digits only", async () => {
    for (const raw of ["0x14", "2e1", "20.0", " 20", "+20", "Infinity"]) {
      const { status, detail } = await detailOf(`/jobs?${query({ limit: raw })}`, account.apiKey);
      expect({ raw, status, detail }).toEqual({
        raw,
        status: 400,
        detail: "limit: must be an integer from 1 to 100, written in digits only (such as 25)",
      });
    }
    expect((await detailOf(`/jobs?${query({ limit: "20" })}`, account.apiKey)).status).toBe(200);
  });

  it("the operator's list limits take digits only (accounts, webhook deliveries)", async () => {
    for (const raw of ["0x32", "5e1", "50.0", " 50", "+50", "Infinity"]) {
      const accounts = await adminApi(`/admin/accounts?${query({ limit: raw })}`);
      expect([raw, accounts.status, await accounts.json()]).toEqual([
        raw,
        400,
        {
          detail: "limit: must be an integer from 1 to 200, written in digits only (such as 50)",
          code: expect.any(String),
          request_id: accounts.headers.get("X-Request-Id"),
        },
      ]);
      const deliveries = await adminApi(`/admin/accounts/${account.accountId}/webhook/deliveries?${query({ limit: raw })}`);
      expect([raw, deliveries.status, await deliveries.json()]).toEqual([
        raw,
        400,
        {
          detail: "limit: must be an integer from 1 to 200, written in digits only (such as 50)",
          code: expect.any(String),
          request_id: deliveries.headers.get("X-Request-Id"),
        },
      ]);
    }
    expect((await adminApi(`/admin/accounts?${query({ limit: "50" })}`)).status).toBe(200);
    expect((await adminApi(`/admin/accounts/${account.accountId}/webhook/deliveries?${query({ limit: "50" })}`)).status).toBe(200);
  });
});

describe("scraper-specific parameters", () => {
  it("copilot: mode values, JP/TW refused", async () => {
    for (const mode of ["search", "smart", "chat", "reasoning", "study"]) {
      expect((await detailOf(`/scrapers/copilot?${query({ prompt: "hi", mode })}`)).status).toBe(401);
    }
    expect(await detailOf(`/scrapers/copilot?${query({ prompt: "hi", mode: "MODEL_MODE_FAST" })}`)).toEqual({
      status: 400,
      detail: "mode: must be one of search, smart, chat, reasoning, study",
    });
    expect((await detailOf(`/scrapers/copilot?${query({ prompt: "hi", country: "JP" })}`)).detail).toBe(
      "country: JP is not supported by the copilot scraper",
    );
  });

  it("gemini and google_ai_mode refuse JP/TW; chatgpt, perplexity and amazon_rufus accept them", async () => {
    for (const scraper of ["gemini", "google_ai_mode"]) {
      expect((await detailOf(`/scrapers/${scraper}?${query({ prompt: "hi", country: "TW" })}`)).status).toBe(400);
    }
    for (const scraper of ["chatgpt", "perplexity", "amazon_rufus"]) {
      expect((await detailOf(`/scrapers/${scraper}?${query({ prompt: "hi", country: "JP" })}`)).status).toBe(401);
    }
  });

  it("chatgpt markdown_json and perplexity web_search are booleans; mode is unknown to them", async () => {
    expect((await detailOf(`/scrapers/chatgpt?${query({ prompt: "hi", markdown_json: "true" })}`)).status).toBe(401);
    expect((await detailOf(`/scrapers/chatgpt?${query({ prompt: "hi", markdown_json: "2" })}`)).detail).toMatch(
      /^markdown_json: must be a boolean/,
    );
    expect((await detailOf(`/scrapers/perplexity?${query({ prompt: "hi", web_search: "off" })}`)).status).toBe(401);
    expect((await detailOf(`/scrapers/perplexity?${query({ prompt: "hi", mode: "search" })}`)).detail).toMatch(
      /^Unknown parameter: mode\./,
    );
    expect((await detailOf(`/scrapers/gemini?${query({ prompt: "hi", web_search: "true" })}`)).detail).toMatch(
      /^Unknown parameter: web_search\./,
    );
    expect((await detailOf(`/scrapers/amazon_rufus?${query({ prompt: "hi", a: "1", b: "2" })}`)).detail).toMatch(
      /^Unknown parameters: a, b\./,
    );
  });
});

describe("routing", () => {
  it("unknown scraper → 404 listing the valid ids, for sync and jobs", async () => {
    for (const [method, path] of [
      ["GET", "/scrapers/claude?prompt=hi"],
      ["POST", "/scrapers/claude/jobs?prompt=hi"],
    ] as const) {
      const response = await api(path, { method, apiKey: account.apiKey });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { detail: string }).detail).toBe(`Unknown scraper. Valid scrapers: ${SCRAPER_IDS.join(", ")}.`);
    }
  });

  it("a known scraper with the wrong method → 405 with Allow, never 'unknown scraper'", async () => {
    for (const [method, path, allow, inWords] of [
      ["POST", "/scrapers/grok?prompt=hi", "GET, HEAD", "GET or HEAD"],
      ["DELETE", "/scrapers/chatgpt", "GET, HEAD", "GET or HEAD"],
      ["GET", "/scrapers/grok/jobs?prompt=hi", "POST", "POST"],
      ["PUT", "/scrapers/amazon_rufus/jobs", "POST", "POST"],
    ] as const) {
      const response = await api(path, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get("Allow")).toBe(allow);
      expect(((await response.json()) as { detail: string }).detail).toBe(`Method not allowed here. Use ${inWords}.`);
    }
  });

  it("a documented path names the same Allow whatever method is refused, the preflight included", async () => {
    const cases: Array<[string, string[], string]> = [
      ["/scrapers/grok", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"], "GET, HEAD"],
      ["/scrapers/perplexity/jobs", ["GET", "PUT", "DELETE", "OPTIONS"], "POST"],
      ["/jobs/3f2c8a1e-5b7d-4c9a-8e6f-1a2b3c4d5e6f", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"], "GET, HEAD"],
      ["/jobs", ["POST", "DELETE", "OPTIONS"], "GET, HEAD"],
      ["/batches", ["GET", "DELETE", "OPTIONS"], "POST"],
      ["/account/webhook", ["POST", "PATCH", "OPTIONS"], "GET, PUT, DELETE, HEAD"],
    ];
    for (const [path, methods, allow] of cases) {
      for (const method of methods) {
        const response = await api(path, { method });
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.get("Allow"), `${method} ${path}`).toBe(allow);
        expect(((await response.json()) as { code: string }).code, `${method} ${path}`).toBe("method_not_allowed");
      }
    }
  });

  it("unknown paths are 404 {detail}", async () => {
    const response = await api("/nope");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      detail: "Not found. See /docs for the API reference.",
      code: "not_found",
      request_id: response.headers.get("X-Request-Id"),
    });
  });
});
