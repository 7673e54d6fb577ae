/**
 * The Cron Triggers of wrangler.toml as the local launcher runs them (`wrangler dev` does not fire them by itself):
 * reading `[triggers] crons` (smol-toml), deciding whether an expression is due in a given minute (cron-parser, in UTC
 * as Cloudflare runs them), and saying how often it runs. An expression cron-parser refuses is reported as unsupported
 * and left to the manual trigger.
 */
import { CronExpressionParser } from "cron-parser";
import { parse as parseToml } from "smol-toml";

/** The `crons` of the `[triggers]` table, or none when the file has no such table (or it is not a list of strings). */
export function cronsOf(wranglerToml: string): string[] {
  const triggers = parseToml(wranglerToml).triggers;
  if (typeof triggers !== "object" || triggers === null || Array.isArray(triggers) || triggers instanceof Date) return [];
  const crons = Reflect.get(triggers, "crons");
  if (!Array.isArray(crons)) return [];
  return crons.filter((cron): cron is string => typeof cron === "string");
}

export interface CronSchedule {
  expression: string;
  /** Whether the expression is due in the minute that contains `date` (UTC). */
  dueAt(date: Date): boolean;
}

const MINUTE_MS = 60_000;

/** Cloudflare's Cron Triggers take exactly five fields; cron-parser would also take fewer (filling in) or six (seconds). */
const CRON_TRIGGER_FIELDS = 5;

/** The schedule of one expression, or null when it is not five fields cron-parser accepts. */
export function cronSchedule(expression: string): CronSchedule | null {
  if (expression.trim().split(/\s+/).length !== CRON_TRIGGER_FIELDS) return null;
  try {
    CronExpressionParser.parse(expression, { tz: "UTC" });
  } catch {
    return null;
  }
  return {
    expression,
    dueAt(date: Date): boolean {
      const minuteStart = Math.floor(date.getTime() / MINUTE_MS) * MINUTE_MS;
      // the first run strictly after the instant before this minute is this minute exactly when it is due in it
      const next = CronExpressionParser.parse(expression, { tz: "UTC", currentDate: new Date(minuteStart - 1) }).next();
      return next.getTime() === minuteStart;
    },
  };
}

/** How often an expression runs, in words, for the launcher's notice: "every minute", "every 10 minutes", or the expression. */
export function describeCron(expression: string): string {
  const trimmed = expression.trim();
  if (/^\*( \*){4}$/.test(trimmed)) return "every minute";
  const step = /^\*\/(\d+)( \*){4}$/.exec(trimmed)?.[1];
  if (step !== undefined) return Number(step) === 1 ? "every minute" : `every ${Number(step)} minutes`;
  return `on the schedule "${trimmed}"`;
}
