/**
 * Issue 12 item 4 without a browser: the failure categories, the up/degraded/down thresholds, the figures computed in
 * D1 (success rate, nearest-rank p50/p95, hour and day windows, last failure, canary rounds), the public endpoints
 * (HTML, JSON by Accept or /status.json, no key, nothing per customer) and the Cron Trigger called directly with the
 * real bindings (here with canaries off: the canaries themselves are test/e2e/canaries.test.ts).
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  PoolWarmingUpError,
  ScraperDriftError,
  ScrapeTimeoutError,
  ServiceError,
  TooManyRequestsError,
  UnexpectedResultError,
  UpstreamError,
} from "../../src/errors";
import worker from "../../src/index";
import { CHATGPT_DETAIL } from "../../src/scrapers/chatgpt/failures";
import { allProviders } from "../../src/scrapers/registry";
import { CANARY_PROMPT, canaryConfig, plannedCanaries } from "../../src/status/canaries";
import { classifyFailure } from "../../src/status/failure-reason";
import { OUTCOME_RETENTION_MS, recordScrapeOutcome, type ScrapeOutcome } from "../../src/status/outcome-log";
import { computeServiceStatus } from "../../src/status/status-figures";
import { providerState, serviceState } from "../../src/status/status-levels";
import { type ProviderStatus, type ServiceStatus, ServiceStatusSchema, type WindowFigures } from "../../src/status/status-schema";
import { cachedScrape, newAccount, newKey } from "../support/workers/account-helpers";
import { api } from "../support/workers/helpers";
import { statusPageHtml } from "../../src/http/status-page";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Far from the wall clock, so rows recorded at real time by other tests never fall in these windows. */
const T = Date.UTC(2100, 0, 1, 12, 0, 0);

type Recorded = { provider: string; ok: boolean; error?: unknown; latencyMs?: number; country?: string; at: number } & (
  | { source: "canary"; roundAt: number }
  | { source: "traffic"; accountTag?: string }
);

/** Traffic rows without a tag each come from an account of their own. */
const ownAccountTag = (() => {
  let accounts = 0;
  return () => {
    accounts += 1;
    return `account-${accounts}`;
  };
})();

/** Records an outcome at `at`. */
async function record({ at, ...outcome }: Recorded): Promise<void> {
  const defaults = { country: "US", latencyMs: 1000 };
  await recordScrapeOutcome(
    env.DB,
    outcome.source === "canary"
      ? { ...defaults, ...outcome }
      : { ...defaults, ...outcome, accountTag: outcome.accountTag ?? ownAccountTag() },
    at,
  );
}

function providerOf(status: ServiceStatus, id: string): ProviderStatus {
  const found = status.providers.find((provider) => provider.provider === id);
  if (found === undefined) throw new Error(`no ${id} in the status`);
  return found;
}

function figures(scrapes: number, succeeded: number): WindowFigures {
  return { scrapes, succeeded, success_rate: scrapes === 0 ? null : succeeded / scrapes, p50_ms: null, p95_ms: null };
}

const NONE = figures(0, 0);

async function trafficRows(): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM scrape_outcomes WHERE source = 'traffic'").first<{ n: number }>();
  return row?.n ?? Number.NaN;
}

async function statusJson(): Promise<ServiceStatus> {
  const response = await api("/status.json");
  expect(response.status).toBe(200);
  return ServiceStatusSchema.parse(await response.json());
}

async function runCron(overrides: Partial<Env>): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "*/10 * * * *" }), { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
}

