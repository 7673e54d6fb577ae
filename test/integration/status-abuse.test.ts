/**
 * Issue 30 point 3: the public status page and D1 cannot be driven by refunded failures. Customer outcomes go through
 * the pipeline's observation point (`observeCustomerScrape`, as `runScrape` calls it) with the errors a refunded scrape
 * ends with: a client that left, and time-outs. Checked here: one account's refunded failures leave a provider up;
 * failures seen by 3 distinct accounts count; one account writes at most 5 rows per provider and 5 minutes; concurrent
 * readers of the public page share one recomputation.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ClientClosedRequestError, ScrapeTimeoutError, UpstreamError } from "../../src/errors";
import { isCommonParams, type ScrapeParams } from "../../src/params/common-params";
import type { ScrapeRequest, ScrapeResponse } from "../../src/pipeline/scrape-request";
import { providerById, querySchemaOf, type ScraperId } from "../../src/scrapers/registry";
import { accountTag } from "../../src/status/account-tag";
import { recordScrapeOutcome } from "../../src/status/outcome-log";
import { ServiceStatusSchema } from "../../src/status/status-schema";
import { forgetIsolateStatusCopy, refreshStatusSnapshot, statusRecomputationsInIsolate } from "../../src/status/status-snapshot";
import { observeCustomerScrape } from "../../src/pipeline/traffic";
import { serviceSubject } from "../../src/util/log-line";
import { api } from "../support/workers/helpers";

const FIVE_MINUTES = 5 * 60_000;

function paramsFor(scraper: ScraperId, timeoutSeconds: number): ScrapeParams {
  const provider = providerById(scraper);
  if (provider === undefined) throw new Error(`no provider ${scraper}`);
  const parsed = querySchemaOf(provider).parse({ prompt: "Is it up?", country: "US", timeout: String(timeoutSeconds) });
  if (!isCommonParams(parsed)) throw new Error("unexpected parameters");
  return parsed;
}

interface CustomerScrape {
  scraper: ScraperId;
  accountId: string;
  /** The caller's `timeout` parameter (seconds). */
  timeoutSeconds?: number;
  /** Whether the caller disconnected (the request's signal is aborted). */
  clientLeft?: boolean;
  /** What the scrape ends with. */
  error: unknown;
}

/** A customer scrape that failed as `error`, observed exactly as the pipeline observes it. */
async function failedCustomerScrape({
  scraper,
  accountId,
  timeoutSeconds = 300,
  clientLeft = false,
  error,
}: CustomerScrape): Promise<void> {
  const disconnect = new AbortController();
  if (clientLeft) disconnect.abort();
  const request: ScrapeRequest = {
    scraper,
    params: paramsFor(scraper, timeoutSeconds),
    jobId: crypto.randomUUID(),
    baseUrl: "http://api.test",
    logSubject: serviceSubject("status-abuse test"),
    startedAt: Date.now(),
    accountId,
    abandoned: disconnect.signal,
  };
  const scrape = (): Promise<ScrapeResponse> => Promise.reject(error);
  await expect(observeCustomerScrape(env, request, scrape)).rejects.toBe(error);
}

/** A healthy canary of `provider` now: the provider is up before the customers' failures. */
async function healthyCanary(provider: ScraperId): Promise<void> {
  await recordScrapeOutcome(env.DB, { provider, country: "US", source: "canary", ok: true, latencyMs: 900, roundAt: Date.now() });
}

async function providerStatusNow(provider: ScraperId): Promise<string | undefined> {
  // what the Cron Trigger does after a round: the page shows these rows at once
  const status = await refreshStatusSnapshot(env.DB);
  const response = await api("/status.json");
  expect(response.status).toBe(200);
  const served = ServiceStatusSchema.parse(await response.json());
  expect(served).toEqual(status);
  return served.providers.find((entry) => entry.provider === provider)?.status;
}

async function trafficRowsOf(provider: ScraperId): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM scrape_outcomes WHERE source = 'traffic' AND provider = ?")
    .bind(provider)
    .first<{ n: number }>();
  return row?.n ?? Number.NaN;
}

