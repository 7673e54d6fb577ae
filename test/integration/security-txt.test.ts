/**
 * `/.well-known/security.txt` (RFC 9116, src/http/security-txt.ts): published only when the operator set a contact,
 * with the fields the RFC requires (Contact, Expires less than a year away) and nothing made up.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";

async function securityTxt(contact: string, origin = "http://127.0.0.1:8787"): Promise<Response> {
  const request = new Request(`${origin}/.well-known/security.txt`);
  return worker.fetch(request, { ...env, SECURITY_CONTACT: contact }, createExecutionContext());
}

describe("/.well-known/security.txt", () => {
  it("is a 404 with a detail when the deployment has no contact", async () => {
    const response = await securityTxt("");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      detail: "This deployment publishes no security contact (its operator has not set SECURITY_CONTACT).",
      code: "not_found",
      request_id: response.headers.get("X-Request-Id"),
    });
  });

  it("lists each configured contact, an Expires within a year and the canonical address", async () => {
    const before = Date.now();
    const response = await securityTxt(" mailto:security@example.com , https://example.com/report ");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^text\/plain/);
    const lines = (await response.text()).trimEnd().split("\n");
    expect(lines.filter((line) => line.startsWith("Contact: "))).toEqual([
      "Contact: mailto:security@example.com",
      "Contact: https://example.com/report",
    ]);
    expect(lines).toContain("Canonical: http://127.0.0.1:8787/.well-known/security.txt");
    const expires = Date.parse(lines.find((line) => line.startsWith("Expires: "))?.slice("Expires: ".length) ?? "");
    expect(expires).toBeGreaterThan(before);
    expect(expires).toBeLessThan(before + 365 * 86_400_000);
  });

  it("ignores a contact that is neither mailto: nor https: (no http, no bare address, nothing that breaks a line)", async () => {
    const response = await securityTxt("http://example.com, security@example.com, mailto:a@b.c\nContact: https://evil.example");
    expect(response.status).toBe(404);
  });
});