describe("failure categories come from the error class and its reason, never from text", () => {
  it("drift (with its stable code), timeout, challenge, login wall, other; capacity refusals are not the provider's", () => {
    expect(classifyFailure(new ScraperDriftError("grok", "composer_missing", "no composer"))).toEqual({
      reason: "drift",
      driftCode: "grok.composer_missing",
    });
    expect(classifyFailure(new ScrapeTimeoutError(30))).toEqual({ reason: "timeout", driftCode: null });
    expect(classifyFailure(new UpstreamError(CHATGPT_DETAIL.challenge, { reason: "challenge" }))?.reason).toBe("challenge");
    expect(classifyFailure(new UpstreamError(CHATGPT_DETAIL.login, { retryable: false, reason: "login_wall" }))?.reason).toBe("login_wall");
    expect(classifyFailure(new UpstreamError(CHATGPT_DETAIL.rateLimit, { reason: "rate_limited" }))?.reason).toBe("other");
    // the words of the detail never decide: only the reason set where the error was thrown
    expect(classifyFailure(new UpstreamError(CHATGPT_DETAIL.challenge))?.reason).toBe("other");
    // Provider text in the cause never decides: this cause says "challenge", the detail does not.
    expect(
      classifyFailure(new UpstreamError(CHATGPT_DETAIL.serverError, { cause: new Error("anti-bot challenge login wall") }))?.reason,
    ).toBe("other");
    expect(classifyFailure(new UnexpectedResultError())?.reason).toBe("other");
    expect(classifyFailure(new Error("anti-bot challenge"))?.reason).toBe("other");
    expect(
      classifyFailure(new TooManyRequestsError("The scraper queue is full for this country. Retry shortly.", 5, "queue_full")),
    ).toBeNull();
    expect(classifyFailure(new PoolWarmingUpError())).toBeNull();
    expect(classifyFailure(new ServiceError(503, "Every browser session of the service is in use.", { retryable: true }))).toBeNull();
  });

  it("a capacity refusal is not recorded at all", async () => {
    const at = T - 5 * MINUTE;
    expect(
      await recordScrapeOutcome(
        env.DB,
        {
          provider: "grok",
          country: "US",
          source: "traffic",
          accountTag: "a-warming",
          ok: false,
          error: new PoolWarmingUpError(),
          latencyMs: 5,
        },
        at,
      ),
    ).toBe(false);
    const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM scrape_outcomes WHERE at = ?").bind(at).first<{ n: number }>();
    expect(row?.n).toBe(0);
  });
});

