/**
 * Fair sharing with real Chromium (issue 19), each abuse reproduced through the Worker with the Grok replica made slow
 * (`pacing`), as the issue found it: one account's burst of time-outs locking another out and leaking leases (1, 2), a
 * lease whose holder vanished (1), a lease granted as its caller gives up (1), browsers left alive in many countries
 * (3), and one account's job backlog in front of everyone else's (2). Tests run with BROWSER_POOL_SIZE=2 and
 * BROWSER_POOL_QUEUE_LIMIT=4 (vitest.config.ts); each uses its own countries.
 */
import puppeteer from "@cloudflare/puppeteer";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { browserPoolStub } from "../../src/browser/browser-pool";
import { AT_CAPACITY_DETAIL, QUEUE_FULL_DETAIL, withScrapePage } from "../../src/browser/page-lease";
import type { BudgetStats, PoolStats } from "../../src/browser/pool-types";
import { tooManyRequestsInFlightDetail } from "../../src/limits/request-slot";
import type { JobView } from "../../src/jobs/job-types";
import { accountLimits } from "../../src/limits/account-limits";
import { api, balanceOf, createTestAccount, query, replicaControl } from "../support/workers/helpers";

afterEach(async () => {
  await replicaControl("reset");
});

function admin(path: string, body?: unknown): Promise<Response> {
  const headers = new Headers({ Authorization: `Bearer ${env.ADMIN_TOKEN}` });
  if (body !== undefined) headers.set("content-type", "application/json");
  return api(path, { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function pools(): Promise<{ pools: PoolStats[]; budget: BudgetStats }> {
  const response = await admin("/admin/pools");
  expect(response.status).toBe(200);
  return (await response.json()) as { pools: PoolStats[]; budget: BudgetStats };
}

async function poolStats(country: string): Promise<PoolStats> {
  const response = await admin(`/admin/pools?country=${country}`);
  const {
    pools: [pool],
  } = (await response.json()) as { pools: PoolStats[] };
  if (pool === undefined) throw new Error(`no pool for ${country}`);
  return pool;
}

/** Waits for a condition, polling; fails with the last value seen when it does not hold in time. */
async function eventually<T>(read: () => Promise<T>, holds: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface ScrapeOutcome {
  status: number;
  retryAfter: string | null;
  body: { detail?: string; result?: string };
}

async function scrape(apiKey: string, params: Record<string, string>): Promise<ScrapeOutcome> {
  const response = await api(`/scrapers/grok?${query({ bypass_cache: "true", ...params })}`, { apiKey });
  return {
    status: response.status,
    retryAfter: response.headers.get("Retry-After"),
    body: (await response.json()) as ScrapeOutcome["body"],
  };
}

describe("sync requests: one account cannot hold the shared browsers (1, 2)", () => {
  it("18 requests that time out from one account: another account's request still succeeds, and no lease is left behind", async () => {
    const country = "CZ";
    await replicaControl("pacing", { provider: "grok", delay_ms: 15_000 });
    const abuser = await createTestAccount(300);
    const customer = await createTestAccount(30);
    const limit = accountLimits(env).concurrentRequests;

    const burst = Array.from({ length: 18 }, (_, index) =>
      scrape(abuser.apiKey, { prompt: `Hold the browsers ${index}`, country, timeout: "10" }),
    );
    // The burst holds both sessions and fills the wait queue before the other customer arrives.
    await eventually(
      () => poolStats(country),
      (stats) => stats.busy === 2 && stats.queue_length > 0,
      20_000,
    );
    const legitimate = scrape(customer.apiKey, { prompt: "My one question", country, timeout: "60" });

    const abused = await Promise.all(burst);
    const inFlight = abused.filter((outcome) => outcome.body.detail === tooManyRequestsInFlightDetail(limit));
    expect(inFlight).toHaveLength(18 - limit);
    for (const outcome of inFlight) {
      expect(outcome.status).toBe(429);
      expect(Number(outcome.retryAfter)).toBeGreaterThan(0);
    }
    for (const outcome of abused) expect([408, 429]).toContain(outcome.status);
    expect(abused.filter((outcome) => outcome.status === 429 && outcome.body.detail === QUEUE_FULL_DETAIL).length).toBeGreaterThan(0);
    // Every time-out was refunded: the burst cost nothing, as in the issue, but it no longer costs anyone else anything.
    expect(await balanceOf(abuser.accountId)).toBe(300);

    // None of the burst runs or waits any more: the pool holds no lease and no waiter of that account within moments
    // (before: leases stayed busy until their expiry, 40 s, with no scrape running).
    const settled = await eventually(
      () => poolStats(country),
      (stats) =>
        !stats.sessions.some((session) => session.account_id === abuser.accountId) &&
        stats.queue_by_account[abuser.accountId] === undefined,
      5_000,
    );
    expect(settled.reclaimed).toBe(0);

    const served = await legitimate;
    expect(served.status).toBe(200);
    expect(await balanceOf(customer.accountId)).toBe(27);
    const after = await poolStats(country);
    expect(after.displaced).toBeGreaterThanOrEqual(1);
    expect(after.busy).toBe(0);
  });
});

describe("leases (1)", () => {
  it("a lease whose holder vanished is reclaimed by the pool's own alarm, which wakes the scrape waiting for it", async () => {
    const country = "HU";
    expect((await admin(`/admin/pools/${country}/config`, { size: 1 })).status).toBe(200);
    const own = await createTestAccount(30);
    expect((await scrape(own.apiKey, { prompt: "Warm up", country })).status).toBe(200);
    const [warm] = (await poolStats(country)).sessions;
    if (warm === undefined) throw new Error("no warm session");

    // A scrape takes the session and its isolate dies: nothing will ever hand the lease back. It ends in 3 s.
    const orphan = await browserPoolStub(env, country).acquire(country, {
      leaseId: crypto.randomUUID(),
      accountId: "acct_vanished",
      provider: "grok",
      allowedDomains: warm.domains,
      waitMs: 0,
      leaseMs: 3_000,
    });
    expect(orphan.ok).toBe(true);

    // No other traffic arrives; the waiting scrape must be woken by the pool itself when the lease ends.
    const started = Date.now();
    const waiting = await scrape(own.apiKey, { prompt: "Waiting for the orphan", country, timeout: "60" });
    expect(waiting.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(30_000);
    const stats = await poolStats(country);
    expect(stats.reclaimed).toBe(1);
    expect(stats.busy).toBe(0);
    expect(stats.sessions.map((session) => session.session_id)).not.toContain(warm.session_id);
  });

  it("a lease granted to a caller that has just given up goes straight back (release and deadline at once, many times)", async () => {
    const country = "SK";
    expect((await admin(`/admin/pools/${country}/config`, { size: 1 })).status).toBe(200);
    const own = await createTestAccount(30);
    expect((await scrape(own.apiKey, { prompt: "Warm up", country })).status).toBe(200);
    const domains = (await poolStats(country)).sessions[0]?.domains ?? [];
    const page = (signal: AbortSignal, work: () => Promise<void>) =>
      withScrapePage(
        env,
        { country, provider: "grok", accountId: own.accountId, allowedDomains: domains, signal, deadline: Date.now() + 60_000 },
        work,
      );

    for (let round = 0; round < 6; round += 1) {
      let finishHolder: () => void = () => undefined;
      const holding = new Promise<void>((resolve) => {
        finishHolder = resolve;
      });
      const holder = page(AbortSignal.timeout(60_000), () => holding);
      await eventually(
        () => poolStats(country),
        (stats) => stats.busy === 1,
        10_000,
      );
      const giveUp = new AbortController();
      const waiter = page(giveUp.signal, async () => undefined).catch((error: unknown) => error);
      await eventually(
        () => poolStats(country),
        (stats) => stats.queue_length === 1,
        10_000,
      );
      // The holder hands the session back while the waiter's deadline passes: the grant and the give-up cross.
      finishHolder();
      giveUp.abort(new Error("deadline"));
      await holder;
      await waiter;
      await eventually(
        () => poolStats(country),
        (stats) => stats.busy === 0 && stats.queue_length === 0,
        3_000,
      );
    }
    expect((await poolStats(country)).reclaimed).toBe(0);

    // The same crossing made exact on the pool itself: granted first, given up second.
    const pool = browserPoolStub(env, country);
    const request = { accountId: own.accountId, provider: "grok", allowedDomains: domains, waitMs: 30_000, leaseMs: 60_000 };
    const first = { ...request, leaseId: crypto.randomUUID() };
    const held = await pool.acquire(country, first);
    if (!held.ok) throw new Error("no session");
    const second = { ...request, leaseId: crypto.randomUUID() };
    const queued = pool.acquire(country, second);
    await eventually(
      () => poolStats(country),
      (stats) => stats.queue_length === 1,
      5_000,
    );
    await pool.release(held.sessionId, first.leaseId, true);
    expect((await queued).ok).toBe(true);
    expect((await poolStats(country)).busy).toBe(1);
    await pool.abandon(second.leaseId);
    expect((await poolStats(country)).busy).toBe(0);
    // A late release of a lease that is no longer held changes nothing.
    await pool.release(held.sessionId, first.leaseId, false);
    expect((await poolStats(country)).sessions).toHaveLength(1);
  });
});

describe("the global browser budget (3)", () => {
  it("requests to many countries keep at most the budget of browsers alive: idle ones elsewhere are retired first", async () => {
    const countries = ["AT", "DK", "FI", "NO", "IE"];
    expect((await admin("/admin/browser-budget", { max_sessions: 2 })).status).toBe(200);
    try {
      const own = await createTestAccount(60);
      const seen = new Set<string>();
      for (const country of countries) {
        expect((await scrape(own.apiKey, { prompt: `Hello from ${country}`, country })).status).toBe(200);
        const { pools: all, budget } = await pools();
        const mine = all.filter((pool) => countries.includes(pool.country));
        for (const pool of mine) for (const session of pool.sessions) seen.add(session.session_id);
        expect(mine.reduce((total, pool) => total + pool.sessions.length, 0)).toBeLessThanOrEqual(2);
        expect(budget.in_use).toBeLessThanOrEqual(2);
      }
      const { pools: all, budget } = await pools();
      expect(budget.evictions).toBeGreaterThanOrEqual(countries.length - 2);
      const live = new Set(all.flatMap((pool) => pool.sessions.map((session) => session.session_id)));
      // The retired browsers are really closed, not only forgotten.
      const retired = [...seen].filter((id) => !live.has(id));
      expect(retired.length).toBeGreaterThanOrEqual(countries.length - 2);
      await eventually(
        async () => (await puppeteer.sessions(env.BROWSER)).map((session) => session.sessionId),
        (ids) => retired.every((id) => !ids.includes(id)),
        15_000,
      );
    } finally {
      await admin("/admin/browser-budget", { max_sessions: null });
    }
  });

  it("when every browser of the budget is busy, a launch elsewhere is refused with 503 and Retry-After, free of charge", async () => {
    expect((await admin("/admin/browser-budget", { max_sessions: 1 })).status).toBe(200);
    try {
      const own = await createTestAccount(30);
      await replicaControl("pacing", { provider: "grok", delay_ms: 4_000 });
      const busy = scrape(own.apiKey, { prompt: "Keeping the only browser busy", country: "PL" });
      await eventually(
        () => poolStats("PL"),
        (stats) => stats.busy === 1,
        20_000,
      );
      const refused = await scrape(own.apiKey, { prompt: "Somewhere else", country: "RO" });
      expect(refused.status).toBe(503);
      expect(refused.body.detail).toBe(AT_CAPACITY_DETAIL);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect((await busy).status).toBe(200);
      expect(await balanceOf(own.accountId)).toBe(27);
      await replicaControl("reset");
      // Now the only browser idles in PL: RO's launch retires it.
      expect((await scrape(own.apiKey, { prompt: "Somewhere else, later", country: "RO" })).status).toBe(200);
      expect((await poolStats("PL")).sessions).toHaveLength(0);
      expect((await pools()).budget.refusals).toBeGreaterThanOrEqual(1);
      expect((await poolStats("RO")).rejected_at_capacity).toBe(1);
    } finally {
      await admin("/admin/browser-budget", { max_sessions: null });
    }
  });
});

describe("jobs: one account's backlog never sits in front of another's (2)", () => {
  async function submit(apiKey: string, prompt: string): Promise<string> {
    const response = await api(`/scrapers/grok/jobs?${query({ prompt, bypass_cache: "true", country: "GR", timeout: "30" })}`, {
      method: "POST",
      apiKey,
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { job_id: string }).job_id;
  }

  async function finished(jobId: string): Promise<JobView> {
    return eventually(
      async () => (await (await api(`/jobs/${jobId}`)).json()) as JobView,
      (view) => view.status !== "pending",
      110_000,
    );
  }

  it("a job submitted after another account's backlog of 8 finishes long before that backlog does", async () => {
    await replicaControl("pacing", { provider: "grok", delay_ms: 2_000 });
    const heavy = await createTestAccount(300);
    const light = await createTestAccount(30);
    const backlog: string[] = [];
    for (let index = 0; index < 8; index += 1) backlog.push(await submit(heavy.apiKey, `Backlog job ${index}`));
    const submittedAt = Date.now();
    const lightJob = await submit(light.apiKey, "The light account's only job");

    const lightView = await finished(lightJob);
    expect(lightView.status).toBe("done");
    const lightDoneAt = Date.parse(lightView.completed_at ?? "");
    const heavyViews = await Promise.all(backlog.map((jobId) => finished(jobId)));
    // All of the backlog is served too (none left to the watchdog), and charged.
    expect(heavyViews.map((view) => view.status)).toEqual(Array(8).fill("done"));
    expect(await balanceOf(heavy.accountId)).toBe(300 - 8 * 3);
    expect(await balanceOf(light.accountId)).toBe(27);
    // Before: a first-in-first-out queue ran all 8 first. Now the light job waits for at most the jobs already running.
    const heavyDoneAfter = heavyViews.filter((view) => Date.parse(view.completed_at ?? "") > lightDoneAt).length;
    expect(heavyDoneAfter).toBeGreaterThanOrEqual(8 - accountLimits(env).runningJobs - 2);
    expect(lightDoneAt - submittedAt).toBeLessThan(20_000);
  });
});
