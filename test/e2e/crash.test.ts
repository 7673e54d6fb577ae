/**
 * A browser that crashes mid-scrape, for every transport a provider uses — a fetch stream (Grok), a WebSocket
 * (Copilot), a server-rendered HTML fragment (Google AI Mode) — sync and async: the sync request answers 502 with its
 * credits restored, the job is retried on a fresh session and ends done, charged once; the service recovers without a
 * restart.
 */
import puppeteer from "@cloudflare/puppeteer";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { api, balanceOf, createTestAccount, ledgerOf, query, replicaControl } from "../support/workers/helpers";

interface PoolView {
  sessions: Array<{ session_id: string; busy: boolean; provider: string }>;
  failures: number;
}

const TRANSPORTS = [
  { provider: "grok", transport: "fetch stream", country: "FI", prompt: "Crash test over a fetch stream" },
  { provider: "copilot", transport: "WebSocket", country: "NO", prompt: "Crash test over a WebSocket" },
  { provider: "google_ai_mode", transport: "HTML fragment", country: "DK", prompt: "Crash test over an HTML fragment" },
] as const;

function admin(path: string): Promise<Response> {
  return api(path, { headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}` } });
}

async function pool(country: string): Promise<PoolView | undefined> {
  const response = await admin(`/admin/pools?country=${country}`);
  const { pools } = (await response.json()) as { pools: PoolView[] };
  return pools[0];
}

async function exchangesOf(provider: string): Promise<number> {
  const response = await fetch(`${env.REPLICA_URL}/__control/state`);
  const state = (await response.json()) as { providers: Record<string, { exchanges: number }> };
  return state.providers[provider]?.exchanges ?? 0;
}

/**
 * Waits until the provider's replica has received the exchange (the page is now waiting for the paced answer), then
 * kills the Chromium behind the busy session of that provider.
 */
async function crashWhileWaiting(provider: string, country: string, exchangesBefore: number): Promise<string> {
  for (let poll = 0; poll < 400; poll += 1) {
    const busy = (await pool(country))?.sessions.find((session) => session.busy && session.provider === provider);
    if (busy !== undefined && (await exchangesOf(provider)) > exchangesBefore) {
      const intruder = await puppeteer.connect(env.BROWSER, busy.session_id);
      await intruder.close();
      return busy.session_id;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${provider}: the scrape never reached the provider`);
}

async function waitForTerminal(jobId: string): Promise<{ status: string; attempts: number }> {
  const deadline = Date.now() + 110_000;
  for (;;) {
    const body = (await (await api(`/jobs/${jobId}`)).json()) as { status: string; attempts: number };
    if (body.status !== "pending") return body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still pending`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

afterEach(async () => {
  await replicaControl("reset");
});

describe("browser crash mid-scrape, every transport", () => {
  for (const { provider, transport, country, prompt } of TRANSPORTS) {
    it(`${provider} (${transport}), sync: 502, credits restored, the next request gets a fresh session`, async () => {
      const own = await createTestAccount(6);
      await replicaControl("pacing", { provider, delay_ms: 5_000 });
      const before = await exchangesOf(provider);
      const inFlight = api(`/scrapers/${provider}?${query({ prompt, country, bypass_cache: "true", timeout: "60" })}`, {
        apiKey: own.apiKey,
      });
      const killed = await crashWhileWaiting(provider, country, before);
      const crashed = await inFlight;
      expect(crashed.status).toBe(502);
      expect(((await crashed.json()) as { detail: string }).detail).toMatch(/retry/i);
      expect(await balanceOf(own.accountId)).toBe(6);

      await replicaControl("reset", { provider });
      const next = await api(`/scrapers/${provider}?${query({ prompt: `${prompt} again`, country })}`, { apiKey: own.apiKey });
      expect(next.status).toBe(200);
      const after = await pool(country);
      expect(after?.sessions.map((session) => session.session_id)).not.toContain(killed);
      expect(after?.failures).toBeGreaterThanOrEqual(1);
      expect(await balanceOf(own.accountId)).toBe(3);
    });

    it(`${provider} (${transport}), async: the attempt fails, the retry succeeds on a fresh session, charged once`, async () => {
      const own = await createTestAccount(6);
      await replicaControl("pacing", { provider, delay_ms: 5_000 });
      const before = await exchangesOf(provider);
      const submitted = await api(`/scrapers/${provider}/jobs?${query({ prompt: `${prompt} (job)`, country, bypass_cache: "true" })}`, {
        method: "POST",
        apiKey: own.apiKey,
      });
      expect(submitted.status).toBe(202);
      const { job_id: jobId } = (await submitted.json()) as { job_id: string };
      await crashWhileWaiting(provider, country, before);
      // the retry should not wait for the slow pacing again
      await replicaControl("reset", { provider });
      const done = await waitForTerminal(jobId);
      expect(done.status).toBe("done");
      expect(done.attempts).toBe(2);
      expect(await balanceOf(own.accountId)).toBe(3);
      expect((await ledgerOf(own.accountId)).map((row) => row.kind)).toEqual(["charge"]);
    });
  }
});
