/**
 * Coalescing bookkeeping (issue 14) with the real ScrapeCoalescer Durable Object and no browser: the scrape is a
 * function the test finishes when it chooses, so who leads, who follows, and what a follower gets when its leader fails
 * or when it leaves are observable exactly. The end-to-end case (20 identical sync requests, one exchange at the
 * replica, the credits) is test/e2e/coalescing.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { responseCacheKey } from "../../src/cache/response-cache";
import { acrossIsolates, type CoalesceOptions, coalesceScrape } from "../../src/pipeline/coalesce";
import { scrapeCoalescerStub } from "../../src/pipeline/scrape-coalescer";
import { waitFor } from "../support/workers/async-helpers";

type Answer = { result: string; result_markdown: string | null };

/** A scrape the test controls: every call is counted and waits until the test answers or fails it. */
class ControlledScrape {
  calls = 0;
  private readonly pending: Array<{ resolve: (answer: Answer) => void; reject: (error: Error) => void }> = [];

  readonly run = (): Promise<Answer> => {
    this.calls += 1;
    return new Promise<Answer>((resolve, reject) => this.pending.push({ resolve, reject }));
  };

  answer(result: string): void {
    this.next().resolve({ result, result_markdown: null });
  }

  fail(): void {
    this.next().reject(new Error("the provider failed"));
  }

  private next(): { resolve: (answer: Answer) => void; reject: (error: Error) => void } {
    const waiting = this.pending.shift();
    if (waiting === undefined) throw new Error("no scrape is waiting");
    return waiting;
  }
}

function readAnswer(value: unknown): Answer | null {
  if (typeof value !== "object" || value === null || !("result" in value) || typeof value.result !== "string") return null;
  return { result: value.result, result_markdown: null };
}

function options(signal = new AbortController().signal, seconds = 60): CoalesceOptions {
  return { signal, deadline: Date.now() + seconds * 1000 };
}

