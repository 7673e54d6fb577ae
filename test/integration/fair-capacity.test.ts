/**
 * Fair capacity (issue 30, point 6), browser-free, each abuse reproduced through the Worker:
 * - refunded failures were free capacity: an account's refunded browser time now reduces its concurrency (and only
 *   its own);
 * - job attempts of one account are bounded so that no two accounts fill the queue consumers;
 * - one account's backlog hid every other account's lost job from the recovery sweep;
 * - the rate limiter and the browser budget let everything through when their Durable Object could not be reached.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BrowserBudget } from "../../src/browser/browser-budget";
import worker from "../../src/index";
import { RECOVERY_STALL_MS } from "../../src/jobs/job-policy";
import { RECOVERY_BATCH_LIMIT, recoverJobs } from "../../src/jobs/recovery";
import { accountLimits } from "../../src/limits/account-limits";
import { type Slot, takeAccountSlot } from "../../src/limits/account-slots";
import { MAX_TURNS_GIVEN_AWAY } from "../../src/limits/job-turns";
import { type AccountLimitsView, accountLimitsView } from "../../src/limits/limits-view";
import { refundedBrowserSeconds } from "../../src/limits/refunded-browser-time";
import { RequestRateLimiter } from "../../src/limits/request-rate-limiter";
import { adminApi, adminJson, seedCachedGrokAnswer } from "../support/workers/account-helpers";
import { createUnqueuedJob, jobView, waitForTerminal } from "../support/workers/async-helpers";
import { signedInVisitor } from "../support/workers/dashboard-visitor";
import { BASE, type TestAccount, api, balanceOf, createTestAccount, query } from "../support/workers/helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

/** The Worker's own fetch handler with some variables changed, as a deployment configured that way would run. */
async function fetchWith(vars: Partial<Env>, path: string, apiKey: string): Promise<Response> {
  return worker.fetch(new Request(`${BASE}${path}`, { headers: { "X-API-Key": apiKey } }), { ...env, ...vars }, createExecutionContext());
}

/** A synchronous scrape that needs a browser (never the cache) in `country`. */
function browserScrapePath(country: string, prompt: string): string {
  return `/scrapers/grok?${query({ prompt, country, bypass_cache: "true", timeout: "30" })}`;
}

/** One of the account's synchronous request slots, held as a running scrape would hold it. */
async function holdRequestSlot(account: TestAccount): Promise<void> {
  const outcome = await takeAccountSlot(env.DB, { accountId: account.accountId, kind: "request", limit: 8, ttlMs: 120_000 });
  expect(outcome.taken).toBe(true);
}

async function errorOf(response: Response): Promise<{ detail: string; code: string }> {
  return (await response.json()) as { detail: string; code: string };
}

