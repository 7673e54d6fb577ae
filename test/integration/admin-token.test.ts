/**
 * Issue 30, point 7 (the admin token): a token shorter than 32 characters (or none) disables the operator API with a
 * 503 that says so, never a 401; failed attempts are throttled per client address (429 with Retry-After, before the
 * token is compared), an IPv6 client by its /64; requests that present no token are not guesses and are not counted.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { BASE, api } from "../support/workers/helpers";

interface ErrorBody {
  detail: string;
  code: string;
}

/** The Worker with another ADMIN_TOKEN, as a deployment configured that way would run. */
async function fetchWithToken(configured: string, presented: string): Promise<Response> {
  const request = new Request(`${BASE}/admin/accounts`, { headers: { Authorization: `Bearer ${presented}` } });
  return await worker.fetch(request, { ...env, ADMIN_TOKEN: configured }, createExecutionContext());
}

function adminFrom(address: string, token: string | null): Promise<Response> {
  const headers = new Headers({ "CF-Connecting-IP": address });
  if (token !== null) headers.set("Authorization", `Bearer ${token}`);
  return api("/admin/accounts", { headers });
}

/** A random address of the benchmarking range (198.18.0.0/15), so no other test's counter meets it. */
function freshIpv4(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(2));
  return `198.18.${bytes[0]}.${bytes[1]}`;
}

describe("the admin token's minimum length", () => {
  it("31 characters: 503 not_configured whatever is presented (the right token, a wrong one), never a 401", async () => {
    const short = "a".repeat(31);
    for (const presented of [short, "wrong-token"]) {
      const response = await fetchWithToken(short, presented);
      expect(response.status).toBe(503);
      const body = (await response.json()) as ErrorBody;
      expect(body.code).toBe("not_configured");
      expect(body.detail).toContain("The operator API is disabled");
      expect(body.detail).toContain("shorter than 32 characters");
    }
  });

  it("unset: 503 not_configured as well", async () => {
    const response = await fetchWithToken("", "");
    expect(response.status).toBe(503);
    expect(((await response.json()) as ErrorBody).code).toBe("not_configured");
  });

  it("32 characters: the operator API works", async () => {
    const token = "b".repeat(32);
    expect((await fetchWithToken(token, token)).status).toBe(200);
    expect((await fetchWithToken(token, `${token}x`)).status).toBe(401);
  });
});

describe("failed admin-token attempts, per client address", () => {
  it("ten failures a minute, then 429 with Retry-After even for the right token; another address is not affected", async () => {
    const address = freshIpv4();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const response = await adminFrom(address, `wrong-${attempt}`);
      expect(response.status).toBe(401);
    }
    const throttled = await adminFrom(address, env.ADMIN_TOKEN);
    expect(throttled.status).toBe(429);
    expect(((await throttled.json()) as ErrorBody).code).toBe("rate_limited");
    expect(Number(throttled.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect((await adminFrom(address, "wrong-again")).status).toBe(429);
    expect((await adminFrom(freshIpv4(), env.ADMIN_TOKEN)).status).toBe(200);
  });

  it("requests that present no token are not counted", async () => {
    const address = freshIpv4();
    for (let attempt = 0; attempt < 12; attempt += 1) expect((await adminFrom(address, null)).status).toBe(401);
    expect((await adminFrom(address, env.ADMIN_TOKEN)).status).toBe(200);
  });

  it("an IPv6 client is counted by its /64: new addresses inside it buy no attempts", async () => {
    const [a = 0, b = 0] = crypto.getRandomValues(new Uint16Array(2));
    const prefix = `2001:db8:${a.toString(16)}:${b.toString(16)}`;
    for (let attempt = 1; attempt <= 10; attempt += 1)
      expect((await adminFrom(`${prefix}::${attempt.toString(16)}`, "wrong")).status).toBe(401);
    expect((await adminFrom(`${prefix}:ffff:ffff:ffff:ffff`, env.ADMIN_TOKEN)).status).toBe(429);
    expect((await adminFrom(`2001:db8:${a.toString(16)}:${((b + 1) % 0x10000).toString(16)}::1`, env.ADMIN_TOKEN)).status).toBe(200);
  });
});