describe("refunded failures cannot mark a provider down", () => {
  it("a dozen refunded failures of one account (client gone, short and long time-outs) leave the provider up", async () => {
    await healthyCanary("perplexity");
    expect(await providerStatusNow("perplexity")).toBe("up");

    const accountId = "acct_flooder";
    // The client left: the pipeline throws ClientClosedRequestError, or the page fails in reaction to the abort.
    for (let index = 0; index < 4; index += 1) {
      await failedCustomerScrape({ scraper: "perplexity", accountId, clientLeft: true, error: new ClientClosedRequestError() });
    }
    await failedCustomerScrape({
      scraper: "perplexity",
      accountId,
      clientLeft: true,
      error: new UpstreamError("The page closed.", { reason: "challenge" }),
    });
    // The caller's own short timeout (under 120 s): its choice, not the provider's slowness.
    for (let index = 0; index < 4; index += 1) {
      await failedCustomerScrape({ scraper: "perplexity", accountId, timeoutSeconds: 10, error: new ScrapeTimeoutError(10) });
    }
    expect(await trafficRowsOf("perplexity")).toBe(0);
    // Long time-outs are recorded, but they are one account's.
    for (let index = 0; index < 3; index += 1) {
      await failedCustomerScrape({ scraper: "perplexity", accountId, timeoutSeconds: 300, error: new ScrapeTimeoutError(300) });
    }
    expect(await trafficRowsOf("perplexity")).toBe(3);

    expect(await providerStatusNow("perplexity")).toBe("up");
  });

  it("customers' failures count once 3 distinct accounts saw them; a canary decides alone", async () => {
    await healthyCanary("chatgpt");
    const timeOut = (accountId: string) =>
      failedCustomerScrape({ scraper: "chatgpt", accountId, timeoutSeconds: 300, error: new ScrapeTimeoutError(300) });
    // 2 accounts, 5 time-outs each: 10 failures against 1 success, still only two accounts
    for (const accountId of ["acct_first", "acct_second"]) for (let index = 0; index < 5; index += 1) await timeOut(accountId);
    expect(await providerStatusNow("chatgpt")).toBe("up");
    // a third account sees it too: 12 failures out of 13 scrapes count
    await timeOut("acct_third");
    await timeOut("acct_third");
    expect(await providerStatusNow("chatgpt")).toBe("down");

    // Canaries need no account: one failed canary round makes a provider degraded.
    await recordScrapeOutcome(env.DB, {
      provider: "gemini",
      country: "US",
      source: "canary",
      ok: false,
      error: new UpstreamError("Gemini showed an anti-bot challenge.", { reason: "challenge" }),
      latencyMs: 4000,
      roundAt: Date.now(),
    });
    expect(await providerStatusNow("gemini")).toBe("degraded");
  });
});

describe("one account cannot grow D1", () => {
  it("at most 5 rows per account and provider in a 5-minute window; past that nothing is written", async () => {
    // inside one 5-minute window, far from the wall clock
    const windowStart = Math.ceil(Date.UTC(2101, 0, 1) / FIVE_MINUTES) * FIVE_MINUTES;
    const tag = await accountTag(env, "acct_busy");
    const outcome = { provider: "grok", country: "US", source: "traffic", accountTag: tag, ok: true, latencyMs: 700 } as const;
    const written: boolean[] = [];
    for (let index = 0; index < 15; index += 1) written.push(await recordScrapeOutcome(env.DB, outcome, windowStart + index * 1000));
    expect(written.filter(Boolean).length).toBe(5);
    const rowsOf = async (accountTagOf: string) => {
      const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM scrape_outcomes WHERE account_tag = ? AND provider = 'grok'")
        .bind(accountTagOf)
        .first<{ n: number }>();
      return row?.n;
    };
    expect(await rowsOf(tag)).toBe(5);

    // another account, another provider and the next window each have their own 5
    const other = await accountTag(env, "acct_other");
    expect(await recordScrapeOutcome(env.DB, { ...outcome, accountTag: other }, windowStart + 20_000)).toBe(true);
    expect(await recordScrapeOutcome(env.DB, { ...outcome, provider: "copilot" }, windowStart + 20_000)).toBe(true);
    expect(await recordScrapeOutcome(env.DB, outcome, windowStart + FIVE_MINUTES)).toBe(true);
    expect(await rowsOf(tag)).toBe(6);
  });

  it("rows carry a keyed tag of the account, never the account id: stable per account, distinct between accounts", async () => {
    const tag = await accountTag(env, "acct_tagged");
    expect(tag).toMatch(/^[0-9a-f]{16}$/);
    expect(await accountTag(env, "acct_tagged")).toBe(tag);
    expect(await accountTag(env, "acct_tagged2")).not.toBe(tag);
    // keyed: the bare hash of the id (what anyone holding account ids could compute) is not the tag
    const bare = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("status-account-tag:acct_tagged")));
    expect(tag).not.toBe([...bare.slice(0, 8)].map((byte) => byte.toString(16).padStart(2, "0")).join(""));

    await failedCustomerScrape({
      scraper: "copilot",
      accountId: "acct_tagged",
      error: new UpstreamError("Copilot showed an anti-bot challenge.", { reason: "challenge" }),
    });
    const rows = await env.DB.prepare("SELECT * FROM scrape_outcomes WHERE account_tag = ?").bind(tag).all();
    expect(rows.results.length).toBe(1);
    expect(JSON.stringify(rows.results)).not.toContain("acct_tagged");
  });
});

describe("reading the public page", () => {
  it("concurrent GET /status and /status.json on a stale snapshot share one recomputation; later readers none", async () => {
    await env.DB.prepare("DELETE FROM status_snapshot").run();
    forgetIsolateStatusCopy();
    const before = statusRecomputationsInIsolate();
    const paths = ["/status", "/status.json"];
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        api(paths[index % 2] ?? "/status", { headers: index % 4 === 0 ? { Accept: "application/json" } : {} }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 200));
    await Promise.all(responses.map((response) => response.text()));
    expect(statusRecomputationsInIsolate() - before).toBe(1);

    // the snapshot is fresh now: another burst recomputes nothing, even from an isolate without its own copy
    forgetIsolateStatusCopy();
    await Promise.all(Array.from({ length: 10 }, () => api("/status.json").then((response) => response.text())));
    expect(statusRecomputationsInIsolate() - before).toBe(1);
  });
});
