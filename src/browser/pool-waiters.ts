/**
 * The fair wait queue of a country's pool (browser-pool.ts): scrapes waiting for a session of their provider.
 *
 * The queue is bounded; when it is full, an account with fewer waiting scrapes takes the place of the newest waiter of
 * the account with the most (`waiterToDisplace`), so a burst from one account cannot lock every other account out of
 * the country. A freed session goes to the waiter whose account holds the fewest sessions, the earliest among equals
 * (`fairestWaiter`). Each waiter is answered once: with a lease by the pool, or with `queue_full` / `wait_timeout` here.
 * The choice of who is displaced and who is served next are plain functions, testable without the Workers runtime.
 */
import type { AcquireResult } from "./pool-types";

export interface WaiterTicket {
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

export type WaitAnswer = (result: AcquireResult) => void;

/** A ticket and the answer its caller waits for. */
export interface QueuedWaiter extends WaiterTicket {
  resolve: WaitAnswer;
}

interface Waiter extends QueuedWaiter {
  timer: ReturnType<typeof setTimeout>;
}

/** A waiter with less time left than this could not use a session: it is skipped (and told so) instead. */
export const MIN_USEFUL_WAIT_MS = 1_000;
const WAIT_TIMEOUT: AcquireResult = { ok: false, reason: "wait_timeout", retryAfterSeconds: 5 };
const QUEUE_FULL: AcquireResult = { ok: false, reason: "queue_full", retryAfterSeconds: 5 };

/** When a caller that asked at `requestedAt` and can wait `waitMs` stops waiting. */
export function waitDeadline(requestedAt: number, waitMs: number): number {
  return requestedAt + Math.max(0, waitMs);
}

/**
 * The newest waiter of the account with the most waiters, if that account has at least two more than `accountId`
 * (so that taking its place makes the queue fairer, not merely different).
 */
export function waiterToDisplace<T extends Pick<WaiterTicket, "accountId">>(waiters: readonly T[], accountId: string): T | undefined {
  const counts = new Map<string, number>();
  for (const waiter of waiters) counts.set(waiter.accountId, (counts.get(waiter.accountId) ?? 0) + 1);
  let heaviest: string | undefined;
  for (const [account, count] of counts) if (heaviest === undefined || count > (counts.get(heaviest) ?? 0)) heaviest = account;
  if (heaviest === undefined || heaviest === accountId) return undefined;
  if ((counts.get(heaviest) ?? 0) < (counts.get(accountId) ?? 0) + 2) return undefined;
  return waiters.findLast((waiter) => waiter.accountId === heaviest);
}

/** Among the `eligible` waiters, the one whose account holds the fewest busy sessions (`held`), the earliest among equals. */
export function fairestWaiter<T extends Pick<WaiterTicket, "accountId" | "sequence">>(
  waiters: readonly T[],
  eligible: (waiter: T) => boolean,
  held: ReadonlyMap<string, number>,
): T | undefined {
  let best: T | undefined;
  for (const waiter of waiters) {
    if (!eligible(waiter)) continue;
    if (best === undefined) {
      best = waiter;
      continue;
    }
    const load = held.get(waiter.accountId) ?? 0;
    const bestLoad = held.get(best.accountId) ?? 0;
    if (load < bestLoad || (load === bestLoad && waiter.sequence < best.sequence)) best = waiter;
  }
  return best;
}

export class WaiterQueue {
  private readonly waiters: Waiter[] = [];
  private sequence = 0;

  get length(): number {
    return this.waiters.length;
  }

  /**
   * Before a new waiter of `accountId` joins: `room` when the queue has space, `displaced` when a waiter of a heavier
   * account gave up its place (it is answered `queue_full`), `full` when the newcomer is the one to refuse.
   */
  makeRoom(accountId: string, queueLimit: number): "room" | "displaced" | "full" {
    if (this.waiters.length < queueLimit) return "room";
    const displaced = waiterToDisplace(this.waiters, accountId);
    if (displaced === undefined) return "full";
    this.remove(displaced);
    displaced.resolve(QUEUE_FULL);
    return "displaced";
  }

  /** Joins the end of the queue; answered when the pool serves it or its deadline passes. */
  enqueue(ticket: Omit<WaiterTicket, "sequence">): Promise<AcquireResult> {
    this.sequence += 1;
    const numbered: WaiterTicket = { ...ticket, sequence: this.sequence };
    return new Promise<AcquireResult>((resolve) => this.wait(numbered, resolve));
  }

  /** Puts a ticket in the queue until its deadline (it keeps its place in the order: `sequence`). */
  wait(ticket: WaiterTicket, resolve: WaitAnswer): void {
    const waiter: Waiter = {
      ...ticket,
      resolve,
      timer: setTimeout(
        () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          resolve(WAIT_TIMEOUT);
        },
        Math.max(0, ticket.deadline - Date.now()),
      ),
    };
    this.waiters.push(waiter);
  }

  /** The caller of `leaseId` stopped waiting: it leaves the queue, answered `wait_timeout`. False if it was not waiting. */
  withdraw(leaseId: string): boolean {
    const waiter = this.waiters.find((candidate) => candidate.leaseId === leaseId);
    if (waiter === undefined) return false;
    this.remove(waiter);
    waiter.resolve(WAIT_TIMEOUT);
    return true;
  }

  /**
   * Removes and returns the waiter to serve next among those `eligible` (`fairestWaiter`, given the busy sessions each
   * account `held`). Waiters with too little time left at `now` are answered `wait_timeout` and dropped first.
   */
  takeNext(eligible: (waiter: WaiterTicket) => boolean, held: ReadonlyMap<string, number>, now: number): QueuedWaiter | undefined {
    for (const waiter of [...this.waiters]) {
      if (waiter.deadline - now < MIN_USEFUL_WAIT_MS) {
        this.remove(waiter);
        waiter.resolve(WAIT_TIMEOUT);
      }
    }
    const best = fairestWaiter(this.waiters, eligible, held);
    if (best !== undefined) this.remove(best);
    return best;
  }

  some(predicate: (waiter: WaiterTicket) => boolean): boolean {
    return this.waiters.some(predicate);
  }

  /** Waiting scrapes per account (the operator view). */
  countByAccount(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const waiter of this.waiters) counts[waiter.accountId] = (counts[waiter.accountId] ?? 0) + 1;
    return counts;
  }

  private remove(waiter: Waiter): void {
    this.waiters.splice(this.waiters.indexOf(waiter), 1);
    clearTimeout(waiter.timer);
  }
}
