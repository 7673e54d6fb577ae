/**
 * One Durable Object per response-cache key with a scrape in flight (the key covers the account, the scraper and every
 * parameter that changes the answer, so two accounts never meet here). Requests of one account land on different
 * isolates and machines; this object is where they find each other.
 *
 * The first request to `join` is the leader: it scrapes, and reports the outcome with `settle`. A request that joins
 * while the leader runs waits for that outcome instead of starting its own scrape: the leader's answer, or `again`
 * when the leader failed, its lease lapsed (its isolate died) or the wait reached the follower's own deadline. A
 * follower told `again` joins again, so exactly one of the waiting followers becomes the next leader and the rest
 * follow it: a failure is never handed on, each follower keeps its own chance to be answered within its own timeout.
 *
 * State is in memory only: a flight lives no longer than one scrape, and an evicted object has no waiters to lose.
 */
import { DurableObject } from "cloudflare:workers";

/**
 * What a request learns from `join`: to lead, the leader's answer (`answer`: its JSON, as the response cache stores
 * it), or to join `again`.
 */
export interface JoinOutcome {
  role: "leader" | "answered" | "again";
  answer: string | null;
}

const LEAD: JoinOutcome = { role: "leader", answer: null };
const AGAIN: JoinOutcome = { role: "again", answer: null };

/**
 * How long a settled answer is still handed to late joiners. It covers a request that missed the cache just before the
 * leader wrote it and joins just after the flight ended (and KV's propagation delay across locations).
 */
const RECENT_ANSWER_MS = 10_000;

interface Flight {
  token: string;
  leaseTimer: ReturnType<typeof setTimeout>;
  waiters: Set<(outcome: JoinOutcome) => void>;
}

export class ScrapeCoalescer extends DurableObject<Env> {
  private flight: Flight | null = null;
  private recent: { answer: string; until: number } | null = null;

  /**
   * Leads the flight when none runs (`leaseUntil`: when a leader that never settles stops counting, ms since epoch),
   * otherwise waits for its outcome until `waitUntil` at the latest.
   */
  async join(token: string, leaseUntil: number, waitUntil: number): Promise<JoinOutcome> {
    const now = Date.now();
    const running = this.flight;
    if (running === null) {
      if (this.recent !== null && this.recent.until > now) return { role: "answered", answer: this.recent.answer };
      const flight: Flight = { token, waiters: new Set(), leaseTimer: setTimeout(() => this.end(flight, AGAIN), leaseUntil - now) };
      this.flight = flight;
      return LEAD;
    }
    if (running.token === token) return LEAD;
    return new Promise<JoinOutcome>((resolve) => {
      const waiter = (outcome: JoinOutcome): void => {
        clearTimeout(giveUp);
        resolve(outcome);
      };
      const giveUp = setTimeout(
        () => {
          running.waiters.delete(waiter);
          resolve(AGAIN);
        },
        Math.max(0, waitUntil - now),
      );
      running.waiters.add(waiter);
    });
  }

  /** The leader's outcome: its answer's JSON for every waiter, or `null` when it failed (the waiters join again). */
  settle(token: string, answer: string | null): void {
    const flight = this.flight;
    // A lapsed leader's late report changes nothing: its waiters have moved on to the next leader.
    if (flight === null || flight.token !== token) return;
    if (answer !== null) this.recent = { answer, until: Date.now() + RECENT_ANSWER_MS };
    this.end(flight, answer === null ? AGAIN : { role: "answered", answer });
  }

  /** Requests waiting on the current flight (0 when none runs); for tests and the operator's curiosity. */
  waiting(): number {
    return this.flight?.waiters.size ?? 0;
  }

  private end(flight: Flight, outcome: JoinOutcome): void {
    clearTimeout(flight.leaseTimer);
    if (this.flight === flight) this.flight = null;
    for (const waiter of flight.waiters) waiter(outcome);
    flight.waiters.clear();
  }
}

export function scrapeCoalescerStub(env: Env, cacheKey: string): DurableObjectStub<ScrapeCoalescer> {
  return env.SCRAPE_COALESCER.get(env.SCRAPE_COALESCER.idFromName(cacheKey));
}
