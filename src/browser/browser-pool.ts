/**
 * One Durable Object per country owns that country's Browser Rendering sessions. Scrapes lease a session, connect to
 * it, and hand it back; a healthy session is never closed, only disconnected, so the next scrape reuses it warm.
 * A session serves one provider's domain set only (Browser Rendering guardrails), so the pool is partitioned by it:
 * each provider may keep up to `size` sessions warm, and the country as a whole at most `maxSessions` (an idle
 * session of another provider is retired to make room). The number of scrapes waiting for a session is bounded too.
 *
 * The session table is persisted, so an evicted and restarted object still knows its sessions; leases carry an
 * expiry, so a scrape that died without handing its session back cannot hold it forever.
 */
import { DurableObject } from "cloudflare:workers";
import puppeteer from "@cloudflare/puppeteer";
import { isoTimestamp } from "../util/time";
import { poolConfig, type PoolConfig } from "./pool-config";
import { recordPoolCountry } from "./pool-directory";
import type { AcquireRequest, AcquireResult, PoolStats } from "./pool-types";
import { launchOptionsFor } from "./session";

interface PooledSession {
  sessionId: string;
  /** The provider the session was launched for (display); sessions are matched by `domainsKey`. */
  provider: string;
  domainsKey: string;
  busy: boolean;
  leaseExpiresAt: number | null;
  launchedAt: number;
  uses: number;
}

interface Counters {
  launches: number;
  reuses: number;
  failures: number;
  discarded: number;
  rejectedQueueFull: number;
  rejectedWarmingUp: number;
}

interface Waiter {
  provider: string;
  domainsKey: string;
  leaseMs: number;
  resolve: (result: AcquireResult) => void;
  timer: ReturnType<typeof setTimeout>;
}

const SESSIONS_KEY = "sessions";
const COUNTERS_KEY = "counters";
const COUNTRY_KEY = "country";
const LAUNCH_TIMES_KEY = "launch-times";
const OVERRIDES_KEY = "config-overrides";

