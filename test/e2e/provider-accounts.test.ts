/**
 * Provider accounts end to end (issue 12, item 3): real Chromium, the real Worker, the replicas. A stored session goes
 * into the scrape's page; the Rufus replica, with sign-in required as on the real store, answers only a valid session
 * and walls everything else, an expired session included; a login wall on any provider takes the account out of
 * rotation and the scrape is retried once, on another account or signed out where the provider allows it.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withScrapePage } from "../../src/browser/page-lease";
import { applySessionToPage } from "../../src/provider-accounts/apply-to-page";
import type { StorageState } from "../../src/provider-accounts/storage-state";
import { adminJson } from "../support/workers/account-helpers";
import {
  api,
  balanceOf,
  createTestAccount,
  discardPreparedPages,
  query,
  replicaControl,
  replicaRequests,
} from "../support/workers/helpers";

interface ProviderAccount {
  provider_account_id: string;
  state: string;
  state_reason: string | null;
  last_failure_reason: string | null;
  last_success_at: string | null;
  success_count: number;
  failure_count: number;
}

const RUFUS = "amazon_rufus";
const RUFUS_LOGIN_DETAIL = "Amazon asked the browser session to sign in: Rufus answers only signed-in sessions.";

async function rufusSignInControl(body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${env.REPLICA_URL}/amazon_rufus/__control/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`sign-in control: ${response.status} ${await response.text()}`);
  await discardPreparedPages();
}

/**
 * Signs in on the Rufus replica's form and returns the session as an operator would store it: the cookies the site
 * set (no domain, so they are set for the scrape's origin), with their expiry.
 */
async function rufusSession(domain = "amazon.com"): Promise<StorageState> {
  const response = await fetch(`${env.REPLICA_URL}/amazon_rufus/${domain}/ap/signin`, {
    method: "POST",
    body: new URLSearchParams({ email: "shopper@example.com", password: "hunter2-but-longer" }),
    redirect: "manual",
  });
  expect(response.status).toBe(302);
  const now = Math.floor(Date.now() / 1000);
  const cookies = response.headers.getSetCookie().map((line) => {
    const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
    const at = pair.indexOf("=");
    const attribute = (name: string): string | undefined =>
      attributes.find((part) => part.toLowerCase().startsWith(`${name.toLowerCase()}=`))?.split("=")[1];
    return {
      name: pair.slice(0, at),
      value: pair.slice(at + 1),
      path: attribute("Path") ?? "/",
      expires: now + Number(attribute("Max-Age") ?? 3600),
      httpOnly: attributes.some((part) => part.toLowerCase() === "httponly"),
      secure: false,
      sameSite: "Lax" as const,
    };
  });
  expect(cookies.map((cookie) => cookie.name)).toContain("at-main");
  return { cookies, origins: [] };
}

function storeAccount(provider: string, session: StorageState, extra: Record<string, unknown> = {}): Promise<ProviderAccount> {
  return adminJson<ProviderAccount>(
    "/admin/provider-accounts",
    { method: "POST", body: { provider, label: `${provider}-${crypto.randomUUID().slice(0, 6)}`, storage_state: session, ...extra } },
    201,
  );
}

function accountView(account: ProviderAccount): Promise<ProviderAccount> {
  return adminJson<ProviderAccount>(`/admin/provider-accounts/${account.provider_account_id}`);
}

