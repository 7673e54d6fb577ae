/**
 * Issue 30, point 1: authentication, then a size cap, then parsing, on every body. An anonymous request is answered
 * (401, sign-in redirect) without its body being read; an authenticated one over its route's cap is a 413
 * `payload_too_large` that says the cap and how to split, whether it declares its length or streams without one.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createSession, newSessionId } from "../../src/accounts/sign-in";
import { csrfTokenForSession, sign } from "../../src/dashboard/session";
import { seedAnswer } from "../support/workers/async-helpers";
import { BASE, api, balanceOf, createTestAccount, ledgerOf } from "../support/workers/helpers";

const KIB = 1024;
/** The caps of the scenario: 500 batch items of 16 KiB, 64 KiB for /mcp, 16 KiB for operator bodies, 8 KiB for forms. */
const BATCH_CAP = 8_192_000;
const MCP_CAP = 64 * KIB;
const OPERATOR_CAP = 16 * KIB;
const FORM_CAP = 8 * KIB;

interface ErrorBody {
  detail: string;
  code: string;
}

/**
 * A body that declares `length` bytes and says how many of them the server has pulled: the runtime reads a request
 * body only when something asks for it, so `pulled()` of 0 after the answer proves nothing read it.
 */
function observedBody(
  length: number,
  chunk = new Uint8Array(64 * KIB).fill(0x20),
): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= length) {
        controller.close();
        return;
      }
      const part = chunk.subarray(0, Math.min(chunk.length, length - sent));
      sent += part.length;
      controller.enqueue(part);
    },
  });
  const fixed = new FixedLengthStream(length);
  void stream.pipeTo(fixed.writable).catch(() => undefined);
  return { body: fixed.readable, pulled: () => sent };
}

/** A body of `length` bytes sent without Content-Length (chunked), produced as it is read. */
function streamedBody(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.subarray(offset, offset + 64 * KIB));
      offset += 64 * KIB;
    },
  });
}

/** A one-item batch whose JSON is padded with whitespace to exactly `length` bytes. */
function paddedBatch(prompt: string, length: number): string {
  const json = JSON.stringify({ scraper: "grok", items: [{ prompt }] });
  return `${json}${" ".repeat(length - new TextEncoder().encode(json).byteLength)}`;
}

function postBatchBody(body: BodyInit, headers: Record<string, string>): Promise<Response> {
  return api("/batches", { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body });
}

describe("POST /batches: the key, then the cap, then parsing", () => {
  it("a Content-Length over the cap with a valid key is a 413 that says the cap and how to split, before a byte is read", async () => {
    const account = await createTestAccount(100);
    const { body, pulled } = observedBody(BATCH_CAP + 1);
    const response = await postBatchBody(body, { "X-API-Key": account.apiKey });
    expect(response.status).toBe(413);
    const error = (await response.json()) as ErrorBody;
    expect(error.code).toBe("payload_too_large");
    expect(error.detail).toContain("8192000 bytes");
    expect(error.detail).toContain("at most 500 items");
    expect(error.detail).toContain("send several smaller batches");
    expect(pulled()).toBeLessThan(BATCH_CAP);
    expect(await balanceOf(account.accountId)).toBe(100);
  });

  it("without a key: 401, and the body is neither read nor parsed", async () => {
    const { body, pulled } = observedBody(100 * 1024 * KIB);
    const response = await postBatchBody(body, {});
    expect(response.status).toBe(401);
    expect(((await response.json()) as ErrorBody).code).toBe("missing_api_key");
    expect(pulled()).toBeLessThan(1024 * KIB);
    // Malformed JSON would be a 400 had it been parsed first.
    const malformed = await postBatchBody("{not json", { "X-API-Key": "sk_not_a_key" });
    expect(malformed.status).toBe(401);
    expect(((await malformed.json()) as ErrorBody).code).toBe("invalid_api_key");
  });

  it("a body without Content-Length is counted as it streams: one byte over the cap is a 413, nothing charged", async () => {
    const account = await createTestAccount(100);
    const response = await postBatchBody(streamedBody(paddedBatch("Streamed too far", BATCH_CAP + 1)), { "X-API-Key": account.apiKey });
    expect(response.status).toBe(413);
    expect(((await response.json()) as ErrorBody).code).toBe("payload_too_large");
    expect(await ledgerOf(account.accountId)).toEqual([]);
  });

  it("a body of exactly the cap passes, with and without Content-Length", async () => {
    const account = await createTestAccount(100);
    for (const declared of [true, false]) {
      const prompt = `At the cap ${crypto.randomUUID()}`;
      await seedAnswer(account.accountId, prompt);
      const text = paddedBatch(prompt, BATCH_CAP);
      const response = await postBatchBody(declared ? text : streamedBody(text), { "X-API-Key": account.apiKey });
      expect(response.status).toBe(202);
    }
    expect(await balanceOf(account.accountId)).toBe(94);
  });
});

