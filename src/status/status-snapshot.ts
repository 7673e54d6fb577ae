/**
 * The status page is public, so reading it must stay cheap whoever calls it how often: the computed document is kept
 * in D1 (`status_snapshot`, one row) and recomputed only when it is older than STATUS_MAX_AGE_MS, and after every
 * canary round (so a round's result shows at once).
 */
import { computeServiceStatus } from "./status-figures";
import { type ServiceStatus, ServiceStatusSchema } from "./status-schema";

/** How stale the public figures may be; also the page's `Cache-Control: max-age`. */
export const STATUS_MAX_AGE_MS = 30_000;

/** Computes the status now and stores it as the snapshot. */
export async function refreshStatusSnapshot(db: D1Database, now = Date.now()): Promise<ServiceStatus> {
  const status = await computeServiceStatus(db, now);
  await db
    .prepare(
      "INSERT INTO status_snapshot (id, body, computed_at) VALUES (1, ?1, ?2) " +
        "ON CONFLICT (id) DO UPDATE SET body = excluded.body, computed_at = excluded.computed_at WHERE excluded.computed_at >= status_snapshot.computed_at",
    )
    .bind(JSON.stringify(status), now)
    .run();
  return status;
}

/** The snapshot when it is fresh enough, else a newly computed one. */
export async function currentServiceStatus(db: D1Database, now = Date.now()): Promise<ServiceStatus> {
  const row = await db.prepare("SELECT body, computed_at FROM status_snapshot WHERE id = 1").first<{ body: string; computed_at: number }>();
  if (row !== null && now - row.computed_at < STATUS_MAX_AGE_MS && row.computed_at <= now) {
    const stored = ServiceStatusSchema.safeParse(parseJson(row.body));
    // A snapshot written by an older version of this code is simply recomputed.
    if (stored.success) return stored.data;
  }
  return refreshStatusSnapshot(db, now);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
