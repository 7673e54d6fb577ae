/**
 * API key scopes (issue 30, point 5): a `scrape` key (the default, and what every key created before scopes is) runs
 * scrapes, jobs and batches (a batch's own `webhook_url` included) and reads `GET /account`, but is refused with 403
 * `insufficient_scope` on every webhook route of the key holder, so a leaked scraping key can neither read the signing
 * secret nor re-point the account's webhook; a `manage` key and the dashboard may. Keys are created with a scope by the
 * operator API and the dashboard.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/auth/api-keys";
import { adminApi, adminJson, cachedScrape, newAccount, newKey } from "../support/workers/account-helpers";
import { accountWebhook, postBatch, receiverEndpoint, seedAnswer, waitForDeliveries } from "../support/workers/async-helpers";
import { signedInVisitor } from "../support/workers/dashboard-visitor";
import { api, createTestAccount, query } from "../support/workers/helpers";

const HOOK_URL = "https://public.example/hooks/scraper";

interface ManageRoute {
  name: string;
  path: string;
  method: string;
  body?: unknown;
}

/** Every key-holder route that reads or changes webhook settings, secrets or the delivery log. */
const MANAGE_ROUTES: ManageRoute[] = [
  { name: "show the endpoint and secret", method: "GET", path: "/account/webhook" },
  { name: "set the endpoint", method: "PUT", path: "/account/webhook", body: { url: HOOK_URL } },
  { name: "remove the endpoint", method: "DELETE", path: "/account/webhook" },
  { name: "rotate the secret", method: "POST", path: "/account/webhook/rotate-secret" },
  { name: "read the delivery log", method: "GET", path: "/account/webhook/deliveries" },
];

function call(route: ManageRoute, apiKey: string, viaQuery = false): Promise<Response> {
  const path = viaQuery ? `${route.path}?${query({ api_key: apiKey })}` : route.path;
  return api(path, {
    method: route.method,
    ...(viaQuery ? {} : { apiKey }),
    ...(route.body === undefined ? {} : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(route.body) }),
  });
}

async function errorOf(response: Response): Promise<{ detail: string; code: string }> {
  return response.json<{ detail: string; code: string }>();
}

async function accountKey(apiKey: string): Promise<{ key_id: string; name: string; scope: string }> {
  const response = await api("/account", { apiKey });
  expect(response.status).toBe(200);
  return (await response.json<{ key: { key_id: string; name: string; scope: string } }>()).key;
}

describe("a scrape key on the webhook routes", () => {
  it.each(MANAGE_ROUTES)(
    "is refused to $name ($method $path): 403 insufficient_scope, saying which scope and where to get it",
    async (route) => {
      const account = await createTestAccount(100, "scrape");
      const before = await accountWebhook(account.accountId);
      for (const viaQuery of [false, true]) {
        const response = await call(route, account.apiKey, viaQuery);
        expect(response.status).toBe(403);
        const body = await errorOf(response);
        expect(body.code).toBe("insufficient_scope");
        expect(body.detail).toContain('scope "manage"');
        expect(body.detail).toContain("dashboard (API keys → Create a key → Scope: manage)");
        expect(body.detail).not.toContain(before.secret);
      }
      // Nothing was changed: the same URL (none) and the same secret.
      expect(await accountWebhook(account.accountId)).toMatchObject({ url: null, secret: before.secret });
    },
  );

  it("an unknown key is still a 401 first, not a 403", async () => {
    const response = await call({ name: "", method: "GET", path: "/account/webhook" }, "sk_not_a_key");
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe("invalid_api_key");
  });
});

