/**
 * When a monitor runs (docs/monitors.md, "Schedules"): `{"cron": "0 6 * * *"}`, a five-field cron expression in UTC as
 * Cloudflare's Cron Triggers take it, or `{"every_hours": 6}`, every N whole hours from the monitor's creation. Read
 * strictly (a 400 naming `schedule…` for anything else), refused when it would run more often than once an hour, and
 * turned into the next run's instant. Cron expressions are read by cron-parser, in UTC, as scripts/cron-schedule.ts does.
 */
import { CronExpressionParser } from "cron-parser";
import { InvalidParameterError } from "../errors";
import { isRecord } from "../util/json-record";
import type { MonitorSchedule } from "./monitor-types";

/** The most often a monitor may run: once an hour. */
export const MONITOR_MIN_INTERVAL_MINUTES = 60;
export const MIN_EVERY_HOURS = 1;
/** A week: a monitor that should run less often than that is written as a cron expression. */
export const MAX_EVERY_HOURS = 168;

const SCHEDULE_FIELDS = ["cron", "every_hours"] as const;
const CRON_FIELDS = 5;
const CRON_FIELD_NAMES = "minute hour day-of-month month day-of-week";
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/**
 * Where the minimum-interval check starts looking (a Monday, midnight UTC). Fixed, so the same expression gets the same
 * verdict whenever it is sent.
 */
const INTERVAL_CHECK_REFERENCE = new Date("2026-01-05T00:00:00Z");
/** How far the check looks from the expression's first run: a whole week and the day boundaries on both sides of it. */
const INTERVAL_CHECK_WINDOW_MS = 8 * 24 * HOUR_MS;
/**
 * The most runs the check reads. Runs at least an hour apart fill 8 days with at most 8 × 24 + 1 of them, so an
 * expression that reaches one more within the window has a gap under an hour among them: the check stops there.
 */
const INTERVAL_CHECK_MAX_RUNS = INTERVAL_CHECK_WINDOW_MS / (MONITOR_MIN_INTERVAL_MINUTES * MINUTE_MS) + 2;

const SHAPE = 'schedule: must be {"cron": "<five-field expression, UTC>"} or {"every_hours": <1 to 168>}';

/** The `schedule` field of a monitor's body, validated. */
export function parseMonitorSchedule(value: unknown): MonitorSchedule {
  if (value === undefined) throw new InvalidParameterError("schedule: is required");
  if (!isRecord(value)) throw new InvalidParameterError(SHAPE);
  const unknown = Object.keys(value).filter((name) => !SCHEDULE_FIELDS.some((field) => field === name));
  if (unknown.length > 0) {
    throw new InvalidParameterError(
      `schedule: ${unknown.length === 1 ? "Unknown field" : "Unknown fields"}: ${unknown.join(", ")}. A schedule accepts: ${SCHEDULE_FIELDS.join(" or ")}.`,
    );
  }
  if (value.cron !== undefined && value.every_hours !== undefined) {
    throw new InvalidParameterError("schedule: give either cron or every_hours, not both");
  }
  if (value.cron !== undefined) return { kind: "cron", expression: parseCronExpression(value.cron) };
  if (value.every_hours !== undefined) return { kind: "every_hours", hours: parseEveryHours(value.every_hours) };
  throw new InvalidParameterError(SHAPE);
}

/** A schedule as a body carries it (for an update, whose result is validated again as a whole). */
export function scheduleToBody(schedule: MonitorSchedule): { cron: string } | { every_hours: number } {
  return schedule.kind === "cron" ? { cron: schedule.expression } : { every_hours: schedule.hours };
}

function parseEveryHours(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < MIN_EVERY_HOURS || value > MAX_EVERY_HOURS) {
    throw new InvalidParameterError(`schedule.every_hours: must be a whole number of hours from ${MIN_EVERY_HOURS} to ${MAX_EVERY_HOURS}`);
  }
  return value;
}

/** Quotes what was sent, cut short: a detail never echoes a whole oversized value. */
function quoted(expression: string): string {
  return `"${expression.length > 60 ? `${expression.slice(0, 60)}…` : expression}"`;
}

