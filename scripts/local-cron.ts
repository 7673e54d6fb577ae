/**
 * The Cron Triggers of wrangler.toml, fired by the `npm start` launcher: `wrangler dev` never fires them by itself, so
 * without this the canaries would never run locally and the status page would stay empty. Each expression is
 * triggered through miniflare's `/cdn-cgi/local/scheduled?cron=…` (the route the docs' manual `curl` uses, present
 * without any flag) in every minute it is due (scripts/cron-schedule.ts), and all of them once shortly after start so
 * the status page fills without waiting up to ten minutes. A trigger whose previous run has not finished is skipped,
 * so a slow canary round never piles up.
 */
import { cronSchedule, type CronSchedule, describeCron } from "./cron-schedule";
import { LOCAL_SCHEDULED_PATH } from "./dev-output";

export interface LocalCronPlan {
  schedules: CronSchedule[];
  /** Expressions this reader does not understand: left to the manual trigger. */
  unsupported: string[];
}

export function planLocalCron(crons: readonly string[]): LocalCronPlan {
  const schedules: CronSchedule[] = [];
  const unsupported: string[] = [];
  for (const expression of crons) {
    const schedule = cronSchedule(expression);
    if (schedule === null) unsupported.push(expression);
    else schedules.push(schedule);
  }
  return { schedules, unsupported };
}

/** The one line that replaces wrangler's warning that scheduled Workers are not triggered locally. */
export function localCronNotice(plan: LocalCronPlan, firstRoundAfterSeconds: number, manualUrl: string): string {
  const runs = plan.schedules.map((schedule) => `"${schedule.expression}" ${describeCron(schedule.expression)}`);
  const parts: string[] = [];
  if (runs.length > 0) {
    parts.push(`Cron Triggers: the launcher runs ${runs.join(", ")} (first round ${firstRoundAfterSeconds} s after start)`);
  }
  if (plan.unsupported.length > 0) {
    const expressions = plan.unsupported.map((expression) => `"${expression}"`).join(", ");
    parts.push(`not run locally: ${expressions} (trigger with curl "${manualUrl}?cron=<expression>")`);
  }
  return parts.length === 0 ? "Cron Triggers: none in wrangler.toml." : `${parts.join("; ")}.`;
}

export interface LocalCronOptions {
  base: string;
  plan: LocalCronPlan;
  firstRoundAfterMs: number;
  /** Prints every trigger and its outcome, not only failures. */
  verbose: boolean;
}

/** Starts firing the crons; the returned function stops it (pending triggers are aborted). */
export function startLocalCron({ base, plan, firstRoundAfterMs, verbose }: LocalCronOptions): () => void {
  const inFlight = new Set<string>();
  const stopped = new AbortController();
  const timers = new Set<ReturnType<typeof setTimeout>>();

  const trigger = async (expression: string): Promise<void> => {
    if (inFlight.has(expression) || stopped.signal.aborted) return;
    inFlight.add(expression);
    const startedAt = Date.now();
    try {
      const response = await fetch(`${base}${LOCAL_SCHEDULED_PATH}?cron=${encodeURIComponent(expression)}`, { signal: stopped.signal });
      const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
      if (!response.ok) console.warn(`Cron "${expression}" failed: HTTP ${response.status} after ${seconds} s`);
      else if (verbose) console.log(`Cron "${expression}" ran in ${seconds} s`);
    } catch (error) {
      if (!stopped.signal.aborted) console.warn(`Cron "${expression}" could not be triggered: ${String(error)}`);
    } finally {
      inFlight.delete(expression);
    }
  };

  const later = (ms: number, run: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    timers.add(timer);
  };

  /** Milliseconds to a second into the next minute. */
  const toNextMinute = (): number => 60_000 - (Date.now() % 60_000) + 1_000;
  /** A second into each minute, the expressions due in it. */
  const everyMinute = (): void => {
    const now = new Date();
    for (const schedule of plan.schedules) if (schedule.dueAt(now)) void trigger(schedule.expression);
    later(toNextMinute(), everyMinute);
  };

  later(firstRoundAfterMs, () => {
    for (const schedule of plan.schedules) void trigger(schedule.expression);
  });
  later(toNextMinute(), everyMinute);

  return () => {
    stopped.abort();
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
}
