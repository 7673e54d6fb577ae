/**
 * A generated corpus of hostile requests through the real Worker (issue: reliability, hostile input): every parameter
 * missing, empty, blank, huge, of the wrong type, NaN/Infinity, repeated, badly percent-encoded, with control and bidi
 * characters, SQL- and script-like strings; traversal in scraper and job ids; oversized headers and cookies; wrong
 * methods. Every answer must be a 4xx JSON `{detail}` — never a 5xx, never an echo of the key.
 *
 * Browser-free on purpose: requests that are valid reach authentication and stop at 401 (no key) or at a cached answer.
 */
import { describe, expect, it } from "vitest";
import { SCRAPER_IDS } from "../../src/scrapers/registry";
import { BASE, balanceOf, createTestAccount, ledgerOf } from "../support/workers/helpers";
import { exports } from "cloudflare:workers";

const NASTY_VALUES = [
  "",
  " ",
  "\t\n",
  "x".repeat(4001),
  "x".repeat(100_000),
  "NaN",
  "Infinity",
  "-Infinity",
  "1e309",
  "-1",
  "0",
  "9".repeat(400),
  "true",
  "null",
  "undefined",
  "[]",
  "{}",
  '{"$gt":""}',
  "' OR '1'='1",
  "1; DROP TABLE accounts; --",
  "<script>alert(1)</script>",
  '"><img src=x onerror=alert(1)>',
  "`rm -rf /`",
  "$" + "{7*7}", // a template-injection probe, built so no linter reads it as a mistake
  "{{7*7}}",
  "../../etc/passwd",
  "%00",
  "\u0000",
  "\u0007bell",
  "\u202Eevil\u202C",
  "\u200B",
  "\uFEFF",
  "\uD800",
  "😀".repeat(2001),
  "US\r\nX-Injected: 1",
  "jp",
  "ZZ",
  "USA",
];

const PARAMETERS = ["prompt", "country", "bypass_cache", "timeout", "mode", "markdown_json", "web_search", "api_key", "unknown"];

interface Case {
  method: string;
  path: string;
  headers?: Record<string, string>;
}

/** The raw query (not URL-encoded where the case is about encoding). */
function corpus(): Case[] {
  const cases: Case[] = [];
  for (const scraper of SCRAPER_IDS) {
    for (const parameter of PARAMETERS) {
      for (const value of NASTY_VALUES) {
        const query = new URLSearchParams({ prompt: "hello" });
        query.set(parameter, value);
        cases.push({ method: "GET", path: `/scrapers/${scraper}?${query.toString()}` });
      }
      // missing prompt, repeated parameter, invalid percent-encoding
      cases.push({ method: "GET", path: `/scrapers/${scraper}?${parameter}=a&${parameter}=b&prompt=x` });
      cases.push({ method: "POST", path: `/scrapers/${scraper}/jobs?${parameter}=%E0%A4%A&prompt=%ZZ` });
    }
    cases.push({ method: "GET", path: `/scrapers/${scraper}` });
    cases.push({ method: "POST", path: `/scrapers/${scraper}/jobs` });
    for (const method of ["PUT", "PATCH", "DELETE", "OPTIONS"]) cases.push({ method, path: `/scrapers/${scraper}?prompt=hi` });
  }
  // (".." and "%2e%2e" are resolved by the URL parser before any request is sent, so they are not hostile input here)
  for (const traversal of ["..%2F..%2Fadmin", "grok%00", "GROK", "grok%20", "grok%2F..%2Fadmin", "%3Cscript%3E", "'--", "grok;x"]) {
    cases.push({ method: "GET", path: `/scrapers/${traversal}?prompt=hi` });
    cases.push({ method: "POST", path: `/scrapers/${traversal}/jobs?prompt=hi` });
    cases.push({ method: "GET", path: `/jobs/${traversal}` });
    cases.push({ method: "GET", path: `/md/${traversal}.md` });
  }
  for (const jobId of ["not-a-uuid", "00000000-0000-0000-0000-000000000000", "x".repeat(10_000), "' OR 1=1 --", "%00", "..%2F..%2F"]) {
    cases.push({ method: "GET", path: `/jobs/${jobId}` });
  }
  const big = "a".repeat(16_000);
  cases.push({ method: "GET", path: "/scrapers/grok?prompt=hi", headers: { "X-API-Key": big } });
  cases.push({ method: "GET", path: "/scrapers/grok?prompt=hi", headers: { Cookie: `session=${big}; __Host-session=${big}` } });
  cases.push({ method: "GET", path: "/scrapers/grok?prompt=hi", headers: { "X-API-Key": "sk_\u0000\u202E" } });
  cases.push({ method: "GET", path: "/account", headers: { "X-API-Key": "' OR '1'='1" } });
  return cases;
}

async function send(testCase: Case): Promise<Response> {
  // Headers that a client library would refuse (control characters) are sent as the runtime allows; skip the rest.
  let headers: Headers;
  try {
    headers = new Headers(testCase.headers);
  } catch {
    headers = new Headers();
  }
  return exports.default.fetch(new Request(`${BASE}${testCase.path}`, { method: testCase.method, headers }));
}

describe("hostile input corpus", () => {
  const cases = corpus();

  it(`has at least 2,000 requests (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(2000);
  });

  it("every request answers a 4xx JSON {detail}, never a 5xx, never the key", async () => {
    // No credits: a request that passes validation and authentication stops at 429, so nothing here starts a scrape.
    const account = await createTestAccount(0);
    const failures: string[] = [];
    for (let index = 0; index < cases.length; index += 25) {
      const batch = cases.slice(index, index + 25);
      const responses = await Promise.all(
        batch.map(async (testCase, offset) => {
          // every fourth request carries a real key (header or query), so authenticated paths are probed too
          const withKey = (index + offset) % 4 === 0;
          const keyed: Case = withKey ? { ...testCase, headers: { ...testCase.headers, "X-API-Key": account.apiKey } } : testCase;
          return { testCase: keyed, response: await send(keyed) };
        }),
      );
      for (const { testCase, response } of responses) {
        const text = await response.text();
        const label = `${testCase.method} ${testCase.path.slice(0, 120)} → ${response.status}`;
        if (response.status < 400 || response.status >= 500) failures.push(`${label}: ${text.slice(0, 200)}`);
        else if (!/^application\/json/.test(response.headers.get("content-type") ?? "")) failures.push(`${label}: not JSON`);
        else {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = null;
          }
          const detail = typeof body === "object" && body !== null ? Reflect.get(body, "detail") : undefined;
          if (typeof detail !== "string" || detail === "") failures.push(`${label}: no detail`);
          if (text.includes(account.apiKey)) failures.push(`${label}: echoes the key`);
        }
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
    // Nothing was charged or started: every request stopped at validation, authentication or the empty balance.
    expect(await balanceOf(account.accountId)).toBe(0);
    expect(await ledgerOf(account.accountId)).toEqual([]);
  }, 300_000);
});