export class BrowserPool extends DurableObject<Env> {
  private config: PoolConfig;
  private sessions: Map<string, PooledSession>;
  private counters: Counters;
  private launchTimes: number[];
  private readonly waiters: Waiter[] = [];
  /** Launches in flight count against the limits too, per domain set. */
  private readonly launching = new Map<string, number>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = { ...poolConfig(env), ...(ctx.storage.kv.get<Partial<PoolConfig>>(OVERRIDES_KEY) ?? {}) };
    const stored = ctx.storage.kv.get<PooledSession[]>(SESSIONS_KEY) ?? [];
    this.sessions = new Map(stored.map((session) => [session.sessionId, session]));
    this.counters = ctx.storage.kv.get<Counters>(COUNTERS_KEY) ?? {
      launches: 0,
      reuses: 0,
      failures: 0,
      discarded: 0,
      rejectedQueueFull: 0,
      rejectedWarmingUp: 0,
    };
    this.launchTimes = ctx.storage.kv.get<number[]>(LAUNCH_TIMES_KEY) ?? [];
  }

  private persist(): void {
    this.ctx.storage.kv.put(SESSIONS_KEY, [...this.sessions.values()]);
    this.ctx.storage.kv.put(COUNTERS_KEY, this.counters);
    this.ctx.storage.kv.put(LAUNCH_TIMES_KEY, this.launchTimes);
  }

  /** Leases a session for `country`: a warm idle one, a new one, or the next one freed, in that order. */
  async acquire(country: string, request: AcquireRequest): Promise<AcquireResult> {
    this.ctx.storage.kv.put(COUNTRY_KEY, country);
    const domainsKey = [...new Set(request.allowedDomains)].sort().join(",");
    this.reclaimExpiredLeases();

    const idle = [...this.sessions.values()].find((session) => !session.busy && session.domainsKey === domainsKey);
    if (idle !== undefined) {
      this.counters.reuses += 1;
      return this.lease(idle, request.leaseMs, true);
    }

    if (this.countFor(domainsKey) < this.config.size) {
      if (this.totalCount() >= this.config.maxSessions) {
        // Make room by retiring an idle session that serves another provider's domains.
        const other = [...this.sessions.values()].find((session) => !session.busy && session.domainsKey !== domainsKey);
        if (other !== undefined) await this.discard(other.sessionId);
      }
      if (this.totalCount() < this.config.maxSessions) {
        if (this.launchBudgetLeft()) return this.launch(country, request, domainsKey);
        if (![...this.sessions.values()].some((session) => session.busy && session.domainsKey === domainsKey)) {
          this.counters.rejectedWarmingUp += 1;
          this.persist();
          return { ok: false, reason: "warming_up", retryAfterSeconds: this.secondsUntilLaunchBudget() };
        }
      }
    }

    if (this.waiters.length >= this.config.queueLimit) {
      this.counters.rejectedQueueFull += 1;
      this.persist();
      return { ok: false, reason: "queue_full", retryAfterSeconds: 5 };
    }
    return new Promise<AcquireResult>((resolve) => {
      const waiter: Waiter = {
        provider: request.provider,
        domainsKey,
        leaseMs: request.leaseMs,
        resolve,
        timer: setTimeout(
          () => {
            const index = this.waiters.indexOf(waiter);
            if (index >= 0) this.waiters.splice(index, 1);
            resolve({ ok: false, reason: "wait_timeout", retryAfterSeconds: 5 });
          },
          Math.max(0, request.waitMs),
        ),
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * Operator overrides of this country's settings (e.g. `launchesPerMinute: 0` to stop new sessions while keeping warm
   * ones). `null` clears them, back to the wrangler.toml values.
   */
  async configure(overrides: Partial<PoolConfig> | null): Promise<PoolConfig> {
    if (overrides === null) this.ctx.storage.kv.delete(OVERRIDES_KEY);
    else this.ctx.storage.kv.put(OVERRIDES_KEY, { ...(this.ctx.storage.kv.get<Partial<PoolConfig>>(OVERRIDES_KEY) ?? {}), ...overrides });
    this.config = { ...poolConfig(this.env), ...(this.ctx.storage.kv.get<Partial<PoolConfig>>(OVERRIDES_KEY) ?? {}) };
    return this.config;
  }

  /** Hands a session back. A healthy one goes to the next waiter or idles; a broken one is closed and forgotten. */
  async release(sessionId: string, healthy: boolean): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return;
    if (!healthy) {
      this.counters.failures += 1;
      await this.discard(sessionId);
      this.wakeWaiterForCapacity();
      return;
    }
    session.busy = false;
    session.leaseExpiresAt = null;
    const waiterIndex = this.waiters.findIndex((waiter) => waiter.domainsKey === session.domainsKey);
    if (waiterIndex >= 0) {
      const [waiter] = this.waiters.splice(waiterIndex, 1);
      if (waiter !== undefined) {
        clearTimeout(waiter.timer);
        this.counters.reuses += 1;
        waiter.resolve(this.lease(session, waiter.leaseMs, true));
      }
    } else if (this.waiters.some((waiter) => this.countFor(waiter.domainsKey) < this.config.size)) {
      // A waiter of another provider is held back only by the country's cap: retire this idle session for it.
      await this.discard(sessionId);
      this.wakeWaiterForCapacity();
    }
    this.persist();
  }

  async stats(): Promise<PoolStats> {
    this.reclaimExpiredLeases();
    const sessions = [...this.sessions.values()];
    const busy = sessions.filter((session) => session.busy).length;
    return {
      country: this.ctx.storage.kv.get<string>(COUNTRY_KEY) ?? "",
      size_limit: this.config.size,
      max_sessions: this.config.maxSessions,
      queue_limit: this.config.queueLimit,
      sessions: sessions.map((session) => ({
        session_id: session.sessionId,
        provider: session.provider,
        busy: session.busy,
        domains: session.domainsKey.split(","),
        launched_at: isoTimestamp(session.launchedAt),
        uses: session.uses,
      })),
      busy,
      idle: sessions.length - busy,
      queue_length: this.waiters.length,
      launches: this.counters.launches,
      reuses: this.counters.reuses,
      failures: this.counters.failures,
      discarded: this.counters.discarded,
      rejected_queue_full: this.counters.rejectedQueueFull,
      rejected_warming_up: this.counters.rejectedWarmingUp,
    };
  }

  private lease(session: PooledSession, leaseMs: number, reused: boolean): AcquireResult {
    session.busy = true;
    session.uses += 1;
    session.leaseExpiresAt = Date.now() + leaseMs;
    this.persist();
    return { ok: true, sessionId: session.sessionId, reused };
  }

  private async launch(country: string, request: AcquireRequest, domainsKey: string): Promise<AcquireResult> {
    this.launching.set(domainsKey, (this.launching.get(domainsKey) ?? 0) + 1);
    this.launchTimes.push(Date.now());
    try {
      // Browser Rendering's own acquisition limits: asking for a browser past them would only fail.
      const limits = await puppeteer.limits(this.env.BROWSER);
      if (limits.allowedBrowserAcquisitions <= 0) {
        this.counters.rejectedWarmingUp += 1;
        this.persist();
        return {
          ok: false,
          reason: "warming_up",
          retryAfterSeconds: Math.max(1, Math.ceil(limits.timeUntilNextAllowedBrowserAcquisition / 1000)),
        };
      }
      const { sessionId } = await puppeteer.acquire(
        this.env.BROWSER,
        launchOptionsFor(country, request.allowedDomains, this.config.keepAliveMs),
      );
      const session: PooledSession = {
        sessionId,
        provider: request.provider,
        domainsKey,
        busy: false,
        leaseExpiresAt: null,
        launchedAt: Date.now(),
        uses: 0,
      };
      this.sessions.set(sessionId, session);
      this.counters.launches += 1;
      if (this.counters.launches === 1) await recordPoolCountry(this.env.DB, country);
      return this.lease(session, request.leaseMs, false);
    } catch (error) {
      console.error(`Browser launch for ${country} failed`, error);
      this.counters.failures += 1;
      this.counters.rejectedWarmingUp += 1;
      this.persist();
      return { ok: false, reason: "warming_up", retryAfterSeconds: 5 };
    } finally {
      this.launching.set(domainsKey, (this.launching.get(domainsKey) ?? 1) - 1);
    }
  }

  /** Sessions (and launches in flight) serving one domain set. */
  private countFor(domainsKey: string): number {
    const live = [...this.sessions.values()].filter((session) => session.domainsKey === domainsKey).length;
    return live + (this.launching.get(domainsKey) ?? 0);
  }

  private totalCount(): number {
    let launching = 0;
    for (const count of this.launching.values()) launching += count;
    return this.sessions.size + launching;
  }

  private launchBudgetLeft(): boolean {
    const minuteAgo = Date.now() - 60_000;
    this.launchTimes = this.launchTimes.filter((time) => time > minuteAgo);
    return this.launchTimes.length < this.config.launchesPerMinute;
  }

  private secondsUntilLaunchBudget(): number {
    const oldest = this.launchTimes[0];
    return oldest === undefined ? 60 : Math.max(1, Math.ceil((oldest + 60_000 - Date.now()) / 1000));
  }

  /** A lease past its expiry belongs to a scrape that died: its session may be in any state, so retire it. */
  private reclaimExpiredLeases(): void {
    const now = Date.now();
    for (const session of this.sessions.values()) {
      if (session.busy && session.leaseExpiresAt !== null && session.leaseExpiresAt < now) {
        void this.discard(session.sessionId);
      }
    }
  }

  /** Forgets a session and closes its browser (best effort: it may already be gone). */
  private async discard(sessionId: string): Promise<void> {
    if (!this.sessions.delete(sessionId)) return;
    this.counters.discarded += 1;
    this.persist();
    try {
      const browser = await puppeteer.connect(this.env.BROWSER, sessionId);
      await browser.close();
    } catch {
      // Already closed or unreachable: forgetting it is all that is left to do.
    }
  }

  /** After a session was dropped, the first waiter that may launch does so in its place. */
  private wakeWaiterForCapacity(): void {
    const index = this.waiters.findIndex((candidate) => this.countFor(candidate.domainsKey) < this.config.size);
    if (index < 0 || this.totalCount() >= this.config.maxSessions) return;
    const [waiter] = this.waiters.splice(index, 1);
    if (waiter === undefined) return;
    clearTimeout(waiter.timer);
    const country = this.ctx.storage.kv.get<string>(COUNTRY_KEY) ?? "US";
    const request = { provider: waiter.provider, allowedDomains: waiter.domainsKey.split(","), waitMs: 0, leaseMs: waiter.leaseMs };
    void this.launch(country, request, waiter.domainsKey).then(waiter.resolve);
  }
}

export function browserPoolStub(env: Env, country: string): DurableObjectStub<BrowserPool> {
  return env.BROWSER_POOL.get(env.BROWSER_POOL.idFromName(country)) as DurableObjectStub<BrowserPool>;
}
