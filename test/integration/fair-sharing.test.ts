/**
 * Fair sharing and abuse resistance (issue 19), the points that need no browser, each reproduced through the Worker as
 * an abusive customer would try it: rate limits per account and key churn (4), a cache that answered one customer
 * with another's prompt (5), sign-in links (6), Host-derived URLs, sniffable markdown, forged log lines and Durable
 * Objects created by unauthenticated polling (7), and jobs that wait for their turn keeping their attempt budget (2).
 * The browser parts (leaked leases, the shared pool, the global budget, fair job turns under load) are in
 * test/e2e/fair-sharing.test.ts.
 */
import { createExecutionContext, createMessageBatch, getQueueResult, listDurableObjectIds } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { recordSubmittedJob } from "../../src/jobs/jobs-table";
import { MAX_KEYS_CREATED_PER_DAY } from "../../src/accounts/keys";
import { responseCacheKey } from "../../src/cache/response-cache";
import { ACCOUNT_RATE_LIMIT_DETAIL, RATE_LIMIT_DETAIL } from "../../src/http/api-key-auth";
import { JOB_NOT_FOUND_DETAIL } from "../../src/http/jobs";
import { BASE_URL_NOT_CONFIGURED_DETAIL } from "../../src/http/request-context";
import worker from "../../src/index";
import { jobStub } from "../../src/jobs/job-record";
import type { JobView } from "../../src/jobs/job-types";
import { takeAccountSlot } from "../../src/limits/account-slots";
import { MAX_TURNS_GIVEN_AWAY } from "../../src/limits/job-turns";
import type { AccountLimitsView } from "../../src/limits/limits-view";
import {
  adminApi,
  adminJson,
  authProbe,
  cacheEntryJson,
  newAccount,
  newKey,
  seedCachedGrokAnswer,
} from "../support/workers/account-helpers";
import { BASE, api, balanceOf, createTestAccount, query } from "../support/workers/helpers";
import { createUnqueuedJob } from "../support/workers/async-helpers";
import { Visitor, csrfOf } from "../support/workers/dashboard-visitor";

afterEach(() => {
  vi.restoreAllMocks();
});

async function issueLink(accountId: string, body?: Record<string, unknown>): Promise<{ login_url: string; expires_at: string }> {
  return adminJson(`/admin/accounts/${accountId}/login-links`, { method: "POST", ...(body === undefined ? {} : { body }) }, 201);
}

/** Does what a browser does with a sign-in link: loads the page (the fragment stays behind) and posts the form. */
async function useLink(loginUrl: string, visitor = new Visitor()): Promise<Response> {
  const link = new URL(loginUrl);
  const page = await visitor.get(link.pathname);
  expect(page.status).toBe(200);
  return visitor.post("/dashboard/login", { token: link.hash.slice(1), _csrf: csrfOf(await page.text()) });
}

async function signedIn(accountId: string): Promise<{ visitor: Visitor; csrf: string }> {
  const visitor = new Visitor();
  expect((await useLink((await issueLink(accountId)).login_url, visitor)).status).toBe(303);
  return { visitor, csrf: csrfOf(await (await visitor.get("/dashboard")).text()) };
}

/** The Worker's own fetch handler with some variables changed, as a deployment configured that way would run. */
async function fetchWith(vars: Partial<Env>, url: string, init: RequestInit = {}): Promise<Response> {
  return worker.fetch(new Request(url, init), { ...env, ...vars }, createExecutionContext());
}