describe("/mcp and the account API", () => {
  it("/mcp: 401 without a key whatever the size; 413 past its cap with one", async () => {
    const account = await createTestAccount(100);
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    const anonymous = await api("/mcp", { method: "POST", headers, body: observedBody(MCP_CAP + 1).body });
    expect(anonymous.status).toBe(401);
    const oversized = await api("/mcp", {
      method: "POST",
      headers: { ...headers, "X-API-Key": account.apiKey },
      body: observedBody(MCP_CAP + 1).body,
    });
    expect(oversized.status).toBe(413);
    expect(((await oversized.json()) as ErrorBody).code).toBe("payload_too_large");
  });
});

describe("the operator API", () => {
  const operator = { Authorization: `Bearer ${env.ADMIN_TOKEN}`, "Content-Type": "application/json" };

  it("a body over the operator cap is a 413 once the token is right; 401 without it", async () => {
    const big = JSON.stringify({ name: "x".repeat(OPERATOR_CAP) });
    const oversized = await api("/admin/accounts", { method: "POST", headers: operator, body: big });
    expect(oversized.status).toBe(413);
    expect(((await oversized.json()) as ErrorBody).code).toBe("payload_too_large");
    const anonymous = await api("/admin/accounts", { method: "POST", headers: { "Content-Type": "application/json" }, body: big });
    expect(anonymous.status).toBe(401);
    const streamed = await api("/admin/accounts", { method: "POST", headers: operator, body: streamedBody(big) });
    expect(streamed.status).toBe(413);
  });

  it("a provider session body may be larger than other operator bodies (up to 1 MiB): its own rule answers, not the cap", async () => {
    const storageState = { cookies: [{ name: "session", value: "v".repeat(16_000) }], origins: [] };
    const body = JSON.stringify({ provider: "grok", label: "big", storage_state: storageState, padding: "p".repeat(600 * KIB) });
    const response = await api("/admin/provider-accounts", { method: "POST", headers: operator, body });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorBody).detail).toMatch(/padding/);
    const over = await api("/admin/provider-accounts", { method: "POST", headers: operator, body: observedBody(1024 * KIB + 1).body });
    expect(over.status).toBe(413);
  });
});

describe("dashboard forms: the session and origin, then the cap, then the CSRF token", () => {
  async function signedInSession(): Promise<{ cookie: string; csrf: string }> {
    const account = await createTestAccount(100);
    const sessionId = newSessionId();
    await createSession(env.DB, sessionId, account.accountId, 60_000);
    return {
      cookie: `__Host-session=${sessionId}.${await sign(env.SESSION_SECRET, "session", sessionId)}`,
      csrf: await csrfTokenForSession(env.SESSION_SECRET, sessionId),
    };
  }

  function postForm(path: string, fields: Record<string, string>, headers: Record<string, string>): Promise<Response> {
    return api(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE, ...headers },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });
  }

  it("a form over its cap: sign-in redirect without a session, 403 from another site, 413 only for a signed-in same-origin post", async () => {
    const { cookie, csrf } = await signedInSession();
    const fields = { _csrf: csrf, name: "Big form", padding: "p".repeat(FORM_CAP) };
    const anonymous = await postForm("/dashboard/keys", fields, {});
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("Location")).toBe("/dashboard/sign-in");
    const crossSite = await postForm("/dashboard/keys", fields, { Cookie: cookie, Origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    const oversized = await postForm("/dashboard/keys", fields, { Cookie: cookie });
    expect(oversized.status).toBe(413);
    expect(await oversized.text()).toContain("Request body too large");
  });

  it("a form under its cap still works, and still needs its CSRF token", async () => {
    const { cookie, csrf } = await signedInSession();
    const padding = "p".repeat(FORM_CAP - 200);
    const created = await postForm("/dashboard/keys", { _csrf: csrf, name: "Padded form", padding }, { Cookie: cookie });
    expect(created.status).toBe(303);
    expect(created.headers.get("Location")).toBe("/dashboard/keys");
    const forged = await postForm("/dashboard/keys", { _csrf: "forged", name: "Forged", padding }, { Cookie: cookie });
    expect(forged.status).toBe(403);
  });

  it("the sign-in form: 403 from another site without reading it, 413 past its cap", async () => {
    const fields = { token: "t", _csrf: "c", padding: "p".repeat(FORM_CAP) };
    expect((await postForm("/dashboard/login", fields, { Origin: "https://evil.example" })).status).toBe(403);
    expect((await postForm("/dashboard/login", fields, {})).status).toBe(413);
  });
});