async function keyFor(prompt: string, accountId = "acct_coalesce"): Promise<string> {
  return responseCacheKey("grok", { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" }, accountId);
}

/** Waits until `count` requests wait on the key's flight in its Durable Object. */
function followersWaiting(key: string, count: number): Promise<true> {
  return waitFor(`${count} followers`, async () => ((await scrapeCoalescerStub(env, key).waiting()) >= count ? true : undefined));
}

describe("identical requests share one scrape", () => {
  it("20 concurrent requests on one isolate: one scrape, 20 answers, 19 of them marked as followers", async () => {
    const key = await keyFor("twenty at once");
    const scrape = new ControlledScrape();
    const requests = Array.from({ length: 20 }, () => coalesceScrape(env, key, options(), scrape.run, readAnswer));
    await waitFor("the leader's scrape", async () => (scrape.calls === 1 ? true : undefined));
    scrape.answer("the one answer");
    const outcomes = await Promise.all(requests);
    expect(scrape.calls).toBe(1);
    expect(outcomes.map((outcome) => outcome.answer.result)).toEqual(Array(20).fill("the one answer"));
    expect(outcomes.filter((outcome) => outcome.followed)).toHaveLength(19);
  });

  it("across isolates, through the Durable Object: followers wait for the leader's answer", async () => {
    const key = await keyFor("across isolates");
    const scrape = new ControlledScrape();
    const leader = acrossIsolates(env, key, options(), scrape.run, readAnswer);
    await waitFor("the leader's scrape", async () => (scrape.calls === 1 ? true : undefined));
    const followers = Array.from({ length: 5 }, () => acrossIsolates(env, key, options(), scrape.run, readAnswer));
    await followersWaiting(key, 5);
    scrape.answer("shared across isolates");
    expect(await leader).toEqual({ answer: { result: "shared across isolates", result_markdown: null }, followed: false });
    for (const follower of await Promise.all(followers)) expect(follower).toMatchObject({ followed: true });
    expect(scrape.calls).toBe(1);
  });

  it("different accounts asking the same prompt are never coalesced", async () => {
    const scrape = new ControlledScrape();
    const first = coalesceScrape(env, await keyFor("same prompt", "acct_a"), options(), scrape.run, readAnswer);
    const second = coalesceScrape(env, await keyFor("same prompt", "acct_b"), options(), scrape.run, readAnswer);
    await waitFor("both scrapes", async () => (scrape.calls === 2 ? true : undefined));
    scrape.answer("for a");
    scrape.answer("for b");
    expect((await first).followed).toBe(false);
    expect((await second).followed).toBe(false);
  });
});

describe("a leader that fails hands on no failure", () => {
  it("its followers join again: one of them leads the next scrape and the others get its answer", async () => {
    const key = await keyFor("leader fails");
    const scrape = new ControlledScrape();
    const leader = acrossIsolates(env, key, options(), scrape.run, readAnswer);
    await waitFor("the first scrape", async () => (scrape.calls === 1 ? true : undefined));
    const followers = Array.from({ length: 4 }, () => acrossIsolates(env, key, options(), scrape.run, readAnswer));
    await followersWaiting(key, 4);
    scrape.fail();
    await expect(leader).rejects.toThrow("the provider failed");
    await waitFor("the second scrape", async () => (scrape.calls === 2 ? true : undefined));
    await followersWaiting(key, 3);
    scrape.answer("second time lucky");
    const outcomes = await Promise.all(followers);
    expect(outcomes.map((outcome) => outcome.answer.result)).toEqual(Array(4).fill("second time lucky"));
    expect(outcomes.filter((outcome) => !outcome.followed)).toHaveLength(1);
    expect(scrape.calls).toBe(2);
  });

  it("on one isolate too: the local followers of a failed flight start the next one", async () => {
    const key = await keyFor("local leader fails");
    const scrape = new ControlledScrape();
    // Settled as they end: the failed leader's rejection is expected, not unhandled.
    const requests = Promise.allSettled(Array.from({ length: 3 }, () => coalesceScrape(env, key, options(), scrape.run, readAnswer)));
    await waitFor("the first scrape", async () => (scrape.calls === 1 ? true : undefined));
    scrape.fail();
    await waitFor("the second scrape", async () => (scrape.calls === 2 ? true : undefined));
    scrape.answer("after the failure");
    const settled = await requests;
    expect(settled.filter((outcome) => outcome.status === "rejected")).toHaveLength(1);
    expect(settled.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(2);
  });

  it("a follower that leaves stops waiting with its own reason; the others still get the answer", async () => {
    const key = await keyFor("a follower leaves");
    const scrape = new ControlledScrape();
    const leader = coalesceScrape(env, key, options(), scrape.run, readAnswer);
    await waitFor("the scrape", async () => (scrape.calls === 1 ? true : undefined));
    const leaving = new AbortController();
    const gone = coalesceScrape(env, key, options(leaving.signal), scrape.run, readAnswer);
    const staying = coalesceScrape(env, key, options(), scrape.run, readAnswer);
    leaving.abort(new Error("client closed"));
    await expect(gone).rejects.toThrow("client closed");
    scrape.answer("for those who stayed");
    expect((await leader).answer.result).toBe("for those who stayed");
    expect(await staying).toMatchObject({ followed: true, answer: { result: "for those who stayed" } });
    expect(scrape.calls).toBe(1);
  });

  it("a late joiner right after the flight ended gets its answer, not a second scrape", async () => {
    const key = await keyFor("late joiner");
    const scrape = new ControlledScrape();
    const leader = acrossIsolates(env, key, options(), scrape.run, readAnswer);
    await waitFor("the scrape", async () => (scrape.calls === 1 ? true : undefined));
    scrape.answer("just finished");
    await leader;
    expect(await acrossIsolates(env, key, options(), scrape.run, readAnswer)).toMatchObject({ followed: true });
    expect(scrape.calls).toBe(1);
  });
});
