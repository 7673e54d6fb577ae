/**
 * The provider contract: what every scraper must do when its provider fails, checked through the real Worker, real
 * Chromium and the provider's replica with its fault control (DESIGN.md §6). A provider runs it by adding one line to its
 * e2e file: `describeProviderContract({ provider: "<id>", prompt: "<a normal prompt>" })`.
 *
 * For every fault: the status of DESIGN.md §4, a client-safe `detail` (no provider text, no stack), the balance
 * unchanged (the sync charge is restored), and nothing cached (the next request scrapes afresh and succeeds). As a job:
 * a transient fault is retried until done and charged once; a persistent one fails after 4 attempts, refunded once.
 *
 * Layout drift is one more fault: the replica serves a changed page (its composer gone, no block evidence) for the next
 * page loads (`POST /__control/changed-page`). Sync: 502 with the client-safe drift detail, the balance unchanged,
 * nothing cached, and the operator view (`GET /admin/providers`) counting it under the provider's stable drift code.
 *
 * The queue's side of a failure (retried with back-off, charged once, refunded once after the fourth attempt) is shared
 * code that reads only the error's kind, and each provider's kinds are checked by the sync cases above. So every
 * provider runs one job case (a transient fault, retried until done), and the provider that sets `queuePath` also runs
 * the long ones: a persistent fault (4 attempts, about 14 s), one changed page (retried, done on attempt 2) and a drift
 * on every attempt (four full anchor waits of about 20 s each, failed with one refund).
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { providerById } from "../../src/scrapers/registry";
import type { ServedBy } from "../../src/schemas/responses";
import { api, balanceOf, createTestAccount, discardPreparedPages, ledgerOf, query, replicaControl } from "../support/workers/helpers";

export interface ProviderContractOptions {
  provider: string;
  /** A prompt the replica answers normally. */
  prompt: string;
  /** Extra query parameters for every request (e.g. a country the provider serves). */
  params?: Record<string, string>;
  /** How the provider shows layout drift: the stable drift code the operator view counts for a changed page. */
  drift: {
    code: string;
  };
  /**
   * Also run the queue path's long job cases (persistent fault, transient and persistent drift: about 140 s). One
   * provider sets it: the path is shared, and running it seven times only adds waits.
   */
  queuePath?: boolean;
}

/** Serves the provider's next `count` page loads as a changed page (layout drift), through the replica's control API. */
async function serveChangedPages(provider: string, count: number): Promise<void> {
  const response = await fetch(`${env.REPLICA_URL}/__control/changed-page`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ provider, count }),
  });
  if (!response.ok) throw new Error(`replica control changed-page failed: ${response.status} ${await response.text()}`);
  await discardPreparedPages();
}

interface ProviderHealth {
  provider: string;
  drift_last_hour: number;
  last_drift_code: string | null;
}

