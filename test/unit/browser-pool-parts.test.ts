/**
 * The parts of a country's BrowserPool that need no Workers runtime (issue 31 point 4): the lease book, the fair wait
 * queue, the launch window and the operator view. Each scenario writes its expected values out by hand.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LaunchRate } from "../../src/browser/pool-launch-rate";
import { domainsKeyOf, LeaseBook, leaseExpiry } from "../../src/browser/pool-lease-book";
import { poolStatsView, restoreCounters } from "../../src/browser/pool-stats";
import type { AcquireResult } from "../../src/browser/pool-types";
import { fairestWaiter, WaiterQueue, waitDeadline, waiterToDisplace } from "../../src/browser/pool-waiters";

const CHATGPT = "chatgpt.com,openai.com";
const GEMINI = "gemini.google.com";

describe("lease book", () => {
  it("a session stored before leases had ids and owners gets neutral values, idle since its launch", () => {
    const book = new LeaseBook([{ sessionId: "old", launchedAt: 1_000 }]);
    expect(book.all()).toEqual([
      {
        sessionId: "old",
        provider: "",
        domainsKey: "",
        busy: false,
        leaseId: null,
        accountId: null,
        leaseExpiresAt: null,
        launchedAt: 1_000,
        idleSince: 1_000,
        uses: 0,
      },
    ]);
  });

  it("the domains key is the set of hostnames, sorted, duplicates dropped", () => {
    expect(domainsKeyOf(["openai.com", "chatgpt.com", "openai.com"])).toBe(CHATGPT);
  });

  it("a lease ends its grace after the request; leasing and freeing keep the session's uses and idle time", () => {
    expect(leaseExpiry(10_000, 95_000)).toBe(105_000);
    const book = new LeaseBook();
    const session = book.add("s1", "chatgpt", CHATGPT, 5_000);
    expect(book.idleFor(CHATGPT)).toBe(session);
    book.lease(session, "lease-1", "acct-a", 105_000);
    expect(book.idleFor(CHATGPT)).toBeUndefined();
    expect(book.hasBusy(CHATGPT)).toBe(true);
    expect(book.heldBy("lease-1")).toBe(session);
    book.free(session, 42_000);
    expect(session).toMatchObject({ busy: false, leaseId: null, accountId: null, leaseExpiresAt: null, idleSince: 42_000, uses: 1 });
    expect(book.hasBusy(CHATGPT)).toBe(false);
  });

  it("only the current holder's lease id finds the session: a late release of a reclaimed lease finds nothing", () => {
    const book = new LeaseBook();
    const session = book.add("s1", "chatgpt", CHATGPT, 0);
    book.lease(session, "lease-2", "acct-b", 60_000);
    expect(book.leasedUnder("s1", "lease-2")).toBe(session);
    expect(book.leasedUnder("s1", "lease-1")).toBeUndefined();
    expect(book.leasedUnder("s9", "lease-2")).toBeUndefined();
  });

  it("leases are expired at their expiry exactly; the alarm rings at the earliest one, never while nothing is leased", () => {
    const book = new LeaseBook();
    expect(book.earliestLeaseExpiry()).toBeNull();
    const first = book.add("s1", "chatgpt", CHATGPT, 0);
    const second = book.add("s2", "chatgpt", CHATGPT, 0);
    book.add("s3", "gemini", GEMINI, 0);
    book.lease(first, "lease-1", "acct-a", 9_000);
    book.lease(second, "lease-2", "acct-a", 5_000);
    expect(book.earliestLeaseExpiry()).toBe(5_000);
    expect(book.expiredLeases(4_999)).toEqual([]);
    expect(book.expiredLeases(5_000).map((session) => session.sessionId)).toEqual(["s2"]);
    expect(book.expiredLeases(9_000).map((session) => session.sessionId)).toEqual(["s1", "s2"]);
  });

  it("the longest-idle idle session is the one retired; busy ones never are", () => {
    const book = new LeaseBook([
      { sessionId: "busy", launchedAt: 0, domainsKey: GEMINI, busy: true, leaseId: "l", accountId: "a", leaseExpiresAt: 1, idleSince: 100 },
      { sessionId: "recent", launchedAt: 0, domainsKey: GEMINI, idleSince: 3_000 },
      { sessionId: "oldest", launchedAt: 0, domainsKey: CHATGPT, idleSince: 1_000 },
      { sessionId: "middle", launchedAt: 0, domainsKey: GEMINI, idleSince: 2_000 },
    ]);
    expect(book.longestIdle(() => true)?.sessionId).toBe("oldest");
    expect(book.longestIdle((session) => session.domainsKey !== CHATGPT)?.sessionId).toBe("middle");
    expect(book.countFor(GEMINI)).toBe(3);
    expect(book.size).toBe(4);
  });

  it("busy sessions are counted per account holding them; internal leases count under the empty account", () => {
    const book = new LeaseBook();
    for (const [id, account] of [
      ["s1", "acct-a"],
      ["s2", "acct-a"],
      ["s3", "acct-b"],
      ["s4", ""],
    ] as const) {
      book.lease(book.add(id, "chatgpt", CHATGPT, 0), `lease-${id}`, account, 1_000);
    }
    book.add("idle", "chatgpt", CHATGPT, 0);
    expect(Object.fromEntries(book.busyByAccount())).toEqual({ "acct-a": 2, "acct-b": 1, "": 1 });
  });

  it("gone sessions: those Browser Rendering did not list, busy or idle, but never one that joined after the listing", () => {
    const book = new LeaseBook();
    book.add("previous-run-idle", "chatgpt", CHATGPT, 1_000);
    book.lease(book.add("previous-run-leased", "chatgpt", CHATGPT, 1_000), "lease-old", "acct-a", 9_000);
    book.add("live", "chatgpt", CHATGPT, 2_000);
    // launched while the list was on its way: too new to be in it
    book.add("launched-meanwhile", "chatgpt", CHATGPT, 5_000);
    const gone = book.goneFrom(new Set(["live"]), 5_000);
    expect(gone.map((session) => session.sessionId)).toEqual(["previous-run-idle", "previous-run-leased"]);
    expect(book.goneFrom(new Set(["live", "previous-run-idle", "previous-run-leased"]), 5_000)).toEqual([]);
  });
});

describe("fair wait queue: who is displaced and who is served", () => {
  const queue = (...accounts: string[]) => accounts.map((accountId, index) => ({ accountId, sequence: index + 1 }));

  it("a full queue of A, A, A, B: a newcomer of C or B takes the place of A's newest waiter, one of A takes nobody's", () => {
    const waiters = queue("A", "A", "A", "B");
    expect(waiterToDisplace(waiters, "C")).toEqual({ accountId: "A", sequence: 3 });
    expect(waiterToDisplace(waiters, "B")).toEqual({ accountId: "A", sequence: 3 });
    expect(waiterToDisplace(waiters, "A")).toBeUndefined();
  });

  it("displacing needs the heaviest account to wait for at least two more than the newcomer's", () => {
    expect(waiterToDisplace(queue("A", "A", "B"), "B")).toBeUndefined();
    expect(waiterToDisplace(queue("A", "A", "B"), "C")).toEqual({ accountId: "A", sequence: 2 });
    // Two accounts as heavy: the first one seen gives up its newest waiter.
    expect(waiterToDisplace(queue("A", "B", "A", "B"), "C")).toEqual({ accountId: "A", sequence: 3 });
  });

  it("a freed session goes to the account holding the fewest sessions, the earliest waiter among equals", () => {
    const waiters = queue("A", "B", "C");
    const held = new Map([
      ["A", 2],
      ["B", 0],
    ]);
    expect(fairestWaiter(waiters, () => true, held)).toEqual({ accountId: "B", sequence: 2 });
    expect(fairestWaiter(waiters, (waiter) => waiter.accountId !== "B", held)).toEqual({ accountId: "C", sequence: 3 });
    expect(fairestWaiter(waiters, () => true, new Map())).toEqual({ accountId: "A", sequence: 1 });
    expect(fairestWaiter(waiters, () => false, held)).toBeUndefined();
  });

  it("a caller may wait its remaining time, never less than nothing", () => {
    expect(waitDeadline(10_000, 25_000)).toBe(35_000);
    expect(waitDeadline(10_000, -5)).toBe(10_000);
  });
});

describe("fair wait queue: answers", () => {
  const NOW = 1_700_000_000_000;
  const WAIT_TIMEOUT: AcquireResult = { ok: false, reason: "wait_timeout", retryAfterSeconds: 5 };
  const QUEUE_FULL: AcquireResult = { ok: false, reason: "queue_full", retryAfterSeconds: 5 };

  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  function ticket(leaseId: string, accountId: string, waitMs = 30_000) {
    return { leaseId, accountId, provider: "chatgpt", domainsKey: CHATGPT, requestedAt: NOW, leaseMs: 95_000, deadline: NOW + waitMs };
  }

  it("a full queue refuses the heaviest account's newest waiter (queue_full) to let a lighter account in", async () => {
    const waiters = new WaiterQueue();
    const first = waiters.enqueue(ticket("a1", "A"));
    const second = waiters.enqueue(ticket("a2", "A"));
    expect(waiters.makeRoom("A", 2)).toBe("full");
    expect(waiters.makeRoom("B", 2)).toBe("displaced");
    await expect(second).resolves.toEqual(QUEUE_FULL);
    expect(waiters.length).toBe(1);
    expect(waiters.makeRoom("B", 2)).toBe("room");
    void waiters.enqueue(ticket("b1", "B"));
    expect(waiters.countByAccount()).toEqual({ A: 1, B: 1 });
    // Served in order of arrival when no account holds a session.
    const served = waiters.takeNext(() => true, new Map(), NOW);
    expect(served?.leaseId).toBe("a1");
    expect(waiters.takeNext(() => true, new Map(), NOW)?.leaseId).toBe("b1");
    expect(waiters.length).toBe(0);
    // A taken waiter is the pool's to answer: its deadline passing no longer answers it wait_timeout.
    vi.advanceTimersByTime(60_000);
    const lease: AcquireResult = { ok: true, sessionId: "s1", reused: true, preparedPagesSince: 0 };
    served?.resolve(lease);
    await expect(first).resolves.toEqual(lease);
  });

  it("a waiter whose caller gave up leaves the queue, answered wait_timeout; an unknown lease is not waiting", async () => {
    const waiters = new WaiterQueue();
    const waiting = waiters.enqueue(ticket("a1", "A"));
    expect(waiters.withdraw("other")).toBe(false);
    expect(waiters.withdraw("a1")).toBe(true);
    await expect(waiting).resolves.toEqual(WAIT_TIMEOUT);
    expect(waiters.length).toBe(0);
  });

  it("a waiter is answered wait_timeout at its deadline", async () => {
    const waiters = new WaiterQueue();
    const waiting = waiters.enqueue(ticket("a1", "A", 10_000));
    vi.advanceTimersByTime(10_000);
    await expect(waiting).resolves.toEqual(WAIT_TIMEOUT);
    expect(waiters.length).toBe(0);
  });

  it("a waiter with less than a second left is told so and skipped; the next one is served", async () => {
    const waiters = new WaiterQueue();
    const hurried = waiters.enqueue(ticket("a1", "A", 1_500));
    waiters.enqueue(ticket("b1", "B", 30_000));
    const served = waiters.takeNext(() => true, new Map(), NOW + 600);
    expect(served?.leaseId).toBe("b1");
    await expect(hurried).resolves.toEqual(WAIT_TIMEOUT);
    expect(waiters.length).toBe(0);
  });

  it("a waiter put back keeps its place in the order", () => {
    const waiters = new WaiterQueue();
    waiters.enqueue(ticket("a1", "A"));
    waiters.enqueue(ticket("b1", "B"));
    const first = waiters.takeNext(() => true, new Map(), NOW);
    expect(first?.leaseId).toBe("a1");
    if (first === undefined) return;
    waiters.wait(first, first.resolve);
    expect(waiters.takeNext(() => true, new Map(), NOW)?.leaseId).toBe("a1");
    expect(waiters.some((waiter) => waiter.leaseId === "b1")).toBe(true);
  });
});

describe("launch window", () => {
  it("two launches a minute: the third waits until the first leaves the window", () => {
    const rate = new LaunchRate();
    rate.record(0);
    rate.record(10_000);
    expect(rate.hasRoom(2, 30_000)).toBe(false);
    expect(rate.secondsUntilRoom(30_000)).toBe(30);
    // The launch at 0 leaves the window at 60 000 exactly.
    expect(rate.hasRoom(2, 60_000)).toBe(true);
    expect(rate.recorded()).toEqual([10_000]);
  });

  it("at least a second to wait, a minute when nothing is recorded; a refused launch does not count", () => {
    const rate = new LaunchRate([5_000]);
    expect(rate.secondsUntilRoom(64_900)).toBe(1);
    // The oldest launch leaves the window at this very moment: still a second, never zero.
    expect(rate.secondsUntilRoom(65_000)).toBe(1);
    expect(new LaunchRate().secondsUntilRoom(0)).toBe(60);
    expect(new LaunchRate().hasRoom(0, 0)).toBe(false);
    rate.record(7_000);
    rate.forgetLatest();
    expect(rate.recorded()).toEqual([5_000]);
  });
});

describe("operator view", () => {
  it("shows sessions, owners, lease ends, the queue per account and the counters", () => {
    const book = new LeaseBook();
    const launchedAt = Date.UTC(2026, 2, 1, 9, 0, 0);
    book.lease(book.add("s1", "chatgpt", CHATGPT, launchedAt), "lease-1", "acct-a", Date.UTC(2026, 2, 1, 9, 1, 35));
    book.lease(book.add("s2", "chatgpt", CHATGPT, launchedAt), "lease-2", "", Date.UTC(2026, 2, 1, 9, 2, 0));
    book.add("s3", "gemini", GEMINI, launchedAt);
    const view = poolStatsView({
      country: "IS",
      limits: { size: 2, maxSessions: 8, queueLimit: 16 },
      sessions: book.all(),
      queueByAccount: { "acct-a": 2, "acct-b": 1 },
      counters: { ...restoreCounters({ launches: 3, reuses: 4 }), displaced: 1, gone: 2 },
    });
    expect(view).toEqual({
      country: "IS",
      size_limit: 2,
      max_sessions: 8,
      queue_limit: 16,
      sessions: [
        {
          session_id: "s1",
          provider: "chatgpt",
          busy: true,
          domains: ["chatgpt.com", "openai.com"],
          launched_at: "2026-03-01T09:00:00.000+00:00",
          uses: 1,
          account_id: "acct-a",
          lease_expires_at: "2026-03-01T09:01:35.000+00:00",
        },
        {
          session_id: "s2",
          provider: "chatgpt",
          busy: true,
          domains: ["chatgpt.com", "openai.com"],
          launched_at: "2026-03-01T09:00:00.000+00:00",
          uses: 1,
          account_id: null,
          lease_expires_at: "2026-03-01T09:02:00.000+00:00",
        },
        {
          session_id: "s3",
          provider: "gemini",
          busy: false,
          domains: ["gemini.google.com"],
          launched_at: "2026-03-01T09:00:00.000+00:00",
          uses: 0,
          account_id: null,
          lease_expires_at: null,
        },
      ],
      busy: 2,
      idle: 1,
      queue_length: 3,
      queue_by_account: { "acct-a": 2, "acct-b": 1 },
      launches: 3,
      reuses: 4,
      failures: 0,
      discarded: 0,
      reclaimed: 0,
      gone: 2,
      rejected_queue_full: 0,
      displaced: 1,
      rejected_warming_up: 0,
      rejected_at_capacity: 0,
    });
  });
});