describe("rate limits count per account, and keys cannot be minted without end (4)", () => {
  it("more keys buy no more requests: every key of an account shares the account's limit, on top of each key's own", async () => {
    const account = await newAccount();
    const [first, second, third] = [
      await newKey(account.account_id, "a"),
      await newKey(account.account_id, "b"),
      await newKey(account.account_id, "c"),
    ];
    // Small limits set for this account (the defaults, 600 and 1200 a minute, take long to exhaust).
    await adminJson(`/admin/accounts/${account.account_id}/limits`, {
      method: "PATCH",
      body: { key_requests_per_minute: 4, account_requests_per_minute: 8 },
    });
    for (const key of [first, second]) {
      for (let index = 0; index < 4; index += 1) {
        const status = (await authProbe(key.api_key)).status;
        if (status !== 200) throw new Error(`request ${index} of key ${key.name} answered ${status}`);
      }
    }
    // Before: the third key got another 4. Now the account has used its 8.
    const refused = await authProbe(third.api_key);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ detail: ACCOUNT_RATE_LIMIT_DETAIL });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    // A key over its own limit still gets the per-key answer; other accounts are untouched.
    const overKeyLimit = await authProbe(first.api_key);
    expect(await overKeyLimit.json()).toEqual({
      detail: RATE_LIMIT_DETAIL,
      code: "rate_limited",
      request_id: overKeyLimit.headers.get("X-Request-Id"),
    });
    const other = await newAccount();
    expect((await authProbe((await newKey(other.account_id)).api_key)).status).toBe(200);
  });

  it(`at most ${MAX_KEYS_CREATED_PER_DAY} keys a day, revoked ones included: revoke-and-recreate stops with 429 and Retry-After`, async () => {
    const account = await newAccount();
    for (let index = 0; index < MAX_KEYS_CREATED_PER_DAY; index += 1) {
      const key = await newKey(account.account_id, `churn ${index}`);
      await adminJson(`/admin/keys/${key.key_id}`, { method: "DELETE" });
    }
    const refused = await adminApi(`/admin/accounts/${account.account_id}/keys`, { method: "POST", body: { name: "one more" } });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/24 hours/);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(23 * 3600);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);

    // The customer's own way, the dashboard, meets the same limit.
    const { visitor, csrf } = await signedIn(account.account_id);
    const page = await visitor.post("/dashboard/keys", { name: "from the dashboard", _csrf: csrf });
    expect(page.status).toBe(429);
    expect(await page.text()).toContain("24 hours");
  });
});

describe("the response cache belongs to the account that paid for it (5)", () => {
  it("account B repeating account A's exact prompt is not told A asked it: no cached answer, a scrape of its own", async () => {
    const prompt = "Our secret Q3 pricing for the Nordics";
    const country = "IS";
    // No browser may start in Iceland: a request that is not answered from the cache fails fast with 503.
    await adminJson("/admin/pools/IS/config", { method: "POST", body: { launches_per_minute: 0 } });
    const a = await createTestAccount(30);
    const b = await createTestAccount(30);
    const params = { prompt, country, bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" };
    const answer = {
      result: "A's answer",
      result_markdown: "A's answer",
      web_sources: [],
      social_results: [],
      related_questions: [],
      conversation: null,
      llm_model: "grok-test",
      mode: "MODEL_MODE_AUTO",
    };
    await env.CACHE.put(await responseCacheKey("grok", params, a.accountId), cacheEntryJson(answer), { expirationTtl: 3600 });
    const path = `/scrapers/grok?${query({ prompt, country })}`;

    const own = await api(path, { apiKey: a.apiKey });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { cached: boolean }).cached).toBe(true);

    const stranger = await api(path, { apiKey: b.apiKey });
    expect(stranger.status).toBe(503);
    expect(await balanceOf(b.accountId)).toBe(30);
    expect(await responseCacheKey("grok", params, a.accountId)).not.toBe(await responseCacheKey("grok", params, b.accountId));
  });
});