describe("thresholds", () => {
  const round = (canaries: number, failed: number, roundAt = 0) => ({ roundAt, canaries, failed });

  it("unknown without a scrape in the hour; up when all is well", () => {
    expect(providerState({ lastHour: { canaries: NONE, traffic: NONE, trafficFailingAccounts: 3 }, recentRounds: [] })).toBe("unknown");
    expect(
      providerState({ lastHour: { canaries: figures(6, 6), traffic: NONE, trafficFailingAccounts: 3 }, recentRounds: [round(1, 0)] }),
    ).toBe("up");
    expect(providerState({ lastHour: { canaries: NONE, traffic: figures(3, 1), trafficFailingAccounts: 3 }, recentRounds: [] })).toBe("up");
  });

  it("degraded: the latest round had a failed canary, or a success rate under 90 % over at least 10 scrapes", () => {
    expect(
      providerState({ lastHour: { canaries: figures(1, 0), traffic: NONE, trafficFailingAccounts: 3 }, recentRounds: [round(1, 1)] }),
    ).toBe("degraded");
    expect(
      providerState({
        lastHour: { canaries: figures(4, 3), traffic: NONE, trafficFailingAccounts: 3 },
        recentRounds: [round(2, 1), round(2, 2)],
      }),
    ).toBe("degraded");
    expect(providerState({ lastHour: { canaries: NONE, traffic: figures(10, 8), trafficFailingAccounts: 3 }, recentRounds: [] })).toBe(
      "degraded",
    );
    // 9 scrapes are too few to be judged by their rate
    expect(providerState({ lastHour: { canaries: NONE, traffic: figures(9, 5), trafficFailingAccounts: 3 }, recentRounds: [] })).toBe("up");
    // the canaries recovered: the older failed round alone does not make it down
    expect(
      providerState({
        lastHour: { canaries: figures(3, 2), traffic: NONE, trafficFailingAccounts: 3 },
        recentRounds: [round(1, 0), round(1, 1)],
      }),
    ).toBe("up");
  });

  it("down: the last 2 rounds failed on every canary, or a success rate under 50 % over at least 10 scrapes", () => {
    expect(
      providerState({
        lastHour: { canaries: figures(2, 0), traffic: NONE, trafficFailingAccounts: 3 },
        recentRounds: [round(1, 1), round(1, 1)],
      }),
    ).toBe("down");
    expect(
      providerState({
        lastHour: { canaries: figures(4, 1), traffic: NONE, trafficFailingAccounts: 3 },
        recentRounds: [round(2, 2), round(2, 1)],
      }),
    ).toBe("degraded");
    expect(
      providerState({
        lastHour: { canaries: figures(2, 2), traffic: figures(10, 3), trafficFailingAccounts: 3 },
        recentRounds: [round(1, 0)],
      }),
    ).toBe("down");
  });

  it("customers' failures count only when 3 distinct accounts had one in the hour; canaries always count", () => {
    const flood = (accounts: number) => ({ canaries: figures(1, 1), traffic: figures(13, 1), trafficFailingAccounts: accounts });
    expect(providerState({ lastHour: flood(0), recentRounds: [round(1, 0)] })).toBe("up");
    expect(providerState({ lastHour: flood(2), recentRounds: [round(1, 0)] })).toBe("up");
    expect(providerState({ lastHour: flood(3), recentRounds: [round(1, 0)] })).toBe("down");
    // set aside, the failures leave the successes: 9 of 10 judged scrapes succeeded
    expect(
      providerState({
        lastHour: { canaries: figures(1, 0), traffic: figures(20, 9), trafficFailingAccounts: 1 },
        recentRounds: [round(1, 1)],
      }),
    ).toBe("degraded");
    expect(
      providerState({
        lastHour: { canaries: figures(2, 0), traffic: figures(20, 20), trafficFailingAccounts: 0 },
        recentRounds: [round(1, 1), round(1, 1)],
      }),
    ).toBe("down");
  });

  it("the service: up, degraded when any provider is degraded or down, down only when every provider with data is", () => {
    expect(serviceState(["up", "up"])).toBe("up");
    // a provider without data is not known to be up
    expect(serviceState(["up", "up", "unknown"])).toBe("partial");
    expect(serviceState(["up", "down"])).toBe("degraded");
    expect(serviceState(["degraded", "unknown"])).toBe("degraded");
    expect(serviceState(["down", "down", "unknown"])).toBe("down");
    expect(serviceState(["unknown", "unknown"])).toBe("unknown");
  });
});

