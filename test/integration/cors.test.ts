/**
 * The API is server-side only (src/http/cors.ts): no CORS headers on any answer, and a preflight on an API path is a
 * 405 that says why, with `Allow` naming the methods the path takes.
 */
import { describe, expect, it } from "vitest";
import { SERVER_SIDE_ONLY_DETAIL } from "../../src/http/cors";
import { UNKNOWN_SCRAPER_DETAIL } from "../../src/http/scrapers";
import { api, createTestAccount } from "../support/workers/helpers";

/** What a browser sends before a cross-origin GET with an `X-API-Key` header. */
function preflight(path: string, method = "GET"): Promise<Response> {
  return api(path, {
    method: "OPTIONS",
    headers: { Origin: "https://shop.example.com", "Access-Control-Request-Method": method, "Access-Control-Request-Headers": "x-api-key" },
  });
}

function corsHeaders(response: Response): string[] {
  return [...response.headers.keys()].filter((name) => name.toLowerCase().startsWith("access-control-"));
}

describe("CORS: the API is server-side only", () => {
  it("answers a preflight on a scraper with a 405 saying the API is server-side only, not 404 Unknown scraper", async () => {
    const response = await preflight("/scrapers/grok");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
    expect(corsHeaders(response)).toEqual([]);
    const body = (await response.json()) as { detail: string; code?: string };
    expect(body.detail).toBe(SERVER_SIDE_ONLY_DETAIL);
    expect(body.detail).toMatch(/server-side only/);
    expect(body.detail).toMatch(/CORS/);
    expect(body.code).toBe("method_not_allowed");
  });

  it("names each path's own methods in Allow: job submission, job status, webhook settings, the account", async () => {
    const cases: Array<[string, string]> = [
      ["/scrapers/amazon_rufus/jobs", "POST"],
      ["/jobs/3f2c8a1e-5b7d-4c9a-8e6f-1a2b3c4d5e6f", "GET, HEAD"],
      ["/jobs", "GET, HEAD"],
      ["/account", "GET, HEAD"],
      ["/account/webhook", "GET, PUT, DELETE, HEAD"],
      ["/batches", "POST"],
      ["/admin/accounts", "GET, POST, HEAD"],
    ];
    for (const [path, allow] of cases) {
      const response = await preflight(path, "POST");
      expect(response.status, path).toBe(405);
      expect(response.headers.get("allow")?.split(", ").sort(), path).toEqual(allow.split(", ").sort());
      expect(corsHeaders(response), path).toEqual([]);
      expect(((await response.json()) as { detail: string }).detail, path).toBe(SERVER_SIDE_ONLY_DETAIL);
    }
  });

  it("sends no CORS header on real answers either, whatever Origin the request carries", async () => {
    const account = await createTestAccount();
    const withOrigin = { headers: { Origin: "https://shop.example.com" } };
    const responses = [
      await api("/account", { ...withOrigin, apiKey: account.apiKey }),
      await api("/scrapers/grok?prompt=hello", withOrigin),
      await api("/openapi.json", withOrigin),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 401, 200]);
    for (const response of responses) expect(corsHeaders(response), response.url).toEqual([]);
  });

  it("leaves paths the API does not document to their own answers: an unknown scraper is still a 404 listing the scrapers", async () => {
    const response = await preflight("/scrapers/nonexistent");
    expect(response.status).toBe(404);
    expect(((await response.json()) as { detail: string }).detail).toBe(UNKNOWN_SCRAPER_DETAIL);
  });
});
