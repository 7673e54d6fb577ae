/**
 * The status page is public, so reading it must stay cheap whoever calls it how often. Two levels:
 * - D1 keeps the computed document (`status_snapshot`, one row), shared by every isolate: it is recomputed only when
 *   older than STATUS_MAX_AGE_MS, and after every canary round (so a round's result shows at once);
 * - each isolate keeps the document it last read or computed for ISOLATE_COPY_MAX_AGE_MS, and concurrent readers that
 *   find no fresh copy share one read-or-recompute (single flight).
 * So anonymous callers cause at most one recomputation per STATUS_MAX_AGE_MS per isolate, and at most one D1 read per
 * ISOLATE_COPY_MAX_AGE_MS per isolate, however many requests they send.
 */
import { computeServiceStatus } from "./status-figures";
import { type ServiceStatus, ServiceStatusSchema } from "./status-schema";
import { parseJsonOrUndefined } from "../util/json-record";

/** How stale the public figures may be; also the page's `Cache-Control: max-age`. */
export const STATUS_MAX_AGE_MS = 30_000;
/**
 * How long an isolate serves its own copy without looking at D1: short, so a canary round refreshed on another isolate
 * shows everywhere within seconds.
 */
const ISOLATE_COPY_MAX_AGE_MS = 5_000;

/** This isolate's copy: the document, when it was computed, and when this isolate obtained it. */
let isolateCopy: { status: ServiceStatus; computedAt: number; obtainedAt: number } | null = null;
/** The read-or-recompute in progress on this isolate, which every concurrent reader awaits. */
let inFlight: Promise<ServiceStatus> | null = null;
/** Recomputations this isolate ran (an observable for the tests of the single flight, and for logs). */
let recomputations = 0;

export function statusRecomputationsInIsolate(): number {
  return recomputations;
}

/** Forgets this isolate's copy, so the next reader goes to D1 (tests: to observe a read from a cold isolate). */
export function forgetIsolateStatusCopy(): void {
  isolateCopy = null;
}

/** Computes the status now and stores it as the snapshot. */
export async function refreshStatusSnapshot(db: D1Database, now = Date.now()): Promise<ServiceStatus> {
  recomputations += 1;
  const status = await computeServiceStatus(db, now);
  await db
    .prepare(
      "INSERT INTO status_snapshot (id, body, computed_at) VALUES (1, ?1, ?2) " +
        "ON CONFLICT (id) DO UPDATE SET body = excluded.body, computed_at = excluded.computed_at WHERE excluded.computed_at >= status_snapshot.computed_at",
    )
    .bind(JSON.stringify(status), now)
    .run();
  isolateCopy = { status, computedAt: now, obtainedAt: now };
  return status;
}

/** The status at most STATUS_MAX_AGE_MS old: this isolate's copy, the stored snapshot, or a newly computed one. */
export function currentServiceStatus(db: D1Database, now = Date.now()): Promise<ServiceStatus> {
  if (
    isolateCopy !== null &&
    isFresh(isolateCopy.obtainedAt, ISOLATE_COPY_MAX_AGE_MS, now) &&
    isFresh(isolateCopy.computedAt, STATUS_MAX_AGE_MS, now)
  ) {
    return Promise.resolve(isolateCopy.status);
  }
  if (inFlight === null) {
    inFlight = storedOrRecomputed(db, now).finally(() => {
      inFlight = null;
    });
  }
  return inFlight;
}

async function storedOrRecomputed(db: D1Database, now: number): Promise<ServiceStatus> {
  const row = await db.prepare("SELECT body, computed_at FROM status_snapshot WHERE id = 1").first<{ body: string; computed_at: number }>();
  if (row !== null && isFresh(row.computed_at, STATUS_MAX_AGE_MS, now)) {
    const stored = ServiceStatusSchema.safeParse(parseJsonOrUndefined(row.body));
    // A snapshot written by an older version of this code is simply recomputed.
    if (stored.success) {
      isolateCopy = { status: stored.data, computedAt: row.computed_at, obtainedAt: now };
      return stored.data;
    }
  }
  return refreshStatusSnapshot(db, now);
}

/** Whether something of time `at` is younger than `maxAgeMs` at `now` (a time in the future is not trusted). */
function isFresh(at: number, maxAgeMs: number, now: number): boolean {
  return at <= now && now - at < maxAgeMs;
}
