/**
 * One Durable Object per country owns that country's Browser Rendering sessions. Scrapes lease a session, connect to
 * it, and hand it back; a healthy session is never closed, only disconnected, so the next scrape reuses it warm.
 * A session serves one provider's domain set only (Browser Rendering guardrails), so the pool is partitioned by it:
 * each provider may keep up to `size` sessions warm, and the country as a whole at most `maxSessions` (an idle
 * session of another provider is retired to make room). Every launch also needs a place in the global budget
 * (`BrowserBudget`), which retires idle sessions of other countries before it refuses.
 *
 * This class is the orchestrator: it owns the storage, the alarm and the settings, and decides in which order the
 * parts act. The parts, one concern each:
 * - pool-lease-book.ts: the sessions, their leases (holder, expiry) and idle times;
 * - pool-waiters.ts: the fair wait queue (bounded; the heaviest account gives up its place; a freed session goes to
 *   the account holding the fewest, oldest first among equals), so one account's backlog never sits in front of
 *   everyone else's;
 * - pool-launcher.ts: starting browsers (launches per minute, pool-launch-rate.ts; the global budget's reservations;
 *   Browser Rendering's limits) and closing them;
 * - pool-stats.ts: the counters and the operator view.
 *
 * Leases: every lease has an id chosen by the caller and an expiry (the caller's deadline plus a grace period). A
 * lease is handed back by `release`, given up by `abandon` (a caller that stopped waiting), or, if its holder died,
 * reclaimed by the pool's own alarm at its expiry, which then wakes the waiters. The session table is persisted, so an
 * evicted and restarted object still knows its sessions.
 *
 * A stored session may be gone: closed by Browser Rendering after its keep-alive, or, on a local stack, started by the
 * previous run (its browser died with it). Connecting to one fails (locally with a stack trace from the binding), so
 * the pool compares its sessions with the ones Browser Rendering lists before it hands any out: once per object
 * start, and again before it hands out a session idle long enough to have expired. The gone ones are dropped quietly
 * (counted as `gone`), never connected to.
 */
import { DurableObject } from "cloudflare:workers";
import { poolConfig, type PoolConfig } from "./pool-config";
import { recordPoolCountry } from "./pool-directory";
import { SessionLauncher } from "./pool-launcher";
import { domainsKeyOf, LeaseBook, leaseExpiry, type PooledSession, type StoredSession } from "./pool-lease-book";
import { type PoolCounters, poolStatsView, restoreCounters } from "./pool-stats";
import type { AcquireFailure, AcquireRequest, AcquireResult, IdleSessionRetirer, PoolStats } from "./pool-types";
import { MIN_USEFUL_WAIT_MS, type QueuedWaiter, WaiterQueue, type WaiterTicket, waitDeadline } from "./pool-waiters";
import { logLine, serviceSubject } from "../util/log-line";

/** The pool serves every request of its country at once: its lines name the pool, not a request. */
const POOL_SUBJECT = serviceSubject("browser pool");

const SESSIONS_KEY = "sessions";
const COUNTERS_KEY = "counters";
const COUNTRY_KEY = "country";
const LAUNCH_TIMES_KEY = "launch-times";
const OVERRIDES_KEY = "config-overrides";
const PREPARED_PAGES_SINCE_KEY = "prepared-pages-since";
/** A session idle this close to its keep-alive may have been closed already: it is looked up before being handed out. */
const KEEP_ALIVE_MARGIN_MS = 5_000;

/** Operator overrides of the pool's settings: a setting given as `null` drops its override. */
type PoolConfigOverrides = { [Setting in keyof PoolConfig]?: PoolConfig[Setting] | null };

