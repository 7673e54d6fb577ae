/**
 * `npm run bench`: figures, not assertions.
 * 1. Parser: the Grok NDJSON parser on replica bodies (default answer, 12 posts, > 30 kB answer), fed in the chunks the
 *    replica sends; throughput, per-parse latency percentiles and retained heap.
 * 2. End to end (when `npm start` is running): sequential sync scrapes through the real Worker, the browser pool and
 *    the replica; latency percentiles and the pool's launches vs reuses.
 */
import { readFileSync, existsSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { pickGrokScenario } from "../replicas/grok/scenarios";
import { renderGrokBody } from "../replicas/grok/stream";
import { splitIntoChunks } from "../replicas/shared/paced-body";
import { parseGrokCapture } from "../src/scrapers/grok/parse";
import type { StreamCapture } from "../src/scrapers/shared/capture/types";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function captureOf(prompt: string): StreamCapture {
  const body = renderGrokBody(pickGrokScenario(prompt), { message: prompt, modeId: "auto" }, null);
  return {
    url: "https://grok.com/rest/app-chat/conversations/new",
    status: 200,
    contentType: "application/json",
    requestBody: null,
    chunks: splitIntoChunks(body.bytes),
    complete: true,
    error: null,
  };
}

function benchParser(): void {
  console.log("Parser (parseGrokCapture on replica bodies, replica chunking)");
  console.log("scenario              body KiB  chunks   parses   p50 ms   p95 ms   MiB/s");
  for (const prompt of ["What is the tallest mountain?", "many-posts", "long-answer"]) {
    const capture = captureOf(prompt);
    const bytes = capture.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    for (let warm = 0; warm < 20; warm += 1) parseGrokCapture(capture);
    const durations: number[] = [];
    const iterations = 300;
    const started = performance.now();
    for (let index = 0; index < iterations; index += 1) {
      const t0 = performance.now();
      parseGrokCapture(capture);
      durations.push(performance.now() - t0);
    }
    const totalSeconds = (performance.now() - started) / 1000;
    durations.sort((a, b) => a - b);
    const name = pickGrokScenario(prompt).id.padEnd(20);
    console.log(
      `${name}  ${(bytes / 1024).toFixed(1).padStart(8)}  ${String(capture.chunks.length).padStart(6)}  ${String(iterations).padStart(7)}` +
        `  ${percentile(durations, 50).toFixed(3).padStart(7)}  ${percentile(durations, 95).toFixed(3).padStart(7)}` +
        `  ${((bytes * iterations) / 1024 / 1024 / totalSeconds).toFixed(1).padStart(6)}`,
    );
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const kept = Array.from({ length: 100 }, () => parseGrokCapture(captureOf("long-answer")));
  gc?.();
  const after = process.memoryUsage().heapUsed;
  console.log(
    `retained heap per parsed long answer: ${((after - before) / kept.length / 1024).toFixed(1)} KiB${gc ? "" : " (approx.; run with --expose-gc for exact)"}`,
  );
}

async function benchEndToEnd(): Promise<void> {
  const base = process.env.BENCH_API_URL ?? "http://127.0.0.1:8787";
  const keyFile = ".local/dev-api-key";
  const adminFile = ".local/admin-token";
  const reachable = await fetch(`${base}/openapi.json`).then(
    (response) => response.ok,
    () => false,
  );
  if (!reachable || !existsSync(keyFile)) {
    console.log(`\nEnd to end: skipped (start the stack with \`npm start\`; looked for ${base} and ${keyFile})`);
    return;
  }
  const apiKey = readFileSync(keyFile, "utf8").trim();
  const runs = Number(process.env.BENCH_RUNS ?? 20);
  const country = "CA";
  const latencies: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const started = performance.now();
    const response = await fetch(
      `${base}/scrapers/grok?prompt=${encodeURIComponent(`bench ${index}`)}&bypass_cache=true&country=${country}`,
      {
        headers: { "X-API-Key": apiKey },
      },
    );
    await response.arrayBuffer();
    if (response.status !== 200) {
      console.log(`\nEnd to end: request ${index} answered ${response.status}; stopping`);
      return;
    }
    latencies.push(performance.now() - started);
  }
  const first = latencies[0] ?? Number.NaN;
  const warm = latencies.slice(1).sort((a, b) => a - b);
  console.log(`\nEnd to end (${runs} sequential sync grok scrapes, country ${country}, bypass_cache)`);
  console.log(
    `first (may launch a browser): ${first.toFixed(0)} ms; warm p50 ${percentile(warm, 50).toFixed(0)} ms, p95 ${percentile(warm, 95).toFixed(0)} ms, max ${(warm.at(-1) ?? Number.NaN).toFixed(0)} ms`,
  );
  if (existsSync(adminFile)) {
    const stats = await fetch(`${base}/admin/pools?country=${country}`, {
      headers: { Authorization: `Bearer ${readFileSync(adminFile, "utf8").trim()}` },
    }).then((response) => response.json() as Promise<{ pools: Array<{ launches: number; reuses: number }> }>);
    const pool = stats.pools[0];
    if (pool !== undefined) console.log(`pool ${country}: launches ${pool.launches}, reuses ${pool.reuses}`);
  }
}

benchParser();
await benchEndToEnd();
