/**
 * The capture layer with real Chromium (Browser Rendering binding) against the replica server's capture bench: every
 * transport a provider page uses, several exchanges per scrape, outgoing patches, incremental delivery.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { withScrapePage } from "../../src/browser/page-lease";
import { type CaptureSession, startCapture } from "../../src/browser/page/capture/capture";
import type { CaptureRule } from "../../src/browser/page/capture/types";
import { decodeUtf8Chunks } from "../../src/scrapers/shared/decode/lines";

const LAB = `${env.REPLICA_URL}/__capture-lab/`;
const RULES: CaptureRule[] = [
  {
    name: "stream",
    url: /\/__capture-lab\/stream$/,
    transports: ["fetch", "xhr"],
    patch: { set: [["/mode", "patched"]], when: [["/kind", "chat"]] },
  },
  {
    name: "socket",
    url: /\/__capture-lab\/ws$/,
    transports: ["websocket"],
    patch: { set: [["/mode", "patched"]], when: [["/event", "send"]] },
  },
];

async function inLab<T>(work: (capture: CaptureSession, run: (expression: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  return withScrapePage(
    env,
    { country: "US", provider: "capture-lab", allowedDomains: ["127.0.0.1"], signal: controller.signal, deadline: Date.now() + 60_000 },
    async (pageSession) => {
      const { page } = pageSession;
      const capture = await startCapture(pageSession, RULES, "capture-lab");
      await page.goto(LAB, { waitUntil: "domcontentloaded" });
      return work(capture, (expression) => page.evaluate(expression));
    },
  );
}

const signal = () => AbortSignal.timeout(30_000);

describe("capture layer in real Chromium", () => {
  it("fetch: the body as the page read it, in several chunks with times; the JSON request patched before it left", async () => {
    await inLab(async (capture, run) => {
      const pageSaw = await run(`labFetch(JSON.stringify({ kind: "chat", mode: "auto", text: "héllo" }))`);
      const exchange = await capture.waitForExchange("stream", { signal: signal(), startTimeoutMs: 5_000 });
      expect(exchange.transport).toBe("fetch");
      expect(exchange.method).toBe("POST");
      expect(exchange.status).toBe(200);
      expect(exchange.contentType).toMatch(/^text\/plain/);
      expect(JSON.parse(exchange.requestBody ?? "null")).toEqual({ kind: "chat", mode: "patched", text: "héllo" });
      expect(exchange.complete).toBe(true);
      expect(exchange.chunks.length).toBeGreaterThan(1);
      expect(exchange.chunkTimesMs).toHaveLength(exchange.chunks.length);
      expect(exchange.chunkTimesMs).toEqual([...exchange.chunkTimesMs].sort((a, b) => a - b));
      // What was captured is exactly what the page read, and the server received the patched body.
      expect(decodeUtf8Chunks(exchange.chunks)).toBe(pageSaw);
      expect(String(pageSaw)).toContain('echo:{"kind":"chat","mode":"patched","text":"héllo"}');
    });
  });

  it("several exchanges per scrape; a body the patch's condition does not match is left alone; Request objects too", async () => {
    await inLab(async (capture, run) => {
      await run(`labFetch(JSON.stringify({ kind: "other", mode: "auto" }))`);
      await run(`labFetchRequest(JSON.stringify({ kind: "chat", mode: "auto" }))`);
      const first = await capture.waitForExchange("stream", { signal: signal(), startTimeoutMs: 5_000 });
      const second = await capture.waitForExchange("stream", { signal: signal(), startTimeoutMs: 5_000, index: 1 });
      expect(JSON.parse(first.requestBody ?? "null")).toEqual({ kind: "other", mode: "auto" });
      expect(JSON.parse(second.requestBody ?? "null")).toEqual({ kind: "chat", mode: "patched" });
      expect(decodeUtf8Chunks(second.chunks)).toContain('echo:{"kind":"chat","mode":"patched"}');
      expect(capture.exchanges("stream")).toHaveLength(2);
    });
  });

  it("include: the item is added to the array (created when absent) and the rest kept; a body that has it leaves as written", async () => {
    await inLab(async (capture, run) => {
      await capture.setPatch("stream", { include: [["/hints", "search"]], when: [["/kind", "chat"]] });
      // written with an escape JSON.stringify would not produce: a body the patch leaves alone keeps it
      const untouched = String.raw`{"kind":"chat","hints":["search"],"text":"h\u00e9llo"}`;
      await run(`labFetch(JSON.stringify({ kind: "chat", hints: [] }))`);
      await run(`labFetch(JSON.stringify({ kind: "chat" }))`);
      await run(`labFetch(JSON.stringify({ kind: "chat", hints: ["other"] }))`);
      await run(`labFetch(${JSON.stringify(untouched)})`);
      const bodies = [];
      for (let index = 0; index < 4; index += 1) {
        const exchange = await capture.waitForExchange("stream", { signal: signal(), startTimeoutMs: 5_000, index });
        bodies.push(exchange.requestBody);
      }
      expect(bodies.slice(0, 3).map((body) => JSON.parse(body ?? "null"))).toEqual([
        { kind: "chat", hints: ["search"] },
        { kind: "chat", hints: ["search"] },
        { kind: "chat", hints: ["other", "search"] },
      ]);
      expect(bodies[3]).toBe(untouched);
    });
  });

  it("XMLHttpRequest: progressive text captured and patched", async () => {
    await inLab(async (capture, run) => {
      const pageSaw = await run(`labXhr(JSON.stringify({ kind: "chat", mode: "auto" }))`);
      const exchange = await capture.waitForExchange("stream", { signal: signal(), startTimeoutMs: 5_000 });
      expect(exchange.transport).toBe("xhr");
      expect(exchange.status).toBe(200);
      expect(exchange.complete).toBe(true);
      expect(decodeUtf8Chunks(exchange.chunks)).toBe(pageSaw);
      expect(JSON.parse(exchange.requestBody ?? "null")).toEqual({ kind: "chat", mode: "patched" });
    });
  });

  it("a body that cannot be read (FormData) is recorded as null, so verification fails rather than passes", async () => {
    await inLab(async (capture, run) => {
      await run("labFormData()");
      const exchange = await capture.waitForExchange("stream", { signal: signal(), startTimeoutMs: 5_000 });
      expect(exchange.requestBody).toBeNull();
    });
  });

  it("WebSocket: frames both ways, the outgoing JSON frame patched, until() resolves before close", async () => {
    await inLab(async (capture, run) => {
      const echoed = run(
        `labWebSocket([JSON.stringify({ event: "setOptions" }), JSON.stringify({ event: "send", mode: "auto" }), "plain text"])`,
      );
      const early = await capture.waitForExchange("socket", {
        signal: signal(),
        startTimeoutMs: 5_000,
        until: (exchange) => exchange.frames.some((frame) => frame.direction === "received"),
      });
      expect(early.transport).toBe("websocket");
      expect(early.status).toBe(101);
      expect(early.complete).toBe(false);
      expect(await echoed).toEqual([
        `echo:${JSON.stringify({ event: "setOptions" })}`,
        `echo:${JSON.stringify({ event: "send", mode: "patched" })}`,
        "echo:plain text",
      ]);
      const closed = await capture.waitForExchange("socket", { signal: signal(), startTimeoutMs: 5_000 });
      expect(closed.complete).toBe(true);
      expect(closed.frames.filter((frame) => frame.direction === "sent").map((frame) => frame.data)).toEqual([
        JSON.stringify({ event: "setOptions" }),
        JSON.stringify({ event: "send", mode: "patched" }),
        "plain text",
      ]);
      expect(closed.frames.filter((frame) => frame.direction === "received")).toHaveLength(3);
    });
  });

  it("waits are bounded: no exchange → drift error after the start timeout; an aborted signal rejects at once", async () => {
    await inLab(async (capture) => {
      const missing = await capture.waitForExchange("stream", { signal: signal(), startTimeoutMs: 300 }).catch((error: unknown) => error);
      expect(missing).toMatchObject({ status: 502, driftCode: "capture-lab.request_not_sent", code: "provider_changed" });
      const aborted = await capture
        .waitForExchange("stream", { signal: AbortSignal.abort(new Error("deadline")), startTimeoutMs: 5_000 })
        .catch((error: unknown) => error);
      expect(aborted).toMatchObject({ message: "deadline" });
    });
  });
});