/** The expression with its fields separated by single spaces, or a 400 saying what is wrong with it. */
function parseCronExpression(value: unknown): string {
  if (typeof value !== "string") {
    throw new InvalidParameterError(
      `schedule.cron: must be a five-field cron expression (${CRON_FIELD_NAMES}) in UTC, such as "0 6 * * *"`,
    );
  }
  const fields = value
    .trim()
    .split(/\s+/)
    .filter((field) => field !== "");
  if (fields.length !== CRON_FIELDS) {
    // cron-parser would also take six fields (seconds first), fewer, or a macro such as @hourly; Cloudflare takes five
    throw new InvalidParameterError(
      `schedule.cron: ${quoted(value)} has ${fields.length} ${fields.length === 1 ? "field" : "fields"}; a schedule takes exactly five (${CRON_FIELD_NAMES}), in UTC, such as "0 6 * * *"`,
    );
  }
  const expression = fields.join(" ");
  // cron-parser's `H` picks a random value per parse (no seed is given), so the runs would move from one reading to the
  // next; Cloudflare does not take it either. THU, the one day or month name with an H, is no hash.
  if (/H/i.test(expression.replace(/THU/gi, ""))) {
    throw new InvalidParameterError(
      `schedule.cron: ${quoted(expression)}: H (a hashed value) is not supported; write the minute and hour out`,
    );
  }
  const gap = smallestGap(expression);
  if (gap.minutes < MONITOR_MIN_INTERVAL_MINUTES) {
    const often = gap.regular ? `runs every ${minutesInWords(gap.minutes)}` : `runs as little as ${minutesInWords(gap.minutes)} apart`;
    throw new InvalidParameterError(`schedule.cron: ${quoted(expression)} ${often}; the minimum is once an hour`);
  }
  return expression;
}

function minutesInWords(minutes: number): string {
  return minutes === 1 ? "minute" : `${minutes} minutes`;
}

/**
 * The smallest gap between consecutive runs, in minutes, over 8 days from the expression's first run after a fixed
 * reference (Infinity when it runs once or not again in that time), and whether the runs keep that one gap throughout.
 *
 * Why 8 days from the first run, not from the reference itself: every day an expression runs, it runs at the same
 * times (its minute × hour fields), so the gaps within a day are all seen on its first day, and the gap across
 * midnight between two days that both run is never under an hour unless a gap within the day is too (hours 23 and 0
 * with one minute value are exactly an hour apart). An expression that runs only in some month is so caught on its
 * first day, wherever the reference is. The look is bounded: at most INTERVAL_CHECK_MAX_RUNS runs.
 */
function smallestGap(expression: string): { minutes: number; regular: boolean } {
  const runs: number[] = [];
  try {
    const cron = CronExpressionParser.parse(expression, { tz: "UTC", currentDate: INTERVAL_CHECK_REFERENCE });
    const first = cron.next().getTime();
    const end = first + INTERVAL_CHECK_WINDOW_MS;
    runs.push(first);
    while (runs.length < INTERVAL_CHECK_MAX_RUNS) {
      const run = cron.next().getTime();
      if (run > end) break;
      runs.push(run);
    }
  } catch (error) {
    throw invalidCron(expression, error);
  }
  const gaps = runs.slice(1).map((run, index) => (run - (runs[index] ?? run)) / MINUTE_MS);
  const smallest = Math.min(...gaps);
  // one gap alone (two runs a year) is no rhythm: "every 30 minutes" would mislead
  return { minutes: smallest, regular: gaps.length > 1 && gaps.every((gap) => gap === smallest) };
}

function invalidCron(expression: string, error: unknown): InvalidParameterError {
  const reason = error instanceof Error ? ` (${error.message})` : "";
  return new InvalidParameterError(`schedule.cron: ${quoted(expression)} is not a valid cron expression${reason}`);
}

/**
 * The first run strictly after `after`: for cron, the expression's next occurrence in UTC; for every_hours, the first
 * `anchor + k × hours` (k = 0, 1, 2…) after it, where the anchor is the monitor's creation.
 */
export function nextRunAt(schedule: MonitorSchedule, after: Date, anchor: Date): Date {
  if (schedule.kind === "cron") {
    return CronExpressionParser.parse(schedule.expression, { tz: "UTC", currentDate: after }).next().toDate();
  }
  const period = schedule.hours * HOUR_MS;
  const since = after.getTime() - anchor.getTime();
  if (since < 0) return new Date(anchor.getTime());
  return new Date(anchor.getTime() + (Math.floor(since / period) + 1) * period);
}
