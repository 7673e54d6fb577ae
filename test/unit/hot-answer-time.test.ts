/**
 * The replicas' exact answer time (`total_ms`, replicas/control.ts), which the overhead bench subtracts from each
 * scrape's latency: the body's last chunk must leave exactly `total_ms` after the answer request, spread evenly over
 * the chunks, whatever `delay_ms`/`chunk_ms` say. Fake timers make the clock exact, so nothing here depends on load.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FaultController } from "../../replicas/control";
import { pacedBody, spreadOffsetMs } from "../../replicas/shared/paced-body";

/** Reads the stream to its end, noting at which fake-clock millisecond (since `startedAt`) each chunk arrived. */
async function arrivalTimes(stream: ReadableStream<Uint8Array>, startedAt: number): Promise<number[]> {
  const reader = stream.getReader();
  const times: number[] = [];
  const reading = (async () => {
    for (;;) {
      const { done } = await reader.read();
      if (done) return;
      times.push(Date.now() - startedAt);
    }
  })();
  await vi.runAllTimersAsync();
  await reading;
  return times;
}

const chunks = Array.from({ length: 4 }, (_, index) => new Uint8Array([index]));

describe("replica answer time set exactly (total_ms)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("spreads the chunks so that the last one leaves exactly total_ms after the answer request", async () => {
    const controller = new FaultController();
    controller.registerProvider("grok");
    controller.setPacing("grok", { delayMs: 500, chunkMs: 70, totalMs: 3000 });
    // the exchange runs in its own async flow, like a request handler of the replica
    const times = await (async () => {
      const requestedAt = Date.now();
      const plan = controller.takeFault("grok");
      expect(plan).toEqual({ fault: null, pacing: { delayMs: 0, chunkMs: 0 } });
      return arrivalTimes(pacedBody(chunks, { chunkMs: plan.pacing.chunkMs, ending: { kind: "close" } }), requestedAt);
    })();
    expect(times).toEqual([750, 1500, 2250, 3000]);
  });

  it("leaves page loads (which pass a fault filter) and bodies outside an answer exchange on the standing pacing", async () => {
    const controller = new FaultController();
    controller.registerProvider("grok");
    controller.setPacing("grok", { delayMs: 5, chunkMs: 10, totalMs: 3000 });
    const times = await (async () => {
      const requestedAt = Date.now();
      const plan = controller.takeFault("grok", (fault) => fault === "login_wall");
      expect(plan.pacing).toEqual({ delayMs: 5, chunkMs: 10 });
      return arrivalTimes(pacedBody(chunks, { chunkMs: plan.pacing.chunkMs, ending: { kind: "close" } }), requestedAt);
    })();
    expect(times).toEqual([0, 10, 20, 30]);
  });

  it("total_ms 0 turns it off, and the state shows it only while set", () => {
    const controller = new FaultController();
    controller.registerProvider("grok");
    controller.setPacing("grok", { totalMs: 1200 });
    expect(controller.state().providers.grok?.pacing).toEqual({ delay_ms: 0, chunk_ms: 2, total_ms: 1200 });
    controller.setPacing("grok", { totalMs: 0 });
    expect(controller.state().providers.grok?.pacing).toEqual({ delay_ms: 0, chunk_ms: 2 });
    expect(controller.takeFault("grok").pacing).toEqual({ delayMs: 0, chunkMs: 2 });
  });

  it("offsets: evenly spread, the last at the due time, never negative", () => {
    expect([0, 1, 2].map((index) => spreadOffsetMs(index, 3, 0, 300))).toEqual([100, 200, 300]);
    expect(spreadOffsetMs(0, 1, 500, 400)).toBe(0);
  });
});
