/**
 * Monitors in D1 (migration 0018_monitors.sql; docs/monitors.md, in progress: no route serves them yet). A monitor is
 * its account's: every read and write names the account, so one account can never see or change another's. The
 * definition is stored as validated JSON and read back by its shape only (a rule that changes later, such as a country
 * a scraper stops serving, must not make a stored monitor unreadable: the run reports it instead).
 */
import { z } from "@hono/zod-openapi";
import { randomToken } from "../util/crypto";
import { isoTimestamp } from "../util/time";
import { nextRunAt } from "./monitor-schedule";
import type { MonitorDefinition } from "./monitor-types";

export interface MonitorRecord {
  id: string;
  accountId: string;
  /** The key that created the monitor: its runs are charged for it (null: for no key). */
  keyId: string | null;
  definition: MonitorDefinition;
  paused: boolean;
  /** When the next run starts; null while paused. */
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const StoredDefinitionSchema = z.object({
  name: z.string(),
  prompts: z.array(z.string()),
  targets: z.array(z.object({ scraper: z.string(), params: z.record(z.string(), z.string()) })),
  countries: z.array(z.string()),
  schedule: z.union([
    z.object({ kind: z.literal("cron"), expression: z.string() }),
    z.object({ kind: z.literal("every_hours"), hours: z.number() }),
  ]),
  brands: z.array(z.object({ name: z.string(), aliases: z.array(z.string()), domains: z.array(z.string()) })),
  evidence: z.array(z.enum(["screenshot", "html", "stream"])),
  webhookUrl: z.string().nullable(),
});

interface MonitorRow {
  id: string;
  account_id: string;
  key_id: string | null;
  definition: string;
  paused: number;
  next_run_at: string | null;
  created_at: string;
  updated_at: string;
}

function recordOf(row: MonitorRow): MonitorRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    definition: StoredDefinitionSchema.parse(JSON.parse(row.definition)),
    paused: row.paused === 1,
    nextRunAt: row.next_run_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The next run after `now` for a monitor created at `createdAt` (`every_hours` counts from its creation). */
function nextRunOf(definition: MonitorDefinition, now: Date, createdAt: string): string {
  return isoTimestamp(nextRunAt(definition.schedule, now, new Date(createdAt)));
}

export async function createMonitor(
  db: D1Database,
  monitor: { accountId: string; keyId: string | null; definition: MonitorDefinition },
  now = new Date(),
): Promise<MonitorRecord> {
  const id = `mon_${randomToken(12)}`;
  const createdAt = isoTimestamp(now);
  const row: MonitorRow = {
    id,
    account_id: monitor.accountId,
    key_id: monitor.keyId,
    definition: JSON.stringify(monitor.definition),
    paused: 0,
    next_run_at: nextRunOf(monitor.definition, now, createdAt),
    created_at: createdAt,
    updated_at: createdAt,
  };
  await db
    .prepare(
      `INSERT INTO monitors (id, account_id, key_id, name, definition, paused, next_run_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)`,
    )
    .bind(row.id, row.account_id, row.key_id, monitor.definition.name, row.definition, row.next_run_at, row.created_at, row.updated_at)
    .run();
  return recordOf(row);
}

export async function getMonitor(db: D1Database, accountId: string, id: string): Promise<MonitorRecord | null> {
  const row = await db.prepare("SELECT * FROM monitors WHERE id = ? AND account_id = ?").bind(id, accountId).first<MonitorRow>();
  return row === null ? null : recordOf(row);
}

/** The account's monitors, newest first, `limit` at a time; `before` is the last `createdAt` of the previous page. */
export async function listMonitors(
  db: D1Database,
  accountId: string,
  page: { limit: number; before?: { createdAt: string; id: string } },
): Promise<MonitorRecord[]> {
  const before = page.before;
  const statement =
    before === undefined
      ? db.prepare("SELECT * FROM monitors WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT ?").bind(accountId, page.limit)
      : db
          .prepare(
            `SELECT * FROM monitors WHERE account_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
             ORDER BY created_at DESC, id DESC LIMIT ?`,
          )
          .bind(accountId, before.createdAt, before.createdAt, before.id, page.limit);
  const { results } = await statement.all<MonitorRow>();
  return results.map(recordOf);
}

/** Replaces the definition; a monitor that is not paused gets its next run from the new schedule. Null when unknown. */
export async function updateMonitor(
  db: D1Database,
  accountId: string,
  id: string,
  definition: MonitorDefinition,
  now = new Date(),
): Promise<MonitorRecord | null> {
  const current = await getMonitor(db, accountId, id);
  if (current === null) return null;
  const nextRun = current.paused ? null : nextRunOf(definition, now, current.createdAt);
  const updatedAt = isoTimestamp(now);
  await db
    .prepare("UPDATE monitors SET name = ?, definition = ?, next_run_at = ?, updated_at = ? WHERE id = ? AND account_id = ?")
    .bind(definition.name, JSON.stringify(definition), nextRun, updatedAt, id, accountId)
    .run();
  return { ...current, definition, nextRunAt: nextRun, updatedAt };
}

/** Pauses (no next run) or resumes (the next run after now) a monitor. Null when unknown. */
export async function setMonitorPaused(
  db: D1Database,
  accountId: string,
  id: string,
  paused: boolean,
  now = new Date(),
): Promise<MonitorRecord | null> {
  const current = await getMonitor(db, accountId, id);
  if (current === null) return null;
  if (current.paused === paused) return current;
  const nextRun = paused ? null : nextRunOf(current.definition, now, current.createdAt);
  const updatedAt = isoTimestamp(now);
  await db
    .prepare("UPDATE monitors SET paused = ?, next_run_at = ?, updated_at = ? WHERE id = ? AND account_id = ?")
    .bind(paused ? 1 : 0, nextRun, updatedAt, id, accountId)
    .run();
  return { ...current, paused, nextRunAt: nextRun, updatedAt };
}

/** Deletes a monitor; false when the account has none of that id. */
export async function deleteMonitor(db: D1Database, accountId: string, id: string): Promise<boolean> {
  const { meta } = await db.prepare("DELETE FROM monitors WHERE id = ? AND account_id = ?").bind(id, accountId).run();
  return meta.changes === 1;
}

/** Monitors due at `now` (not paused, next run at or before it), the longest overdue first, `limit` at most. */
export async function dueMonitors(db: D1Database, now: Date, limit: number): Promise<{ id: string; accountId: string; dueAt: string }[]> {
  const { results } = await db
    .prepare(
      `SELECT id, account_id, next_run_at FROM monitors
       WHERE paused = 0 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at LIMIT ?`,
    )
    .bind(isoTimestamp(now), limit)
    .all<{ id: string; account_id: string; next_run_at: string }>();
  return results.map((row) => ({ id: row.id, accountId: row.account_id, dueAt: row.next_run_at }));
}

/**
 * Moves a due monitor's next run on, only if it is still the run the caller saw due (`dueAt`): of two crons that saw
 * the same run due, one moves it; the other's false says the run is not its to start.
 */
export async function advanceMonitor(db: D1Database, id: string, dueAt: string, now = new Date()): Promise<boolean> {
  const row = await db.prepare("SELECT * FROM monitors WHERE id = ?").bind(id).first<MonitorRow>();
  if (row === null || row.paused === 1 || row.next_run_at !== dueAt) return false;
  const record = recordOf(row);
  const { meta } = await db
    .prepare("UPDATE monitors SET next_run_at = ? WHERE id = ? AND paused = 0 AND next_run_at = ?")
    .bind(nextRunOf(record.definition, now, record.createdAt), id, dueAt)
    .run();
  return meta.changes === 1;
}