async function scrape(
  provider: string,
  params: Record<string, string>,
  apiKey: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await api(`/scrapers/${provider}?${query({ bypass_cache: "true", ...params })}`, { apiKey });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeEach(async () => {
  await env.DB.prepare("DELETE FROM provider_accounts").run();
});

describe("a stored session in the page", () => {
  it("cookies for the scrape's origin or their own domain, localStorage for its origin, an expired cookie dropped", async () => {
    const lab = `${env.REPLICA_URL}/__capture-lab`;
    const origin = new URL(env.REPLICA_URL).origin;
    const hour = Math.floor(Date.now() / 1000) + 3600;
    const session: StorageState = {
      cookies: [
        { name: "bound", value: "to-the-origin", path: "/", expires: hour },
        { name: "visible", value: "yes", domain: "127.0.0.1", path: "/" },
        { name: "stale", value: "expired-long-ago", path: "/", expires: 1_000_000_000 },
        { name: "secret", value: "http-only", path: "/", httpOnly: true },
      ],
      origins: [
        { origin, localStorage: [{ name: "prefs", value: '{"theme":"dark"}' }] },
        { origin: "https://elsewhere.example", localStorage: [{ name: "foreign", value: "no" }] },
      ],
    };
    const seen = await withScrapePage(
      env,
      {
        country: "US",
        provider: "capture-lab",
        allowedDomains: ["127.0.0.1"],
        signal: AbortSignal.timeout(60_000),
        deadline: Date.now() + 60_000,
      },
      async ({ page }) => {
        await applySessionToPage(page, session, lab);
        await page.goto(`${lab}/`, { waitUntil: "domcontentloaded" });
        return {
          documentCookie: await page.evaluate("document.cookie"),
          storage: await page.evaluate(
            "JSON.stringify({ prefs: localStorage.getItem('prefs'), foreign: localStorage.getItem('foreign') })",
          ),
          cookies: (await page.cookies()).map((cookie) => `${cookie.name}=${cookie.value}${cookie.httpOnly ? " (httpOnly)" : ""}`).sort(),
        };
      },
    );
    expect(seen.cookies).toEqual(["bound=to-the-origin", "secret=http-only (httpOnly)", "visible=yes"]);
    expect(String(seen.documentCookie).split("; ").sort()).toEqual(["bound=to-the-origin", "visible=yes"]);
    expect(JSON.parse(String(seen.storage))).toEqual({ prefs: '{"theme":"dark"}', foreign: null });
  });
});

describe("Amazon Rufus with sign-in required (the replica models the real store)", () => {
  beforeEach(async () => {
    await rufusSignInControl({ reset: true, required: true });
  });
  afterEach(async () => {
    await rufusSignInControl({ reset: true });
    await replicaControl("reset", { provider: RUFUS });
  });

  it("without an account: the sign-in wall → 502, credits restored", async () => {
    const customer = await createTestAccount(30);
    const { status, body } = await scrape(RUFUS, { prompt: "desk lamp" }, customer.apiKey);
    expect(status).toBe(502);
    expect(body.detail).toBe(RUFUS_LOGIN_DETAIL);
    expect(await balanceOf(customer.accountId)).toBe(30);
  });

  it("with a signed-in account: the answer; the session reached the store; the success is on the account", async () => {
    const customer = await createTestAccount(30);
    const session = await rufusSession();
    const account = await storeAccount(RUFUS, session, { marketplace: "amazon.com" });
    const { status, body } = await scrape(RUFUS, { prompt: "desk lamp for a small desk" }, customer.apiKey);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(String(body.result)).toContain("desk lamp for a small desk");
    const [request] = (await replicaRequests(RUFUS)).slice(-1);
    const token = session.cookies.find((cookie) => cookie.name === "at-main")?.value ?? "";
    expect(request?.headers.cookie).toContain(`at-main=${token}`);
    const view = await accountView(account);
    expect(view).toMatchObject({ state: "active", success_count: 1, failure_count: 0 });
    expect(view.last_success_at).not.toBeNull();
  });

  it("a session the site expired: login wall → the account needs attention; a fresh session brings it back", async () => {
    const customer = await createTestAccount(30);
    const account = await storeAccount(RUFUS, await rufusSession(), { marketplace: "amazon.com" });
    expect((await scrape(RUFUS, { prompt: "desk lamp" }, customer.apiKey)).status).toBe(200);
    await fetch(`${env.REPLICA_URL}/amazon_rufus/__control/sessions/expire`, { method: "POST" });
    await discardPreparedPages();

    const walled = await scrape(RUFUS, { prompt: "desk lamp" }, customer.apiKey);
    expect(walled.status).toBe(502);
    expect(walled.body.detail).toBe(RUFUS_LOGIN_DETAIL);
    const view = await accountView(account);
    expect(view).toMatchObject({ state: "needs_attention", last_failure_reason: "login_wall" });
    expect(view.state_reason).toMatch(/login wall/);
    // out of rotation: the next scrape does not use it (and Rufus has no signed-out fallback)
    expect((await scrape(RUFUS, { prompt: "desk lamp" }, customer.apiKey)).status).toBe(502);
    expect((await accountView(account)).failure_count).toBe(1);

    await adminJson(`/admin/provider-accounts/${account.provider_account_id}`, {
      method: "PATCH",
      body: { storage_state: await rufusSession() },
    });
    expect((await scrape(RUFUS, { prompt: "desk lamp" }, customer.apiKey)).status).toBe(200);
    expect(await accountView(account)).toMatchObject({ state: "active", success_count: 2 });
  });

  it("a stale export (cookies past their expiry) is walled and the scrape retried on the next account", async () => {
    const customer = await createTestAccount(30);
    const fresh = await rufusSession();
    const stale: StorageState = { ...fresh, cookies: fresh.cookies.map((cookie) => ({ ...cookie, expires: 1_600_000_000 })) };
    const staleAccount = await storeAccount(RUFUS, stale, { marketplace: "amazon.com" });
    const freshAccount = await storeAccount(RUFUS, fresh, { marketplace: "amazon.com" });
    // the fresh one was used a moment ago, so rotation offers the stale one first
    await env.DB.prepare("UPDATE provider_accounts SET last_used_at = ? WHERE id = ?")
      .bind(new Date().toISOString(), freshAccount.provider_account_id)
      .run();

    const { status, body } = await scrape(RUFUS, { prompt: "desk lamp" }, customer.apiKey);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(await accountView(staleAccount)).toMatchObject({ state: "needs_attention", last_failure_reason: "login_wall" });
    expect(await accountView(freshAccount)).toMatchObject({ state: "active", success_count: 1 });
    expect(await balanceOf(customer.accountId)).toBe(27);
  });

  it("a session belongs to its marketplace", async () => {
    const customer = await createTestAccount(30);
    const german = await storeAccount(RUFUS, await rufusSession("amazon.de"), { marketplace: "amazon.de" });
    expect((await scrape(RUFUS, { prompt: "desk lamp", country: "US" }, customer.apiKey)).status).toBe(502);
    expect((await accountView(german)).failure_count).toBe(0);
    expect((await scrape(RUFUS, { prompt: "Schreibtischlampe", country: "DE" }, customer.apiKey)).status).toBe(200);
    expect((await accountView(german)).success_count).toBe(1);
  });
});

describe("a login wall on any provider: the account needs attention, the scrape is retried once", () => {
  afterEach(async () => {
    await replicaControl("reset", {});
  });

  const SIGNED_OUT_ALLOWED: ReadonlyArray<[provider: string, prompt: string]> = [
    ["chatgpt", "What is the tallest building in the world?"],
    ["perplexity", "Who built the Eiffel Tower?"],
    ["grok", "What is new with Starship?"],
    ["copilot", "How do solar panels work?"],
    ["gemini", "Who designed the Eiffel Tower?"],
    ["google_ai_mode", "How long is a day on Mars?"],
  ];

  for (const [provider, prompt] of SIGNED_OUT_ALLOWED) {
    it(`${provider}: retried signed out → 200; the walled account is out of rotation`, async () => {
      const customer = await createTestAccount(30);
      const marker = `walled-${provider}-${crypto.randomUUID()}`;
      const account = await storeAccount(provider, { cookies: [{ name: "account_marker", value: marker, path: "/" }], origins: [] });
      await replicaControl("faults", { provider, fault: "login_wall", count: 1 });
      const { status, body } = await scrape(provider, { prompt }, customer.apiKey);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(await balanceOf(customer.accountId)).toBe(27);
      expect(await accountView(account)).toMatchObject({ state: "needs_attention", last_failure_reason: "login_wall", failure_count: 1 });
      // the answer came from the signed-out retry: its request carried no account cookie
      const [last] = (await replicaRequests(provider)).slice(-1);
      expect(last?.headers.cookie ?? "").not.toContain(marker);
    });
  }

  it("amazon_rufus: no signed-out retry (Rufus answers only signed-in sessions) → 502, account out of rotation", async () => {
    const customer = await createTestAccount(30);
    const account = await storeAccount(
      RUFUS,
      { cookies: [{ name: "account_marker", value: "rufus", path: "/" }], origins: [] },
      { marketplace: "amazon.com" },
    );
    await replicaControl("faults", { provider: RUFUS, fault: "login_wall", count: 1 });
    const { status, body } = await scrape(RUFUS, { prompt: "desk lamp" }, customer.apiKey);
    expect(status).toBe(502);
    expect(body.detail).toBe(RUFUS_LOGIN_DETAIL);
    expect(await accountView(account)).toMatchObject({ state: "needs_attention", last_failure_reason: "login_wall" });
    expect(await balanceOf(customer.accountId)).toBe(30);
  });
});
