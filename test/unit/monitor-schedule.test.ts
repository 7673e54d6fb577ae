/**
 * A monitor's schedule (src/monitors/monitor-schedule.ts): a five-field cron expression in UTC or every N whole hours,
 * never more often than once an hour, and the instant of the next run. Expected details and instants are written out by
 * hand from the rules in docs/monitors.md ("Schedules") and a calendar (2026-03-06 is a Friday).
 */
import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "../../src/errors";
import { MONITOR_MIN_INTERVAL_MINUTES, nextRunAt, parseMonitorSchedule } from "../../src/monitors/monitor-schedule";

const FIELDS = 'a schedule takes exactly five (minute hour day-of-month month day-of-week), in UTC, such as "0 6 * * *"';

function refusal(detail: string): InvalidParameterError {
  return new InvalidParameterError(detail);
}

describe("a cron schedule", () => {
  it("takes five fields in UTC, stored with single spaces", () => {
    expect(parseMonitorSchedule({ cron: "0 6 * * *" })).toEqual({ kind: "cron", expression: "0 6 * * *" });
    expect(parseMonitorSchedule({ cron: "  0   6 * *\t* " })).toEqual({ kind: "cron", expression: "0 6 * * *" });
  });

  it("accepts every hour, every two hours, weekdays, names and the last day of the month", () => {
    for (const expression of ["0 * * * *", "0 */2 * * *", "0 9 * * 1-5", "15 8 * * MON,THU", "0 12 L * *", "0 0 29 2 *"]) {
      expect(parseMonitorSchedule({ cron: expression })).toEqual({ kind: "cron", expression });
    }
  });

  it(`refuses a schedule that runs more often than every ${MONITOR_MIN_INTERVAL_MINUTES} minutes, with the minimum in the detail`, () => {
    expect(() => parseMonitorSchedule({ cron: "*/5 * * * *" })).toThrow(
      refusal('schedule.cron: "*/5 * * * *" runs every 5 minutes; the minimum is once an hour'),
    );
    expect(() => parseMonitorSchedule({ cron: "*/30 * * * *" })).toThrow(
      refusal('schedule.cron: "*/30 * * * *" runs every 30 minutes; the minimum is once an hour'),
    );
    expect(() => parseMonitorSchedule({ cron: "0,30 * * * *" })).toThrow(
      refusal('schedule.cron: "0,30 * * * *" runs every 30 minutes; the minimum is once an hour'),
    );
    // :00 → :15 is 15 minutes, :15 → the next :00 is 45
    expect(() => parseMonitorSchedule({ cron: "0,15 * * * *" })).toThrow(
      refusal('schedule.cron: "0,15 * * * *" runs as little as 15 minutes apart; the minimum is once an hour'),
    );
    expect(() => parseMonitorSchedule({ cron: "* * * * *" })).toThrow(
      refusal('schedule.cron: "* * * * *" runs every minute; the minimum is once an hour'),
    );
  });

  it("refuses runs under an hour apart on the few days an expression runs, far from any reference date", () => {
    // 09:00 and 09:30 on the 1st of February only
    expect(() => parseMonitorSchedule({ cron: "0,30 9 1 2 *" })).toThrow(
      refusal('schedule.cron: "0,30 9 1 2 *" runs as little as 30 minutes apart; the minimum is once an hour'),
    );
    // 23:00 and 23:59 on the 31st of October only: 59 minutes apart
    expect(() => parseMonitorSchedule({ cron: "0,59 23 31 10 *" })).toThrow(
      refusal('schedule.cron: "0,59 23 31 10 *" runs as little as 59 minutes apart; the minimum is once an hour'),
    );
  });

  it("refuses six fields (seconds), fewer than five and macros such as @hourly: Cloudflare takes exactly five", () => {
    expect(() => parseMonitorSchedule({ cron: "0 0 6 * * *" })).toThrow(refusal(`schedule.cron: "0 0 6 * * *" has 6 fields; ${FIELDS}`));
    expect(() => parseMonitorSchedule({ cron: "0 6 * *" })).toThrow(refusal(`schedule.cron: "0 6 * *" has 4 fields; ${FIELDS}`));
    expect(() => parseMonitorSchedule({ cron: "@hourly" })).toThrow(refusal(`schedule.cron: "@hourly" has 1 field; ${FIELDS}`));
    expect(() => parseMonitorSchedule({ cron: "   " })).toThrow(refusal(`schedule.cron: "   " has 0 fields; ${FIELDS}`));
  });

  it("refuses cron-parser's hashed values (H), which would move the runs from one reading to the next", () => {
    expect(() => parseMonitorSchedule({ cron: "H 6 * * *" })).toThrow(
      refusal('schedule.cron: "H 6 * * *": H (a hashed value) is not supported; write the minute and hour out'),
    );
  });

  it("refuses an invalid expression with the reason, and one that never runs", () => {
    expect(() => parseMonitorSchedule({ cron: "61 * * * *" })).toThrow(
      refusal('schedule.cron: "61 * * * *" is not a valid cron expression (Constraint error, got value 61 expected range 0-59)'),
    );
    expect(() => parseMonitorSchedule({ cron: "0 0 30 2 *" })).toThrow(
      refusal('schedule.cron: "0 0 30 2 *" is not a valid cron expression (Invalid explicit day of month definition)'),
    );
    expect(() => parseMonitorSchedule({ cron: 6 })).toThrow(
      refusal(
        'schedule.cron: must be a five-field cron expression (minute hour day-of-month month day-of-week) in UTC, such as "0 6 * * *"',
      ),
    );
  });

  it("quotes at most 60 characters of a long expression", () => {
    const long = `0 6 * * ${"1,".repeat(40)}1`;
    expect(() => parseMonitorSchedule({ cron: `${long} *` })).toThrow(`"${long.slice(0, 60)}…" has 6 fields`);
  });
});