describe("figures computed in D1", () => {
  it("success rates, nearest-rank p50/p95 per window, canary rounds, last failure, per provider", async () => {
    // grok: four canary rounds, the last two failed (challenge, then a login wall) → down; 20 customer scrapes in the
    // hour at 100…2000 ms and 5 at 5000 ms earlier in the day.
    for (const [minutesAgo, ok, error] of [
      [50, true, undefined],
      [40, true, undefined],
      [30, false, new UpstreamError(CHATGPT_DETAIL.challenge, { reason: "challenge" })],
      [20, false, new UpstreamError(CHATGPT_DETAIL.login, { retryable: false, reason: "login_wall" })],
    ] as const) {
      const at = T - minutesAgo * MINUTE;
      await record({ provider: "grok", source: "canary", ok, error, roundAt: at - 1000, at, latencyMs: ok ? 1500 : 4000 });
    }
    for (let index = 1; index <= 20; index += 1) {
      await record({ provider: "grok", source: "traffic", ok: true, latencyMs: index * 100, at: T - index * MINUTE });
    }
    for (let index = 1; index <= 5; index += 1) {
      await record({ provider: "grok", source: "traffic", ok: true, latencyMs: 5000, at: T - 5 * HOUR - index * MINUTE });
    }
    // perplexity: one round from two countries, one canary timed out → degraded
    await record({ provider: "perplexity", source: "canary", ok: true, roundAt: T - 11 * MINUTE, at: T - 10 * MINUTE, latencyMs: 800 });
    await record({
      provider: "perplexity",
      source: "canary",
      country: "DE",
      ok: false,
      error: new ScrapeTimeoutError(120),
      roundAt: T - 11 * MINUTE,
      at: T - 9 * MINUTE,
    });
    // chatgpt: customer traffic only, 6 of 10 succeeded → degraded; copilot: 4 of 10 → down
    for (let index = 0; index < 10; index += 1) {
      await record({
        provider: "chatgpt",
        source: "traffic",
        ok: index < 6,
        error: index < 6 ? undefined : new UnexpectedResultError(),
        at: T - index * MINUTE,
      });
      await record({
        provider: "copilot",
        source: "traffic",
        ok: index < 4,
        error: index < 4 ? undefined : new UnexpectedResultError(),
        at: T - index * MINUTE,
      });
    }
    // gemini: one scrape two hours ago → unknown now, counted in the day
    await record({ provider: "gemini", source: "traffic", ok: true, latencyMs: 700, at: T - 2 * HOUR });
    // google_ai_mode: a healthy canary now, and layout drift three days ago (outside the day, inside the 8 days kept)
    await record({ provider: "google_ai_mode", source: "canary", ok: true, roundAt: T - 6 * MINUTE, at: T - 5 * MINUTE, latencyMs: 900 });
    await record({
      provider: "google_ai_mode",
      source: "traffic",
      ok: false,
      error: new ScraperDriftError("google_ai_mode", "answer_missing", "no answer container"),
      at: T - 3 * DAY,
    });

    const status = await computeServiceStatus(env.DB, T);
    expect(status.generated_at).toBe("2100-01-01T12:00:00.000+00:00");
    expect(status.providers.map((provider) => provider.provider)).toEqual(allProviders().map((provider) => provider.id));

    const grok = providerOf(status, "grok");
    expect(grok.status).toBe("down");
    expect(grok.canaries.last_hour).toEqual({ scrapes: 4, succeeded: 2, success_rate: 0.5, p50_ms: 1500, p95_ms: 1500 });
    // ranks 10 and 19 of 100…2000 ms
    expect(grok.traffic.last_hour).toEqual({ scrapes: 20, succeeded: 20, success_rate: 1, p50_ms: 1000, p95_ms: 1900 });
    // ranks 13 and 24 of the 25: 1300 ms and one of the 5000 ms scrapes
    expect(grok.traffic.last_day).toEqual({ scrapes: 25, succeeded: 25, success_rate: 1, p50_ms: 1300, p95_ms: 5000 });
    expect(grok.last_failure).toEqual({ reason: "login_wall", source: "canary", at: "2100-01-01T11:40:00.000+00:00" });
    expect(grok.last_canary_at).toBe("2100-01-01T11:40:00.000+00:00");

    const perplexity = providerOf(status, "perplexity");
    expect(perplexity.status).toBe("degraded");
    expect(perplexity.canaries.last_hour).toEqual({ scrapes: 2, succeeded: 1, success_rate: 0.5, p50_ms: 800, p95_ms: 800 });
    expect(perplexity.last_failure?.reason).toBe("timeout");

    const chatgpt = providerOf(status, "chatgpt");
    expect([chatgpt.status, chatgpt.traffic.last_hour.success_rate, chatgpt.last_failure?.reason]).toEqual(["degraded", 0.6, "other"]);
    expect(chatgpt.canaries.last_hour).toEqual(NONE);
    expect(providerOf(status, "copilot").status).toBe("down");

    const gemini = providerOf(status, "gemini");
    expect([gemini.status, gemini.traffic.last_hour.scrapes, gemini.traffic.last_day.scrapes, gemini.last_failure]).toEqual([
      "unknown",
      0,
      1,
      null,
    ]);

    const google = providerOf(status, "google_ai_mode");
    expect(google.status).toBe("up");
    expect(google.last_failure).toEqual({ reason: "drift", source: "traffic", at: "2099-12-29T12:00:00.000+00:00" });
    const drift = await env.DB.prepare("SELECT drift_code FROM scrape_outcomes WHERE provider = 'google_ai_mode' AND ok = 0").first<{
      drift_code: string;
    }>();
    expect(drift?.drift_code).toBe("google_ai_mode.answer_missing");

    const rufus = providerOf(status, "amazon_rufus");
    expect(rufus).toMatchObject({ status: "unknown", last_canary_at: null, last_failure: null });
    expect(rufus.canaries).toEqual({ last_hour: NONE, last_day: NONE });

    expect(status.status).toBe("degraded");
    // the oldest outcome kept: google_ai_mode's drift three days ago
    expect(status.history_since).toBe("2099-12-29T12:00:00.000+00:00");
    // Ten days later nothing is in the hour or day any more; after the 8 days kept, not even the last failure.
    const later = await computeServiceStatus(env.DB, T + 10 * DAY);
    expect(later.status).toBe("unknown");
    expect(later.history_since).toBeNull();
    expect(later.providers.every((provider) => provider.last_failure === null && provider.traffic.last_day.scrapes === 0)).toBe(true);
  });
});