describe("a manage key on the webhook routes", () => {
  it("reads the secret, sets and removes the endpoint, rotates the secret and reads the log", async () => {
    const account = await createTestAccount(100, "manage");
    const shown = await call({ name: "", method: "GET", path: "/account/webhook" }, account.apiKey);
    expect(shown.status).toBe(200);
    const initial = await shown.json<{ url: string | null; secret: string }>();
    expect(initial.url).toBeNull();
    const set = await call({ name: "", method: "PUT", path: "/account/webhook", body: { url: HOOK_URL } }, account.apiKey);
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ url: HOOK_URL, secret: initial.secret });
    const rotated = await call({ name: "", method: "POST", path: "/account/webhook/rotate-secret" }, account.apiKey, true);
    expect(rotated.status).toBe(200);
    const { secret } = await rotated.json<{ secret: string }>();
    expect(secret).not.toBe(initial.secret);
    const log = await call({ name: "", method: "GET", path: "/account/webhook/deliveries" }, account.apiKey);
    expect(log.status).toBe(200);
    expect(await log.json()).toEqual({ deliveries: [] });
    const removed = await call({ name: "", method: "DELETE", path: "/account/webhook" }, account.apiKey);
    expect(removed.status).toBe(200);
    expect(await accountWebhook(account.accountId)).toMatchObject({ url: null, secret });
  });
});

describe("the dashboard", () => {
  it("changes the webhook of an account whose only key is a scrape key", async () => {
    const account = await createTestAccount(100, "scrape");
    const { visitor, csrf } = await signedInVisitor(account.accountId);
    const saved = await visitor.post("/dashboard/webhooks", { url: HOOK_URL, _csrf: csrf });
    expect(saved.status).toBe(303);
    expect(await accountWebhook(account.accountId)).toMatchObject({ url: HOOK_URL });
    const before = await accountWebhook(account.accountId);
    expect((await visitor.post("/dashboard/webhooks/rotate-secret", { _csrf: csrf })).status).toBe(303);
    expect((await accountWebhook(account.accountId)).secret).not.toBe(before.secret);
  });
});

