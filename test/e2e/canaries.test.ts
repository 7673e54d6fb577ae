/**
 * Issue 12 item 4 end to end: the Cron Trigger handler of the Worker, called directly with the real bindings, runs the
 * canaries through the real pipeline and real Chromium against the seven replicas; the replicas' faults make providers
 * degraded and down, each failure categorised from the scraper's own error; customer scrapes feed the same figures;
 * canaries charge no one and leave no cache entry.
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { allProviders } from "../../src/scrapers/registry";
import { CANARY_PROMPT } from "../../src/status/canaries";
import { type ProviderStatus, type ServiceStatus, ServiceStatusSchema } from "../../src/status/status-schema";
import { api, balanceOf, createTestAccount, query, replicaControl, replicaRequests } from "../support/workers/helpers";

const PROVIDER_IDS = allProviders().map((provider) => provider.id);
const ROUND_TIMEOUT_MS = 300_000;

interface CanaryRow {
  provider: string;
  country: string;
  ok: number;
  reason: string | null;
  latency_ms: number;
}

/** The Worker's own `scheduled` export, as the Cron Trigger calls it, with the test's bindings (and any overrides). */
async function runCron(overrides: Partial<Env> = {}): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "*/10 * * * *" }), { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
}

/** The canaries of the latest round, one row per provider and country. */
async function latestRound(): Promise<CanaryRow[]> {
  const { results } = await env.DB.prepare(
    `SELECT provider, country, ok, reason, latency_ms FROM scrape_outcomes
      WHERE source = 'canary' AND round_at = (SELECT MAX(round_at) FROM scrape_outcomes WHERE source = 'canary') ORDER BY provider`,
  ).all<CanaryRow>();
  return results;
}

async function status(): Promise<ServiceStatus> {
  const response = await api("/status.json");
  expect(response.status).toBe(200);
  return ServiceStatusSchema.parse(await response.json());
}

function providerOf(document: ServiceStatus, id: string): ProviderStatus {
  const found = document.providers.find((provider) => provider.provider === id);
  if (found === undefined) throw new Error(`no ${id} in the status`);
  return found;
}

async function ledgerRows(): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM credit_ledger").first<{ n: number }>();
  return row?.n ?? Number.NaN;
}

async function cacheKeys(): Promise<number> {
  return (await env.CACHE.list()).keys.length;
}

beforeAll(async () => {
  // The status figures of this file are its own: outcomes other e2e files' scrapes left behind (if the runtime's
  // storage outlives a file) would count as customer traffic here.
  await env.DB.exec("DELETE FROM scrape_outcomes; DELETE FROM status_snapshot;");
});

afterEach(async () => {
  await replicaControl("reset");
});