describe("the headline and the last failure come from the data (issue 36)", () => {
  /** The page's visible text, tags dropped, for the sentences a visitor reads. */
  async function pageText(status: ServiceStatus): Promise<{ headline: string; text: string }> {
    const html = (await statusPageHtml(status)).toString();
    const headline = /<h1>(.*?)<\/h1>/s.exec(html)?.[1] ?? "";
    return { headline, text: html.replace(/<[^>]+>/g, "").replace(/\s+/g, " ") };
  }

  it("a fresh deployment (no outcome on record): no data yet, no claim about failures", async () => {
    // Nothing recorded in this file falls within the 8 days before 2090 (rows are at the wall clock or in 2100+).
    const status = ServiceStatusSchema.parse(await computeServiceStatus(env.DB, Date.UTC(2090, 0, 1, 12, 0, 0)));
    expect([status.status, status.history_since]).toEqual(["unknown", null]);
    const { headline, text } = await pageText(status);
    expect(headline).toBe("No data yet");
    expect(text).toContain("No scrape of any provider is on record yet");
    expect(text).not.toContain("All providers are up");
    expect(text.match(/Last failure: none on record/g)?.length).toBe(7);
    expect(text).not.toMatch(/Last failure: (none in 8 days|none since)/);
  });

  it("two providers up, five without data in the last hour: says so, and the failures since the oldest outcome", async () => {
    const now = Date.UTC(2110, 0, 1, 12, 0, 0);
    // grok and perplexity: a healthy canary round at 11:30 and 11:50; gemini: one customer scrape at 08:55, three
    // hours before (so it has no data in the last hour, and its scrape is the oldest on record).
    await record({ provider: "gemini", source: "traffic", ok: true, at: Date.UTC(2110, 0, 1, 8, 55, 0) });
    for (const provider of ["grok", "perplexity"]) {
      for (const minute of [30, 50]) {
        const at = Date.UTC(2110, 0, 1, 11, minute, 0);
        await record({ provider, source: "canary", ok: true, roundAt: at - 1000, at });
      }
    }
    const status = ServiceStatusSchema.parse(await computeServiceStatus(env.DB, now));
    expect(status.status).toBe("partial");
    expect(status.history_since).toBe("2110-01-01T08:55:00.000+00:00");
    expect(Object.fromEntries(status.providers.map((provider) => [provider.provider, provider.status]))).toEqual({
      chatgpt: "unknown",
      perplexity: "up",
      grok: "up",
      copilot: "unknown",
      gemini: "unknown",
      google_ai_mode: "unknown",
      amazon_rufus: "unknown",
    });

    const { headline, text } = await pageText(status);
    expect(headline).toBe("5 of 7 providers have no data in the last hour");
    expect(text).toContain("The other 2 are up.");
    expect(text).not.toContain("All providers are up");
    expect(text.match(/Last failure: none since 1 Jan 2110, 08:55 UTC/g)?.length).toBe(7);
  });

  it("every provider with data and up: all providers are up; a failure shows instead of 'none since'", async () => {
    const now = Date.UTC(2120, 0, 1, 12, 0, 0);
    // Every provider: a healthy canary in the rounds of 11:00 and 11:50; Grok also had a customer scrape time out at 11:20.
    for (const provider of allProviders()) {
      for (const at of [Date.UTC(2120, 0, 1, 11, 0, 0), Date.UTC(2120, 0, 1, 11, 50, 0)]) {
        await record({ provider: provider.id, source: "canary", ok: true, roundAt: at - 1000, at });
      }
    }
    await record({
      provider: "grok",
      source: "traffic",
      ok: false,
      error: new ScrapeTimeoutError(120),
      at: Date.UTC(2120, 0, 1, 11, 20, 0),
    });
    const status = ServiceStatusSchema.parse(await computeServiceStatus(env.DB, now));
    // one account's time-out is set aside (docs/status.md), so Grok is up too
    expect(status.providers.every((provider) => provider.status === "up")).toBe(true);
    expect([status.status, status.history_since]).toEqual(["up", "2120-01-01T11:00:00.000+00:00"]);

    const { headline, text } = await pageText(status);
    expect(headline).toBe("All providers are up");
    expect(text).not.toContain("no data in the last hour");
    expect(text.match(/Last failure: none since 1 Jan 2120, 11:00 UTC/g)?.length).toBe(6);
    expect(text).toContain("Last failure: Timed out (customer traffic, 40 min ago)");
  });

  it("some providers down or degraded, others without data: the counts beside the headline", async () => {
    const now = Date.UTC(2130, 0, 1, 12, 0, 0);
    // perplexity: its last two rounds failed on a login wall (down); grok: its latest canary was challenged (degraded);
    // chatgpt: healthy; the four others: nothing.
    for (const minute of [30, 50]) {
      const at = Date.UTC(2130, 0, 1, 11, minute, 0);
      await record({
        provider: "perplexity",
        source: "canary",
        ok: false,
        error: new UpstreamError(CHATGPT_DETAIL.login, { retryable: false, reason: "login_wall" }),
        roundAt: at - 1000,
        at,
      });
      await record({ provider: "chatgpt", source: "canary", ok: true, roundAt: at - 1000, at });
    }
    await record({
      provider: "grok",
      source: "canary",
      ok: false,
      error: new UpstreamError(CHATGPT_DETAIL.challenge, { reason: "challenge" }),
      roundAt: Date.UTC(2130, 0, 1, 11, 50, 0) - 1000,
      at: Date.UTC(2130, 0, 1, 11, 50, 0),
    });
    const status = ServiceStatusSchema.parse(await computeServiceStatus(env.DB, now));
    expect(status.status).toBe("degraded");
    const { headline, text } = await pageText(status);
    expect(headline).toBe("Some providers are degraded or down");
    expect(text).toContain("Of 7 providers: 1 down, 1 degraded, 1 up, 4 with no data in the last hour.");
  });
});

