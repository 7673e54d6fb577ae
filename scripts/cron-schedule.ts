/**
 * The Cron Triggers of wrangler.toml as the local launcher runs them (`wrangler dev` does not fire them by itself):
 * reading `[triggers] crons`, deciding whether an expression is due in a given minute, and saying how often it runs.
 * Standard five fields in UTC (as Cloudflare runs them): `*`, numbers, ranges `a-b`, steps `*\/n` and `a-b/n`, lists.
 * Names (`MON`, `JAN`) and Cloudflare's extensions (`L`, `W`, `#`) are not understood: such an expression is reported
 * as unsupported and left to the manual trigger.
 */

/** The `crons` of the `[triggers]` table, or none when the file has no such table. */
export function cronsOf(wranglerToml: string): string[] {
  const table = /^\[triggers\][^\n]*\n([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(wranglerToml)?.[1] ?? "";
  const list = /^\s*crons\s*=\s*\[([^\]]*)\]/m.exec(table)?.[1] ?? "";
  return [...list.matchAll(/"([^"]*)"|'([^']*)'/g)].map((match) => match[1] ?? match[2] ?? "");
}

/** Each field's allowed range: minute, hour, day of month, month, day of week (0 and 7 are Sunday). */
const FIELD_RANGES: readonly [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

/** The values one field allows, or null when it is not a form this reader understands. */
function fieldValues(field: string, [min, max]: [number, number]): Set<number> | null {
  const values = new Set<number>();
  for (const part of field.split(",")) {
    const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (match === null) return null;
    const [, whole, from, to, step] = match;
    const start = whole === "*" ? min : Number(from);
    const end = whole === "*" ? max : to === undefined ? (step === undefined ? start : max) : Number(to);
    const stride = step === undefined ? 1 : Number(step);
    if (start < min || end > max || start > end || stride < 1) return null;
    for (let value = start; value <= end; value += stride) values.add(value);
  }
  return values;
}

export interface CronSchedule {
  expression: string;
  /** Whether the expression is due in the minute that contains `date` (UTC). */
  dueAt(date: Date): boolean;
}

/** The schedule of one expression, or null when it is not one this reader understands. */
export function cronSchedule(expression: string): CronSchedule | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== FIELD_RANGES.length) return null;
  const sets = fields.map((field, index) => fieldValues(field, FIELD_RANGES[index] ?? [0, 0]));
  const [minutes, hours, days, months, weekdays] = sets;
  if (minutes == null || hours == null || days == null || months == null || weekdays == null) return null;
  const dayRestricted = fields[2] !== "*";
  const weekdayRestricted = fields[4] !== "*";
  return {
    expression,
    dueAt(date: Date): boolean {
      const weekday = date.getUTCDay();
      const dayOfMonth = days.has(date.getUTCDate());
      const dayOfWeek = weekdays.has(weekday) || (weekday === 0 && weekdays.has(7));
      // As in cron: when both day fields are restricted, either one matching is enough.
      const day = dayRestricted && weekdayRestricted ? dayOfMonth || dayOfWeek : dayOfMonth && dayOfWeek;
      return minutes.has(date.getUTCMinutes()) && hours.has(date.getUTCHours()) && months.has(date.getUTCMonth() + 1) && day;
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
