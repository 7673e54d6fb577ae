/**
 * The lease book of a country's pool (browser-pool.ts): its browser sessions, which are leased (to which account,
 * under which lease id, until when) and which idle (since when). Plain data and arithmetic, no storage and no browser:
 * the pool persists `all()` and closes the browser of a session it removes, so the rules here can be tested in Node.
 */

export interface PooledSession {
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

/** A session as a pool stored it, possibly before leases had ids and owners: the fields it lacks get neutral values. */
export type StoredSession = Partial<PooledSession> & Pick<PooledSession, "sessionId" | "launchedAt">;

/** The key a session is matched by: the set of hostnames it may reach (Browser Rendering guardrails), order-free. */
export function domainsKeyOf(allowedDomains: readonly string[]): string {
  return [...new Set(allowedDomains)].sort().join(",");
}

/** When a lease granted for a request made at `requestedAt` ends: the caller's own deadline plus its grace. */
export function leaseExpiry(requestedAt: number, leaseMs: number): number {
  return requestedAt + leaseMs;
}

export class LeaseBook {
  private readonly sessions: Map<string, PooledSession>;

  constructor(stored: readonly StoredSession[] = []) {
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
  }

  /** Every session, in the order they joined the pool (what the pool persists and shows). */
  all(): PooledSession[] {
    return [...this.sessions.values()];
  }

  get size(): number {
    return this.sessions.size;
  }

  /** A session that has just been launched: idle until the pool leases it. */
  add(sessionId: string, provider: string, domainsKey: string, now: number): PooledSession {
    const session: PooledSession = {
      sessionId,
      provider,
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
    return session;
  }

  /** Forgets a session; false when it was not (or no longer) in the book. */
  remove(sessionId: string): boolean {
    return this.sessions.delete(sessionId);
  }

  /** The first idle session serving exactly `domainsKey`, for reuse. */
  idleFor(domainsKey: string): PooledSession | undefined {
    return this.all().find((session) => !session.busy && session.domainsKey === domainsKey);
  }

  /** The session `sessionId` if it is leased under `leaseId` now: only the current holder may hand it back. */
  leasedUnder(sessionId: string, leaseId: string): PooledSession | undefined {
    const session = this.sessions.get(sessionId);
    return session !== undefined && session.busy && session.leaseId === leaseId ? session : undefined;
  }

  /** The session leased under `leaseId`, whichever it is. */
  heldBy(leaseId: string): PooledSession | undefined {
    return this.all().find((session) => session.busy && session.leaseId === leaseId);
  }

  lease(session: PooledSession, leaseId: string, accountId: string, expiresAt: number): void {
    session.busy = true;
    session.uses += 1;
    session.leaseId = leaseId;
    session.accountId = accountId;
    session.leaseExpiresAt = expiresAt;
  }

  /** The lease ends: the session idles from `now`. */
  free(session: PooledSession, now: number): void {
    session.busy = false;
    session.leaseId = null;
    session.accountId = null;
    session.leaseExpiresAt = null;
    session.idleSince = now;
  }

  /** Sessions serving `domainsKey` (launches in flight are the launcher's to count). */
  countFor(domainsKey: string): number {
    return this.all().filter((session) => session.domainsKey === domainsKey).length;
  }

  hasBusy(domainsKey: string): boolean {
    return this.all().some((session) => session.busy && session.domainsKey === domainsKey);
  }

  /** The idle session that has idled longest among those `matches` accepts (the first one on a tie). */
  longestIdle(matches: (session: PooledSession) => boolean): PooledSession | undefined {
    let oldest: PooledSession | undefined;
    for (const session of this.sessions.values()) {
      if (session.busy || !matches(session)) continue;
      if (oldest === undefined || session.idleSince < oldest.idleSince) oldest = session;
    }
    return oldest;
  }

  /** Leased sessions whose lease ended at or before `now`: their holders died. */
  expiredLeases(now: number): PooledSession[] {
    return this.all().filter((session) => session.busy && session.leaseExpiresAt !== null && session.leaseExpiresAt <= now);
  }

  /** The earliest end of a current lease (when the pool's alarm must ring), null while nothing is leased. */
  earliestLeaseExpiry(): number | null {
    let earliest: number | null = null;
    for (const session of this.sessions.values()) {
      if (session.busy && session.leaseExpiresAt !== null && (earliest === null || session.leaseExpiresAt < earliest)) {
        earliest = session.leaseExpiresAt;
      }
    }
    return earliest;
  }

  /**
   * Sessions that joined the book before `listedAt` and are missing from `liveIds`, the sessions Browser Rendering
   * listed at that moment: their browsers are gone (closed after their keep-alive, or started by a previous run of a
   * local stack). A session that joined later may simply not have been listed yet, so it is never among them.
   */
  goneFrom(liveIds: ReadonlySet<string>, listedAt: number): PooledSession[] {
    return this.all().filter((session) => session.launchedAt < listedAt && !liveIds.has(session.sessionId));
  }

  /** Busy sessions per account holding them (fair queueing serves the account holding the fewest first). */
  busyByAccount(): Map<string, number> {
    const held = new Map<string, number>();
    for (const session of this.sessions.values()) {
      if (session.busy && session.accountId !== null) held.set(session.accountId, (held.get(session.accountId) ?? 0) + 1);
    }
    return held;
  }
}