describe("canary plan", () => {
  it("every provider in every configured country it serves, its own defaults, fresh, within the configured time limit", () => {
    const config = canaryConfig({ ...env, CANARY_COUNTRIES: "us, jp", CANARY_PROVIDERS: "", CANARY_TIMEOUT_SECONDS: "45" });
    expect(config.countries).toEqual(["US", "JP"]);
    const planned = plannedCanaries(config).map(({ provider, params }) => `${provider.id}:${params.country}`);
    // grok, copilot, gemini and google_ai_mode refuse JP (spec), so they are checked from the US only
    expect(planned.sort()).toEqual(
      [
        "amazon_rufus:JP",
        "amazon_rufus:US",
        "chatgpt:JP",
        "chatgpt:US",
        "copilot:US",
        "gemini:US",
        "google_ai_mode:US",
        "grok:US",
        "perplexity:JP",
        "perplexity:US",
      ].sort(),
    );
    const grok = plannedCanaries(config).find(({ provider }) => provider.id === "grok");
    expect(grok?.params).toMatchObject({ prompt: CANARY_PROMPT, bypass_cache: true, timeout: 45, mode: "MODEL_MODE_AUTO" });

    const some = canaryConfig({ ...env, CANARY_COUNTRIES: "US", CANARY_PROVIDERS: "grok, perplexity", CANARY_TIMEOUT_SECONDS: "5" });
    expect(some.providers.map((provider) => provider.id)).toEqual(["perplexity", "grok"]);
    // outside 10…600 s: the default
    expect(some.timeoutSeconds).toBe(120);
    expect(plannedCanaries(canaryConfig({ ...env, CANARY_COUNTRIES: "" }))).toEqual([]);
  });
});

