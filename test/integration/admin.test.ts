/** The operator API (issue 5): accounts, keys, credits and sign-in links, behind the ADMIN_TOKEN bearer. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SIGN_UP_CREDITS } from "../../src/accounts/accounts";
import { MAX_ACTIVE_KEYS } from "../../src/accounts/keys";
import { ADMIN_UNAUTHORIZED_DETAIL } from "../../src/http/admin-token";
import { INVALID_KEY_DETAIL } from "../../src/auth/api-keys";
import { isoTimestamp } from "../../src/util/time";
import { adminApi, adminJson, authProbe, cachedScrape, newAccount, newKey } from "../support/workers/account-helpers";
import { api, balanceOf, ledgerOf } from "../support/workers/helpers";

interface AccountDetail {
  account_id: string;
  name: string;
  email: string | null;
  credits: number;
  keys: Array<{
    key_id: string;
    name: string;
    display_prefix: string;
    created_at: string;
    last_used_at: string | null;
    revoked: boolean;
    revoked_at: string | null;
  }>;
  usage: {
    since: string;
    credits_used: number;
    requests: number;
    by_scraper: Array<{ scraper: string; requests: number; credits: number }>;
  };
  recent_activity: Array<{
    kind: string;
    delta: number;
    balance_after: number;
    reason: string;
    operation_id: string | null;
    scraper: string | null;
    key_id: string | null;
  }>;
}

async function detail(response: Response): Promise<string> {
  return ((await response.json()) as { detail: string }).detail;
}

describe("admin token", () => {
  const routes: Array<{ method: string; path: string; body?: unknown }> = [
    { method: "POST", path: "/admin/accounts", body: { name: "X" } },
    { method: "GET", path: "/admin/accounts" },
    { method: "GET", path: "/admin/accounts/acct_x" },
    { method: "POST", path: "/admin/accounts/acct_x/keys", body: { name: "k" } },
    { method: "DELETE", path: "/admin/keys/key_x" },
    { method: "POST", path: "/admin/accounts/acct_x/credits", body: { delta: 5, reason: "r" } },
    { method: "POST", path: "/admin/accounts/acct_x/login-links" },
    { method: "DELETE", path: "/admin/accounts/acct_x/sessions" },
  ];

  it.each(routes)("$method $path: missing, wrong, or non-bearer token → 401 and nothing changes", async (route) => {
    const before = await env.DB.prepare("SELECT COUNT(*) AS n FROM accounts").first<{ n: number }>();
    // Failed attempts are throttled per client address (admin-token.test.ts): each route's attempts come from their own.
    const [high = 0, low = 0] = crypto.getRandomValues(new Uint8Array(2));
    const client = { "CF-Connecting-IP": `198.19.${high}.${low}` };
    for (const token of [null, "wrong-token", `${env.ADMIN_TOKEN}x`, "", env.ADMIN_TOKEN.slice(0, -1)]) {
      const headers = new Headers(client);
      if (token !== null) headers.set("Authorization", `Bearer ${token}`);
      if (route.body !== undefined) headers.set("Content-Type", "application/json");
      const body = route.body === undefined ? undefined : JSON.stringify(route.body);
      const response = await api(route.path, { method: route.method, headers, body });
      expect(response.status).toBe(401);
      expect(await detail(response)).toBe(ADMIN_UNAUTHORIZED_DETAIL);
    }
    const basic = await api(route.path, {
      method: route.method,
      headers: { ...client, Authorization: `Basic ${btoa(`admin:${env.ADMIN_TOKEN}`)}` },
    });
    expect(basic.status).toBe(401);
    const after = await env.DB.prepare("SELECT COUNT(*) AS n FROM accounts").first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
  });

  it("an API key is not an admin token", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    expect((await adminApi(`/admin/accounts/${account.account_id}`, { token: key.api_key })).status).toBe(401);
  });
});

describe("POST /admin/accounts", () => {
  it("creates an account with the 1,500-credit sign-up grant, recorded in the ledger", async () => {
    const account = await newAccount({ email: "Ops@Acme.example" });
    expect(account).toMatchObject({ name: "Acme Research", email: "ops@acme.example", credits: SIGN_UP_CREDITS });
    expect(account.account_id).toMatch(/^acct_[A-Za-z0-9_-]+$/);
    expect(isoTimestamp(account.created_at)).toBe(account.created_at);
    expect(await balanceOf(account.account_id)).toBe(1500);
    expect(await ledgerOf(account.account_id)).toEqual([{ kind: "grant", delta: 1500, operation_id: `signup:${account.account_id}` }]);
  });

  it("takes an explicit starting balance, including 0 (no ledger row for nothing)", async () => {
    const rich = await newAccount({ credits: 90_000 });
    expect(rich.credits).toBe(90_000);
    const empty = await newAccount({ credits: 0 });
    expect(empty.credits).toBe(0);
    expect(await ledgerOf(empty.account_id)).toEqual([]);
  });

  it("refuses a second account with the same email (case-insensitive) with 409", async () => {
    await newAccount({ email: "dup@example.com" });
    const ledgerRows = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM credit_ledger").first<{ n: number }>())?.n;
    const before = await ledgerRows();
    const response = await adminApi("/admin/accounts", { method: "POST", body: { name: "Other", email: "DUP@example.com" } });
    expect(response.status).toBe(409);
    expect(await detail(response)).toBe("email: an account with this email already exists");
    // the refused account left no sign-up grant behind
    expect(await ledgerRows()).toBe(before);
  });

  it.each([
    [{}, "name: is required"],
    [{ name: "   " }, "name: must be 1 to 100 characters and not blank"],
    [{ name: "x".repeat(101) }, "name: must be 1 to 100 characters and not blank"],
    [{ name: 42 }, "name: must be a string"],
    [{ name: "A", email: "not-an-email" }, "email: must be a valid email address"],
    [{ name: "A", credits: -1 }, "credits: must be an integer from 0 to 1000000000"],
    [{ name: "A", credits: 1.5 }, "credits: must be an integer from 0 to 1000000000"],
    [{ name: "A", credits: "100" }, "credits: must be an integer from 0 to 1000000000"],
  ])("invalid body %j → 400 %s", async (body, expected) => {
    const response = await adminApi("/admin/accounts", { method: "POST", body });
    expect(response.status).toBe(400);
    expect(await detail(response)).toBe(expected);
  });

  it("refuses unknown fields rather than ignoring a typo", async () => {
    const response = await adminApi("/admin/accounts", { method: "POST", body: { name: "A", credit: 10 } });
    expect(response.status).toBe(400);
    expect(await detail(response)).toContain("credit");
  });

  it("refuses a body that is not JSON", async () => {
    const response = await api("/admin/accounts", {
      method: "POST",
      headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: "{name:",
    });
    expect(response.status).toBe(400);
  });
});

describe("GET /admin/accounts", () => {
  it("lists accounts newest first and pages with `before`", async () => {
    const first = await newAccount({ name: "Page one" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await newAccount({ name: "Page two" });
    const { accounts } = await adminJson<{ accounts: Array<{ account_id: string; created_at: string }> }>("/admin/accounts?limit=200");
    const ids = accounts.map((account) => account.account_id);
    expect(ids.indexOf(second.account_id)).toBeLessThan(ids.indexOf(first.account_id));
    const older = await adminJson<{ accounts: Array<{ account_id: string }> }>(
      `/admin/accounts?before=${encodeURIComponent(second.created_at)}&limit=200`,
    );
    expect(older.accounts.map((account) => account.account_id)).not.toContain(second.account_id);
    expect(older.accounts.map((account) => account.account_id)).toContain(first.account_id);
    expect((await adminApi("/admin/accounts?limit=0")).status).toBe(400);
  });
});

describe("keys", () => {
  it("creates a key shown once; only its hash is stored; the account view lists it without the secret", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id, "CI pipeline");
    expect(key.api_key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(key.key_id).toMatch(/^key_/);
    expect(key.api_key.startsWith(key.display_prefix)).toBe(true);
    expect((await authProbe(key.api_key)).status).toBe(200);

    const view = await adminJson<AccountDetail>(`/admin/accounts/${account.account_id}`);
    // The probe above used the key (authenticated, then 200), so it has a last use even though nothing was charged.
    expect(view.keys).toEqual([
      {
        key_id: key.key_id,
        name: "CI pipeline",
        display_prefix: key.display_prefix,
        scope: "scrape",
        created_at: key.created_at,
        last_used_at: expect.any(String),
        revoked: false,
        revoked_at: null,
      },
    ]);
    expect(Date.parse(view.keys[0]?.last_used_at ?? "")).toBeGreaterThanOrEqual(Date.parse(key.created_at));
    expect(JSON.stringify(view)).not.toContain(key.api_key);
    const row = await env.DB.prepare("SELECT key_hash FROM api_keys WHERE id = ?").bind(key.key_id).first<{ key_hash: string }>();
    expect(row?.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("404 for an unknown account; 400 for a blank name", async () => {
    const missing = await adminApi("/admin/accounts/acct_missing/keys", { method: "POST", body: { name: "k" } });
    expect(missing.status).toBe(404);
    expect(await detail(missing)).toBe("Account not found.");
    const account = await newAccount();
    const blank = await adminApi(`/admin/accounts/${account.account_id}/keys`, { method: "POST", body: { name: " " } });
    expect(blank.status).toBe(400);
    expect(await detail(blank)).toBe("name: must be 1 to 100 characters and not blank");
  });

  it("revoking a key makes the very next request with it 401, and leaves the account's other keys working", async () => {
    const account = await newAccount();
    const doomed = await newKey(account.account_id, "Old laptop");
    const kept = await newKey(account.account_id, "Server");
    expect((await authProbe(doomed.api_key)).status).toBe(200);

    const response = await adminApi(`/admin/keys/${doomed.key_id}`, { method: "DELETE" });
    expect(response.status).toBe(200);
    const revoked = (await response.json()) as { key_id: string; account_id: string; revoked: boolean; revoked_at: string };
    expect(revoked).toMatchObject({ key_id: doomed.key_id, account_id: account.account_id, revoked: true });

    const next = await authProbe(doomed.api_key);
    expect(next.status).toBe(401);
    expect(await detail(next)).toBe(INVALID_KEY_DETAIL);
    expect((await api("/account", { apiKey: doomed.api_key })).status).toBe(401);
    expect((await authProbe(kept.api_key)).status).toBe(200);

    // Idempotent: the first revocation time is kept.
    const again = (await adminJson<{ revoked_at: string }>(`/admin/keys/${doomed.key_id}`, { method: "DELETE" })).revoked_at;
    expect(again).toBe(revoked.revoked_at);
    const view = await adminJson<AccountDetail>(`/admin/accounts/${account.account_id}`);
    expect(view.keys.map((key) => [key.name, key.revoked])).toEqual([
      ["Server", false],
      ["Old laptop", true],
    ]);
  });

  it("revoking an unknown key → 404", async () => {
    const response = await adminApi("/admin/keys/key_nope", { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(await detail(response)).toBe("API key not found.");
  });

  it(`caps an account at ${MAX_ACTIVE_KEYS} active keys (409); revoking one frees a slot`, async () => {
    const account = await newAccount();
    const keys = [];
    for (let index = 0; index < MAX_ACTIVE_KEYS; index += 1) keys.push(await newKey(account.account_id, `key ${index}`));
    const refused = await adminApi(`/admin/accounts/${account.account_id}/keys`, { method: "POST", body: { name: "one too many" } });
    expect(refused.status).toBe(409);
    const first = keys[0];
    if (first === undefined) throw new Error("no key");
    await adminJson(`/admin/keys/${first.key_id}`, { method: "DELETE" });
    await newKey(account.account_id, "replacement");
  });
});

describe("credits", () => {
  it("several keys share one balance; each charge is attributed to its key", async () => {
    const account = await newAccount({ credits: 100 });
    const a = await newKey(account.account_id, "A");
    const b = await newKey(account.account_id, "B");
    const first = await cachedScrape(a.api_key, "shared balance one");
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Credits-Remaining")).toBe("97");
    const second = await cachedScrape(b.api_key, "shared balance two");
    expect(second.status).toBe(200);
    expect(second.headers.get("X-Credits-Remaining")).toBe("94");
    expect(await balanceOf(account.account_id)).toBe(94);

    const view = await adminJson<AccountDetail>(`/admin/accounts/${account.account_id}`);
    expect(view.credits).toBe(94);
    expect(view.usage).toMatchObject({ credits_used: 6, requests: 2, by_scraper: [{ scraper: "grok", requests: 2, credits: 6 }] });
    expect(view.recent_activity.map((entry) => [entry.kind, entry.delta, entry.balance_after, entry.key_id])).toEqual([
      ["charge", -3, 94, b.key_id],
      ["charge", -3, 97, a.key_id],
      ["grant", 100, 100, null],
    ]);
    // Each key's "last used" comes from its own charges.
    const byName = new Map(view.keys.map((key) => [key.name, key]));
    expect(byName.get("A")?.last_used_at).not.toBeNull();
    expect(byName.get("B")?.last_used_at).not.toBeNull();
  });

  it("a top-up and a correction change the balance and are recorded as adjustments", async () => {
    const account = await newAccount({ credits: 10 });
    expect(
      await adminJson(`/admin/accounts/${account.account_id}/credits`, {
        method: "POST",
        body: { delta: 500, reason: "Invoice 114 paid" },
      }),
    ).toEqual({
      account_id: account.account_id,
      credits: 510,
      delta: 500,
    });
    expect(
      await adminJson(`/admin/accounts/${account.account_id}/credits`, {
        method: "POST",
        body: { delta: -10, reason: "Duplicate top-up" },
      }),
    ).toMatchObject({
      credits: 500,
    });
    const ledger = await env.DB.prepare("SELECT kind, delta, balance_after, reason FROM credit_ledger WHERE account_id = ? ORDER BY id")
      .bind(account.account_id)
      .all();
    expect(ledger.results).toEqual([
      { kind: "grant", delta: 10, balance_after: 10, reason: "sign-up credits" },
      { kind: "adjustment", delta: 500, balance_after: 510, reason: "Invoice 114 paid" },
      { kind: "adjustment", delta: -10, balance_after: 500, reason: "Duplicate top-up" },
    ]);
  });

  it("never takes the balance below 0: a larger removal is refused with 409 and changes nothing", async () => {
    const account = await newAccount({ credits: 7 });
    const response = await adminApi(`/admin/accounts/${account.account_id}/credits`, {
      method: "POST",
      body: { delta: -8, reason: "too much" },
    });
    expect(response.status).toBe(409);
    expect(await detail(response)).toBe("delta: would take the balance below 0 (the balance is 7); nothing was changed");
    expect(await balanceOf(account.account_id)).toBe(7);
    expect(await ledgerOf(account.account_id)).toHaveLength(1);
    // Down to exactly 0 is allowed, and then scrapes are refused with 429 (not 401).
    expect(
      await adminJson(`/admin/accounts/${account.account_id}/credits`, { method: "POST", body: { delta: -7, reason: "zero" } }),
    ).toMatchObject({ credits: 0 });
    const key = await newKey(account.account_id);
    const scrape = await cachedScrape(key.api_key, "no credits left");
    expect(scrape.status).toBe(429);
    expect(await balanceOf(account.account_id)).toBe(0);
  });

  it("concurrent removals and charges never overdraw the account", async () => {
    const account = await newAccount({ credits: 20 });
    const key = await newKey(account.account_id);
    const removals = Array.from({ length: 6 }, () =>
      adminApi(`/admin/accounts/${account.account_id}/credits`, { method: "POST", body: { delta: -4, reason: "race" } }),
    );
    const scrapes = Array.from({ length: 4 }, (_, index) => cachedScrape(key.api_key, `race ${index}`));
    const statuses = (await Promise.all([...removals, ...scrapes])).map((response) => response.status);
    const balance = await balanceOf(account.account_id);
    expect(balance).toBeGreaterThanOrEqual(0);
    const removed = statuses.slice(0, 6).filter((status) => status === 200).length * 4;
    const charged = statuses.slice(6).filter((status) => status === 200).length * 3;
    expect(balance).toBe(20 - removed - charged);
    const sum = await env.DB.prepare("SELECT SUM(delta) AS total FROM credit_ledger WHERE account_id = ?")
      .bind(account.account_id)
      .first<{ total: number }>();
    expect(sum?.total).toBe(balance);
  });

  it.each([
    [{ delta: 0, reason: "r" }, "delta: must be a non-zero integer from -1000000000 to 1000000000"],
    [{ delta: 2.5, reason: "r" }, "delta: must be a non-zero integer from -1000000000 to 1000000000"],
    [{ delta: 5 }, "reason: is required"],
    [{ delta: 5, reason: "  " }, "reason: must be 1 to 200 characters and not blank"],
    [{ reason: "r" }, "delta: must be a non-zero integer from -1000000000 to 1000000000"],
  ])("invalid body %j → 400 %s", async (body, expected) => {
    const account = await newAccount();
    const response = await adminApi(`/admin/accounts/${account.account_id}/credits`, { method: "POST", body });
    expect(response.status).toBe(400);
    expect(await detail(response)).toBe(expected);
  });

  it("unknown account → 404", async () => {
    expect((await adminApi("/admin/accounts/acct_nope/credits", { method: "POST", body: { delta: 5, reason: "r" } })).status).toBe(404);
    expect((await adminApi("/admin/accounts/acct_nope")).status).toBe(404);
  });
});

describe("login links", () => {
  it("issues a one-time link into the dashboard, valid for 1 hour by default", async () => {
    const account = await newAccount();
    const link = await adminJson<{ login_url: string; expires_at: string }>(
      `/admin/accounts/${account.account_id}/login-links`,
      { method: "POST" },
      201,
    );
    // The token is the URL's fragment: browsers never send it, so it is in no request log (docs/limits.md).
    expect(link.login_url).toMatch(/^http:\/\/api\.test\/dashboard\/login#[A-Za-z0-9_-]{43}$/);
    const minutes = (new Date(link.expires_at).getTime() - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(59.9);
    expect(minutes).toBeLessThanOrEqual(60);
    const token = link.login_url.split("#").pop() ?? "";
    const stored = await env.DB.prepare("SELECT token_hash FROM login_links WHERE account_id = ?")
      .bind(account.account_id)
      .first<{ token_hash: string }>();
    expect(stored?.token_hash).not.toBe(token);
  });

  it("takes ttl_minutes within bounds; 404 for an unknown account", async () => {
    const account = await newAccount();
    const short = await adminJson<{ expires_at: string }>(
      `/admin/accounts/${account.account_id}/login-links`,
      { method: "POST", body: { ttl_minutes: 10 } },
      201,
    );
    expect(new Date(short.expires_at).getTime() - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    const invalid = await adminApi(`/admin/accounts/${account.account_id}/login-links`, { method: "POST", body: { ttl_minutes: 1 } });
    expect(invalid.status).toBe(400);
    expect(await detail(invalid)).toBe("ttl_minutes: must be an integer from 5 to 1440");
    expect((await adminApi("/admin/accounts/acct_nope/login-links", { method: "POST" })).status).toBe(404);
  });
});

describe("OpenAPI", () => {
  it("documents every operator route in the operator's document with the admin token, and the account route for customers", async () => {
    const document = (await (await adminApi("/admin/openapi.json")).json()) as {
      paths: Record<string, Record<string, { security?: Array<Record<string, string[]>>; tags?: string[] }>>;
    };
    const expected: Array<[string, string]> = [
      ["/admin/accounts", "post"],
      ["/admin/accounts", "get"],
      ["/admin/accounts/{account_id}", "get"],
      ["/admin/accounts/{account_id}/keys", "post"],
      ["/admin/keys/{key_id}", "delete"],
      ["/admin/accounts/{account_id}/credits", "post"],
      ["/admin/accounts/{account_id}/login-links", "post"],
      ["/admin/accounts/{account_id}/sessions", "delete"],
    ];
    for (const [path, method] of expected) {
      const operation = document.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation?.security).toEqual([{ AdminToken: [] }]);
    }
    const customers = (await (await api("/openapi.json")).json()) as typeof document;
    expect(customers.paths["/account"]?.get?.security).toEqual([{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }]);
    // The dashboard is HTML for people, not part of the JSON API.
    for (const paths of [document.paths, customers.paths])
      expect(Object.keys(paths).some((path) => path.startsWith("/dashboard"))).toBe(false);
  });
});
