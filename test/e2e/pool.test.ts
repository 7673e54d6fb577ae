/**
 * The browser pool (one Durable Object per country) with real Chromium through the Browser Rendering binding:
 * reuse, per-country sessions, the bounded wait queue, crash recovery, and the warming-up answer. Fair sharing between
 * accounts, leases and the global budget are in fair-sharing.test.ts.
 * Tests run with BROWSER_POOL_SIZE=2 and BROWSER_POOL_QUEUE_LIMIT=4 (vitest.config.ts); each uses its own country.
 */
import puppeteer from "@cloudflare/puppeteer";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { browserPoolStub } from "../../src/browser/browser-pool";
import type { PooledSession } from "../../src/browser/pool-lease-book";
import type { PoolStats } from "../../src/browser/pool-types";
import { QUEUE_FULL_DETAIL, withScrapePage } from "../../src/browser/page-lease";
import { api, balanceOf, createTestAccount, query, replicaControl, replicaRequests } from "../support/workers/helpers";

afterEach(async () => {
  await replicaControl("reset");
});

function admin(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${env.ADMIN_TOKEN}`);
  if (init.body !== undefined) headers.set("content-type", "application/json");
  return api(path, { ...init, headers });
}

async function poolStats(country: string): Promise<PoolStats> {
  const response = await admin(`/admin/pools?country=${country}`);
  expect(response.status).toBe(200);
  const { pools } = (await response.json()) as { pools: PoolStats[] };
  const [pool] = pools;
  if (pool === undefined) throw new Error(`no pool for ${country}`);
  return pool;
}

async function scrape(apiKey: string, params: Record<string, string>) {
  const response = await api(`/scrapers/grok?${query({ bypass_cache: "true", ...params })}`, { apiKey });
  return { status: response.status, headers: response.headers, body: (await response.json()) as { detail?: string; result?: string } };
}

describe("browser pool", () => {
  it("30 sequential scrapes in one country launch at most the pool size and reuse the rest", async () => {
    const own = await createTestAccount(90);
    for (let index = 0; index < 30; index += 1) {
      const { status } = await scrape(own.apiKey, { prompt: `Sequential ${index}`, country: "GB" });
      expect(status).toBe(200);
    }
    const stats = await poolStats("GB");
    expect(stats.launches).toBeGreaterThanOrEqual(1);
    expect(stats.launches).toBeLessThanOrEqual(stats.size_limit);
    expect(stats.launches + stats.reuses).toBe(30);
    expect(stats.sessions.length).toBeLessThanOrEqual(stats.size_limit);
    expect(stats.busy).toBe(0);
    expect(stats.failures).toBe(0);
  });

  it("two countries get separate sessions", async () => {
    const own = await createTestAccount(30);
    expect((await scrape(own.apiKey, { prompt: "Where am I?", country: "DE" })).status).toBe(200);
    expect((await scrape(own.apiKey, { prompt: "Where am I?", country: "NL" })).status).toBe(200);
    const germany = await poolStats("DE");
    const netherlands = await poolStats("NL");
    expect(germany.sessions).toHaveLength(1);
    expect(netherlands.sessions).toHaveLength(1);
    expect(germany.sessions[0]?.session_id).not.toBe(netherlands.sessions[0]?.session_id);
    const listed = await admin("/admin/pools");
    const countries = ((await listed.json()) as { pools: PoolStats[] }).pools.map((pool) => pool.country);
    expect(countries).toEqual(expect.arrayContaining(["DE", "NL"]));
  });

  it("requests beyond pool size + queue bound get 429 'queue is full' with Retry-After; every other succeeds", async () => {
    // Two accounts, each within its own limit of requests in flight: only the country's pool and queue bound them.
    const first = await createTestAccount(100);
    const second = await createTestAccount(100);
    await replicaControl("pacing", { provider: "grok", delay_ms: 2_500 });
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, index) =>
        scrape(index % 2 === 0 ? first.apiKey : second.apiKey, { prompt: `Crowd ${index}`, country: "FR" }),
      ),
    );
    const rejected = results.filter((result) => result.status === 429);
    const succeeded = results.filter((result) => result.status === 200);
    expect(rejected).toHaveLength(3);
    expect(succeeded).toHaveLength(6);
    for (const result of rejected) {
      expect(result.body.detail).toBe(QUEUE_FULL_DETAIL);
      expect(Number(result.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
    expect((await balanceOf(first.accountId)) + (await balanceOf(second.accountId))).toBe(200 - 6 * 3);
    const stats = await poolStats("FR");
    expect(stats.rejected_queue_full).toBe(3);
    expect(stats.launches).toBeLessThanOrEqual(2);
  });

  it("a browser killed mid-scrape fails that request with 502 and restores credits; the next one gets a fresh session", async () => {
    const own = await createTestAccount(6);
    await replicaControl("pacing", { provider: "grok", delay_ms: 4_000 });
    const inFlight = scrape(own.apiKey, { prompt: "Crash during this", country: "IT" });
    let busySession: string | undefined;
    for (let poll = 0; poll < 100 && busySession === undefined; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      busySession = (await poolStats("IT")).sessions.find((session) => session.busy)?.session_id;
    }
    expect(busySession).toBeDefined();
    // Kill the Chromium process behind the session once the page has sent the prompt and waits for the provider.
    for (let poll = 0; poll < 100; poll += 1) {
      if ((await replicaRequests("grok")).some((request) => JSON.stringify(request.body).includes("Crash during this"))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const intruder = await puppeteer.connect(env.BROWSER, busySession ?? "");
    await intruder.close();

    const crashed = await inFlight;
    expect(crashed.status).toBe(502);
    expect(crashed.body.detail).toMatch(/retry/i);
    expect(await balanceOf(own.accountId)).toBe(6);

    await replicaControl("reset");
    const next = await scrape(own.apiKey, { prompt: "After the crash", country: "IT" });
    expect(next.status).toBe(200);
    const stats = await poolStats("IT");
    expect(stats.failures).toBeGreaterThanOrEqual(1);
    expect(stats.sessions.map((session) => session.session_id)).not.toContain(busySession);
    expect(await balanceOf(own.accountId)).toBe(3);
  });

  it("an idle session whose browser died is dropped on its next use, and the scrape succeeds on a fresh one", async () => {
    const own = await createTestAccount(6);
    expect((await scrape(own.apiKey, { prompt: "Warm up", country: "PT" })).status).toBe(200);
    const [stale] = (await poolStats("PT")).sessions;
    expect(stale?.busy).toBe(false);
    const intruder = await puppeteer.connect(env.BROWSER, stale?.session_id ?? "");
    await intruder.close();

    const next = await scrape(own.apiKey, { prompt: "After the idle browser died", country: "PT" });
    expect(next.status).toBe(200);
    const stats = await poolStats("PT");
    expect(stats.sessions.map((session) => session.session_id)).not.toContain(stale?.session_id);
    expect(stats.launches).toBe(2);
    expect(await balanceOf(own.accountId)).toBe(0);
  });

  it("a stored session whose browser is gone (a previous run's) is dropped before anyone connects to it, counted as gone", async () => {
    const own = await createTestAccount(6);
    expect((await scrape(own.apiKey, { prompt: "Warm up", country: "PL" })).status).toBe(200);
    const [warm] = (await poolStats("PL")).sessions;
    expect(warm?.busy).toBe(false);
    // What a restarted local stack finds: the pool's storage still lists a session of the previous run, first in line
    // for reuse, whose browser died with that run. The object restarts (abort), so it reads its storage again.
    const pool = browserPoolStub(env, "PL");
    await runInDurableObject(pool, (_instance, state) => {
      const stored = state.storage.kv.get<PooledSession[]>("sessions") ?? [];
      const [live] = stored;
      if (live === undefined) throw new Error("the warm session is not stored");
      const previousRun: PooledSession = { ...live, sessionId: "session-of-the-previous-run", launchedAt: live.launchedAt - 60_000 };
      state.storage.kv.put("sessions", [previousRun, ...stored]);
    });
    await expect(runInDurableObject(pool, (_instance, state) => state.abort("restart, as a new run of the stack"))).rejects.toThrow(
      "restart",
    );

    const next = await scrape(own.apiKey, { prompt: "After the restart", country: "PL" });
    expect(next.status).toBe(200);
    const stats = await poolStats("PL");
    expect(stats.gone).toBe(1);
    // never connected to: no failed connection, no replacement launched; the live warm session served the scrape
    expect(stats.failures).toBe(0);
    expect(stats.launches).toBe(1);
    expect(stats.reuses).toBe(1);
    expect(stats.sessions.map((session) => session.session_id)).toEqual([warm?.session_id]);
    expect(await balanceOf(own.accountId)).toBe(0);
  });

  it("answers 503 'warming up' with Retry-After when no session may be launched, and recovers when allowed", async () => {
    const own = await createTestAccount(6);
    const configured = await admin("/admin/pools/ES/config", { method: "POST", body: JSON.stringify({ launches_per_minute: 0 }) });
    expect(configured.status).toBe(200);
    const refused = await scrape(own.apiKey, { prompt: "Too early", country: "ES" });
    expect(refused.status).toBe(503);
    expect(refused.body.detail).toMatch(/warming up/);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await balanceOf(own.accountId)).toBe(6);
    expect((await poolStats("ES")).rejected_warming_up).toBe(1);

    await admin("/admin/pools/ES/config", { method: "POST", body: "null" });
    expect((await scrape(own.apiKey, { prompt: "Now it works", country: "ES" })).status).toBe(200);
  });

  it("pages are localised for the country: the provider sees its language", async () => {
    const own = await createTestAccount(6);
    expect((await scrape(own.apiKey, { prompt: "Wie ist das Wetter?", country: "de" })).status).toBe(200);
    expect((await replicaRequests("grok")).at(-1)?.headers["accept-language"]).toBe("de-DE,de;q=0.9,en;q=0.8");
    expect((await scrape(own.apiKey, { prompt: "Quel temps fait-il ?", country: "CH" })).status).toBe(200);
    expect((await replicaRequests("grok")).at(-1)?.headers["accept-language"]).toBe("de-CH,de;q=0.9,en;q=0.8");
  });

  it("the operator view needs the admin token", async () => {
    expect((await api("/admin/pools")).status).toBe(401);
    expect((await api("/admin/pools", { headers: { Authorization: "Bearer wrong" } })).status).toBe(401);
  });
});

describe("browser pool with several providers", () => {
  /** A page for a second provider (the capture bench stands in for it: other domains, so other sessions). */
  async function otherProviderPage(country: string): Promise<void> {
    await withScrapePage(
      env,
      {
        country,
        provider: "capture-lab",
        allowedDomains: ["127.0.0.1"],
        signal: AbortSignal.timeout(60_000),
        deadline: Date.now() + 60_000,
      },
      async ({ page }) => {
        await page.goto(`${env.REPLICA_URL}/__capture-lab/`, { waitUntil: "domcontentloaded" });
      },
    );
  }

  it("each provider keeps its own warm session in a country, shown per provider in the operator view", async () => {
    const own = await createTestAccount(30);
    expect((await scrape(own.apiKey, { prompt: "Provider A first", country: "SE" })).status).toBe(200);
    await otherProviderPage("SE");
    expect((await scrape(own.apiKey, { prompt: "Provider A again", country: "SE" })).status).toBe(200);
    await otherProviderPage("SE");
    const stats = await poolStats("SE");
    expect(stats.launches).toBe(2);
    expect(stats.reuses).toBe(2);
    expect(stats.discarded).toBe(0);
    expect(stats.sessions.map((session) => session.provider).sort()).toEqual(["capture-lab", "grok"]);
    expect(stats.max_sessions).toBeGreaterThanOrEqual(2);
  });

  it("at the country's session cap an idle session of another provider is retired to make room", async () => {
    const own = await createTestAccount(30);
    const configured = await admin("/admin/pools/BE/config", { method: "POST", body: JSON.stringify({ max_sessions: 1 }) });
    expect(configured.status).toBe(200);
    try {
      expect((await scrape(own.apiKey, { prompt: "Cap first", country: "BE" })).status).toBe(200);
      await otherProviderPage("BE");
      const stats = await poolStats("BE");
      expect(stats.launches).toBe(2);
      expect(stats.discarded).toBe(1);
      expect(stats.sessions.map((session) => session.provider)).toEqual(["capture-lab"]);
    } finally {
      await admin("/admin/pools/BE/config", { method: "POST", body: "null" });
    }
  });
});