async function operatorView(provider: string): Promise<ProviderHealth | undefined> {
  const view = await api("/admin/providers", { headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}` } });
  expect(view.status).toBe(200);
  const { providers } = (await view.json()) as { providers: ProviderHealth[] };
  return providers.find((entry) => entry.provider === provider);
}

/** The status and code a fault must produce; several pairs where the sheet allows either reading. */
type Expectation = { outcomes: ReadonlyArray<readonly [status: number, code: string]> };

/**
 * DESIGN.md §4: upstream failures are 502, an empty answer 500, a provider slower than `timeout` 408; each fault has
 * its own code (docs/errors.md), so a client can tell a challenge from a login wall from the provider's rate limit.
 */
const FAULTS: ReadonlyArray<[fault: string, expectation: Expectation]> = [
  ["challenge", { outcomes: [[502, "provider_challenge"]] }],
  ["login_wall", { outcomes: [[502, "provider_login_required"]] }],
  ["rate_limited", { outcomes: [[502, "provider_rate_limited"]] }],
  ["http_error", { outcomes: [[502, "upstream_error"]] }],
  // a stream that cannot be read is an upstream failure, or an unexpected result when what was read is unusable
  [
    "malformed_stream",
    {
      outcomes: [
        [500, "unexpected_result"],
        [502, "upstream_error"],
      ],
    },
  ],
  ["disconnect", { outcomes: [[502, "upstream_error"]] }],
  ["empty_answer", { outcomes: [[500, "unexpected_result"]] }],
];

interface JobView {
  status: string;
  attempts: number;
  error?: string;
  result?: { served_by?: ServedBy };
}

/** The spec's default country (§4.1), which a contract without a `country` parameter scrapes in. */
const DEFAULT_COUNTRY = "US";

async function waitForTerminal(jobId: string, timeoutMs = 110_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = (await (await api(`/jobs/${jobId}`)).json()) as JobView;
    if (body.status !== "pending") return body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still pending: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function describeProviderContract(options: ProviderContractOptions): void {
  const { provider } = options;
  // the version the provider declares (its index.ts), which every answer it produces must state
  const declaredVersion = providerById(provider)?.version;
  const request = (prompt: string, apiKey: string, extra: Record<string, string> = {}) =>
    api(`/scrapers/${provider}?${query({ ...options.params, prompt, ...extra })}`, { apiKey });
  const submit = async (prompt: string, apiKey: string): Promise<string> => {
    const response = await api(`/scrapers/${provider}/jobs?${query({ ...options.params, prompt, bypass_cache: "true" })}`, {
      method: "POST",
      apiKey,
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { job_id: string }).job_id;
  };

  describe(`${provider}: provider contract`, () => {
    afterEach(async () => {
      await replicaControl("reset", { provider });
    });

    for (const [fault, expectation] of FAULTS) {
      it(`${fault} → ${expectation.outcomes.map(([status, code]) => `${status} ${code}`).join(" or ")}, credits restored, nothing cached`, async () => {
        const own = await createTestAccount(30);
        const prompt = `${options.prompt} (${fault} ${crypto.randomUUID().slice(0, 8)})`;
        await replicaControl("faults", { provider, fault, count: 1 });
        const failed = await request(prompt, own.apiKey);
        const body = (await failed.json()) as { detail?: string; code?: string };
        expect(
          expectation.outcomes.map(([status, code]) => `${status} ${code}`),
          `${fault}: ${JSON.stringify(body)}`,
        ).toContain(`${failed.status} ${body.code}`);
        expect(typeof body.detail).toBe("string");
        expect(body.detail).not.toMatch(/\bat \S+ \(|[{}]|Error:/);
        expect(body.detail).not.toContain(own.apiKey);
        expect(await balanceOf(own.accountId)).toBe(30);
        // Nothing was cached: the same request now scrapes the healthy replica and is not a cache hit.
        const retried = await request(prompt, own.apiKey);
        expect(retried.status, await retried.clone().text()).toBe(200);
        expect(((await retried.json()) as { cached: boolean }).cached).toBe(false);
        expect(await balanceOf(own.accountId)).toBe(27);
      });
    }

    it("hang → 408 at the caller's timeout, credits restored", async () => {
      const own = await createTestAccount(3);
      await replicaControl("faults", { provider, fault: "hang", count: 1 });
      const startedAt = Date.now();
      const response = await request(`${options.prompt} (hang)`, own.apiKey, { timeout: "10", bypass_cache: "true" });
      expect(response.status).toBe(408);
      expect(((await response.json()) as { code?: string }).code).toBe("timeout");
      expect(Date.now() - startedAt).toBeLessThan(25_000);
      expect(await balanceOf(own.accountId)).toBe(3);
    });

    it("slow beyond timeout → 408, credits restored", async () => {
      const own = await createTestAccount(3);
      await replicaControl("faults", { provider, fault: "slow", count: 1, delay_ms: 15_000, chunk_ms: 1_000 });
      const response = await request(`${options.prompt} (slow)`, own.apiKey, { timeout: "10", bypass_cache: "true" });
      expect(response.status).toBe(408);
      expect(((await response.json()) as { code?: string }).code).toBe("timeout");
      expect(await balanceOf(own.accountId)).toBe(3);
    });

    it("async, transient fault (twice): retried, done on attempt 3, charged once", async () => {
      const own = await createTestAccount(9);
      await replicaControl("faults", { provider, fault: "http_error", count: 2 });
      const job = await submit(`${options.prompt} (async transient)`, own.apiKey);
      const done = await waitForTerminal(job);
      expect(done.status, JSON.stringify(done)).toBe("done");
      expect(done.attempts).toBe(3);
      // the answer says which attempt produced it: the third, after two transient faults
      expect(done.result?.served_by).toMatchObject({ attempt: 3, from_cache: false, scraper_version: declaredVersion });
      expect(await balanceOf(own.accountId)).toBe(6);
    });

    it("served_by: the country asked, signed out, attempt 1, the declared version; the identical request repeats it from the cache", async () => {
      const own = await createTestAccount(6);
      const country = options.params?.country ?? DEFAULT_COUNTRY;
      const prompt = `${options.prompt} (served by ${crypto.randomUUID().slice(0, 8)})`;
      const fresh = await request(prompt, own.apiKey, { country });
      expect(fresh.status, await fresh.clone().text()).toBe(200);
      const first = (await fresh.json()) as { cached: boolean; served_by: ServedBy };
      expect(first.cached).toBe(false);
      expect(first.served_by).toMatchObject({
        country,
        session: "anonymous",
        attempt: 1,
        scraper_version: declaredVersion,
        from_cache: false,
      });
      expect(typeof first.served_by.hot_page).toBe("boolean");
      const repeated = await request(prompt, own.apiKey, { country });
      expect(repeated.status).toBe(200);
      const second = (await repeated.json()) as { cached: boolean; served_by: ServedBy };
      expect(second.cached).toBe(true);
      expect(second.served_by).toEqual({ ...first.served_by, from_cache: true });
    });

    it("layout drift → 502 with the client-safe drift detail, credits restored, nothing cached, counted for the operators", async () => {
      const own = await createTestAccount(30);
      const prompt = `${options.prompt} (drift ${crypto.randomUUID().slice(0, 8)})`;
      const before = (await operatorView(provider))?.drift_last_hour ?? 0;
      await serveChangedPages(provider, 1);
      const failed = await request(prompt, own.apiKey);
      const body = (await failed.json()) as { detail?: string; code?: string };
      expect(failed.status, JSON.stringify(body)).toBe(502);
      expect(body.code).toBe("provider_changed");
      expect(body.detail).toMatch(/layout may have changed/);
      expect(body.detail).not.toMatch(/composer|anchor|\bat \S+ \(|[{}]|Error:/);
      expect(body.detail).not.toContain(own.apiKey);
      // the account keeps no failure evidence (docs/evidence.md): nothing of the failed page is kept or shown
      expect(body).not.toHaveProperty("evidence");
      expect(await balanceOf(own.accountId)).toBe(30);
      const health = await operatorView(provider);
      expect(health?.drift_last_hour).toBeGreaterThan(before);
      expect(health?.last_drift_code).toBe(options.drift.code);
      // Nothing was cached: the page is back, and the same request scrapes it afresh.
      const retried = await request(prompt, own.apiKey);
      expect(retried.status, await retried.clone().text()).toBe(200);
      expect(((await retried.json()) as { cached: boolean }).cached).toBe(false);
      expect(await balanceOf(own.accountId)).toBe(27);
    });

    if (options.queuePath === true) {
      it("async, persistent fault: 4 attempts, failed with a safe error, credits restored once", async () => {
        const own = await createTestAccount(9);
        await replicaControl("faults", { provider, fault: "http_error", count: 4 });
        const job = await submit(`${options.prompt} (async persistent)`, own.apiKey);
        const failed = await waitForTerminal(job);
        expect(failed.status).toBe("failed");
        expect(failed.attempts).toBe(4);
        expect(typeof failed.error).toBe("string");
        expect(failed.error).not.toMatch(/\bat \S+ \(|[{}]/);
        expect(await balanceOf(own.accountId)).toBe(9);
        const refunds = (await ledgerOf(own.accountId)).filter((row) => row.kind === "refund");
        expect(refunds).toHaveLength(1);
      });

      it("async, transient layout drift (one changed page): retried, done on attempt 2, charged once", async () => {
        const own = await createTestAccount(9);
        await serveChangedPages(provider, 1);
        const job = await submit(`${options.prompt} (async drift)`, own.apiKey);
        const done = await waitForTerminal(job);
        expect(done.status, JSON.stringify(done)).toBe("done");
        expect(done.attempts).toBe(2);
        expect(await balanceOf(own.accountId)).toBe(6);
        const ledger = await ledgerOf(own.accountId);
        expect(ledger.filter((row) => row.kind === "charge")).toHaveLength(1);
        expect(ledger.filter((row) => row.kind === "refund")).toHaveLength(0);
      });

      it("async, persistent layout drift: 4 attempts, failed with the drift detail, credits restored once", {
        timeout: 200_000,
      }, async () => {
        const own = await createTestAccount(9);
        await serveChangedPages(provider, 4);
        const job = await submit(`${options.prompt} (async drift persistent)`, own.apiKey);
        const failed = await waitForTerminal(job, 190_000);
        expect(failed.status).toBe("failed");
        expect(failed.attempts).toBe(4);
        expect(failed.error).toMatch(/layout may have changed/);
        expect(await balanceOf(own.accountId)).toBe(9);
        expect((await ledgerOf(own.accountId)).filter((row) => row.kind === "refund")).toHaveLength(1);
      });
    }

    it("a replica origin is configured for this provider", () => {
      expect(Reflect.get(env, `PROVIDER_ORIGIN_${provider.toUpperCase()}`)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    });
  });
}