describe("canaries on the Cron Trigger", () => {
  it(
    "a round scrapes every provider through its replica, charges no one, caches nothing, and shows them all up",
    async () => {
      const [ledgerBefore, cacheBefore] = [await ledgerRows(), await cacheKeys()];
      await runCron();

      const round = await latestRound();
      expect(round.map((row) => `${row.provider}:${row.country}:${row.ok}`)).toEqual(PROVIDER_IDS.toSorted().map((id) => `${id}:US:1`));
      expect(round.every((row) => row.latency_ms > 0 && row.reason === null)).toBe(true);
      // Canaries run with no account: nothing charged, nothing cached (a later customer request scrapes afresh).
      expect([await ledgerRows(), await cacheKeys()]).toEqual([ledgerBefore, cacheBefore]);
      // ...and the replicas received the canary prompt (or Rufus's shopping query) from the real page.
      expect(JSON.stringify((await replicaRequests("grok")).at(-1)?.body)).toContain(CANARY_PROMPT);

      const document = await status();
      expect(document.status).toBe("up");
      for (const id of PROVIDER_IDS) {
        const provider = providerOf(document, id);
        expect(provider.status, id).toBe("up");
        expect(provider.canaries.last_hour, id).toMatchObject({ scrapes: 1, succeeded: 1, success_rate: 1 });
        expect(provider.canaries.last_hour.p50_ms, id).toBeGreaterThan(0);
        expect(provider.canaries.last_day.scrapes, id).toBe(1);
        expect(provider.traffic.last_hour.scrapes, id).toBe(0);
        expect(provider.last_failure, id).toBeNull();
        expect(provider.last_canary_at, id).not.toBeNull();
      }
      const body = JSON.stringify(document);
      expect(body).not.toContain(CANARY_PROMPT);
    },
    ROUND_TIMEOUT_MS,
  );

  it(
    "a challenge on every replica: each scraper's failure is a challenge, and each provider is degraded",
    async () => {
      for (const provider of PROVIDER_IDS) await replicaControl("faults", { provider, fault: "challenge", count: 1 });
      await runCron();
      expect((await latestRound()).map((row) => `${row.provider}:${row.ok}:${row.reason}`)).toEqual(
        PROVIDER_IDS.toSorted().map((id) => `${id}:0:challenge`),
      );
      const document = await status();
      expect(document.status).toBe("degraded");
      for (const id of PROVIDER_IDS) {
        const provider = providerOf(document, id);
        expect(provider.status, id).toBe("degraded");
        expect(provider.canaries.last_hour, id).toMatchObject({ scrapes: 2, succeeded: 1, success_rate: 0.5 });
        expect(provider.last_failure, id).toMatchObject({ reason: "challenge", source: "canary" });
      }
    },
    ROUND_TIMEOUT_MS,
  );

  it(
    "then a login wall on every replica: a second failed round in a row makes every provider down",
    async () => {
      for (const provider of PROVIDER_IDS) await replicaControl("faults", { provider, fault: "login_wall", count: 1 });
      await runCron();
      expect((await latestRound()).map((row) => `${row.provider}:${row.ok}:${row.reason}`)).toEqual(
        PROVIDER_IDS.toSorted().map((id) => `${id}:0:login_wall`),
      );
      const document = await status();
      expect(document.status).toBe("down");
      for (const id of PROVIDER_IDS) {
        expect(providerOf(document, id).status, id).toBe("down");
        expect(providerOf(document, id).last_failure?.reason, id).toBe("login_wall");
      }
    },
    ROUND_TIMEOUT_MS,
  );

  it(
    "a provider that never answers is a timeout; once it answers again it is up while the others stay down",
    async () => {
      await replicaControl("faults", { provider: "grok", fault: "hang", count: 1 });
      await runCron({ CANARY_PROVIDERS: "grok", CANARY_TIMEOUT_SECONDS: "10" });
      expect(await latestRound()).toMatchObject([{ provider: "grok", ok: 0, reason: "timeout" }]);
      expect((await latestRound())[0]?.latency_ms).toBeGreaterThanOrEqual(10_000);
      expect(providerOf(await status(), "grok").last_failure?.reason).toBe("timeout");

      await replicaControl("reset");
      await runCron({ CANARY_PROVIDERS: "grok" });
      expect(await latestRound()).toMatchObject([{ provider: "grok", ok: 1, reason: null }]);
      const document = await status();
      expect(providerOf(document, "grok")).toMatchObject({ status: "up", canaries: { last_hour: { scrapes: 5, succeeded: 2 } } });
      expect(providerOf(document, "perplexity").status).toBe("down");
      expect(document.status).toBe("degraded");
    },
    ROUND_TIMEOUT_MS,
  );
});

describe("customer traffic feeds the same figures", () => {
  it("every scrape that reaches the provider counts with its latency and failure category; cache hits do not", async () => {
    const customer = await createTestAccount(30);
    const prompt = "Which rockets flew this week?";
    const scrape = (extra: Record<string, string> = {}) =>
      api(`/scrapers/perplexity?${query({ prompt, ...extra })}`, { apiKey: customer.apiKey });

    const fresh = await scrape({ bypass_cache: "true" });
    expect(fresh.status).toBe(200);
    const cached = await scrape();
    expect(((await cached.json()) as { cached: boolean }).cached).toBe(true);
    await replicaControl("faults", { provider: "perplexity", fault: "challenge", count: 1 });
    const failed = await scrape({ bypass_cache: "true" });
    expect(failed.status).toBe(502);
    // the two answers were charged, the failure refunded
    expect(await balanceOf(customer.accountId)).toBe(24);

    const { results } = await env.DB.prepare(
      "SELECT ok, reason, latency_ms, country FROM scrape_outcomes WHERE source = 'traffic' AND provider = 'perplexity' ORDER BY id",
    ).all<{ ok: number; reason: string | null; latency_ms: number; country: string }>();
    expect(results.map((row) => [row.ok, row.reason, row.country])).toEqual([
      [1, null, "US"],
      [0, "challenge", "US"],
    ]);
    expect(results[0]?.latency_ms).toBeGreaterThan(0);

    // The Cron Trigger (canaries off) publishes at once what the 30-second snapshot would show a little later.
    await runCron({ CANARY_COUNTRIES: "" });
    const document = await status();
    const perplexity = providerOf(document, "perplexity");
    expect(perplexity.traffic.last_hour).toMatchObject({ scrapes: 2, succeeded: 1, success_rate: 0.5 });
    expect(perplexity.traffic.last_hour.p50_ms).toBe(results[0]?.latency_ms);
    expect(perplexity.last_failure).toMatchObject({ reason: "challenge", source: "traffic" });
    const body = JSON.stringify(document);
    for (const secret of [prompt, customer.apiKey, customer.accountId]) expect(body).not.toContain(secret);
  });
});
