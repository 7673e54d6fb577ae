/**
 * The dashboard's security and behaviour inside the Workers runtime (issue 5): one-time sign-in links, the signed
 * session cookie, CSRF on every form, key creation and revocation, and the pages' content. The same flows in a real
 * browser are in test/browser/dashboard.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { recordSubmittedJob } from "../../src/jobs/jobs-table";
import { jobStub } from "../../src/jobs/job-record";
import { adminApi, adminJson, authProbe, cachedScrape, newAccount, newKey } from "../support/workers/account-helpers";
import { BASE, api } from "../support/workers/helpers";
import { Visitor, csrfOf } from "../support/workers/dashboard-visitor";

/** The link as a path with its fragment (`/dashboard/login#<token>`): the fragment never reaches the server. */
async function loginLink(accountId: string): Promise<string> {
  const { login_url: url } = await adminJson<{ login_url: string }>(`/admin/accounts/${accountId}/login-links`, { method: "POST" }, 201);
  const link = new URL(url);
  return link.pathname + link.hash;
}

/** What the sign-in page's script takes from the fragment and posts with the form. */
async function usesUp(path: string, visitor = new Visitor()): Promise<Response> {
  const page = await visitor.get(path);
  return visitor.post("/dashboard/login", { token: path.split("#").pop() ?? "", _csrf: csrfOf(await page.text()) });
}

/** Opens a fresh link and signs in; returns the signed-in visitor and the CSRF token of its pages. */
async function signIn(accountId: string): Promise<{ visitor: Visitor; csrf: string }> {
  const visitor = new Visitor();
  const path = await loginLink(accountId);
  const page = await visitor.get(path);
  expect(page.status).toBe(200);
  const token = path.split("#").pop() ?? "";
  const response = await visitor.post("/dashboard/login", { token, _csrf: csrfOf(await page.text()) });
  expect(response.status).toBe(303);
  expect(response.headers.get("Location")).toBe("/dashboard");
  const overview = await visitor.get("/dashboard");
  expect(overview.status).toBe(200);
  return { visitor, csrf: csrfOf(await overview.text()) };
}

