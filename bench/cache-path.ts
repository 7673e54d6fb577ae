/**
 * `npm run bench`, section "cache path" (issue 14, docs/cache-path.md). Figures, no assertions.
 * 1. The cache path under load: one real scrape of a replica puts an answer in the bench account's cache; autocannon then
 *    sends, at 20 connections for 20 s each and in the same run, the floor (`GET /status.css`: no key, no binding, what
 *    wrangler dev itself costs per request), the trivial authenticated `GET /account` (the reference) and that cached
 *    synchronous request: p50, p99, requests/s of each, the ratio of the cached and reference throughputs, and the CPU
 *    the stack's processes spent per request (bench/cache-cpu.ts).
 * 2. Coalescing, for every scraper: 20 identical synchronous requests sent together (answer not cached yet): the
 *    exchanges the replica saw, the answers, how many said `cached`, and the credits charged.
 * Before it, the bench account's request limits are raised through the operator API (PATCH /admin/accounts/{id}/limits),
 * so the per-minute limits refuse no request of the bench. Every cached request is charged 3 credits like any answer: a
 * refusal for credits would show in the non-2xx column.
 * BENCH_CACHE_SECONDS (default 20) and BENCH_CACHE_CONNECTIONS (default 20) change the load; BENCH_SCRAPERS the scrapers.
 */
import { createRequire } from "node:module";
import { REPLICA_PROVIDERS } from "../replicas/server";
import { type CpuPerRequest, cpuPerRequest, stackCpu } from "./cache-cpu";
import { milliseconds, row } from "./figures";
import type { BenchStack } from "./stack";

const COALESCED_REQUESTS = 20;
/** The replica answers this late, so every coalesced request arrives while the first scrape runs. */
const COALESCING_ANSWER_DELAY_MS = 1_500;

function setting(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
}

function numberOf(value: unknown): number {
  return typeof value === "number" ? value : Number.NaN;
}

