/**
 * One Durable Object per country owns that country's Browser Rendering sessions. Scrapes lease a session, connect to
 * it, and hand it back; a healthy session is never closed, only disconnected, so the next scrape reuses it warm.
 * A session serves one provider's domain set only (Browser Rendering guardrails), so the pool is partitioned by it:
 * each provider may keep up to `size` sessions warm, and the country as a whole at most `maxSessions` (an idle
 * session of another provider is retired to make room). Every launch also needs a place in the global budget
 * (`BrowserBudget`), which retires idle sessions of other countries before it refuses.
 *
 * Sharing between customers: the wait queue is bounded, and when it is full an account with fewer waiting scrapes
 * takes the place of the newest waiter of the account with the most; a freed session goes to the waiter whose account
 * holds the fewest sessions here (oldest first among equals). So one account's backlog never sits in front of
 * everyone else's.
 *
 * Leases: every lease has an id chosen by the caller and an expiry (the caller's deadline plus a grace period). A
 * lease is handed back by `release`, given up by `abandon` (a caller that stopped waiting), or, if its holder died,
 * reclaimed by the pool's own alarm at its expiry, which then wakes the waiters. The session table is persisted, so an
 * evicted and restarted object still knows its sessions.
 */
import { DurableObject } from "cloudflare:workers";
import puppeteer from "@cloudflare/puppeteer";
import { isoTimestamp } from "../util/time";
import { BUDGET_UNREACHABLE_RETRY_SECONDS, browserBudgetStub } from "./browser-budget";
import { devtoolsBinding } from "./devtools-binding";
import { poolConfig, type PoolConfig } from "./pool-config";
import { recordPoolCountry } from "./pool-directory";
import type { AcquireFailure, AcquireRequest, AcquireResult, BudgetReservation, IdleSessionRetirer, PoolStats } from "./pool-types";
import { launchOptionsFor } from "./session";

interface PooledSession {
  sessionId: string;
  /** The provider the session was launched for (display); sessions are matched by `domainsKey`. */
  provider: string;
  domainsKey: string;
  busy: boolean;
  leaseId: string | null;
  /** The account holding the lease (fair queueing); null while idle. */
  accountId: string | null;
  leaseExpiresAt: number | null;
  launchedAt: number;
  /** When the session last became idle: the budget retires the longest-idle session first. */
  idleSince: number;
  uses: number;
}

interface Counters {
  launches: number;
  reuses: number;
  failures: number;
  discarded: number;
  reclaimed: number;
  rejectedQueueFull: number;
  displaced: number;
  rejectedWarmingUp: number;
  rejectedAtCapacity: number;
}

interface WaiterTicket {
  leaseId: string;
  accountId: string;
  provider: string;
  domainsKey: string;
  /** When `acquire` was called: the lease, once granted, ends `leaseMs` after it. */
  requestedAt: number;
  leaseMs: number;
  /** When the caller stops waiting (its own deadline). */
  deadline: number;
  /** Arrival order, for first-come-first-served among accounts holding as many sessions. */
  sequence: number;
}

interface Waiter extends WaiterTicket {
  resolve: (result: AcquireResult) => void;
  timer: ReturnType<typeof setTimeout>;
}

const SESSIONS_KEY = "sessions";
const COUNTERS_KEY = "counters";
const COUNTRY_KEY = "country";
const LAUNCH_TIMES_KEY = "launch-times";
const OVERRIDES_KEY = "config-overrides";
const PREPARED_PAGES_SINCE_KEY = "prepared-pages-since";
/** A waiter with less time left than this could not use a session: it is skipped (and told so) instead. */
const MIN_USEFUL_WAIT_MS = 1_000;
const EMPTY_COUNTERS: Counters = {
  launches: 0,
  reuses: 0,
  failures: 0,
  discarded: 0,
  reclaimed: 0,
  rejectedQueueFull: 0,
  displaced: 0,
  rejectedWarmingUp: 0,
  rejectedAtCapacity: 0,
};

