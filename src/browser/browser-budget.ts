/**
 * The global budget of browser sessions, one Durable Object for the whole service. Browser Rendering limits concurrent
 * browsers per Cloudflare account, while every country has its own pool: without a shared count, one customer sending
 * requests to twenty countries keeps twenty-odd browsers alive and the next country that needs one gets nothing.
 *
 * A country pool asks `reserve` before it launches. Under the budget the answer is yes at once. At the budget, the
 * budget asks the pools holding the most sessions to retire their longest-idle one and grants the place freed; only
 * when every session everywhere is busy is the launch refused (the caller answers 503 with Retry-After). The pool
 * turns a granted reservation into a session with `commit`, or gives it back with `cancel`; closed sessions are
 * `forget`-ten. A reservation that is never committed (its pool died mid-launch) lapses after a minute. When a pool
 * cannot reach this object at all, it launches nothing (a 503 `capacity_unavailable` for the scrape): the budget fails
 * closed.
 */
import { DurableObject } from "cloudflare:workers";
import { globalMaxSessions } from "./pool-config";
import type { BudgetReservation, BudgetStats, IdleSessionRetirer } from "./pool-types";
import { logLine, serviceSubject } from "../util/log-line";

interface BudgetSession {
  country: string;
  since: number;
}

interface Reservation {
  country: string;
  expiresAt: number;
}

interface BudgetCounters {
  granted: number;
  evictions: number;
  refusals: number;
}

const SESSIONS_KEY = "sessions";
const COUNTERS_KEY = "counters";
const MAX_SESSIONS_OVERRIDE_KEY = "max-sessions";
/** Longer than any launch takes; a reservation still open after it belongs to a launch that died. */
const RESERVATION_TTL_MS = 60_000;
const RETRY_AFTER_SECONDS = 5;
/**
 * Retry-After when a pool cannot reach this object: a launch is then refused (fail closed, src/browser/pool-launcher.ts),
 * since launching unbudgeted spends the Browser Rendering limits every country shares.
 */
export const BUDGET_UNREACHABLE_RETRY_SECONDS = 5;

export class BrowserBudget extends DurableObject<Env> {
  private readonly sessions: Map<string, BudgetSession>;
  private readonly reservations = new Map<string, Reservation>();
  private counters: BudgetCounters;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sessions = new Map(Object.entries(ctx.storage.kv.get<Record<string, BudgetSession>>(SESSIONS_KEY) ?? {}));
    this.counters = ctx.storage.kv.get<BudgetCounters>(COUNTERS_KEY) ?? { granted: 0, evictions: 0, refusals: 0 };
  }

  private maxSessions(): number {
    return this.ctx.storage.kv.get<number>(MAX_SESSIONS_OVERRIDE_KEY) ?? globalMaxSessions(this.env);
  }

  private persist(): void {
    this.ctx.storage.kv.put(SESSIONS_KEY, Object.fromEntries(this.sessions));
    this.ctx.storage.kv.put(COUNTERS_KEY, this.counters);
  }

  private inUse(): number {
    const now = Date.now();
    for (const [id, reservation] of this.reservations) if (reservation.expiresAt <= now) this.reservations.delete(id);
    return this.sessions.size + this.reservations.size;
  }

  /** A place for one more browser in `country`, making room by retiring an idle session elsewhere when needed. */
  async reserve(country: string): Promise<BudgetReservation> {
    if (this.inUse() < this.maxSessions()) return this.grant(country);
    // Evict where the most sessions are first: that country has the most to spare.
    for (const victimCountry of this.countriesByLoad()) {
      const retired = await countryPool(this.env, victimCountry)
        .retireIdleSession()
        .catch((error: unknown) => {
          console.error(logLine(serviceSubject("browser budget"), `The ${victimCountry} pool could not retire an idle session`), error);
          return null;
        });
      if (retired === null) continue;
      if (this.sessions.delete(retired)) this.counters.evictions += 1;
      this.persist();
      if (this.inUse() < this.maxSessions()) return this.grant(country);
    }
    this.counters.refusals += 1;
    this.persist();
    return { ok: false, retryAfterSeconds: RETRY_AFTER_SECONDS };
  }

  /** The reserved place now holds a live session (an empty id: the pool launched without a reservation). */
  async commit(reservationId: string, sessionId: string, country: string): Promise<void> {
    this.reservations.delete(reservationId);
    this.sessions.set(sessionId, { country, since: Date.now() });
    this.persist();
  }

  async cancel(reservationId: string): Promise<void> {
    this.reservations.delete(reservationId);
  }

  async forget(sessionId: string): Promise<void> {
    if (this.sessions.delete(sessionId)) this.persist();
  }

  /** Operator override of the budget (`null` restores `BROWSER_GLOBAL_MAX_SESSIONS`). Sessions above a lowered budget stay until they idle out or are retired. */
  async configure(maxSessions: number | null): Promise<number> {
    if (maxSessions === null) this.ctx.storage.kv.delete(MAX_SESSIONS_OVERRIDE_KEY);
    else this.ctx.storage.kv.put(MAX_SESSIONS_OVERRIDE_KEY, maxSessions);
    return this.maxSessions();
  }

  async stats(): Promise<BudgetStats> {
    const byCountry: Record<string, number> = {};
    for (const session of this.sessions.values()) byCountry[session.country] = (byCountry[session.country] ?? 0) + 1;
    const inUse = this.inUse();
    return {
      max_sessions: this.maxSessions(),
      in_use: inUse,
      sessions_by_country: byCountry,
      launches_in_progress: this.reservations.size,
      granted: this.counters.granted,
      evictions: this.counters.evictions,
      refusals: this.counters.refusals,
    };
  }

  private grant(country: string): BudgetReservation {
    const reservationId = crypto.randomUUID();
    this.reservations.set(reservationId, { country, expiresAt: Date.now() + RESERVATION_TTL_MS });
    this.counters.granted += 1;
    this.persist();
    return { ok: true, reservationId };
  }

  private countriesByLoad(): string[] {
    const counts = new Map<string, number>();
    for (const session of this.sessions.values()) counts.set(session.country, (counts.get(session.country) ?? 0) + 1);
    return [...counts.entries()].sort((left, right) => right[1] - left[1]).map(([country]) => country);
  }
}

/** The pool of `country` (one BrowserPool object per country, named by it: see browserPoolStub), as the budget uses it. */
function countryPool(env: Env, country: string): IdleSessionRetirer {
  return env.BROWSER_POOL.get(env.BROWSER_POOL.idFromName(country));
}

export function browserBudgetStub(env: Env): DurableObjectStub<BrowserBudget> {
  return env.BROWSER_BUDGET.get(env.BROWSER_BUDGET.idFromName("global")) as DurableObjectStub<BrowserBudget>;
}