export class BrowserPool extends DurableObject<Env> implements IdleSessionRetirer {
  private config: PoolConfig;
  private readonly book: LeaseBook;
  private readonly counters: PoolCounters;
  private readonly waiters = new WaiterQueue();
  private readonly launcher: SessionLauncher;
  private scheduledAlarmAt: number | null = null;
  /** Whether this object, since it started, has compared its stored sessions with Browser Rendering's live ones. */
  private storedSessionsChecked = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = { ...poolConfig(env), ...(ctx.storage.kv.get<Partial<PoolConfig>>(OVERRIDES_KEY) ?? {}) };
    this.book = new LeaseBook(ctx.storage.kv.get<StoredSession[]>(SESSIONS_KEY) ?? []);
    this.counters = restoreCounters(ctx.storage.kv.get<Partial<PoolCounters>>(COUNTERS_KEY));
    this.launcher = new SessionLauncher(env, ctx.storage.kv.get<number[]>(LAUNCH_TIMES_KEY) ?? [], this.counters, () => this.persist());
    // A restarted pool may hold leases whose alarm was never set (or is gone): make sure one rings.
    this.scheduleLeaseAlarm().catch((error: unknown) =>
      console.error(logLine(POOL_SUBJECT, "Could not schedule the pool's lease alarm"), error),
    );
  }

  private persist(): void {
    this.ctx.storage.kv.put(SESSIONS_KEY, this.book.all());
    this.ctx.storage.kv.put(COUNTERS_KEY, this.counters);
    this.ctx.storage.kv.put(LAUNCH_TIMES_KEY, this.launcher.launchTimes());
  }

  private country(): string {
    return this.ctx.storage.kv.get<string>(COUNTRY_KEY) ?? "";
  }

  /** Leases a session for `country`: a warm idle one, a new one, or the next one freed, in that order. */
  async acquire(country: string, request: AcquireRequest): Promise<AcquireResult> {
    if (this.country() !== country) this.ctx.storage.kv.put(COUNTRY_KEY, country);
    const domainsKey = domainsKeyOf(request.allowedDomains);
    const requestedAt = Date.now();

    const firstIdle = this.book.idleFor(domainsKey);
    await this.dropGoneSessions(
      firstIdle !== undefined && requestedAt - firstIdle.idleSince >= this.config.keepAliveMs - KEEP_ALIVE_MARGIN_MS,
    );
    const idle = this.book.idleFor(domainsKey);
    if (idle !== undefined) {
      this.counters.reuses += 1;
      return this.lease(idle, request.leaseId, request.accountId, leaseExpiry(requestedAt, request.leaseMs), true);
    }

    if (this.countFor(domainsKey) < this.config.size) {
      if (this.totalCount() >= this.config.maxSessions) {
        // Make room by retiring an idle session that serves another provider's domains.
        const other = this.book.longestIdle((session) => session.domainsKey !== domainsKey);
        if (other !== undefined) await this.discard(other.sessionId);
      }
      if (this.totalCount() < this.config.maxSessions) {
        if (this.launcher.mayLaunch(this.config.launchesPerMinute)) {
          const launched = await this.launch(country, request, domainsKey, leaseExpiry(requestedAt, request.leaseMs));
          // Out of global budget, but a session of ours will come back: wait for it like any other waiter.
          if (launched.ok || !outOfBudget(launched.reason) || !this.book.hasBusy(domainsKey)) return launched;
        } else if (!this.book.hasBusy(domainsKey)) {
          this.counters.rejectedWarmingUp += 1;
          this.persist();
          return { ok: false, reason: "warming_up", retryAfterSeconds: this.launcher.secondsUntilMayLaunch() };
        }
      }
    }
    return this.enqueue(request, domainsKey, requestedAt);
  }

  /**
   * Hands a session back. A healthy one goes to the next waiter or idles; a broken one is closed and forgotten.
   * Only the current holder of the lease can release it: a late release of a lease that was reclaimed (and the session
   * perhaps leased again) changes nothing.
   */
  async release(sessionId: string, leaseId: string, healthy: boolean): Promise<void> {
    const session = this.book.leasedUnder(sessionId, leaseId);
    if (session === undefined) return;
    if (!healthy) {
      this.counters.failures += 1;
      await this.discard(sessionId);
      this.wakeWaitersForCapacity();
      this.persist();
      return;
    }
    await this.handBack(session);
  }

  /**
   * The caller no longer wants the lease `leaseId` (its deadline passed or its request ended): if it is still waiting
   * it leaves the queue; if the lease was granted meanwhile, the session (never connected to) goes straight back.
   */
  async abandon(leaseId: string): Promise<void> {
    if (this.waiters.withdraw(leaseId)) return;
    const held = this.book.heldBy(leaseId);
    if (held !== undefined) await this.handBack(held);
  }

  /**
   * The global budget needs room: retire this country's longest-idle session, if any. Returns its id (the budget
   * forgets it), or null when every session here is busy.
   */
  async retireIdleSession(): Promise<string | null> {
    const victim = this.book.longestIdle(() => true);
    if (victim === undefined) return null;
    await this.discard(victim.sessionId, { notifyBudget: false });
    this.persist();
    return victim.sessionId;
  }

  /** Expired leases are reclaimed here, at their expiry, whether or not any other scrape arrives. */
  override async alarm(): Promise<void> {
    this.scheduledAlarmAt = null;
    // A lease of a previous run's session is dropped here rather than reclaimed (which would connect to close it).
    await this.dropGoneSessions(false);
    await this.reclaimExpiredLeases();
    await this.scheduleLeaseAlarm();
  }

  /**
   * Operator overrides of this country's settings (e.g. `launchesPerMinute: 0` to stop new sessions while keeping warm
   * ones). `null` drops every override; a setting given as `null` drops that one (back to the wrangler.toml value).
   */
  async configure(overrides: PoolConfigOverrides | null): Promise<PoolConfig> {
    if (overrides === null) this.ctx.storage.kv.delete(OVERRIDES_KEY);
    else {
      const merged = { ...(this.ctx.storage.kv.get<Partial<PoolConfig>>(OVERRIDES_KEY) ?? {}), ...overrides };
      this.ctx.storage.kv.put(OVERRIDES_KEY, Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== null)));
    }
    this.config = { ...poolConfig(this.env), ...(this.ctx.storage.kv.get<Partial<PoolConfig>>(OVERRIDES_KEY) ?? {}) };
    return this.config;
  }

  /**
   * Pages prepared before now (src/browser/hot-page.ts) are not used any more: they are closed by the next scrape of
   * their session instead. For an operator who knows a provider's site changed (and for the tests, which change their
   * replicas' pages between scrapes). Returns the new threshold.
   */
  async discardPreparedPages(): Promise<number> {
    const since = Date.now();
    this.ctx.storage.kv.put(PREPARED_PAGES_SINCE_KEY, since);
    return since;
  }

  private preparedPagesSince(): number {
    return this.ctx.storage.kv.get<number>(PREPARED_PAGES_SINCE_KEY) ?? 0;
  }

  /** A read-only view: reading it never reclaims anything (the alarm does), so what it shows is what happened. */
  async stats(): Promise<PoolStats> {
    return poolStatsView({
      country: this.country(),
      limits: this.config,
      sessions: this.book.all(),
      queueByAccount: this.waiters.countByAccount(),
      counters: this.counters,
    });
  }

  private lease(session: PooledSession, leaseId: string, accountId: string, expiresAt: number, reused: boolean): AcquireResult {
    this.book.lease(session, leaseId, accountId, expiresAt);
    this.persist();
    this.scheduleLeaseAlarm().catch((error: unknown) =>
      console.error(logLine(POOL_SUBJECT, "Could not schedule the pool's lease alarm"), error),
    );
    return { ok: true, sessionId: session.sessionId, reused, preparedPagesSince: this.preparedPagesSince() };
  }

  /** A healthy session is free again: the fairest waiter for its domains gets it, else it idles (or makes room). */
  private async handBack(session: PooledSession): Promise<void> {
    this.book.free(session, Date.now());
    const waiter = this.takeNextWaiter((candidate) => candidate.domainsKey === session.domainsKey);
    if (waiter !== undefined) {
      this.counters.reuses += 1;
      waiter.resolve(this.lease(session, waiter.leaseId, waiter.accountId, leaseExpiry(waiter.requestedAt, waiter.leaseMs), true));
    } else if (this.waiters.some((candidate) => this.countFor(candidate.domainsKey) < this.config.size)) {
      // A waiter of another provider is held back only by the country's cap: retire this idle session for it.
      await this.discard(session.sessionId);
      this.wakeWaitersForCapacity();
    }
    this.persist();
    await this.scheduleLeaseAlarm();
  }

  /** Waits for a session; when the queue is full, a waiter of the heaviest account may give up its place (pool-waiters.ts). */
  private enqueue(request: AcquireRequest, domainsKey: string, requestedAt: number): Promise<AcquireResult> | AcquireResult {
    const room = this.waiters.makeRoom(request.accountId, this.config.queueLimit);
    if (room === "full") {
      this.counters.rejectedQueueFull += 1;
      this.persist();
      return { ok: false, reason: "queue_full", retryAfterSeconds: 5 };
    }
    if (room === "displaced") {
      this.counters.displaced += 1;
      this.counters.rejectedQueueFull += 1;
    }
    return this.waiters.enqueue({
      leaseId: request.leaseId,
      accountId: request.accountId,
      provider: request.provider,
      domainsKey,
      requestedAt,
      leaseMs: request.leaseMs,
      deadline: waitDeadline(requestedAt, request.waitMs),
    });
  }

  /** The fairest waiter among those `eligible`, given the sessions each account holds now (pool-waiters.ts). */
  private takeNextWaiter(eligible: (waiter: WaiterTicket) => boolean): QueuedWaiter | undefined {
    return this.waiters.takeNext(eligible, this.book.busyByAccount(), Date.now());
  }

  /** Starts a browser for `request` and leases it at once; failures answer why (pool-launcher.ts). */
  private launch(country: string, request: AcquireRequest, domainsKey: string, leaseExpiresAt: number): Promise<AcquireResult> {
    const target = { country, domainsKey, allowedDomains: request.allowedDomains, keepAliveMs: this.config.keepAliveMs };
    return this.launcher.launch(target, async (sessionId) => {
      const session = this.book.add(sessionId, request.provider, domainsKey, Date.now());
      this.counters.launches += 1;
      if (this.counters.launches === 1) await recordPoolCountry(this.env.DB, country);
      return this.lease(session, request.leaseId, request.accountId, leaseExpiresAt, false);
    });
  }

  /** Sessions (and launches in flight) serving one domain set. */
  private countFor(domainsKey: string): number {
    return this.book.countFor(domainsKey) + this.launcher.inFlightFor(domainsKey);
  }

  /** Sessions (and launches in flight) of the whole country. */
  private totalCount(): number {
    return this.book.size + this.launcher.inFlightTotal();
  }

  /** A lease past its expiry belongs to a scrape that died: its session may be in any state, so retire it. */
  private async reclaimExpiredLeases(): Promise<void> {
    const expired = this.book.expiredLeases(Date.now());
    for (const session of expired) {
      this.counters.reclaimed += 1;
      await this.discard(session.sessionId);
    }
    if (expired.length > 0) {
      this.wakeWaitersForCapacity();
      this.persist();
    }
  }

  /** The alarm rings at the earliest lease expiry; none while nothing is leased. */
  private async scheduleLeaseAlarm(): Promise<void> {
    const earliest = this.book.earliestLeaseExpiry();
    if (earliest === this.scheduledAlarmAt) return;
    this.scheduledAlarmAt = earliest;
    if (earliest === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(earliest);
  }

  /**
   * Drops the stored sessions Browser Rendering no longer has, without connecting to them: the first time this object
   * runs, and whenever `mayHaveExpired` (a session about to be handed out idled about as long as its keep-alive).
   */
  private async dropGoneSessions(mayHaveExpired: boolean): Promise<void> {
    if (this.storedSessionsChecked && !mayHaveExpired) return;
    if (this.book.size === 0) {
      this.storedSessionsChecked = true;
      return;
    }
    const listedAt = Date.now();
    const live = await this.launcher.liveSessionIds();
    if (live === null) return;
    this.storedSessionsChecked = true;
    const gone = this.book.goneFrom(live, listedAt);
    if (gone.length === 0) return;
    for (const session of gone) {
      // another call may have dropped it while the list was on its way
      if (!this.book.remove(session.sessionId)) continue;
      this.counters.gone += 1;
      await this.launcher.forget(session.sessionId);
    }
    this.persist();
    this.wakeWaitersForCapacity();
    await this.scheduleLeaseAlarm();
  }

  /** Forgets a session and closes its browser (telling the global budget unless it asked for the room itself). */
  private async discard(sessionId: string, options: { notifyBudget: boolean } = { notifyBudget: true }): Promise<void> {
    if (!this.book.remove(sessionId)) return;
    this.counters.discarded += 1;
    this.persist();
    await this.launcher.close(sessionId, options);
  }

  /** After sessions were dropped, the fairest waiters that may now launch do so in their place. */
  private wakeWaitersForCapacity(): void {
    const country = this.country() || "US";
    while (this.totalCount() < this.config.maxSessions) {
      const waiter = this.takeNextWaiter((candidate) => this.countFor(candidate.domainsKey) < this.config.size);
      if (waiter === undefined) return;
      const request: AcquireRequest = {
        leaseId: waiter.leaseId,
        accountId: waiter.accountId,
        provider: waiter.provider,
        allowedDomains: waiter.domainsKey.split(","),
        waitMs: 0,
        leaseMs: waiter.leaseMs,
      };
      void this.launch(country, request, waiter.domainsKey, leaseExpiry(waiter.requestedAt, waiter.leaseMs)).then((result) => {
        // Out of global budget while a session of its provider is busy here: it keeps waiting for that one.
        const stillUseful = waiter.deadline - Date.now() >= MIN_USEFUL_WAIT_MS;
        if (!result.ok && outOfBudget(result.reason) && stillUseful && this.book.hasBusy(waiter.domainsKey)) {
          this.waiters.wait(waiter, waiter.resolve);
        } else {
          waiter.resolve(result);
        }
      });
    }
  }
}

/** No new browser may start (the budget is spent or cannot be asked): a busy session of the country may still free up. */
function outOfBudget(reason: AcquireFailure): boolean {
  return reason === "at_capacity" || reason === "capacity_unavailable";
}

export function browserPoolStub(env: Env, country: string): DurableObjectStub<BrowserPool> {
  return env.BROWSER_POOL.get(env.BROWSER_POOL.idFromName(country)) as DurableObjectStub<BrowserPool>;
}
