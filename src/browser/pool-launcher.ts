/**
 * The launcher of a country's pool (browser-pool.ts): starts and closes its browsers. A launch must fit the country's
 * launches per minute (`LaunchRate`), get a place in the global budget (browser-budget.ts: it fails closed, so no
 * browser starts when the budget cannot be asked), and fit Browser Rendering's own acquisition limits; a granted place
 * is committed to the new session or handed back. Launches in flight count against the pool's limits like sessions.
 */
import puppeteer from "@cloudflare/puppeteer";
import { BUDGET_UNREACHABLE_RETRY_SECONDS, browserBudgetStub } from "./browser-budget";
import { devtoolsBinding } from "./devtools-binding";
import { LaunchRate } from "./pool-launch-rate";
import type { PoolCounters } from "./pool-stats";
import type { AcquireResult, BudgetReservation } from "./pool-types";
import { launchOptionsFor } from "./session";
import { logLine, serviceSubject } from "../util/log-line";

/** The pool serves every request of its country at once: its lines name the pool, not a request. */
const POOL_SUBJECT = serviceSubject("browser pool");

/** What a launch is for: the country and the hostnames its session may reach, how long it stays alive when idle. */
export interface LaunchTarget {
  country: string;
  domainsKey: string;
  allowedDomains: string[];
  keepAliveMs: number;
}

export class SessionLauncher {
  private readonly rate: LaunchRate;
  /** Launches in flight per domain set. */
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly env: Env,
    launchTimes: readonly number[],
    /** The pool's counters: refusals and failures of launches are counted there. */
    private readonly counters: PoolCounters,
    /** Writes the pool's state (counters, launch times) to storage. */
    private readonly persist: () => void,
  ) {
    this.rate = new LaunchRate(launchTimes);
  }

  /** The launch times of the last minute, for the pool to persist. */
  launchTimes(): readonly number[] {
    return this.rate.recorded();
  }

  mayLaunch(launchesPerMinute: number): boolean {
    return this.rate.hasRoom(launchesPerMinute, Date.now());
  }

  secondsUntilMayLaunch(): number {
    return this.rate.secondsUntilRoom(Date.now());
  }

  inFlightFor(domainsKey: string): number {
    return this.inFlight.get(domainsKey) ?? 0;
  }

  inFlightTotal(): number {
    let total = 0;
    for (const count of this.inFlight.values()) total += count;
    return total;
  }

  /**
   * Starts a browser for `target` and hands its session id to `adopt` (which leases it to the caller), or answers why
   * not. A failure anywhere, `adopt` included, is a `warming_up` for the caller and a failure in the counters.
   */
  async launch(target: LaunchTarget, adopt: (sessionId: string) => Promise<AcquireResult>): Promise<AcquireResult> {
    const { country, domainsKey } = target;
    this.inFlight.set(domainsKey, this.inFlightFor(domainsKey) + 1);
    this.rate.record(Date.now());
    let reservation: BudgetReservation | null | undefined;
    try {
      reservation = await this.reserveGlobalBudget(country);
      if (reservation === null) {
        // The budget cannot be asked: no browser is launched without it (fail closed), and nothing was launched.
        this.rate.forgetLatest();
        this.counters.rejectedAtCapacity += 1;
        this.persist();
        return { ok: false, reason: "capacity_unavailable", retryAfterSeconds: BUDGET_UNREACHABLE_RETRY_SECONDS };
      }
      if (!reservation.ok) {
        // Nothing was launched: the attempt does not count against the country's launches per minute.
        this.rate.forgetLatest();
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
      const { sessionId } = await puppeteer.acquire(this.env.BROWSER, launchOptionsFor(country, target.allowedDomains, target.keepAliveMs));
      const { reservationId } = reservation;
      reservation = undefined;
      // A budget that cannot be told only miscounts until this session closes; the browser itself is fine.
      await browserBudgetStub(this.env)
        .commit(reservationId, sessionId, country)
        .catch((error: unknown) => console.error(logLine(POOL_SUBJECT, "The browser budget could not record a new session"), error));
      return await adopt(sessionId);
    } catch (error) {
      console.error(logLine(POOL_SUBJECT, `Browser launch for ${country} failed`), error);
      this.counters.failures += 1;
      this.counters.rejectedWarmingUp += 1;
      this.persist();
      return { ok: false, reason: "warming_up", retryAfterSeconds: 5 };
    } finally {
      if (reservation?.ok === true)
        await browserBudgetStub(this.env)
          .cancel(reservation.reservationId)
          .catch(() => undefined);
      this.inFlight.set(domainsKey, this.inFlightFor(domainsKey) - 1);
    }
  }

  /**
   * Closes the browser of a session the pool forgot (best effort: it may already be gone), telling the global budget
   * first unless the budget itself asked for it (`notifyBudget: false`: it forgets the session on its side).
   */
  async close(sessionId: string, options: { notifyBudget: boolean }): Promise<void> {
    if (options.notifyBudget) await this.forget(sessionId);
    try {
      const browser = await puppeteer.connect(devtoolsBinding(this.env.BROWSER), sessionId);
      await browser.close();
    } catch {
      // Already closed or unreachable: forgetting it is all that is left to do.
    }
  }

  /** Tells the global budget that a session is gone, without touching its browser (best effort). */
  async forget(sessionId: string): Promise<void> {
    await browserBudgetStub(this.env)
      .forget(sessionId)
      .catch((error: unknown) => console.error(logLine(POOL_SUBJECT, "The browser budget could not be told of a closed session"), error));
  }

  /**
   * The ids of the sessions Browser Rendering has now, or null when it cannot say (then the pool keeps its sessions and
   * a scrape that cannot connect to one replaces it, as before).
   */
  async liveSessionIds(): Promise<Set<string> | null> {
    try {
      const sessions = await puppeteer.sessions(this.env.BROWSER);
      return new Set(sessions.map((session) => session.sessionId));
    } catch (error) {
      console.warn(
        logLine(POOL_SUBJECT, "Browser Rendering did not list its sessions; the pool's stored sessions are used as they are"),
        error,
      );
      return null;
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
      console.error(logLine(POOL_SUBJECT, "The browser budget could not be reached; the launch is refused"), error);
      return null;
    }
  }
}