describe("a scrape key keeps everything else", () => {
  it("a key stored as before scopes (no scope written) is a scrape key: it scrapes, reads /account, and is refused on webhooks", async () => {
    const account = await newAccount({ credits: 100 });
    const key = await generateApiKey();
    // The INSERT of a key before migrations/0011_key_scopes.sql: the column's default gives it its scope.
    await env.DB.prepare("INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .bind(key.keyId, account.account_id, "old key", key.keyHash, key.displayPrefix, new Date().toISOString())
      .run();
    expect((await cachedScrape(key.apiKey, "Old keys still scrape")).status).toBe(200);
    expect(await accountKey(key.apiKey)).toEqual({ key_id: key.keyId, name: "old key", scope: "scrape" });
    await seedAnswer(account.account_id, "An old key's job");
    const job = await api(`/scrapers/grok/jobs?${query({ prompt: "An old key's job" })}`, { method: "POST", apiKey: key.apiKey });
    expect(job.status).toBe(202);
    expect((await api("/jobs", { apiKey: key.apiKey })).status).toBe(200);
    expect((await call({ name: "", method: "GET", path: "/account/webhook" }, key.apiKey)).status).toBe(403);
  });

  it("a batch's own webhook_url works with a scrape key: it receives that batch's jobs", async () => {
    const account = await createTestAccount(100, "scrape");
    const { secret } = await accountWebhook(account.accountId);
    const endpoint = await receiverEndpoint(secret);
    const prompt = `Scrape key batch ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const response = await postBatch({ scraper: "grok", items: [{ prompt }], webhook_url: endpoint.url }, { apiKey: account.apiKey });
    expect(response.status).toBe(202);
    const { job_ids: jobIds } = await response.json<{ job_ids: string[] }>();
    const [delivery] = await waitForDeliveries(endpoint, 1);
    expect(JSON.parse(delivery?.body ?? "null")).toMatchObject({ data: { job_id: jobIds[0], status: "done" } });
  });
});

describe("creating keys with a scope", () => {
  it("the operator API: scrape by default, manage on request, each shown in the account's key list and on /account", async () => {
    const account = await newAccount();
    const plain = await newKey(account.account_id, "Scraper");
    const explicit = await newKey(account.account_id, "Explicit scraper", "scrape");
    const manager = await newKey(account.account_id, "Webhook admin", "manage");
    expect([plain.scope, explicit.scope, manager.scope]).toEqual(["scrape", "scrape", "manage"]);
    const detail = await adminJson<{ keys: Array<{ key_id: string; scope: string }> }>(`/admin/accounts/${account.account_id}`);
    expect(Object.fromEntries(detail.keys.map((key) => [key.key_id, key.scope]))).toEqual({
      [plain.key_id]: "scrape",
      [explicit.key_id]: "scrape",
      [manager.key_id]: "manage",
    });
    expect((await accountKey(plain.api_key)).scope).toBe("scrape");
    expect((await accountKey(manager.api_key)).scope).toBe("manage");
    expect((await call({ name: "", method: "GET", path: "/account/webhook" }, plain.api_key)).status).toBe(403);
    expect((await call({ name: "", method: "GET", path: "/account/webhook" }, manager.api_key)).status).toBe(200);
  });

  it("the operator API refuses an unknown scope with a 400 naming the accepted values, and creates no key", async () => {
    const account = await newAccount();
    for (const scope of ["admin", "", "MANAGE", 1]) {
      const response = await adminApi(`/admin/accounts/${account.account_id}/keys`, { method: "POST", body: { name: "k", scope } });
      expect(response.status, String(scope)).toBe(400);
      expect(await errorOf(response)).toEqual({
        detail: 'scope: must be one of "scrape", "manage"',
        code: "invalid_parameter",
        request_id: response.headers.get("X-Request-Id"),
      });
    }
    expect((await adminJson<{ keys: unknown[] }>(`/admin/accounts/${account.account_id}`)).keys).toEqual([]);
  });

  it("the dashboard: a scope choice (scrape preselected), the scope of each key in the list, and a 400 for an unknown scope", async () => {
    const account = await newAccount();
    const { visitor, csrf } = await signedInVisitor(account.account_id);
    const form = await (await visitor.get("/dashboard/keys")).text();
    expect(form).toMatch(/<select id="key-scope" name="scope"/);
    expect(form).toMatch(/<option value="scrape" selected="">/);
    expect(form).toMatch(/<option value="manage">/);

    expect((await visitor.post("/dashboard/keys", { name: "Scraper", _csrf: csrf })).status).toBe(303);
    expect((await visitor.post("/dashboard/keys", { name: "Webhook admin", scope: "manage", _csrf: csrf })).status).toBe(303);
    const refused = await visitor.post("/dashboard/keys", { name: "Root", scope: "admin", _csrf: csrf });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("Scope: must be one of scrape, manage.");

    const detail = await adminJson<{ keys: Array<{ name: string; scope: string }> }>(`/admin/accounts/${account.account_id}`);
    expect(Object.fromEntries(detail.keys.map((key) => [key.name, key.scope]))).toEqual({ Scraper: "scrape", "Webhook admin": "manage" });
    const list = await (await visitor.get("/dashboard/keys")).text();
    expect(list).toMatch(/<td data-label="Scope"><span class="badge warn">manage<\/span><\/td>/);
    expect(list).toMatch(/<td data-label="Scope"><span class="badge muted">scrape<\/span><\/td>/);
  });
});

describe("OpenAPI", () => {
  it("documents the manage scope and the 403 on every key-holder webhook operation, and the scope of created keys", async () => {
    const document = await (await api("/openapi.json")).json<{
      paths: Record<string, Record<string, { description?: string; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    }>();
    for (const route of MANAGE_ROUTES) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.description, `${route.method} ${route.path}`).toContain("scope `manage`");
      expect(operation?.responses, `${route.method} ${route.path}`).toHaveProperty("403");
    }
    // Key creation and the operator's webhook routes are in the operator's document, behind the admin token.
    const operator = await (await adminApi("/admin/openapi.json")).json<typeof document>();
    expect(operator.paths["/admin/accounts/{account_id}/webhook"]?.get?.responses).not.toHaveProperty("403");
    expect(operator.components.schemas.CreateApiKey?.properties).toHaveProperty("scope");
    expect(operator.components.schemas.CreatedApiKey?.properties).toHaveProperty("scope");
  });
});