export class BrowserPool extends DurableObject<Env> implements IdleSessionRetirer {
  private config: PoolConfig;
  private sessions: Map<string, PooledSession>;
  private counters: Counters;
  private launchTimes: number[];
  private readonly waiters: Waiter[] = [];
  private waiterSequence = 0;
  /** Launches in flight count against the limits too, per domain set. */
  private readonly launching = new Map<string, number>();
  private scheduledAlarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = { ...poolConfig(env), ...(ctx.storage.kv.get<Partial<PoolConfig>>(OVERRIDES_KEY) ?? {}) };
    // Sessions stored before leases had ids and owners get neutral values for the fields they lack.
    const stored = ctx.storage.kv.get<Array<Partial<PooledSession> & Pick<PooledSession, "sessionId" | "launchedAt">>>(SESSIONS_KEY) ?? [];
    this.sessions = new Map(
      stored.map((session) => [
        session.sessionId,
        {
          provider: "",
          domainsKey: "",
          busy: false,
          leaseExpiresAt: null,
          uses: 0,
          ...session,
          leaseId: session.leaseId ?? null,
          accountId: session.accountId ?? null,
          idleSince: session.idleSince ?? session.launchedAt,
        },
      ]),
    );
    this.counters = { ...EMPTY_COUNTERS, ...(ctx.storage.kv.get<Partial<Counters>>(COUNTERS_KEY) ?? {}) };
    this.launchTimes = ctx.storage.kv.get<number[]>(LAUNCH_TIMES_KEY) ?? [];
    // A restarted pool may hold leases whose alarm was never set (or is gone): make sure one rings.
    this.scheduleLeaseAlarm().catch((error: unknown) => console.error("Could not schedule the pool's lease alarm", error));
  }

  private persist(): void {
    this.ctx.storage.kv.put(SESSIONS_KEY, [...this.sessions.values()]);
    this.ctx.storage.kv.put(COUNTERS_KEY, this.counters);
    this.ctx.storage.kv.put(LAUNCH_TIMES_KEY, this.launchTimes);
  }

  private country(): string {
    return this.ctx.storage.kv.get<string>(COUNTRY_KEY) ?? "";
  }

  /** Leases a session for `country`: a warm idle one, a new one, or the next one freed, in that order. */
  async acquire(country: string, request: AcquireRequest): Promise<AcquireResult> {
    if (this.country() !== country) this.ctx.storage.kv.put(COUNTRY_KEY, country);
    const domainsKey = [...new Set(request.allowedDomains)].sort().join(",");
    const requestedAt = Date.now();

    const idle = [...this.sessions.values()].find((session) => !session.busy && session.domainsKey === domainsKey);
    if (idle !== undefined) {
      this.counters.reuses += 1;
      return this.lease(idle, request.leaseId, request.accountId, requestedAt + request.leaseMs, true);
    }

    if (this.countFor(domainsKey) < this.config.size) {
      if (this.totalCount() >= this.config.maxSessions) {
        // Make room by retiring an idle session that serves another provider's domains.
        const other = this.longestIdle((session) => session.domainsKey !== domainsKey);
        if (other !== undefined) await this.discard(other.sessionId);
      }
      if (this.totalCount() < this.config.maxSessions) {
        if (this.launchBudgetLeft()) {
          const launched = await this.launch(country, request, domainsKey, requestedAt + request.leaseMs);
          // Out of global budget, but a session of ours will come back: wait for it like any other waiter.
          if (launched.ok || !outOfBudget(launched.reason) || !this.hasBusy(domainsKey)) return launched;
        } else if (!this.hasBusy(domainsKey)) {
          this.counters.rejectedWarmingUp += 1;
          this.persist();
          return { ok: false, reason: "warming_up", retryAfterSeconds: this.secondsUntilLaunchBudget() };
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
    const session = this.sessions.get(sessionId);
    if (session === undefined || !session.busy || session.leaseId !== leaseId) return;
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
    const index = this.waiters.findIndex((waiter) => waiter.leaseId === leaseId);
    if (index >= 0) {
      const [waiter] = this.waiters.splice(index, 1);
      if (waiter !== undefined) {
        clearTimeout(waiter.timer);
        waiter.resolve({ ok: false, reason: "wait_timeout", retryAfterSeconds: 5 });
      }
      return;
    }
    const held = [...this.sessions.values()].find((session) => session.busy && session.leaseId === leaseId);
    if (held !== undefined) await this.handBack(held);
  }

  /**
   * The global budget needs room: retire this country's longest-idle session, if any. Returns its id (the budget
   * forgets it), or null when every session here is busy.
   */
  async retireIdleSession(): Promise<string | null> {
    const victim = this.longestIdle(() => true);
    if (victim === undefined) return null;
    await this.discard(victim.sessionId, { notifyBudget: false });
    this.persist();
    return victim.sessionId;
  }

  /** Expired leases are reclaimed here, at their expiry, whether or not any other scrape arrives. */
  override async alarm(): Promise<void> {
    this.scheduledAlarmAt = null;
    await this.reclaimExpiredLeases();
    await this.scheduleLeaseAlarm();
  }

  /**
   * Operator overrides of this country's settings (e.g. `launchesPerMinute: 0` to stop new sessions while keeping warm
   * ones). `null` clears them, back to the wrangler.toml values.
   */
  /** `null` drops every override; a setting given as `null` drops that one (back to the wrangler.toml value). */
  async configure(overrides: { [Setting in keyof PoolConfig]?: PoolConfig[Setting] | null } | null): Promise<PoolConfig> {
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
    const sessions = [...this.sessions.values()];
    const busy = sessions.filter((session) => session.busy).length;
    const queueByAccount: Record<string, number> = {};
    for (const waiter of this.waiters) queueByAccount[waiter.accountId] = (queueByAccount[waiter.accountId] ?? 0) + 1;
    return {
      country: this.country(),
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
        account_id: session.busy && session.accountId !== "" ? session.accountId : null,
        lease_expires_at: session.busy && session.leaseExpiresAt !== null ? isoTimestamp(session.leaseExpiresAt) : null,
      })),
      busy,
      idle: sessions.length - busy,
      queue_length: this.waiters.length,
      queue_by_account: queueByAccount,
      launches: this.counters.launches,
      reuses: this.counters.reuses,
      failures: this.counters.failures,
      discarded: this.counters.discarded,
      reclaimed: this.counters.reclaimed,
      rejected_queue_full: this.counters.rejectedQueueFull,
      displaced: this.counters.displaced,
      rejected_warming_up: this.counters.rejectedWarmingUp,
      rejected_at_capacity: this.counters.rejectedAtCapacity,
    };
  }

  private lease(session: PooledSession, leaseId: string, accountId: string, expiresAt: number, reused: boolean): AcquireResult {
    session.busy = true;
    session.uses += 1;
    session.leaseId = leaseId;
    session.accountId = accountId;
    session.leaseExpiresAt = expiresAt;
    this.persist();
    this.scheduleLeaseAlarm().catch((error: unknown) => console.error("Could not schedule the pool's lease alarm", error));
    return { ok: true, sessionId: session.sessionId, reused, preparedPagesSince: this.preparedPagesSince() };
  }

  /** A healthy session is free again: the fairest waiter for its domains gets it, else it idles (or makes room). */
  private async handBack(session: PooledSession): Promise<void> {
    session.busy = false;
    session.leaseId = null;
    session.accountId = null;
    session.leaseExpiresAt = null;
    session.idleSince = Date.now();
    const waiter = this.takeNextWaiter((candidate) => candidate.domainsKey === session.domainsKey);
    if (waiter !== undefined) {
      this.counters.reuses += 1;
      waiter.resolve(this.lease(session, waiter.leaseId, waiter.accountId, waiter.requestedAt + waiter.leaseMs, true));
    } else if (this.waiters.some((candidate) => this.countFor(candidate.domainsKey) < this.config.size)) {
      // A waiter of another provider is held back only by the country's cap: retire this idle session for it.
      await this.discard(session.sessionId);
      this.wakeWaitersForCapacity();
    }
    this.persist();
    await this.scheduleLeaseAlarm();
  }

  /**
   * Waits for a session. When the queue is full, an account with fewer waiting scrapes takes the place of the newest
   * waiter of the account with the most (that one gets the 429 instead), so a burst from one account cannot lock
   * every other account out of the country.
   */
  private enqueue(request: AcquireRequest, domainsKey: string, requestedAt: number): Promise<AcquireResult> | AcquireResult {
    if (this.waiters.length >= this.config.queueLimit) {
      const displaced = this.displaceableWaiter(request.accountId);
      if (displaced === undefined) {
        this.counters.rejectedQueueFull += 1;
        this.persist();
        return { ok: false, reason: "queue_full", retryAfterSeconds: 5 };
      }
      this.waiters.splice(this.waiters.indexOf(displaced), 1);
      clearTimeout(displaced.timer);
      this.counters.displaced += 1;
      this.counters.rejectedQueueFull += 1;
      displaced.resolve({ ok: false, reason: "queue_full", retryAfterSeconds: 5 });
    }
    this.waiterSequence += 1;
    const ticket: WaiterTicket = {
      leaseId: request.leaseId,
      accountId: request.accountId,
      provider: request.provider,
      domainsKey,
      requestedAt,
      leaseMs: request.leaseMs,
      deadline: requestedAt + Math.max(0, request.waitMs),
      sequence: this.waiterSequence,
    };
    return new Promise<AcquireResult>((resolve) => this.wait(ticket, resolve));
  }

  /** Puts a ticket in the queue until its deadline (it keeps its place in the order: `sequence`). */
  private wait(ticket: WaiterTicket, resolve: (result: AcquireResult) => void): void {
    const waiter: Waiter = {
      ...ticket,
      resolve,
      timer: setTimeout(
        () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          resolve({ ok: false, reason: "wait_timeout", retryAfterSeconds: 5 });
        },
        Math.max(0, ticket.deadline - Date.now()),
      ),
    };
    this.waiters.push(waiter);
  }

  /** The newest waiter of the account with the most waiters, if that account has at least two more than `accountId`. */
  private displaceableWaiter(accountId: string): Waiter | undefined {
    const counts = new Map<string, number>();
    for (const waiter of this.waiters) counts.set(waiter.accountId, (counts.get(waiter.accountId) ?? 0) + 1);
    let heaviest: string | undefined;
    for (const [account, count] of counts) if (heaviest === undefined || count > (counts.get(heaviest) ?? 0)) heaviest = account;
    if (heaviest === undefined || heaviest === accountId) return undefined;
    if ((counts.get(heaviest) ?? 0) < (counts.get(accountId) ?? 0) + 2) return undefined;
    return this.waiters.findLast((waiter) => waiter.accountId === heaviest);
  }

  /**
   * Removes and returns the waiter that should be served next among those `eligible`: the one whose account holds the
   * fewest busy sessions here, the earliest among equals. Waiters with too little time left are told so and skipped.
   */
  private takeNextWaiter(eligible: (waiter: Waiter) => boolean): Waiter | undefined {
    const now = Date.now();
    for (const waiter of [...this.waiters]) {
      if (waiter.deadline - now < MIN_USEFUL_WAIT_MS) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        clearTimeout(waiter.timer);
        waiter.resolve({ ok: false, reason: "wait_timeout", retryAfterSeconds: 5 });
      }
    }
    const held = new Map<string, number>();
    for (const session of this.sessions.values()) {
      if (session.busy && session.accountId !== null) held.set(session.accountId, (held.get(session.accountId) ?? 0) + 1);
    }
    let best: Waiter | undefined;
    for (const waiter of this.waiters) {
      if (!eligible(waiter)) continue;
      if (best === undefined) {
        best = waiter;
        continue;
      }
      const load = held.get(waiter.accountId) ?? 0;
      const bestLoad = held.get(best.accountId) ?? 0;
      if (load < bestLoad || (load === bestLoad && waiter.sequence < best.sequence)) best = waiter;
    }
    if (best === undefined) return undefined;
    this.waiters.splice(this.waiters.indexOf(best), 1);
    clearTimeout(best.timer);
    return best;
  }

  private async launch(country: string, request: AcquireRequest, domainsKey: string, leaseExpiresAt: number): Promise<AcquireResult> {
    this.launching.set(domainsKey, (this.launching.get(domainsKey) ?? 0) + 1);
    this.launchTimes.push(Date.now());
    let reservation: BudgetReservation | null | undefined;
    try {
      reservation = await this.reserveGlobalBudget(country);
      if (reservation === null) {
        // The budget cannot be asked: no browser is launched without it (fail closed), and nothing was launched.
        this.launchTimes.pop();
        this.counters.rejectedAtCapacity += 1;
        this.persist();
        return { ok: false, reason: "capacity_unavailable", retryAfterSeconds: BUDGET_UNREACHABLE_RETRY_SECONDS };
      }
      if (!reservation.ok) {
        // Nothing was launched: the attempt does not count against the country's launches per minute.
        this.launchTimes.pop();
        this.counters.rejectedAtCapacity += 1;
        this.persist();
        return { ok: false, reason: "at_capacity", retryAfterSeconds: reservation.retryAfterSeconds };
      }
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
      const { reservationId } = reservation;
      reservation = undefined;
      // A budget that cannot be told only miscounts until this session closes; the browser itself is fine.
      await browserBudgetStub(this.env)
        .commit(reservationId, sessionId, country)
        .catch((error: unknown) => console.error("The browser budget could not record a new session", error));
      const now = Date.now();
      const session: PooledSession = {
        sessionId,
        provider: request.provider,
        domainsKey,
        busy: false,
        leaseId: null,
        accountId: null,
        leaseExpiresAt: null,
        launchedAt: now,
        idleSince: now,
        uses: 0,
      };
      this.sessions.set(sessionId, session);
      this.counters.launches += 1;
      if (this.counters.launches === 1) await recordPoolCountry(this.env.DB, country);
      return this.lease(session, request.leaseId, request.accountId, leaseExpiresAt, false);
    } catch (error) {
      console.error(`Browser launch for ${country} failed`, error);
      this.counters.failures += 1;
      this.counters.rejectedWarmingUp += 1;
      this.persist();
      return { ok: false, reason: "warming_up", retryAfterSeconds: 5 };
    } finally {
      if (reservation?.ok === true)
        await browserBudgetStub(this.env)
          .cancel(reservation.reservationId)
          .catch(() => undefined);
      this.launching.set(domainsKey, (this.launching.get(domainsKey) ?? 1) - 1);
    }
  }

  /**
   * The global budget's answer, or null when the budget cannot be reached: then no browser is launched (fail closed),
   * since launches past the budget spend the Browser Rendering limits every other country needs.
   */
  private async reserveGlobalBudget(country: string): Promise<BudgetReservation | null> {
    try {
      return (await browserBudgetStub(this.env).reserve(country)) as BudgetReservation;
    } catch (error) {
      console.error("The browser budget could not be reached; the launch is refused", error);
      return null;
    }
  }

  /** Sessions (and launches in flight) serving one domain set. */
  private countFor(domainsKey: string): number {
    const live = [...this.sessions.values()].filter((session) => session.domainsKey === domainsKey).length;
    return live + (this.launching.get(domainsKey) ?? 0);
  }

  private hasBusy(domainsKey: string): boolean {
    return [...this.sessions.values()].some((session) => session.busy && session.domainsKey === domainsKey);
  }

  private totalCount(): number {
    let launching = 0;
    for (const count of this.launching.values()) launching += count;
    return this.sessions.size + launching;
  }

  private longestIdle(matches: (session: PooledSession) => boolean): PooledSession | undefined {
    let oldest: PooledSession | undefined;
    for (const session of this.sessions.values()) {
      if (session.busy || !matches(session)) continue;
      if (oldest === undefined || session.idleSince < oldest.idleSince) oldest = session;
    }
    return oldest;
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
  private async reclaimExpiredLeases(): Promise<void> {
    const now = Date.now();
    const expired = [...this.sessions.values()].filter(
      (session) => session.busy && session.leaseExpiresAt !== null && session.leaseExpiresAt <= now,
    );
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
    let earliest: number | null = null;
    for (const session of this.sessions.values()) {
      if (session.busy && session.leaseExpiresAt !== null && (earliest === null || session.leaseExpiresAt < earliest)) {
        earliest = session.leaseExpiresAt;
      }
    }
    if (earliest === this.scheduledAlarmAt) return;
    this.scheduledAlarmAt = earliest;
    if (earliest === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(earliest);
  }

  /** Forgets a session, tells the global budget, and closes its browser (best effort: it may already be gone). */
  private async discard(sessionId: string, options: { notifyBudget: boolean } = { notifyBudget: true }): Promise<void> {
    if (!this.sessions.delete(sessionId)) return;
    this.counters.discarded += 1;
    this.persist();
    if (options.notifyBudget) {
      await browserBudgetStub(this.env)
        .forget(sessionId)
        .catch((error: unknown) => console.error("The browser budget could not be told of a closed session", error));
    }
    try {
      const browser = await puppeteer.connect(devtoolsBinding(this.env.BROWSER), sessionId);
      await browser.close();
    } catch {
      // Already closed or unreachable: forgetting it is all that is left to do.
    }
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
      void this.launch(country, request, waiter.domainsKey, waiter.requestedAt + waiter.leaseMs).then((result) => {
        // Out of global budget while a session of its provider is busy here: it keeps waiting for that one.
        const stillUseful = waiter.deadline - Date.now() >= MIN_USEFUL_WAIT_MS;
        if (!result.ok && outOfBudget(result.reason) && stillUseful && this.hasBusy(waiter.domainsKey)) {
          this.wait(waiter, waiter.resolve);
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