async function admin(stack: BenchStack, method: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${stack.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

async function replica(stack: BenchStack, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${stack.replicaUrl}/__control/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`replica ${path}: HTTP ${response.status}`);
}

async function exchangesOf(stack: BenchStack, provider: string): Promise<number> {
  const state = objectOf(await (await fetch(`${stack.replicaUrl}/__control/state`)).json());
  return numberOf(objectOf(objectOf(state.providers)[provider]).exchanges);
}

/**
 * Waits until the bench account has no synchronous request in flight: autocannon stops sending at its deadline, but
 * the requests it sent last may still be charged after it returns, and would be counted in the next figure.
 */
async function untilNoRequestsInFlight(stack: BenchStack, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${stack.baseUrl}/admin/accounts/${stack.accountId}/limits`, {
      headers: { Authorization: `Bearer ${stack.adminToken}` },
    });
    const inUse = numberOf(objectOf(objectOf(objectOf(await response.json()).limits).concurrent_requests).in_use);
    if (inUse === 0) return;
    if (Date.now() > deadline) throw new Error(`the bench account still has ${inUse} requests in flight`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function credits(stack: BenchStack): Promise<number> {
  const response = await fetch(`${stack.baseUrl}/account`, { headers: { "X-API-Key": stack.apiKey } });
  return numberOf(objectOf(await response.json()).credits_remaining);
}

function scrapeUrl(stack: BenchStack, scraper: string, prompt: string): string {
  return `${stack.baseUrl}/scrapers/${scraper}?${new URLSearchParams({ prompt, country: "US" })}`;
}

interface LoadFigures {
  p50: number;
  p99: number;
  requestsPerSecond: number;
  total: number;
  notOk: number;
  cpu: CpuPerRequest;
}

/** autocannon has no type declarations: it is loaded as `unknown` and its result narrowed here. */
async function load(url: string, apiKey: string | null, connections: number, seconds: number): Promise<LoadFigures> {
  const autocannon: unknown = createRequire(import.meta.url)("autocannon");
  if (typeof autocannon !== "function") throw new Error("autocannon is not installed (npm install)");
  const options = { url, connections, duration: seconds, headers: apiKey === null ? {} : { "X-API-Key": apiKey } };
  const cpuBefore = stackCpu();
  const result = objectOf(await Promise.resolve(Reflect.apply(autocannon, undefined, [options])));
  const latency = objectOf(result.latency);
  const requests = objectOf(result.requests);
  const total = numberOf(requests.total);
  return {
    p50: numberOf(latency.p50),
    p99: numberOf(latency.p99),
    requestsPerSecond: numberOf(requests.average),
    total,
    notOk: numberOf(result.non2xx) + numberOf(result.errors) + numberOf(result.timeouts),
    cpu: cpuPerRequest(cpuBefore, stackCpu(), total),
  };
}

async function raiseBenchLimits(stack: BenchStack): Promise<void> {
  await admin(stack, "PATCH", `/admin/accounts/${stack.accountId}/limits`, {
    key_requests_per_minute: 100_000,
    account_requests_per_minute: 100_000,
    concurrent_requests: 1000,
  });
  console.log(
    "  bench account: limits raised with PATCH /admin/accounts/{id}/limits (100,000 requests a minute per key and per account, " +
      `1,000 sync requests in flight); ${(await credits(stack)).toLocaleString("en-US")} credits (3 per cached request)`,
  );
}

async function benchCachedRequests(stack: BenchStack): Promise<void> {
  const seconds = setting("BENCH_CACHE_SECONDS", 20);
  const connections = setting("BENCH_CACHE_CONNECTIONS", 20);
  const prompt = `Cache path bench ${Date.now().toString(36)}`;
  const url = scrapeUrl(stack, "grok", prompt);
  // One real scrape of the replica puts the answer in the cache; the second request must be a hit.
  for (const expected of [false, true]) {
    const response = await fetch(url, { headers: { "X-API-Key": stack.apiKey } });
    const cached = objectOf(await response.json()).cached;
    if (response.status !== 200 || cached !== expected)
      throw new Error(`seeding the cache: HTTP ${response.status}, cached ${String(cached)}`);
  }
  // The floor first: a route that touches no binding and needs no key (`GET /status.css`, a constant body), so what
  // wrangler dev itself costs per request at this load on this machine. Then the reference: every cached request adds
  // a ledger row, and `GET /account` sums the account's recent usage, so measured after the cached run it would be
  // slower and flatter the ratio. A short warm-up before each.
  const floorUrl = `${stack.baseUrl}/status.css`;
  await load(floorUrl, null, connections, 2);
  const floor = await load(floorUrl, null, connections, seconds);
  await load(`${stack.baseUrl}/account`, stack.apiKey, connections, 2);
  const reference = await load(`${stack.baseUrl}/account`, stack.apiKey, connections, seconds);
  await load(url, stack.apiKey, connections, 2);
  const cachedFigures = await load(url, stack.apiKey, connections, seconds);

  console.log(
    `\n  Cache path: ${connections} connections for ${seconds} s each (autocannon), same run, in the order floor, reference, cached`,
  );
  const widths = [36, 8, 8, 8, 9, 8, 14, 15];
  console.log(row(["request", "p50 ms", "p99 ms", "req/s", "requests", "non-2xx", "stack CPU/req", "worker CPU/req"], widths));
  for (const [name, figures] of [
    ["GET /scrapers/grok (cached answer)", cachedFigures],
    ["GET /account (reference)", reference],
    ["GET /status.css (floor, no key)", floor],
  ] as const) {
    console.log(
      row(
        [
          name,
          milliseconds(figures.p50),
          milliseconds(figures.p99),
          figures.requestsPerSecond.toFixed(0),
          String(figures.total),
          String(figures.notOk),
          `${figures.cpu.stackMs.toFixed(2)} ms`,
          `${figures.cpu.busiestMs.toFixed(2)} ms`,
        ],
        widths,
      ),
    );
  }
  const ratio = cachedFigures.requestsPerSecond / reference.requestsPerSecond;
  console.log(`  cached throughput / reference throughput: ${(ratio * 100).toFixed(0)} % (target ≥ 70 %); cached p99 target ≤ 30 ms`);
  console.log(
    "  CPU/req: CPU time of the stack's processes (wrangler, workerd) per request during the load; worker = the busiest one " +
      "alone, the Worker's workerd (one event loop: its CPU per request bounds the requests per second)",
  );
}

async function benchCoalescing(stack: BenchStack, scrapers: readonly string[]): Promise<void> {
  console.log(`\n  Coalescing: ${COALESCED_REQUESTS} identical sync requests sent together, answer not cached yet`);
  const widths = [16, 18, 10, 14, 16];
  console.log(row(["scraper", "replica exchanges", "200s", "cached: true", "credits charged"], widths));
  await replica(stack, "pacing", { delay_ms: COALESCING_ANSWER_DELAY_MS });
  try {
    for (const scraper of scrapers) {
      const prompt = `Coalescing bench ${scraper} ${Date.now().toString(36)}`;
      await untilNoRequestsInFlight(stack);
      const exchangesBefore = await exchangesOf(stack, scraper);
      const creditsBefore = await credits(stack);
      const answers = await Promise.all(
        Array.from({ length: COALESCED_REQUESTS }, async () => {
          const response = await fetch(scrapeUrl(stack, scraper, prompt), { headers: { "X-API-Key": stack.apiKey } });
          return { status: response.status, cached: objectOf(await response.json()).cached === true };
        }),
      );
      const exchanges = (await exchangesOf(stack, scraper)) - exchangesBefore;
      const charged = creditsBefore - (await credits(stack));
      console.log(
        row(
          [
            scraper,
            String(exchanges),
            String(answers.filter((answer) => answer.status === 200).length),
            String(answers.filter((answer) => answer.cached).length),
            String(charged),
          ],
          widths,
        ),
      );
    }
  } finally {
    await replica(stack, "reset", {});
  }
}

/** The cache-path and coalescing figures against the bench's own stack (bench/stack.ts). */
export async function benchCachePath(stack: BenchStack): Promise<void> {
  console.log("\nCache path and coalescing (bench/cache-path.ts)");
  await raiseBenchLimits(stack);
  await benchCachedRequests(stack);
  const only = process.env.BENCH_SCRAPERS?.split(",").filter((id) => id !== "");
  const scrapers = only !== undefined && only.length > 0 ? only : REPLICA_PROVIDERS.map((provider) => provider.id);
  await benchCoalescing(stack, scrapers);
}