describe("sign-in links (6)", () => {
  it("the token is the link's fragment: the request a browser sends for it carries no token, and it signs in once", async () => {
    const account = await newAccount({ name: "Fragment Ltd" });
    const link = new URL((await issueLink(account.account_id)).login_url);
    expect(link.pathname).toBe("/dashboard/login");
    expect(link.search).toBe("");
    expect(link.hash).toMatch(/^#[A-Za-z0-9_-]{43}$/);
    const visitor = new Visitor();
    expect((await useLink(link.href, visitor)).status).toBe(303);
    expect(await (await visitor.get("/dashboard")).text()).toContain("Fragment Ltd");
    expect((await useLink(link.href)).status).toBe(400);
  });

  it("a token that arrives in a URL path (the old link format, now in a request log) is ended and never signs in", async () => {
    const account = await newAccount();
    const { login_url: url } = await issueLink(account.account_id);
    const token = new URL(url).hash.slice(1);
    const exposed = await new Visitor().get(`/dashboard/login/${token}`);
    expect(exposed.status).toBe(404);
    expect((await useLink(url)).status).toBe(400);
  });

  it("an older unused link stops working once a newer one was used", async () => {
    const account = await newAccount();
    const older = await issueLink(account.account_id);
    const newer = await issueLink(account.account_id);
    expect((await useLink(newer.login_url)).status).toBe(303);
    const stale = await useLink(older.login_url);
    expect(stale.status).toBe(400);
    expect(await stale.text()).toContain("This sign-in link cannot be used");
  });

  it("'sign out everywhere' also ends every unused link", async () => {
    const account = await newAccount();
    const { visitor } = await signedIn(account.account_id);
    const unused = await issueLink(account.account_id);
    const ended = await adminJson<{ sessions_ended: number }>(`/admin/accounts/${account.account_id}/sessions`, { method: "DELETE" });
    expect(ended.sessions_ended).toBe(1);
    expect((await visitor.get("/dashboard")).status).toBe(303);
    expect((await useLink(unused.login_url)).status).toBe(400);
  });

  it("links live an hour by default and a day at most", async () => {
    const account = await newAccount();
    const minutesLeft = (link: { expires_at: string }) => (Date.parse(link.expires_at) - Date.now()) / 60_000;
    const byDefault = await issueLink(account.account_id);
    expect(minutesLeft(byDefault)).toBeGreaterThan(59);
    expect(minutesLeft(byDefault)).toBeLessThanOrEqual(60);
    expect(minutesLeft(await issueLink(account.account_id, { ttl_minutes: 1440 }))).toBeGreaterThan(1439);
    const tooLong = await adminApi(`/admin/accounts/${account.account_id}/login-links`, { method: "POST", body: { ttl_minutes: 1441 } });
    expect(tooLong.status).toBe(400);
  });
});

describe("hardening (7)", () => {
  it("markdown_url and login_url come from PUBLIC_BASE_URL, never from the Host header", async () => {
    const account = await createTestAccount(30);
    const prompt = "Where do the links point?";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const configured = { PUBLIC_BASE_URL: "https://api.example.com/" };
    const forged = `http://evil.example/scrapers/grok?${query({ prompt })}`;

    const scraped = await fetchWith(configured, forged, { headers: { "X-API-Key": account.apiKey } });
    expect(scraped.status).toBe(200);
    const body = (await scraped.json()) as { job_id: string; markdown_url: string };
    expect(body.markdown_url).toBe(`https://api.example.com/md/${body.job_id}.md`);

    const link = await fetchWith(configured, `http://evil.example/admin/accounts/${account.accountId}/login-links`, {
      method: "POST",
      headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}` },
    });
    expect(link.status).toBe(201);
    expect(((await link.json()) as { login_url: string }).login_url).toMatch(/^https:\/\/api\.example\.com\/dashboard\/login#/);

    // Not configured: a public Host is refused (and nothing charged); only local hosts stand in for the setting.
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const refused = await fetchWith({ PUBLIC_BASE_URL: "" }, forged, { headers: { "X-API-Key": account.apiKey } });
    expect(refused.status).toBe(500);
    expect(await refused.json()).toEqual({
      detail: BASE_URL_NOT_CONFIGURED_DETAIL,
      code: "internal_error",
      request_id: refused.headers.get("X-Request-Id"),
    });
    expect(await balanceOf(account.accountId)).toBe(27);
    const local = await fetchWith({ PUBLIC_BASE_URL: "" }, `http://127.0.0.1:8787/scrapers/grok?${query({ prompt })}`, {
      headers: { "X-API-Key": account.apiKey },
    });
    expect(((await local.json()) as { markdown_url: string }).markdown_url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/md\//);
  });

  it("hosted markdown is served with nosniff and a policy that lets nothing in it run", async () => {
    const account = await createTestAccount(30);
    const prompt = "<script>alert(document.cookie)</script>";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const scraped = (await (await api(`/scrapers/grok?${query({ prompt })}`, { apiKey: account.apiKey })).json()) as {
      markdown_url: string;
    };
    const hosted = await api(new URL(scraped.markdown_url).pathname);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toContain("<script>");
    expect(hosted.headers.get("Content-Type")).toBe("text/markdown; charset=utf-8");
    expect(hosted.headers.get("X-Content-Type-Options")).toBe("nosniff");
    const policy = hosted.headers.get("Content-Security-Policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("sandbox");
  });

  it("a CR/LF in a dashboard path cannot write a line of its own into the log", async () => {
    const lines: string[] = [];
    const capture = (...parts: unknown[]) => {
      lines.push(parts.map(String).join(" "));
    };
    vi.spyOn(console, "error").mockImplementation(capture);
    vi.spyOn(console, "log").mockImplementation(capture);
    vi.spyOn(console, "warn").mockImplementation(capture);

    // The trailing-slash redirect used the decoded path: CR/LF in its Location failed the request, and the error line
    // logged the decoded path, forged line included.
    const redirected = await new Visitor().get("/dashboard/keys%0D%0A2026-11-22T00:00:00Z%20admin%20signed%20in/");
    expect(redirected.status).toBe(301);
    expect(redirected.headers.get("Location")).toBe("/dashboard/keys%0D%0A2026-11-22T00:00:00Z%20admin%20signed%20in");

    // A request that does fail on such a path is logged on one line, the CR/LF left percent-encoded.
    const account = await newAccount();
    const { visitor } = await signedIn(account.account_id);
    const broken = await visitor.send("/dashboard/keys/key%0D%0AFORGED%20LINE/revoke", {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=x", Origin: BASE },
      body: "--x\r\nnot a multipart part",
    });
    expect(broken.status).toBe(500);
    const logged = lines.filter((line) => line.includes("FORGED"));
    expect(logged.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toMatch(/[\r\n]FORGED/);
    for (const line of logged) expect(line).toContain("key%0D%0AFORGED");
  });

  it("polling made-up job ids wakes no Durable Object; a real job still answers", async () => {
    const before = new Set((await listDurableObjectIds(env.JOB)).map((id) => id.toString()));
    const madeUp = crypto.randomUUID();
    const response = await api(`/jobs/${madeUp}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      detail: JOB_NOT_FOUND_DETAIL,
      code: "not_found",
      request_id: response.headers.get("X-Request-Id"),
    });
    const created = (await listDurableObjectIds(env.JOB)).map((id) => id.toString()).filter((id) => !before.has(id));
    expect(created).not.toContain(env.JOB.idFromName(madeUp).toString());

    // The check can fail: asking the object directly, as the route used to, does create it.
    const control = crypto.randomUUID();
    await jobStub(env, control).view();
    expect((await listDurableObjectIds(env.JOB)).map((id) => id.toString())).toContain(env.JOB.idFromName(control).toString());

    const account = await createTestAccount(30);
    const prompt = "A real job";
    await seedCachedGrokAnswer(prompt, account.accountId);
    const submitted = await api(`/scrapers/grok/jobs?${query({ prompt })}`, { method: "POST", apiKey: account.apiKey });
    expect(submitted.status).toBe(202);
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    expect((await api(`/jobs/${jobId}`)).status).toBe(200);
  });
});

async function deliver(body: Record<string, unknown>) {
  const batch = createMessageBatch("scrape-jobs", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

async function jobView(jobId: string): Promise<JobView> {
  return (await (await api(`/jobs/${jobId}`)).json()) as JobView;
}

describe("the limits are visible (2)", () => {
  it("the operator API and the customer's dashboard show each limit and what is in flight against it", async () => {
    const account = await newAccount({ name: "Visible Limits" });
    // One synchronous scrape of this account is running.
    const running = await takeAccountSlot(env.DB, { accountId: account.account_id, kind: "request", limit: 8, ttlMs: 60_000 });
    expect(running.taken).toBe(true);

    const view = await adminJson<{ account_id: string; limits: AccountLimitsView }>(`/admin/accounts/${account.account_id}/limits`);
    expect(view).toEqual({
      account_id: account.account_id,
      limits: {
        concurrent_requests: { limit: 8, in_use: 1 },
        running_jobs: { limit: 2, in_use: 0 },
        requests_per_minute: { per_key: 600, per_account: 1200 },
        refunded_browser_time: { seconds_per_hour: 1800, seconds_last_hour: 0, concurrency_reduced: false },
        account_overrides: {
          key_requests_per_minute: null,
          account_requests_per_minute: null,
          concurrent_requests: null,
          refunded_browser_seconds_per_hour: null,
        },
        api_keys: { max_active: 25, max_created_per_day: MAX_KEYS_CREATED_PER_DAY },
      },
    });
    expect((await adminApi("/admin/accounts/acct_nope/limits")).status).toBe(404);

    const { visitor } = await signedIn(account.account_id);
    const overview = await (await visitor.get("/dashboard")).text();
    expect(overview).toMatch(/data-testid="limit-synchronous-requests">1 of 8 in use</);
    expect(overview).toMatch(/data-testid="limit-running-jobs">0 of 2 in use</);
    expect(overview).toContain("1,200 for all your keys together");
  });
});

describe("jobs that wait for their turn (2)", () => {
  it("keep their attempt budget: a delivery after three that waited is the fourth attempt, so a failure ends the job", async () => {
    await adminJson("/admin/pools/IS/config", { method: "POST", body: { launches_per_minute: 0 } });
    const account = await createTestAccount(9);
    const jobId = await createUnqueuedJob(account, {
      prompt: "waits its turn",
      country: "IS",
      bypass_cache: true,
      timeout: 30,
      mode: "MODEL_MODE_AUTO",
    });
    // A message sent again after waiting: queue-side it is a first delivery, but three came before it.
    await deliver({ jobId, earlierDeliveries: 3 });
    const view = await jobView(jobId);
    expect(view.status).toBe("failed");
    expect(view.attempts).toBe(1);
    expect(await balanceOf(account.accountId)).toBe(9);
  });

  it("give way to another account's job that never started, but only a bounded number of times", async () => {
    const busy = await createTestAccount(30);
    const quiet = await createTestAccount(30);
    // The busy account has had a turn lately: one job of its own ran.
    const prompt = "Turns between accounts";
    await seedCachedGrokAnswer(prompt, busy.accountId);
    const params = { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" };
    const ran = await createUnqueuedJob(busy, params);
    expect((await deliver({ jobId: ran })).explicitAcks).toHaveLength(1);
    expect((await jobView(ran)).status).toBe("done");
    // The quiet account has a job waiting that has never started (it may never run: only its index row exists).
    await recordSubmittedJob(env.DB, {
      jobId: crypto.randomUUID(),
      accountId: quiet.accountId,
      keyId: quiet.keyId,
      scraper: "grok",
      createdAt: new Date().toISOString(),
    });

    const next = await createUnqueuedJob(busy, params);
    const gaveWay = await deliver({ jobId: next });
    expect(gaveWay.explicitAcks).toHaveLength(1);
    expect((await jobView(next)).status).toBe("pending");
    expect((await jobView(next)).attempts).toBe(0);
    // After giving way MAX_TURNS_GIVEN_AWAY times it runs anyway.
    await deliver({ jobId: next, turnsGivenAway: MAX_TURNS_GIVEN_AWAY });
    expect((await jobView(next)).status).toBe("done");
  });
});
