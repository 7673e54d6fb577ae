/**
 * Strict-Transport-Security (src/http/security-headers.ts): on every response to an https request, the dashboard's,
 * the API's and errors alike; never over plain http, nor for a loopback host, which a year of `includeSubDomains`
 * would pin. The pages' own security headers are still sent once, unchanged.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

function get(url: string): Promise<Response> {
  return exports.default.fetch(new Request(url, { redirect: "manual" }));
}

const ONE_YEAR_WITH_SUBDOMAINS = "max-age=31536000; includeSubDomains";

describe("Strict-Transport-Security", () => {
  it("is sent on https responses: dashboard pages, the API, its errors, the docs and status pages", async () => {
    for (const path of ["/dashboard/login", "/scrapers/grok?prompt=hi", "/scrapers/grok", "/jobs/not-a-job", "/nope", "/docs", "/status"]) {
      const response = await get(`https://api.example.com${path}`);
      expect([path, response.headers.get("Strict-Transport-Security")]).toEqual([path, ONE_YEAR_WITH_SUBDOMAINS]);
      await response.body?.cancel();
    }
  });

  it("is not sent over plain http (RFC 6797 §7.2)", async () => {
    for (const path of ["/dashboard/login", "/scrapers/grok?prompt=hi", "/nope"]) {
      const response = await get(`http://api.example.com${path}`);
      expect([path, response.headers.get("Strict-Transport-Security")]).toEqual([path, null]);
      await response.body?.cancel();
    }
  });

  it("is not sent to loopback hosts, even over https (it would pin the developer's machine)", async () => {
    for (const origin of [
      "https://localhost",
      "https://localhost:8787",
      "https://app.localhost",
      "https://127.0.0.1:8787",
      "https://[::1]:8787",
    ]) {
      const response = await get(`${origin}/dashboard/login`);
      expect([origin, response.headers.get("Strict-Transport-Security")]).toEqual([origin, null]);
      await response.body?.cancel();
    }
  });

  it("leaves the dashboard's own security headers as they were, each sent once", async () => {
    const response = await get("https://api.example.com/dashboard/login");
    expect(response.status).toBe(200);
    expect(response.headers.get("X-Frame-Options")).toBe("DENY");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("Referrer-Policy")).toBe("same-origin");
    expect(response.headers.get("Content-Security-Policy")).toMatch(/frame-ancestors 'none'/);
    expect(response.headers.get("Content-Security-Policy")).not.toMatch(/,/);
    await response.body?.cancel();
  });
});
