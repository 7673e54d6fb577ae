/**
 * Coalescing of identical requests (docs/performance-cache-and-limits.md): a request that misses the response cache
 * while a scrape for the same cache key is already running waits for that scrape's answer instead of starting its own.
 * The cache key covers the account, so one account's answer never reaches another account.
 *
 * Two levels. Requests on the same isolate follow each other through `localFlights`, without a round trip. The first of
 * them on each isolate joins the key's ScrapeCoalescer Durable Object (src/pipeline/scrape-coalescer.ts), where requests
 * from every isolate meet: one leads and scrapes, the others wait for its answer. A leader that fails (or times out, or
 * whose client leaves) hands on no failure: its followers join again and one of them leads the next scrape, each within
 * its own deadline. A request that is alone pays one round trip to the object before its scrape and one after.
 *
 * A follower's response is that of a cache hit: `cached: true`, charged like every request (the caller's business).
 */
import type { JoinOutcome, ScrapeCoalescer } from "./scrape-coalescer";
import { scrapeCoalescerStub } from "./scrape-coalescer";
import { logLine, type LogSubject } from "../util/log-line";

export interface CoalesceOptions {
  /** Aborted when the request stops (its timeout, or its client left); the caller aborts it at `deadline` at the latest. */
  signal: AbortSignal;
  /** When the request's own time is up (ms since epoch). */
  deadline: number;
  /** Who the request's log lines are about (src/util/log-line.ts). */
  logSubject?: LogSubject;
}

interface SharedOutcome<Answer> {
  answer: Answer;
  /** True when another request's scrape produced the answer. */
  followed: boolean;
}

/** How long a leader counts as running past its own deadline: the pipeline's clean-up grace and a margin. */
const LEASE_GRACE_MS = 5_000;

/** This isolate's flights by cache key: what the first request here gets, `null` when it failed. */
const localFlights = new Map<string, Promise<unknown>>();

/**
 * The answer for `cacheKey`: from a scrape already running for it anywhere, or from `scrape` run by this request when
 * none is (then shared with whoever asks meanwhile). `readShared` checks an answer that crossed an isolate boundary.
 */
export async function coalesceScrape<Answer extends Record<string, unknown>>(
  env: Env,
  cacheKey: string,
  options: CoalesceOptions,
  scrape: () => Promise<Answer>,
  readShared: (value: unknown) => Answer | null,
): Promise<SharedOutcome<Answer>> {
  for (;;) {
    options.signal.throwIfAborted();
    const running = localFlights.get(cacheKey);
    if (running === undefined) return leadLocally(env, cacheKey, options, scrape, readShared);
    const shared = await untilAborted(running, options.signal);
    const answer = shared === null ? null : readShared(shared);
    if (answer !== null) return { answer, followed: true };
    // That flight failed: the first request back here leads the next one.
  }
}

async function leadLocally<Answer extends Record<string, unknown>>(
  env: Env,
  cacheKey: string,
  options: CoalesceOptions,
  scrape: () => Promise<Answer>,
  readShared: (value: unknown) => Answer | null,
): Promise<SharedOutcome<Answer>> {
  let publish: (answer: Answer | null) => void = () => undefined;
  const flight = new Promise<Answer | null>((resolve) => {
    publish = resolve;
  });
  localFlights.set(cacheKey, flight);
  let answer: Answer | null = null;
  try {
    const outcome = await acrossIsolates(env, cacheKey, options, scrape, readShared);
    answer = outcome.answer;
    return outcome;
  } finally {
    if (localFlights.get(cacheKey) === flight) localFlights.delete(cacheKey);
    publish(answer);
  }
}

/** The cross-isolate level alone (exported for tests, which play several isolates from one). */
export async function acrossIsolates<Answer extends Record<string, unknown>>(
  env: Env,
  cacheKey: string,
  options: CoalesceOptions,
  scrape: () => Promise<Answer>,
  readShared: (value: unknown) => Answer | null,
): Promise<SharedOutcome<Answer>> {
  const coalescer = scrapeCoalescerStub(env, cacheKey);
  const token = crypto.randomUUID();
  for (;;) {
    options.signal.throwIfAborted();
    // Past the deadline the caller is about to abort: waiting for that keeps its own error (the 408) the one reported.
    if (Date.now() >= options.deadline) return whenAborted(options.signal);
    let joined: JoinOutcome;
    try {
      joined = await untilAborted(coalescer.join(token, options.deadline + LEASE_GRACE_MS, options.deadline), options.signal);
    } catch (error) {
      if (options.signal.aborted) throw error;
      // Coalescing saves work; it is never a reason for a request to fail.
      console.error(logLine(options.logSubject, "The scrape coalescer could not be reached; this request scrapes on its own"), error);
      return { answer: await scrape(), followed: false };
    }
    if (joined.role === "leader") return { answer: await leadFlight(coalescer, token, scrape, options.logSubject), followed: false };
    if (joined.role === "answered" && joined.answer !== null) {
      const shared: unknown = JSON.parse(joined.answer);
      const answer = readShared(shared);
      if (answer !== null) return { answer, followed: true };
      return { answer: await scrape(), followed: false };
    }
    // `again`: the leader failed or lapsed; join again (one of its followers leads now).
  }
}

async function leadFlight<Answer extends Record<string, unknown>>(
  coalescer: DurableObjectStub<ScrapeCoalescer>,
  token: string,
  scrape: () => Promise<Answer>,
  logSubject: LogSubject | undefined,
): Promise<Answer> {
  let answer: Answer | null = null;
  try {
    answer = await scrape();
    return answer;
  } finally {
    // Followers wait for this report (or the lease's end): send it whatever happened.
    await coalescer
      .settle(token, answer === null ? null : JSON.stringify(answer))
      .catch((error: unknown) => console.error(logLine(logSubject, "Could not report a scrape to its followers"), error));
  }
}

function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return Promise.race([work, whenAborted(signal)]);
}
