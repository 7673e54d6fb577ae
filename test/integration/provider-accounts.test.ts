/**
 * Provider accounts through the Worker and real D1 (issue 12, item 3; docs/real-sites.md), without a browser: the
 * operator API (validation, masking, never the session in full), encryption at rest, rotation, and what a scrape's
 * outcome does to an account. The browser side (cookies in the page, the Rufus sign-in wall, the retry after a login
 * wall on every provider) is test/e2e/provider-accounts.test.ts.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { UpstreamError } from "../../src/errors";
import { SessionCipher, providerAccountsSecret } from "../../src/provider-accounts/session-cipher";
import { claimProviderAccount, recordAccountFailure, recordAccountSuccess } from "../../src/provider-accounts/store";
import { withProviderAccount } from "../../src/provider-accounts/with-provider-account";
import { providerById } from "../../src/scrapers/registry";
import { adminApi, adminJson, cachedScrape } from "../support/workers/account-helpers";
import { createTestAccount } from "../support/workers/helpers";

interface ProviderAccount {
  provider_account_id: string;
  provider: string;
  marketplace: string | null;
  label: string;
  state: "active" | "needs_attention" | "disabled";
  state_reason: string | null;
  session: {
    cookies: Array<{ name: string; domain: string | null; path: string; expires_at: string | null; value: string }>;
    local_storage: Array<{ origin: string; keys: string[] }>;
    expires_at: string | null;
    fingerprint: string;
  };
  last_used_at: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_failure_reason: string | null;
  success_count: number;
  failure_count: number;
  consecutive_failures: number;
}

const SECRET_VALUE = "sso-secret-value-Zq81xV0pLm3";
const IN_A_YEAR = Math.floor(Date.now() / 1000) + 365 * 24 * 3600;

function storageState(value = SECRET_VALUE) {
  return {
    cookies: [
      { name: "sso", value, domain: ".grok.com", path: "/", expires: IN_A_YEAR, httpOnly: true, secure: true, sameSite: "Lax" },
      { name: "short", value: "abc", domain: ".grok.com", path: "/", expires: -1, httpOnly: false, secure: true, sameSite: "Lax" },
    ],
    origins: [{ origin: "https://grok.com", localStorage: [{ name: "anonUserId", value: "local-storage-secret-123" }] }],
  };
}

function create(body: Record<string, unknown>): Promise<ProviderAccount> {
  return adminJson<ProviderAccount>(
    "/admin/provider-accounts",
    { method: "POST", body: { label: "grok-1", provider: "grok", storage_state: storageState(), ...body } },
    201,
  );
}

async function detailOf(response: Response): Promise<string> {
  const body = (await response.json()) as { detail?: string };
  return body.detail ?? "";
}

async function cipher(): Promise<SessionCipher> {
  const secret = providerAccountsSecret(env);
  if (secret === null) throw new Error("PROVIDER_ACCOUNTS_KEY is not configured for the tests (vitest.config.ts)");
  return SessionCipher.fromSecret(secret);
}

beforeEach(async () => {
  await env.DB.prepare("DELETE FROM provider_accounts").run();
});

describe("operator API: storing a session", () => {
  it("stores it encrypted and answers it only masked", async () => {
    const response = await adminApi("/admin/provider-accounts", {
      method: "POST",
      body: { provider: "grok", label: "  grok-1 ", storage_state: storageState() },
    });
    expect(response.status).toBe(201);
    const text = await response.text();
    expect(text).not.toContain(SECRET_VALUE);
    expect(text).not.toContain("local-storage-secret-123");
    const account = JSON.parse(text) as ProviderAccount;
    expect(account).toMatchObject({
      provider: "grok",
      marketplace: null,
      label: "grok-1",
      state: "active",
      state_reason: null,
      last_used_at: null,
      last_success_at: null,
      failure_count: 0,
    });
    expect(account.provider_account_id).toMatch(/^pa_[A-Za-z0-9_-]{16}$/);
    expect(account.session.cookies).toEqual([
      {
        name: "sso",
        domain: ".grok.com",
        path: "/",
        expires_at: expect.stringMatching(/^\d{4}-/),
        secure: true,
        http_only: true,
        value: "…pLm3",
      },
      { name: "short", domain: ".grok.com", path: "/", expires_at: null, secure: true, http_only: false, value: "…" },
    ]);
    expect(account.session.local_storage).toEqual([{ origin: "https://grok.com", keys: ["anonUserId"] }]);
    expect(account.session.expires_at).toBe(account.session.cookies[0]?.expires_at);
    expect(account.session.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it("keeps only ciphertext in D1, bound to its row", async () => {
    const first = await create({});
    const second = await create({ label: "grok-2", storage_state: storageState("another-session-value-000000") });
    const row = await env.DB.prepare("SELECT * FROM provider_accounts WHERE id = ?")
      .bind(first.provider_account_id)
      .first<Record<string, unknown>>();
    expect(JSON.stringify(row)).not.toContain(SECRET_VALUE);
    expect(JSON.stringify(row)).not.toContain("local-storage-secret-123");
    const sealed = { ciphertext: String(row?.session_ciphertext), iv: String(row?.session_iv) };
    const opened = JSON.parse(await (await cipher()).open(sealed, `${first.provider_account_id}\ngrok\n`)) as ReturnType<
      typeof storageState
    >;
    expect(opened.cookies[0]?.value).toBe(SECRET_VALUE);
    // the same ciphertext under another row's identity does not decrypt
    await expect((await cipher()).open(sealed, `${second.provider_account_id}\ngrok\n`)).rejects.toThrow();
    // nor under another key
    await expect(
      (await SessionCipher.fromSecret("another-secret-of-at-least-32-characters")).open(sealed, `${first.provider_account_id}\ngrok\n`),
    ).rejects.toThrow();
  });

  it("refuses what it cannot use, naming the field", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ provider: "bing" }, /^provider: must be one of chatgpt, /],
      [{ marketplace: "amazon.de" }, /^marketplace: grok sessions serve every country; leave it out$/],
      [
        { provider: "amazon_rufus" },
        /^marketplace: amazon_rufus sessions belong to one marketplace; give one of amazon\.com, amazon\.co\.uk, /,
      ],
      [{ provider: "amazon_rufus", marketplace: "amazon.xx" }, /^marketplace: amazon_rufus sessions belong to one marketplace/],
      [{ storage_state: { cookies: [], origins: [] } }, /^storage_state: must hold at least one cookie or one localStorage item$/],
      [{ storage_state: { cookies: [{ name: "a", value: "b", expirationDate: 1 }] } }, /^storage_state\.cookies\.0: /],
      [
        { storage_state: { cookies: [{ name: "a", value: "b", sameSite: "no_restriction" }] } },
        /^storage_state\.cookies\.0\.sameSite: must be Strict, Lax or None$/,
      ],
      [{ label: " " }, /^label: must be 1 to 100 characters and not blank$/],
    ];
    for (const [body, detail] of cases) {
      const response = await adminApi("/admin/provider-accounts", {
        method: "POST",
        body: { label: "x", provider: "grok", storage_state: storageState(), ...body },
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await detailOf(response), JSON.stringify(body)).toMatch(detail);
    }
    const unauthorized = await adminApi("/admin/provider-accounts", { token: null });
    expect(unauthorized.status).toBe(401);
    expect((await adminJson<{ provider_accounts: unknown[] }>("/admin/provider-accounts")).provider_accounts).toEqual([]);
  });

  it("stores an Amazon session for one marketplace", async () => {
    const account = await create({ provider: "amazon_rufus", marketplace: "AMAZON.DE", label: "rufus-de" });
    expect(account.marketplace).toBe("amazon.de");
  });
});

describe("operator API: the view, changes and deletion", () => {
  it("lists accounts with their state, filtered by provider and state; gets one; 404 for an unknown id", async () => {
    const grok = await create({});
    const rufus = await create({ provider: "amazon_rufus", marketplace: "amazon.com", label: "rufus-us" });
    const all = await adminJson<{ provider_accounts: ProviderAccount[] }>("/admin/provider-accounts");
    expect(all.provider_accounts.map((account) => account.provider_account_id)).toEqual([
      rufus.provider_account_id,
      grok.provider_account_id,
    ]);
    const onlyGrok = await adminJson<{ provider_accounts: ProviderAccount[] }>("/admin/provider-accounts?provider=grok&state=active");
    expect(onlyGrok.provider_accounts.map((account) => account.label)).toEqual(["grok-1"]);
    expect((await adminJson<{ provider_accounts: unknown[] }>("/admin/provider-accounts?state=disabled")).provider_accounts).toEqual([]);
    expect((await adminApi("/admin/provider-accounts?state=broken")).status).toBe(400);
    expect(await adminJson<ProviderAccount>(`/admin/provider-accounts/${grok.provider_account_id}`)).toEqual(grok);
    const missing = await adminApi("/admin/provider-accounts/pa_nope");
    expect(missing.status).toBe(404);
    expect(await detailOf(missing)).toBe("Provider account not found.");
  });

  it("renames, disables, re-enables and refreshes the session (which puts it back in rotation)", async () => {
    const account = await create({});
    const path = `/admin/provider-accounts/${account.provider_account_id}`;
    expect(await adminJson<ProviderAccount>(path, { method: "PATCH", body: { label: "grok-main" } })).toMatchObject({
      label: "grok-main",
      state: "active",
    });
    expect(await adminJson<ProviderAccount>(path, { method: "PATCH", body: { state: "disabled" } })).toMatchObject({ state: "disabled" });
    await recordAccountFailure(env.DB, account.provider_account_id, "login_wall");
    // a disabled account stays disabled whatever happens to a scrape
    expect(await adminJson<ProviderAccount>(path)).toMatchObject({ state: "disabled", failure_count: 1 });
    const refreshed = await adminJson<ProviderAccount>(path, {
      method: "PATCH",
      body: { storage_state: storageState("fresh-session-value-99999999") },
    });
    expect(refreshed).toMatchObject({ state: "active", state_reason: null, consecutive_failures: 0, failure_count: 1 });
    expect(refreshed.session.cookies[0]?.value).toBe("…9999");
    expect(refreshed.session.fingerprint).not.toBe(account.session.fingerprint);
    const empty = await adminApi(path, { method: "PATCH", body: {} });
    expect(empty.status).toBe(400);
    expect(await detailOf(empty)).toMatch(/give at least one of label, storage_state, state/);
    expect((await adminApi(path, { method: "PATCH", body: { state: "needs_attention" } })).status).toBe(400);
  });

  it("deletes an account and its session", async () => {
    const account = await create({});
    const path = `/admin/provider-accounts/${account.provider_account_id}`;
    const deleted = await adminApi(path, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect((await adminApi(path)).status).toBe(404);
    expect((await adminApi(path, { method: "DELETE" })).status).toBe(404);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM provider_accounts").first<{ n: number }>()).toEqual({ n: 0 });
  });
});

describe("rotation and outcomes", () => {
  it("claims the least recently used active account of the provider and marketplace, never a set-aside one", async () => {
    const a = await create({ label: "a" });
    const b = await create({ label: "b" });
    const c = await create({ label: "c" });
    await create({ provider: "amazon_rufus", marketplace: "amazon.com", label: "rufus" });
    const key = await cipher();
    const claims: string[] = [];
    for (let round = 0; round < 6; round += 1) claims.push((await claimProviderAccount(env.DB, key, "grok", ""))?.id ?? "none");
    // each account once, then the same order again: least recently used first
    expect([...claims.slice(0, 3)].sort()).toEqual([a, b, c].map((account) => account.provider_account_id).sort());
    expect(claims.slice(3)).toEqual(claims.slice(0, 3));
    // the next one would be claims[0]; excluding it gives claims[1]
    expect((await claimProviderAccount(env.DB, key, "grok", "", claims[0] ?? null))?.id).toBe(claims[1]);
    const claimed = await claimProviderAccount(env.DB, key, "grok", "");
    expect(claimed?.session.cookies[0]?.value).toBe(SECRET_VALUE);

    await adminJson(`/admin/provider-accounts/${a.provider_account_id}`, { method: "PATCH", body: { state: "disabled" } });
    await recordAccountFailure(env.DB, b.provider_account_id, "login_wall");
    for (let round = 0; round < 3; round += 1)
      expect((await claimProviderAccount(env.DB, key, "grok", ""))?.id).toBe(c.provider_account_id);
    expect(await claimProviderAccount(env.DB, key, "grok", "", c.provider_account_id)).toBeNull();
    expect(await claimProviderAccount(env.DB, key, "amazon_rufus", "amazon.de")).toBeNull();
    expect(await claimProviderAccount(env.DB, key, "chatgpt", "")).toBeNull();
  });

  it("sets aside an account whose session no longer decrypts (e.g. the key changed) and claims the next", async () => {
    const broken = await create({ label: "broken" });
    const good = await create({ label: "good" });
    // the ciphertext of another row does not decrypt under this row's identity
    await env.DB.prepare(
      "UPDATE provider_accounts SET session_ciphertext = (SELECT session_ciphertext FROM provider_accounts WHERE id = ?2), session_iv = (SELECT session_iv FROM provider_accounts WHERE id = ?2) WHERE id = ?1",
    )
      .bind(broken.provider_account_id, good.provider_account_id)
      .run();
    expect((await claimProviderAccount(env.DB, await cipher(), "grok", ""))?.id).toBe(good.provider_account_id);
    const view = await adminJson<ProviderAccount>(`/admin/provider-accounts/${broken.provider_account_id}`);
    expect(view.state).toBe("needs_attention");
    expect(view.state_reason).toMatch(/cannot be decrypted with the current PROVIDER_ACCOUNTS_KEY/);
  });

  it("records successes and failures; a login wall takes the account out of rotation with a reason", async () => {
    const account = await create({});
    const path = `/admin/provider-accounts/${account.provider_account_id}`;
    await recordAccountFailure(env.DB, account.provider_account_id, "timeout");
    await recordAccountFailure(env.DB, account.provider_account_id, "challenge");
    expect(await adminJson<ProviderAccount>(path)).toMatchObject({
      state: "active",
      failure_count: 2,
      consecutive_failures: 2,
      last_failure_reason: "challenge",
    });
    await recordAccountSuccess(env.DB, account.provider_account_id);
    const succeeded = await adminJson<ProviderAccount>(path);
    expect(succeeded).toMatchObject({ state: "active", success_count: 1, failure_count: 2, consecutive_failures: 0 });
    expect(succeeded.last_success_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*\+00:00$/);
    await recordAccountFailure(env.DB, account.provider_account_id, "login_wall");
    const walled = await adminJson<ProviderAccount>(path);
    expect(walled).toMatchObject({ state: "needs_attention", last_failure_reason: "login_wall", failure_count: 3 });
    expect(walled.state_reason).toMatch(/^the site showed a login wall at .*: sign in again and store the new session$/);
  });
});

describe("a scrape's use of the accounts (the pipeline's wrapper, with a stand-in for the browser page)", () => {
  const grok = providerById("grok");
  const rufus = providerById("amazon_rufus");
  if (grok === undefined || rufus === undefined) throw new Error("providers missing");
  const params = { prompt: "x", country: "US", bypass_cache: false, timeout: 60, api_key: undefined };
  const signal = new AbortController().signal;
  const loginWall = (): UpstreamError =>
    new UpstreamError("Grok requires a login: the browser session is not signed in to grok.com.", {
      retryable: false,
      reason: "login_wall",
    });

  it("runs signed out when the provider has no account", async () => {
    const sessions: Array<string | null> = [];
    const answer = await withProviderAccount(env, { provider: grok, params, signal }, async (session) => {
      sessions.push(session?.cookies[0]?.value ?? null);
      return "answer";
    });
    expect(answer).toBe("answer");
    expect(sessions).toEqual([null]);
  });

  it("hands the session to the page, and records the success on the account", async () => {
    const account = await create({});
    const seen = await withProviderAccount(env, { provider: grok, params, signal }, async (session) => session?.cookies[0]?.value ?? null);
    expect(seen).toBe(SECRET_VALUE);
    expect(await adminJson<ProviderAccount>(`/admin/provider-accounts/${account.provider_account_id}`)).toMatchObject({
      success_count: 1,
      state: "active",
    });
  });

  it("after a login wall: marks the account, retries once on another account", async () => {
    const walled = await create({ label: "walled", storage_state: storageState("walled-session-value-0000000") });
    const good = await create({ label: "good", storage_state: storageState("good-session-value-111111111") });
    // "good" was used a moment ago, so rotation offers "walled" first
    await env.DB.prepare("UPDATE provider_accounts SET last_used_at = ? WHERE id = ?")
      .bind(new Date().toISOString(), good.provider_account_id)
      .run();
    const tried: Array<string | null> = [];
    const answer = await withProviderAccount(env, { provider: grok, params, signal }, async (session) => {
      const value = session?.cookies[0]?.value ?? null;
      tried.push(value);
      if (value === "walled-session-value-0000000") throw loginWall();
      return "answer";
    });
    expect(answer).toBe("answer");
    expect(tried).toEqual(["walled-session-value-0000000", "good-session-value-111111111"]);
    expect(await adminJson<ProviderAccount>(`/admin/provider-accounts/${walled.provider_account_id}`)).toMatchObject({
      state: "needs_attention",
      last_failure_reason: "login_wall",
    });
    expect(await adminJson<ProviderAccount>(`/admin/provider-accounts/${good.provider_account_id}`)).toMatchObject({
      state: "active",
      success_count: 1,
    });
  });

  it("after a login wall on the only account: signed out where the provider allows it, not on Amazon", async () => {
    await create({});
    const tried: Array<string | null> = [];
    const answer = await withProviderAccount(env, { provider: grok, params, signal }, async (session) => {
      tried.push(session === null ? null : "account");
      if (session !== null) throw loginWall();
      return "signed-out answer";
    });
    expect(answer).toBe("signed-out answer");
    expect(tried).toEqual(["account", null]);

    await create({ provider: "amazon_rufus", marketplace: "amazon.com", label: "rufus-us" });
    const rufusTries: Array<string | null> = [];
    const rufusWall = new UpstreamError("Amazon asked the browser session to sign in: Rufus answers only signed-in sessions.", {
      retryable: false,
      reason: "login_wall",
    });
    await expect(
      withProviderAccount(env, { provider: rufus, params, signal }, async (session) => {
        rufusTries.push(session === null ? null : "account");
        throw rufusWall;
      }),
    ).rejects.toBe(rufusWall);
    expect(rufusTries).toEqual(["account"]);
  });

  it("any other failure is counted on the account and not retried", async () => {
    const account = await create({});
    const failure = new UpstreamError("Grok answered with an anti-bot challenge. Safe to retry.", { reason: "challenge" });
    let attempts = 0;
    await expect(
      withProviderAccount(env, { provider: grok, params, signal }, async () => {
        attempts += 1;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(attempts).toBe(1);
    expect(await adminJson<ProviderAccount>(`/admin/provider-accounts/${account.provider_account_id}`)).toMatchObject({
      state: "active",
      failure_count: 1,
      last_failure_reason: "challenge",
    });
  });

  it("a cached answer uses no account", async () => {
    const account = await create({});
    const customer = await createTestAccount(30);
    expect((await cachedScrape(customer.apiKey)).status).toBe(200);
    expect(await adminJson<ProviderAccount>(`/admin/provider-accounts/${account.provider_account_id}`)).toMatchObject({
      last_used_at: null,
      success_count: 0,
    });
  });
});