async function deliver(body: Record<string, unknown>) {
  const batch = createMessageBatch("scrape-jobs", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

describe("refunded browser time is budgeted per account", () => {
  it("past the budget, an account's synchronous scrapes in flight drop to a quarter (429 that says why); another account keeps its 8", async () => {
    // Every browser scrape in Iceland fails at once (no launch allowed) and is refunded: a stand-in for time-outs.
    await adminJson("/admin/pools/IS/config", { method: "POST", body: { launches_per_minute: 0 } });
    const budget = { ACCOUNT_REFUNDED_BROWSER_SECONDS_PER_HOUR: "2" };
    const abuser = await createTestAccount(30);
    const other = await createTestAccount(30);

    // Three refunded scrapes held a browser slot: every started second counts, so 3 s > the budget of 2 s.
    for (let index = 0; index < 3; index += 1) {
      const refused = await fetchWith(budget, browserScrapePath("IS", `refunded ${index}`), abuser.apiKey);
      expect(refused.status).toBe(503);
      expect((await errorOf(refused)).code).toBe("pool_warming_up");
    }
    expect(await balanceOf(abuser.accountId)).toBe(30);
    expect(await refundedBrowserSeconds(env.DB, abuser.accountId)).toBe(3);

    // Two scrapes of each account are running: a quarter of 8.
    for (const account of [abuser, other]) {
      await holdRequestSlot(account);
      await holdRequestSlot(account);
    }
    const reduced = await fetchWith(budget, browserScrapePath("IS", "third in flight"), abuser.apiKey);
    expect(reduced.status).toBe(429);
    expect(reduced.headers.get("Retry-After")).toMatch(/^[1-9]\d*$/);
    const body = await errorOf(reduced);
    expect(body.code).toBe("concurrency_limit");
    expect(body.detail).toMatch(/at most 2 synchronous scrapes run at once \(normally 8\)/);
    expect(body.detail).toMatch(/refunded time-outs/);
    expect(await balanceOf(abuser.accountId)).toBe(30);

    // The other account has refunded nothing: its third scrape goes on to the pool (which is what answers here).
    const unaffected = await fetchWith(budget, browserScrapePath("IS", "other account"), other.apiKey);
    expect((await errorOf(unaffected)).code).toBe("pool_warming_up");

    // The limits the account sees (operator API, dashboard) say the same.
    const view = await accountLimitsView({ ...env, ...budget }, abuser.accountId);
    expect(view.concurrent_requests).toEqual({ limit: 2, in_use: 2 });
    expect((await accountLimitsView({ ...env, ...budget }, other.accountId)).concurrent_requests).toEqual({ limit: 8, in_use: 2 });
  });

  it("a failed job attempt adds its browser time to the account's refunded time", async () => {
    await adminJson("/admin/pools/IS/config", { method: "POST", body: { launches_per_minute: 0 } });
    const account = await createTestAccount(9);
    const jobId = await createUnqueuedJob(account, {
      prompt: "job attempt that fails",
      country: "IS",
      bypass_cache: true,
      timeout: 30,
      mode: "MODEL_MODE_AUTO",
    });
    // The last allowed attempt: it fails for good, refunded.
    await deliver({ jobId, earlierDeliveries: 3, turnsGivenAway: MAX_TURNS_GIVEN_AWAY });
    expect((await jobView(jobId)).status).toBe("failed");
    expect(await balanceOf(account.accountId)).toBe(9);
    expect(await refundedBrowserSeconds(env.DB, account.accountId)).toBe(1);
  });
});

describe("the operator sets an account's refunded-time budget", () => {
  type LimitsResponse = { account_id: string; limits: AccountLimitsView };
  const limitsPath = (account: TestAccount) => `/admin/accounts/${account.accountId}/limits`;
  const setBudget = (account: TestAccount, seconds: number | null) =>
    adminJson<LimitsResponse>(limitsPath(account), { method: "PATCH", body: { refunded_browser_seconds_per_hour: seconds } });

  it("an override of 2 s reduces that account's concurrency after three refunded scrapes; another account on the default keeps its bounds; null restores the default", async () => {
    // Every browser scrape in Iceland fails at once (no launch allowed) and is refunded: a stand-in for time-outs.
    await adminJson("/admin/pools/IS/config", { method: "POST", body: { launches_per_minute: 0 } });
    const limited = await createTestAccount(30);
    const other = await createTestAccount(30);

    const set = await setBudget(limited, 2);
    expect(set.limits.account_overrides.refunded_browser_seconds_per_hour).toBe(2);
    expect(set.limits.refunded_browser_time).toEqual({ seconds_per_hour: 2, seconds_last_hour: 0, concurrency_reduced: false });

    // Both accounts have three refunded scrapes (3 s): past the limited account's 2 s, far within the default 1800 s.
    for (const account of [limited, other]) {
      for (let index = 0; index < 3; index += 1) {
        const refused = await api(browserScrapePath("IS", `refunded ${index}`), { apiKey: account.apiKey });
        expect((await errorOf(refused)).code).toBe("pool_warming_up");
      }
      expect(await refundedBrowserSeconds(env.DB, account.accountId)).toBe(3);
      // Two scrapes running: a quarter of 8.
      await holdRequestSlot(account);
      await holdRequestSlot(account);
    }

    const reduced = await api(browserScrapePath("IS", "third in flight"), { apiKey: limited.apiKey });
    expect(reduced.status).toBe(429);
    const body = await errorOf(reduced);
    expect(body.code).toBe("concurrency_limit");
    expect(body.detail).toMatch(/at most 2 synchronous scrapes run at once \(normally 8\)/);
    expect(body.detail).toMatch(/for more than 2 seconds in the last hour/);
    const unaffected = await api(browserScrapePath("IS", "other account"), { apiKey: other.apiKey });
    expect((await errorOf(unaffected)).code).toBe("pool_warming_up");

    // Job attempts too: the limited account's running jobs drop from 2 to 1, the other account's do not.
    const jobSlot = (account: TestAccount) =>
      takeAccountSlot(env.DB, { accountId: account.accountId, kind: "job", limit: 2, ttlMs: 120_000, jobId: crypto.randomUUID() });
    expect((await jobSlot(limited)).taken).toBe(true);
    expect(await jobSlot(limited)).toMatchObject({
      taken: false,
      limit: 1,
      normalLimit: 2,
      reducedForRefundedTime: true,
      refundedSecondsPerHour: 2,
    });
    expect((await jobSlot(other)).taken).toBe(true);
    expect((await jobSlot(other)).taken).toBe(true);

    // The operator API shows the budget, the hour's refunded seconds and the reduction.
    const limitedView = await adminJson<LimitsResponse>(limitsPath(limited));
    expect(limitedView.limits.refunded_browser_time).toEqual({ seconds_per_hour: 2, seconds_last_hour: 3, concurrency_reduced: true });
    expect(limitedView.limits.concurrent_requests).toEqual({ limit: 2, in_use: 2 });
    expect(limitedView.limits.running_jobs).toEqual({ limit: 1, in_use: 1 });
    const otherView = await adminJson<LimitsResponse>(limitsPath(other));
    // Its scrape that went on to the pool was refunded too: 4 s, still far within the default.
    expect(otherView.limits.refunded_browser_time).toEqual({ seconds_per_hour: 1800, seconds_last_hour: 4, concurrency_reduced: false });
    expect(otherView.limits.account_overrides.refunded_browser_seconds_per_hour).toBeNull();
    expect(otherView.limits.concurrent_requests).toEqual({ limit: 8, in_use: 2 });

    // The customer's dashboard says the same in words.
    const { visitor } = await signedInVisitor(limited.accountId);
    const overview = await (await visitor.get("/dashboard")).text();
    expect(overview).toMatch(/data-testid="limit-refunded-browser-time">[^<]*held browsers for 3 s in the last hour, of 2 s allowed/);
    expect(overview).toMatch(/the bounds above are a quarter of your limits/);
    expect(overview).toMatch(/data-testid="limit-synchronous-requests">2 of 2 in use</);

    // null puts the default back: the limited account's third scrape goes on to the pool again.
    const restored = await setBudget(limited, null);
    expect(restored.limits.account_overrides.refunded_browser_seconds_per_hour).toBeNull();
    expect(restored.limits.refunded_browser_time).toEqual({ seconds_per_hour: 1800, seconds_last_hour: 3, concurrency_reduced: false });
    expect(restored.limits.concurrent_requests).toEqual({ limit: 8, in_use: 2 });
    const again = await api(browserScrapePath("IS", "third in flight again"), { apiKey: limited.apiKey });
    expect((await errorOf(again)).code).toBe("pool_warming_up");
    expect(await balanceOf(limited.accountId)).toBe(30);
  });

  it("invalid values are refused with 400 naming the field, and the stored value is kept", async () => {
    const account = await createTestAccount(30);
    await setBudget(account, 600);
    for (const invalid of [0, -1, 1.5, "10", 2_000_000]) {
      const response = await adminApi(limitsPath(account), { method: "PATCH", body: { refunded_browser_seconds_per_hour: invalid } });
      expect(response.status, `value ${JSON.stringify(invalid)}`).toBe(400);
      const body = await errorOf(response);
      expect(body.detail).toMatch(/refunded_browser_seconds_per_hour/);
      expect(body.detail).toMatch(/from 1 to 1000000/);
    }
    const view = await adminJson<LimitsResponse>(limitsPath(account));
    expect(view.limits.account_overrides.refunded_browser_seconds_per_hour).toBe(600);
    expect(view.limits.refunded_browser_time.seconds_per_hour).toBe(600);
  });
});

describe("job attempts per account are bounded", () => {
  it("an account with its attempts running gets no further consumer: its next job is sent back to wait, not run and not failed", async () => {
    const busy = await createTestAccount(30);
    const prompt = `attempt bound ${crypto.randomUUID()}`;
    await seedCachedGrokAnswer(prompt, busy.accountId);
    const params = { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" } as const;
    // The account has as many attempts running in consumers as it may (ACCOUNT_MAX_RUNNING_JOBS).
    const running: Slot[] = [];
    for (let index = 0; index < accountLimits(env).runningJobs; index++) {
      const outcome = await takeAccountSlot(env.DB, {
        accountId: busy.accountId,
        kind: "job",
        limit: 8,
        ttlMs: 630_000,
        jobId: crypto.randomUUID(),
      });
      if (!outcome.taken) throw new Error("the test could not take a running-job slot");
      running.push(outcome.slot);
    }

    const next = await createUnqueuedJob(busy, params);
    // Turns between accounts are not what holds it back (it has given way as often as it ever does).
    const outcome = await deliver({ jobId: next, turnsGivenAway: MAX_TURNS_GIVEN_AWAY });
    expect(outcome.explicitAcks).toHaveLength(1);
    expect(outcome.retryMessages).toHaveLength(0);
    expect(await jobView(next)).toMatchObject({ status: "pending", attempts: 0 });

    // Another account's job finds a consumer and runs.
    const light = await createTestAccount(30);
    await seedCachedGrokAnswer(prompt, light.accountId);
    const lightJob = await createUnqueuedJob(light, params);
    await deliver({ jobId: lightJob, turnsGivenAway: MAX_TURNS_GIVEN_AWAY });
    expect((await jobView(lightJob)).status).toBe("done");

    // Once a running attempt ends, the waiting job runs (the message sent back reaches the consumer).
    const [ended] = running;
    if (ended !== undefined)
      await env.DB.prepare("UPDATE account_slots SET released_at = ? WHERE slot_id = ?").bind(Date.now(), ended.slotId).run();
    expect(await waitForTerminal(next)).toMatchObject({ status: "done", attempts: 1 });
  });
});

describe("the recovery sweep is fair across accounts", () => {
  it("one account's backlog larger than a sweep does not hide another account's lost job", async () => {
    const heavy = await createTestAccount(30);
    const light = await createTestAccount(30);
    // The heavy account's backlog: older than anything else pending, more jobs than one sweep looks at.
    const anHourAgo = new Date(Date.now() - 60 * 60_000).toISOString();
    const backlog = Array.from({ length: RECOVERY_BATCH_LIMIT + 20 }, () => crypto.randomUUID());
    await env.DB.prepare(
      `INSERT INTO jobs (job_id, account_id, key_id, scraper, created_at)
       SELECT value, ?1, ?2, 'grok', ?3 FROM json_each(?4)`,
    )
      .bind(heavy.accountId, heavy.keyId, anHourAgo, JSON.stringify(backlog))
      .run();
    try {
      const prompt = `lost behind a backlog ${crypto.randomUUID()}`;
      await seedCachedGrokAnswer(prompt, light.accountId);
      const lost = await createUnqueuedJob(light, { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" });

      const report = await recoverJobs(env, { now: Date.now() + RECOVERY_STALL_MS + 1_000 });
      expect(report.checked).toBeLessThanOrEqual(RECOVERY_BATCH_LIMIT);
      expect(report.requeued).toBeGreaterThanOrEqual(1);
      expect(await waitForTerminal(lost)).toMatchObject({ status: "done", attempts: 1 });
      expect(await balanceOf(light.accountId)).toBe(27);
    } finally {
      await env.DB.prepare("UPDATE jobs SET status = 'failed' WHERE account_id = ?").bind(heavy.accountId).run();
    }
  }, 180_000);
});

describe("limiters fail closed", () => {
  it("the rate limiter's Durable Object unreachable: the request is refused with 503 capacity_unavailable and Retry-After", async () => {
    const account = await createTestAccount(30);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.spyOn(RequestRateLimiter.prototype, "lease").mockRejectedValue(new Error("Durable Object reset because its code was updated."));
    const response = await api("/account", { apiKey: account.apiKey });
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("5");
    const body = await errorOf(response);
    expect(body.code).toBe("capacity_unavailable");
    expect(body.detail).toMatch(/Retry in a few seconds/);
  });

  it("the browser budget unreachable: no browser is launched, the scrape gets 503 capacity_unavailable and is refunded", async () => {
    const account = await createTestAccount(30);
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    vi.spyOn(BrowserBudget.prototype, "reserve").mockRejectedValue(new Error("Network connection lost."));
    // A country whose pool has no session yet and may launch one: it must ask the budget first.
    await adminJson("/admin/pools/LU/config", { method: "POST", body: { launches_per_minute: 30 } });
    const response = await api(browserScrapePath("LU", "budget unreachable"), { apiKey: account.apiKey });
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("5");
    expect((await errorOf(response)).code).toBe("capacity_unavailable");
    expect(await balanceOf(account.accountId)).toBe(30);
  });
});
