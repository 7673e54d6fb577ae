/**
 * Parser bench: the Grok NDJSON parser on replica bodies (default answer, 12 posts, > 30 kB answer), fed in the chunks
 * the replica sends; throughput, per-parse latency percentiles and retained heap. Pure CPU, no stack needed.
 */
import { performance } from "node:perf_hooks";
import { pickGrokScenario } from "../replicas/grok/scenarios";
import { renderGrokBody } from "../replicas/grok/stream";
import { splitIntoChunks } from "../replicas/shared/paced-body";
import { parseGrokCapture } from "../src/scrapers/grok/parse";
import type { StreamCapture } from "../src/browser/page/capture/types";
import { percentile } from "./figures";

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

/** The collector `node --expose-gc` installs, when it does. */
function exposedGc(): (() => void) | undefined {
  const candidate: unknown = Reflect.get(globalThis, "gc");
  return typeof candidate === "function" ? () => void Reflect.apply(candidate, globalThis, []) : undefined;
}

export function benchParser(): void {
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
    const name = pickGrokScenario(prompt).id.padEnd(20);
    console.log(
      `${name}  ${(bytes / 1024).toFixed(1).padStart(8)}  ${String(capture.chunks.length).padStart(6)}  ${String(iterations).padStart(7)}` +
        `  ${percentile(durations, 50).toFixed(3).padStart(7)}  ${percentile(durations, 95).toFixed(3).padStart(7)}` +
        `  ${((bytes * iterations) / 1024 / 1024 / totalSeconds).toFixed(1).padStart(6)}`,
    );
  }
  const gc = exposedGc();
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const kept = Array.from({ length: 100 }, () => parseGrokCapture(captureOf("long-answer")));
  gc?.();
  const after = process.memoryUsage().heapUsed;
  console.log(
    `retained heap per parsed long answer: ${((after - before) / kept.length / 1024).toFixed(1)} KiB${gc ? "" : " (approx.; run with --expose-gc for exact)"}`,
  );
}