describe("signing in", () => {
  it("the dashboard sends a signed-out visitor to the sign-in help page", async () => {
    const visitor = new Visitor();
    const response = await visitor.get("/dashboard");
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/dashboard/sign-in");
    const help = await visitor.get("/dashboard/sign-in");
    expect(help.status).toBe(200);
    expect(await help.text()).toContain("one-time sign-in link");
  });

  it("a one-time link: opening it changes nothing, the button signs in once, with a Secure HttpOnly SameSite session cookie", async () => {
    const account = await newAccount({ name: "Linkers Ltd" });
    const path = await loginLink(account.account_id);
    const token = path.split("#").pop() ?? "";
    const visitor = new Visitor();

    // GET twice (a mail scanner, then the customer): both show the confirmation; neither uses the link up.
    expect((await visitor.get(path)).status).toBe(200);
    const page = await visitor.get(path);
    const html = await page.text();
    const nonceCookie = visitor.lastSetCookies.find((line) => line.startsWith("__Host-login_nonce="));
    expect(nonceCookie).toMatch(/HttpOnly/);
    expect(nonceCookie).toMatch(/Secure/);
    expect(nonceCookie).toMatch(/SameSite=Lax/);
    expect(nonceCookie).toMatch(/Path=\//);

    const response = await visitor.post("/dashboard/login", { token, _csrf: csrfOf(html) });
    expect(response.status).toBe(303);
    const sessionCookie = visitor.lastSetCookies.find((line) => line.startsWith("__Host-session="));
    expect(sessionCookie).toBeDefined();
    for (const attribute of [/HttpOnly/, /Secure/, /SameSite=Lax/, /Path=\//, /Max-Age=604800/]) expect(sessionCookie).toMatch(attribute);
    expect(sessionCookie).not.toMatch(/Domain=/);
    expect(visitor.cookies.has("__Host-login_nonce")).toBe(false);

    const overview = await visitor.get("/dashboard");
    expect(overview.status).toBe(200);
    expect(await overview.text()).toContain("Linkers Ltd");

    // The link is used up: a second visitor cannot use it, and is told so.
    const again = await usesUp(path);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("This sign-in link was already used");
  });

  it("two concurrent uses of one link: exactly one signs in", async () => {
    const account = await newAccount();
    const path = await loginLink(account.account_id);
    const token = path.split("#").pop() ?? "";
    const visitors = [new Visitor(), new Visitor(), new Visitor()];
    const csrfs = await Promise.all(visitors.map(async (visitor) => csrfOf(await (await visitor.get(path)).text())));
    const statuses = await Promise.all(
      visitors.map((visitor, index) => visitor.post("/dashboard/login", { token, _csrf: csrfs[index] ?? "" })),
    );
    expect(statuses.map((response) => response.status).sort()).toEqual([303, 400, 400]);
  });

  it("a link expires an hour after it is issued unless the operator asks otherwise (bounds: test/integration/admin.test.ts)", async () => {
    const account = await newAccount();
    const issuedAfter = Date.now();
    const { expires_at: expiresAt } = await adminJson<{ expires_at: string }>(
      `/admin/accounts/${account.account_id}/login-links`,
      { method: "POST" },
      201,
    );
    // workerd's clock moves only across I/O, so the two ends of the request may see it a millisecond apart.
    const lifetimeMs = new Date(expiresAt).getTime() - issuedAfter;
    expect(Math.abs(lifetimeMs - 60 * 60_000)).toBeLessThan(60_000);
  });

  it("an expired link says it expired, and that whoever gave access issues a new one", async () => {
    const account = await newAccount();
    const path = await loginLink(account.account_id);
    const expiredAt = new Date(Date.now() - 60_000);
    await env.DB.prepare("UPDATE login_links SET expires_at = ? WHERE account_id = ?")
      .bind(expiredAt.toISOString(), account.account_id)
      .run();
    const response = await usesUp(path);
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("<h1>This sign-in link has expired</h1>");
    const shownExpiry = /It stopped working on <time datetime="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(new Date(shownExpiry).getTime()).toBe(expiredAt.getTime());
    expect(html).toContain("Ask whoever gave you access for a new one.");
    expect(html).not.toContain("npm run");
    expect(html).not.toContain("account manager");
    // Housekeeping (run when a link is issued) keeps the expired link's row, so a second try still says why.
    await loginLink(account.account_id);
    expect(await (await usesUp(path)).text()).toContain("<h1>This sign-in link has expired</h1>");
  });

  it("a used link says it was used and when; on a local deployment it names the command that prints a new link", async () => {
    const account = await newAccount();
    const path = await loginLink(account.account_id);
    const usedAfter = Date.now();
    expect((await usesUp(path)).status).toBe(303);

    const deployed = await (await usesUp(path)).text();
    expect(deployed).toContain("<h1>This sign-in link was already used</h1>");
    const usedAt = /It signed in on <time datetime="([^"]+)"/.exec(deployed)?.[1] ?? "";
    expect(new Date(usedAt).getTime()).toBeGreaterThanOrEqual(usedAfter - 1000);
    expect(deployed).toContain("Ask whoever gave you access for a new one.");

    // The same link opened on this machine's own address, as `npm start` serves the dashboard.
    const local = await usesUp(path, new Visitor("http://127.0.0.1:8787"));
    expect(local.status).toBe(400);
    const html = await local.text();
    expect(html).toContain("<h1>This sign-in link was already used</h1>");
    expect(html).toContain("This is a local deployment: in the project folder, run <code>npm run sign-in-link</code>");
    expect(html).not.toContain("whoever gave you access");
    const help = await (await new Visitor("http://localhost:8787").get("/dashboard/sign-in")).text();
    expect(help).toContain("<code>npm run sign-in-link</code>");
  });

  it("a link that was never issued, or was replaced by a newer one that was used, says what may have happened", async () => {
    const account = await newAccount();
    const older = await loginLink(account.account_id);
    expect((await usesUp(await loginLink(account.account_id))).status).toBe(303);
    for (const path of [older, "/dashboard/login#AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "/dashboard/login#truncated"]) {
      const response = await usesUp(path);
      expect(response.status, path).toBe(400);
      const html = await response.text();
      expect(html, path).toContain("<h1>This sign-in link cannot be used</h1>");
      expect(html, path).toContain("replaced by a newer link");
      expect(html, path).toContain("Ask whoever gave you access for a new one.");
    }
  });

  it("refuses a sign-in form without its nonce cookie, or from another site, and leaves the link unused", async () => {
    const account = await newAccount();
    const path = await loginLink(account.account_id);
    const token = path.split("#").pop() ?? "";
    const visitor = new Visitor();
    const csrf = csrfOf(await (await visitor.get(path)).text());

    const withoutCookie = new Visitor();
    expect((await withoutCookie.post("/dashboard/login", { token, _csrf: csrf })).status).toBe(403);
    expect((await visitor.post("/dashboard/login", { token, _csrf: "forged" })).status).toBe(403);
    expect((await visitor.post("/dashboard/login", { token, _csrf: csrf }, { headers: { Origin: "https://evil.example" } })).status).toBe(
      403,
    );
    expect((await visitor.post("/dashboard/login", { token, _csrf: csrf }, { headers: { "Sec-Fetch-Site": "cross-site" } })).status).toBe(
      403,
    );
    expect((await visitor.post("/dashboard/login", { token, _csrf: csrf })).status).toBe(303);
  });

  it("rejects a forged or altered session cookie", async () => {
    const account = await newAccount();
    const { visitor } = await signIn(account.account_id);
    const value = visitor.cookies.get("__Host-session") ?? "";
    const [sessionId = "", signature = ""] = value.split(".");
    const flipped = signature.startsWith("A") ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    for (const forged of [`${sessionId}.${flipped}`, `${sessionId}x.${signature}`, sessionId, "garbage"]) {
      const attacker = new Visitor();
      attacker.cookies.set("__Host-session", forged);
      const response = await attacker.get("/dashboard");
      expect(response.status, forged).toBe(303);
      expect(response.headers.get("Location")).toBe("/dashboard/sign-in");
    }
  });

  it("signing out ends the session on the server: the old cookie no longer works", async () => {
    const account = await newAccount();
    const { visitor, csrf } = await signIn(account.account_id);
    const stolen = visitor.cookies.get("__Host-session") ?? "";
    const response = await visitor.post("/dashboard/logout", { _csrf: csrf });
    expect(response.status).toBe(303);
    expect(response.headers.get("Location")).toBe("/dashboard/sign-in?signed_out=1");
    expect(visitor.cookies.has("__Host-session")).toBe(false);
    const replay = new Visitor();
    replay.cookies.set("__Host-session", stolen);
    expect((await replay.get("/dashboard")).status).toBe(303);
  });

  it("the operator can end every session of an account", async () => {
    const account = await newAccount();
    const { visitor } = await signIn(account.account_id);
    const ended = await adminJson<{ sessions_ended: number }>(`/admin/accounts/${account.account_id}/sessions`, { method: "DELETE" });
    expect(ended.sessions_ended).toBe(1);
    expect((await visitor.get("/dashboard")).status).toBe(303);
  });

  it("a new sign-in replaces the previous session", async () => {
    const account = await newAccount();
    const { visitor } = await signIn(account.account_id);
    const before = visitor.cookies.get("__Host-session") ?? "";
    const path = await loginLink(account.account_id);
    const page = await visitor.get(path);
    await visitor.post("/dashboard/login", { token: path.split("#").pop() ?? "", _csrf: csrfOf(await page.text()) });
    expect(visitor.cookies.get("__Host-session")).not.toBe(before);
    const old = new Visitor();
    old.cookies.set("__Host-session", before);
    expect((await old.get("/dashboard")).status).toBe(303);
  });
});

describe("keys in the dashboard", () => {
  it("creates a key shown once (never cached), which works against the API; revoking it makes the next request 401", async () => {
    const account = await newAccount();
    const { visitor, csrf } = await signIn(account.account_id);
    // Post-redirect-get: the POST creates the key and redirects; the key travels in a sealed one-time cookie, not the URL.
    const posted = await visitor.post("/dashboard/keys", { _csrf: csrf, name: "Production server" });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("Location")).toBe("/dashboard/keys");
    const flash = visitor.lastSetCookies.find((line) => line.startsWith("__Host-new_key="));
    for (const attribute of [/HttpOnly/, /Secure/, /SameSite=Lax/, /Path=\//, /Max-Age=120/]) expect(flash).toMatch(attribute);
    expect(flash).not.toMatch(/sk_/);
    const created = await visitor.get("/dashboard/keys");
    expect(created.status).toBe(200);
    expect(created.headers.get("Cache-Control")).toBe("no-store");
    expect(visitor.cookies.has("__Host-new_key")).toBe(false);
    const html = await created.text();
    const apiKey = /id="new-api-key"[^>]*value="(sk_[^"]+)"/.exec(html)?.[1] ?? /value="(sk_[^"]+)"/.exec(html)?.[1];
    expect(apiKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    if (apiKey === undefined) return;
    expect(html).toContain("will not be shown again");
    expect((await authProbe(apiKey)).status).toBe(200);

    // The list shows only the prefix from now on: a reload shows no key and creates none.
    const list = await (await visitor.get("/dashboard/keys")).text();
    expect((await adminJson<{ keys: unknown[] }>(`/admin/accounts/${account.account_id}`)).keys).toHaveLength(1);
    expect(list).toContain("Production server");
    expect(list).toContain(apiKey.slice(0, 10));
    expect(list).not.toContain(apiKey);

    const keyId = /data-key-id="([^"]+)"/.exec(list)?.[1] ?? "";
    const confirm = await visitor.get(`/dashboard/keys/${keyId}/revoke`);
    expect(confirm.status).toBe(200);
    const confirmHtml = await confirm.text();
    expect(confirmHtml).toContain("Revoke “Production server”?");
    // Opening the confirmation revokes nothing.
    expect((await authProbe(apiKey)).status).toBe(200);

    const revoked = await visitor.post(`/dashboard/keys/${keyId}/revoke`, { _csrf: csrfOf(confirmHtml) });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("Location")).toBe(`/dashboard/keys?revoked=${keyId}`);
    expect((await authProbe(apiKey)).status).toBe(401);
    const after = await (await visitor.get(`/dashboard/keys?revoked=${keyId}`)).text();
    expect(after).toContain("was revoked");
    expect(after).toContain("Revoked");
  });

  it("every form needs the session's CSRF token and this origin", async () => {
    const account = await newAccount();
    const { visitor, csrf } = await signIn(account.account_id);
    const other = await signIn((await newAccount()).account_id);
    const attempts: Array<[Record<string, string>, Record<string, string>]> = [
      [{ name: "no token" }, {}],
      [{ name: "other session's token", _csrf: other.csrf }, {}],
      [{ name: "cross-site", _csrf: csrf }, { Origin: "https://evil.example" }],
      [{ name: "opaque origin", _csrf: csrf }, { Origin: "null" }],
    ];
    for (const [fields, headers] of attempts) {
      const response = await visitor.post("/dashboard/keys", fields, { headers });
      expect(response.status, fields.name).toBe(403);
    }
    const key = await newKey(account.account_id, "victim");
    expect((await visitor.post(`/dashboard/keys/${key.key_id}/revoke`, {})).status).toBe(403);
    expect((await visitor.post("/dashboard/logout", { _csrf: other.csrf })).status).toBe(403);
    expect((await authProbe(key.api_key)).status).toBe(200);
    const view = await adminJson<{ keys: unknown[] }>(`/admin/accounts/${account.account_id}`);
    expect(view.keys).toHaveLength(1);
  });

  it("cannot see or revoke another account's key", async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const theirKey = await newKey(theirs.account_id, "theirs");
    const { visitor, csrf } = await signIn(mine.account_id);
    expect((await visitor.get(`/dashboard/keys/${theirKey.key_id}/revoke`)).status).toBe(404);
    expect((await visitor.post(`/dashboard/keys/${theirKey.key_id}/revoke`, { _csrf: csrf })).status).toBe(404);
    expect((await authProbe(theirKey.api_key)).status).toBe(200);
  });

  it("the new-key flash opens only for the session that created the key", async () => {
    const account = await newAccount();
    const first = await signIn(account.account_id);
    const second = await signIn(account.account_id);
    expect((await first.visitor.post("/dashboard/keys", { _csrf: first.csrf, name: "Flash" })).status).toBe(303);
    const flash = first.visitor.cookies.get("__Host-new_key") ?? "";
    expect(flash).not.toBe("");
    // The same account's other session replays the cookie: the key is not shown, and the cookie is cleared.
    second.visitor.cookies.set("__Host-new_key", flash);
    const replayed = await (await second.visitor.get("/dashboard/keys")).text();
    expect(replayed).not.toMatch(/value="sk_/);
    expect(second.visitor.cookies.has("__Host-new_key")).toBe(false);
    // An altered cookie shows nothing either; the genuine one still works once.
    const altered = flash.slice(0, -2) + (flash.endsWith("A") ? "BB" : "AA");
    first.visitor.cookies.set("__Host-new_key", altered);
    expect(await (await first.visitor.get("/dashboard/keys")).text()).not.toMatch(/value="sk_/);
    first.visitor.cookies.set("__Host-new_key", flash);
    expect(await (await first.visitor.get("/dashboard/keys")).text()).toMatch(/id="new-api-key"[^>]*value="sk_|value="sk_/);
    expect(await (await first.visitor.get("/dashboard/keys")).text()).not.toMatch(/value="sk_/);
  });

  it("explains an invalid key name instead of creating a key", async () => {
    const account = await newAccount();
    const { visitor, csrf } = await signIn(account.account_id);
    const response = await visitor.post("/dashboard/keys", { _csrf: csrf, name: "   " });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("Name: must be 1 to 100 characters and not blank.");
    expect((await adminJson<{ keys: unknown[] }>(`/admin/accounts/${account.account_id}`)).keys).toHaveLength(0);
  });
});

describe("pages", () => {
  it("the overview shows the balance falling and the usage behind it", async () => {
    const account = await newAccount({ name: "Usage Inc" });
    const key = await newKey(account.account_id, "Reporter");
    expect((await cachedScrape(key.api_key, "overview usage")).status).toBe(200);
    const { visitor } = await signIn(account.account_id);
    const html = await (await visitor.get("/dashboard")).text();
    expect(html).toMatch(/data-testid="credits-remaining"[^>]*>1,497</);
    expect(html).toMatch(/data-testid="credits-used"[^>]*>3</);
    expect(html).toContain("grok request");
    expect(html).toContain("Reporter");
    expect(html).toContain('class="chart chart-wide"');
    // 30 bars, one per day, in each of the two drawings (laptop and phone).
    expect(html.match(/<rect class="bar/g)).toHaveLength(60);
  });

  it("the jobs page lists recent jobs with each one's live status", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id, "Batch");
    const params = { prompt: "What is new in rockets?", country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" };
    const jobs: Record<string, string> = {
      pending: crypto.randomUUID(),
      done: crypto.randomUUID(),
      failed: crypto.randomUUID(),
      expired: crypto.randomUUID(),
    };
    for (const [state, jobId] of Object.entries(jobs)) {
      const createdAt = state === "expired" ? Date.now() - 25 * 3_600_000 : Date.now();
      await recordSubmittedJob(env.DB, {
        jobId,
        accountId: account.account_id,
        keyId: key.key_id,
        scraper: "grok",
        createdAt: new Date(createdAt).toISOString(),
      });
      if (state === "expired") continue;
      const stub = jobStub(env, jobId);
      await stub.create({ jobId, scraper: "grok", params, accountId: account.account_id, keyId: key.key_id, baseUrl: BASE, createdAt });
      if (state === "done") await stub.complete({ prompt: "What is new in rockets?", result: "Plenty." });
      if (state === "failed") await stub.fail("The provider kept failing.");
    }
    const { visitor } = await signIn(account.account_id);
    const html = await (await visitor.get("/dashboard/jobs")).text();
    for (const [state, jobId] of Object.entries(jobs)) {
      expect(html, state).toMatch(new RegExp(`data-job-id="${jobId}"[\\s\\S]*?data-status="${state}"`));
    }
    expect(html).toContain("What is new in rockets?");
    // A failed job has no result, but its prompt is still shown (not "—").
    const failedRow = new RegExp(`<tr data-job-id="${jobs.failed}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? "";
    expect(failedRow).toContain("What is new in rockets?");
    expect(html).toContain("Batch");
  });

  it("serves its pages with a strict CSP and no inline script or style, and its assets from /dashboard/assets", async () => {
    const account = await newAccount();
    const { visitor } = await signIn(account.account_id);
    for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/requests", "/dashboard/jobs", "/dashboard/sign-in"]) {
      const response = await visitor.get(path);
      const html = await response.text();
      expect(response.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
      expect(response.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
      expect(response.headers.get("X-Frame-Options")).toBe("DENY");
      expect(response.headers.get("Referrer-Policy")).toBe("same-origin");
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/\sstyle="/);
      expect(html).not.toContain("<style");
    }
    const css = await api("/dashboard/assets/dashboard.css");
    expect(css.headers.get("Content-Type")).toContain("text/css");
    const js = await api("/dashboard/assets/dashboard.js");
    expect(js.headers.get("Content-Type")).toContain("javascript");
  });

  it("unknown dashboard pages are an HTML 404; a trailing slash is forgiven", async () => {
    const response = await api("/dashboard/nope");
    expect(response.status).toBe(404);
    expect(response.headers.get("Content-Type")).toContain("text/html");
    expect(await response.text()).toContain("Page not found");
    const slash = await api("/dashboard/keys/", { redirect: "manual" });
    expect(slash.status).toBe(301);
    expect(slash.headers.get("Location")).toBe("/dashboard/keys");
  });

  it("the operator API is unaffected by dashboard cookies (bearer only)", async () => {
    const account = await newAccount();
    const { visitor } = await signIn(account.account_id);
    const response = await api(`/admin/accounts/${account.account_id}`, {
      headers: { Cookie: `__Host-session=${visitor.cookies.get("__Host-session") ?? ""}` },
    });
    expect(response.status).toBe(401);
    expect((await adminApi(`/admin/accounts/${account.account_id}`)).status).toBe(200);
  });
});