describe("an every_hours schedule", () => {
  it("takes whole hours from 1 to 168", () => {
    expect(parseMonitorSchedule({ every_hours: 6 })).toEqual({ kind: "every_hours", hours: 6 });
    expect(parseMonitorSchedule({ every_hours: 1 })).toEqual({ kind: "every_hours", hours: 1 });
    expect(parseMonitorSchedule({ every_hours: 168 })).toEqual({ kind: "every_hours", hours: 168 });
  });

  it("refuses anything else", () => {
    for (const hours of [0, 169, 1.5, -6, "6", null]) {
      expect(() => parseMonitorSchedule({ every_hours: hours })).toThrow(
        refusal("schedule.every_hours: must be a whole number of hours from 1 to 168"),
      );
    }
  });
});

describe("the schedule field", () => {
  const shape = 'schedule: must be {"cron": "<five-field expression, UTC>"} or {"every_hours": <1 to 168>}';

  it("is required, one object of either form, nothing else", () => {
    expect(() => parseMonitorSchedule(undefined)).toThrow(refusal("schedule: is required"));
    expect(() => parseMonitorSchedule("0 6 * * *")).toThrow(refusal(shape));
    expect(() => parseMonitorSchedule({})).toThrow(refusal(shape));
    expect(() => parseMonitorSchedule({ cron: "0 6 * * *", every_hours: 6 })).toThrow(
      refusal("schedule: give either cron or every_hours, not both"),
    );
    expect(() => parseMonitorSchedule({ cron: "0 6 * * *", timezone: "Europe/Paris" })).toThrow(
      refusal("schedule: Unknown field: timezone. A schedule accepts: cron or every_hours."),
    );
  });
});

describe("the next run", () => {
  const created = new Date("2026-03-01T10:15:00Z");

  it("of a cron schedule is its next occurrence in UTC, strictly after the instant given", () => {
    const daily = { kind: "cron", expression: "0 6 * * *" } as const;
    expect(nextRunAt(daily, new Date("2026-03-01T05:59:59.999Z"), created)).toEqual(new Date("2026-03-01T06:00:00Z"));
    expect(nextRunAt(daily, new Date("2026-03-01T06:00:00Z"), created)).toEqual(new Date("2026-03-02T06:00:00Z"));
  });

  it("of a cron schedule crosses day, month and year boundaries", () => {
    expect(nextRunAt({ kind: "cron", expression: "0 22 * * *" }, new Date("2026-03-01T23:00:00Z"), created)).toEqual(
      new Date("2026-03-02T22:00:00Z"),
    );
    expect(nextRunAt({ kind: "cron", expression: "0 0 * * *" }, new Date("2026-12-31T23:59:59Z"), created)).toEqual(
      new Date("2027-01-01T00:00:00Z"),
    );
    // Friday 6 March after 09:00: Monday 9 March
    expect(nextRunAt({ kind: "cron", expression: "0 9 * * 1-5" }, new Date("2026-03-06T10:00:00Z"), created)).toEqual(
      new Date("2026-03-09T09:00:00Z"),
    );
  });

  it("of an every_hours schedule is the first creation + k × hours after the instant given", () => {
    const sixHourly = { kind: "every_hours", hours: 6 } as const;
    expect(nextRunAt(sixHourly, created, created)).toEqual(new Date("2026-03-01T16:15:00Z"));
    expect(nextRunAt(sixHourly, new Date("2026-03-01T16:14:59Z"), created)).toEqual(new Date("2026-03-01T16:15:00Z"));
    // 22:15 is a run itself: the next is after midnight
    expect(nextRunAt(sixHourly, new Date("2026-03-01T22:15:00Z"), created)).toEqual(new Date("2026-03-02T04:15:00Z"));
    expect(nextRunAt(sixHourly, new Date("2026-03-10T00:00:00Z"), created)).toEqual(new Date("2026-03-10T04:15:00Z"));
    // before the creation: the creation itself
    expect(nextRunAt(sixHourly, new Date("2026-03-01T08:00:00Z"), created)).toEqual(created);
    expect(nextRunAt({ kind: "every_hours", hours: 168 }, new Date("2026-03-01T10:15:00.001Z"), created)).toEqual(
      new Date("2026-03-08T10:15:00Z"),
    );
  });
});