describe("GET /status", () => {
  it("is public: HTML by default, JSON for Accept: application/json and at /status.json, cacheable, no customer data", async () => {
    // a customer's cache hit reaches no provider: it is not traffic
    const account = await newAccount({ name: "Status Reader" });
    const key = await newKey(account.account_id);
    const trafficBefore = await trafficRows();
    const cached = await cachedScrape(key.api_key, "Secret customer prompt about the launch");
    expect(cached.status).toBe(200);
    expect(((await cached.json()) as { cached: boolean }).cached).toBe(true);
    expect(await trafficRows()).toBe(trafficBefore);

    // a real-time failure of rufus, and the Cron Trigger (canaries off here) publishes it at once
    await recordScrapeOutcome(env.DB, {
      provider: "amazon_rufus",
      country: "DE",
      source: "traffic",
      accountTag: "a-rufus-reader",
      ok: false,
      error: new UpstreamError("Amazon asked the browser session to sign in: Rufus answers only signed-in sessions.", {
        retryable: false,
        reason: "login_wall",
      }),
      latencyMs: 2100,
    });
    await runCron({ CANARY_COUNTRIES: "" });

    const html = await api("/status");
    expect(html.status).toBe(200);
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(html.headers.get("cache-control")).toBe("public, max-age=30");
    expect(html.headers.get("vary")).toMatch(/accept/i);
    expect(html.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await html.text();
    expect(page.startsWith("<!doctype html>")).toBe(true);
    for (const provider of allProviders()) expect(page).toContain(provider.name);
    expect(page).toContain("Login wall");

    const negotiated = await api("/status", { headers: { Accept: "application/json" } });
    expect(negotiated.headers.get("content-type")).toMatch(/^application\/json/);
    const body = ServiceStatusSchema.parse(await negotiated.json());
    const rufus = providerOf(body, "amazon_rufus");
    expect(rufus.traffic.last_hour).toEqual({ scrapes: 1, succeeded: 0, success_rate: 0, p50_ms: null, p95_ms: null });
    expect(rufus.last_failure?.reason).toBe("login_wall");
    expect(rufus.status).toBe("up");

    const json = await api("/status.json");
    expect(json.status).toBe(200);
    expect(json.headers.get("access-control-allow-origin")).toBe("*");
    const text = await json.text();
    expect(JSON.parse(text)).toEqual(body);
    for (const secret of [key.api_key, account.account_id, "Secret customer prompt", "Status Reader", "DE", "a-rufus-reader"]) {
      expect(text).not.toContain(secret);
      expect(page).not.toContain(secret);
    }

    const css = await api("/status.css");
    expect([css.status, css.headers.get("content-type")]).toEqual([200, "text/css; charset=utf-8"]);
  });

  it("serves a snapshot at most 30 seconds old; the Cron Trigger refreshes it and sweeps outcomes older than 8 days", async () => {
    const first = await statusJson();
    expect(providerOf(first, "gemini").traffic.last_hour.scrapes).toBe(0);
    await recordScrapeOutcome(env.DB, {
      provider: "gemini",
      country: "US",
      source: "traffic",
      accountTag: "a-gemini",
      ok: true,
      latencyMs: 640,
    });
    // within 30 s the stored snapshot is served as it was
    expect(await statusJson()).toEqual(first);

    await recordScrapeOutcome(
      env.DB,
      { provider: "gemini", country: "US", source: "traffic", accountTag: "a-gemini-old", ok: true, latencyMs: 1 },
      Date.now() - OUTCOME_RETENTION_MS - HOUR,
    );
    await runCron({ CANARY_COUNTRIES: "" });
    const refreshed = await statusJson();
    expect(providerOf(refreshed, "gemini").traffic.last_hour).toEqual({
      scrapes: 1,
      succeeded: 1,
      success_rate: 1,
      p50_ms: 640,
      p95_ms: 640,
    });
    // (the rows of the year 2100 above are in the future, not old)
    const kept = await env.DB.prepare("SELECT COUNT(*) AS n FROM scrape_outcomes WHERE provider = 'gemini' AND at <= ?")
      .bind(Date.now())
      .first<{ n: number }>();
    expect(kept?.n).toBe(1);
  });

  it("negotiates the representation from Accept (quality, then specificity) and answers 406 when it can serve none", async () => {
    const typeFor = async (path: string, accept: string) => {
      const response = await api(path, { headers: { Accept: accept } });
      return `${response.status} ${response.headers.get("content-type")?.split(";")[0]}`;
    };
    expect(await typeFor("/status", "*/*")).toBe("200 text/html");
    expect(await typeFor("/status", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")).toBe("200 text/html");
    expect(await typeFor("/status", "text/html;q=0.5, application/json")).toBe("200 application/json");
    expect(await typeFor("/status", "application/*")).toBe("200 application/json");
    expect(await typeFor("/status", "*/*, application/json")).toBe("200 application/json");
    expect(await typeFor("/status.json", "*/*")).toBe("200 application/json");

    const refused = await api("/status", { headers: { Accept: "application/xml" } });
    expect(refused.status).toBe(406);
    expect(await refused.json()).toEqual({
      detail: "Not acceptable: this resource is available as text/html and application/json only.",
      code: "not_acceptable",
      request_id: refused.headers.get("X-Request-Id"),
    });
    const htmlOnly = await api("/status.json", { headers: { Accept: "text/html" } });
    expect(htmlOnly.status).toBe(406);
    expect(((await htmlOnly.json()) as { detail: string }).detail).toContain("GET /status serves the HTML page");
  });

  it("is documented in the OpenAPI document as public", async () => {
    const spec = (await (await api("/openapi.json")).json()) as {
      paths: Record<
        string,
        { get?: { operationId?: string; security?: unknown[]; responses: Record<string, { content?: Record<string, unknown> }> } }
      >;
    };
    expect(spec.paths["/status"]?.get).toMatchObject({ operationId: "getServiceStatus", security: [] });
    expect(Object.keys(spec.paths["/status"]?.get?.responses["200"]?.content ?? {}).sort()).toEqual(["application/json", "text/html"]);
    expect(spec.paths["/status.json"]?.get).toMatchObject({ operationId: "getServiceStatusJson", security: [] });
  });
});
