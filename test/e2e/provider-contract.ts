/**
 * The provider contract: what every scraper must do when its provider fails, checked through the real Worker, real
 * Chromium and the provider's replica with its fault control (DESIGN.md §6). A provider runs it by adding one line to its
 * e2e file: `describeProviderContract({ provider: "<id>", prompt: "<a normal prompt>" })`.
 *
 * For every fault: the status of DESIGN.md §4, a client-safe `detail` (no provider text, no stack), the balance
 * unchanged (the sync charge is restored), and nothing cached (the next request scrapes afresh and succeeds). As a job:
 * a transient fault is retried until done and charged once; a persistent one fails after 4 attempts, refunded once.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { api, balanceOf, createTestAccount, ledgerOf, query, replicaControl } from "../integration/helpers";

export interface ProviderContractOptions {
  provider: string;
  /** A prompt the replica answers normally. */
  prompt: string;
  /** Extra query parameters for every request (e.g. a country the provider serves). */
  params?: Record<string, string>;
}

type Expectation = { statuses: readonly number[] };

/** DESIGN.md §4: upstream failures are 502, an empty answer 500, a provider slower than `timeout` 408. */
const FAULTS: ReadonlyArray<[fault: string, expectation: Expectation]> = [
  ["challenge", { statuses: [502] }],
  ["login_wall", { statuses: [502] }],
  ["rate_limited", { statuses: [502] }],
  ["http_error", { statuses: [502] }],
  // a stream that cannot be read is an upstream failure, or an unexpected result when what was read is unusable
  ["malformed_stream", { statuses: [500, 502] }],
  ["disconnect", { statuses: [502] }],
  ["empty_answer", { statuses: [500] }],
];

interface JobView {
  status: string;
  attempts: number;
  error?: string;
}

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
      it(`${fault} → ${expectation.statuses.join(" or ")}, credits restored, nothing cached`, async () => {
        const own = await createTestAccount(30);
        const prompt = `${options.prompt} (${fault} ${crypto.randomUUID().slice(0, 8)})`;
        await replicaControl("faults", { provider, fault, count: 1 });
        const failed = await request(prompt, own.apiKey);
        const body = (await failed.json()) as { detail?: string };
        expect(expectation.statuses, `${fault}: ${JSON.stringify(body)}`).toContain(failed.status);
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
      expect(Date.now() - startedAt).toBeLessThan(25_000);
      expect(await balanceOf(own.accountId)).toBe(3);
    });

    it("slow beyond timeout → 408, credits restored", async () => {
      const own = await createTestAccount(3);
      await replicaControl("faults", { provider, fault: "slow", count: 1, delay_ms: 15_000, chunk_ms: 1_000 });
      const response = await request(`${options.prompt} (slow)`, own.apiKey, { timeout: "10", bypass_cache: "true" });
      expect(response.status).toBe(408);
      expect(await balanceOf(own.accountId)).toBe(3);
    });

    it("async, transient fault (twice): retried, done on attempt 3, charged once", async () => {
      const own = await createTestAccount(9);
      await replicaControl("faults", { provider, fault: "http_error", count: 2 });
      const job = await submit(`${options.prompt} (async transient)`, own.apiKey);
      const done = await waitForTerminal(job);
      expect(done.status, JSON.stringify(done)).toBe("done");
      expect(done.attempts).toBe(3);
      expect(await balanceOf(own.accountId)).toBe(6);
    });

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

    it("a replica origin is configured for this provider", () => {
      expect(Reflect.get(env, `PROVIDER_ORIGIN_${provider.toUpperCase()}`)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    });
  });
}
