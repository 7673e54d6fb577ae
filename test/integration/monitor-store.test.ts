/**
 * Monitors in D1 (src/monitors/monitor-store.ts; issue 33, not served yet): one account's monitors only, the next run
 * from the schedule in UTC, pause and resume, what the cron finds due, and one cron moving a due run on.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  advanceMonitor,
  createMonitor,
  deleteMonitor,
  dueMonitors,
  getMonitor,
  listMonitors,
  setMonitorPaused,
  updateMonitor,
} from "../../src/monitors/monitor-store";
import type { MonitorDefinition } from "../../src/monitors/monitor-types";
import { createTestAccount } from "../support/workers/helpers";

function definition(schedule: MonitorDefinition["schedule"], name = "Running shoes"): MonitorDefinition {
  return {
    name,
    prompts: ["best running shoes"],
    targets: [{ scraper: "grok", params: { mode: "MODEL_MODE_FAST" } }],
    countries: ["US"],
    schedule,
    brands: [{ name: "Nike", aliases: [], domains: ["nike.com"] }],
    evidence: [],
    webhookUrl: null,
  };
}

const DAILY_AT_SIX = { kind: "cron", expression: "0 6 * * *" } as const;

describe("the monitor store", () => {
  it("creates a monitor with its next run from the schedule, and reads it back for its own account only", async () => {
    const account = await createTestAccount();
    const other = await createTestAccount();
    const created = await createMonitor(
      env.DB,
      { accountId: account.accountId, keyId: account.keyId, definition: definition(DAILY_AT_SIX) },
      new Date("2026-11-28T03:00:00Z"),
    );
    expect(created.id).toMatch(/^mon_[A-Za-z0-9_-]{16}$/);
    expect(created.nextRunAt).toBe("2026-11-28T06:00:00.000+00:00");
    expect(await getMonitor(env.DB, account.accountId, created.id)).toEqual(created);
    expect(await getMonitor(env.DB, other.accountId, created.id)).toBeNull();
    expect(await deleteMonitor(env.DB, other.accountId, created.id)).toBe(false);

    const hourly = await createMonitor(
      env.DB,
      { accountId: account.accountId, keyId: null, definition: definition({ kind: "every_hours", hours: 6 }) },
      new Date("2026-11-28T03:10:00Z"),
    );
    expect(hourly.nextRunAt).toBe("2026-11-28T09:10:00.000+00:00");
  });

  it("lists an account's monitors newest first, a page at a time", async () => {
    const account = await createTestAccount();
    const made = [];
    for (const [index, minute] of ["00", "01", "02"].entries()) {
      made.push(
        await createMonitor(
          env.DB,
          { accountId: account.accountId, keyId: null, definition: definition(DAILY_AT_SIX, `Monitor ${index}`) },
          new Date(`2026-11-28T03:${minute}:00Z`),
        ),
      );
    }
    const first = await listMonitors(env.DB, account.accountId, { limit: 2 });
    expect(first.map((monitor) => monitor.definition.name)).toEqual(["Monitor 2", "Monitor 1"]);
    const last = first.at(-1);
    if (last === undefined) throw new Error("no page");
    const second = await listMonitors(env.DB, account.accountId, { limit: 2, before: { createdAt: last.createdAt, id: last.id } });
    expect(second.map((monitor) => monitor.definition.name)).toEqual(["Monitor 0"]);
  });

  it("pauses (no next run, never due) and resumes (the next run after now); an update takes the new schedule", async () => {
    const account = await createTestAccount();
    const monitor = await createMonitor(
      env.DB,
      { accountId: account.accountId, keyId: null, definition: definition(DAILY_AT_SIX) },
      new Date("2026-11-28T03:00:00Z"),
    );
    const paused = await setMonitorPaused(env.DB, account.accountId, monitor.id, true, new Date("2026-11-28T04:00:00Z"));
    expect([paused?.paused, paused?.nextRunAt]).toEqual([true, null]);
    const dueWhilePaused = await dueMonitors(env.DB, new Date("2026-12-05T00:00:00Z"), 1000);
    expect(dueWhilePaused.map((due) => due.id)).not.toContain(monitor.id);
    const resumed = await setMonitorPaused(env.DB, account.accountId, monitor.id, false, new Date("2026-11-30T07:00:00Z"));
    expect([resumed?.paused, resumed?.nextRunAt]).toEqual([false, "2026-12-01T06:00:00.000+00:00"]);
    const updated = await updateMonitor(
      env.DB,
      account.accountId,
      monitor.id,
      definition({ kind: "cron", expression: "0 9 * * 1-5" }),
      new Date("2026-12-04T10:00:00Z"),
    );
    // Friday 10:00: the next weekday at 09:00 is Monday
    expect(updated?.nextRunAt).toBe("2026-12-07T09:00:00.000+00:00");
    expect((await getMonitor(env.DB, account.accountId, monitor.id))?.definition.schedule).toEqual({
      kind: "cron",
      expression: "0 9 * * 1-5",
    });
  });

  it("finds due monitors, and only one of two crons that saw a run due moves it on", async () => {
    const account = await createTestAccount();
    const monitor = await createMonitor(
      env.DB,
      { accountId: account.accountId, keyId: null, definition: definition(DAILY_AT_SIX) },
      new Date("2026-11-28T03:00:00Z"),
    );
    expect((await dueMonitors(env.DB, new Date("2026-11-28T05:59:59Z"), 1000)).map((due) => due.id)).not.toContain(monitor.id);
    const due = (await dueMonitors(env.DB, new Date("2026-11-28T06:00:30Z"), 1000)).find((candidate) => candidate.id === monitor.id);
    expect(due).toEqual({ id: monitor.id, accountId: account.accountId, dueAt: "2026-11-28T06:00:00.000+00:00" });
    const at = new Date("2026-11-28T06:00:30Z");
    expect(await advanceMonitor(env.DB, monitor.id, due?.dueAt ?? "", at)).toBe(true);
    expect(await advanceMonitor(env.DB, monitor.id, due?.dueAt ?? "", at)).toBe(false);
    expect((await getMonitor(env.DB, account.accountId, monitor.id))?.nextRunAt).toBe("2026-11-29T06:00:00.000+00:00");
    expect(await deleteMonitor(env.DB, account.accountId, monitor.id)).toBe(true);
    expect(await getMonitor(env.DB, account.accountId, monitor.id)).toBeNull();
  });
});
