/**
 * `npm start`'s terminal (issue 36): wrangler's output through the launcher's filter (scripts/dev-output.ts), the Cron
 * Triggers the launcher fires itself (scripts/cron-schedule.ts, scripts/local-cron.ts) and its progress lines
 * (scripts/start-progress.ts). The wrangler lines below are copied from a real `npm start` with wrangler 4.164.0
 * (colours included); the expected outputs are what a newcomer should see, written out by hand.
 */
import { Readable } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { cronSchedule, cronsOf, describeCron } from "../../scripts/cron-schedule";
import { devOutputFilter, type DevOutputFilter } from "../../scripts/dev-output";
import { localCronNotice, planLocalCron } from "../../scripts/local-cron";
import { step } from "../../scripts/start-progress";

const NOTICE = "Cron Triggers: the launcher runs them.";

const WRANGLER_START = [
  "",
  " ⛅️ wrangler 4.164.0",
  "────────────────────",
  "[custom build] Running: node scripts/copy-docs-assets.mjs",
  "Using secrets defined in .dev.vars",
  "Your Worker has access to the following bindings:",
  "Binding                                  Resource                  Mode",
  "env.JOB (JobRecord)                      Durable Object            local",
  "env.BROWSER                              Browser Run               local",
  "",
  "\u001b[33m▲ \u001b[43;33m[\u001b[43;30mWARNING\u001b[43;33m]\u001b[0m \u001b[1mScheduled Workers are not automatically triggered during local development.\u001b[0m",
  "",
  "  To manually trigger a scheduled event, run:",
  '    curl "http://127.0.0.1:8797/cdn-cgi/local/scheduled"',
  "  For more details, see \u001b[4mhttps://developers.cloudflare.com/workers/configuration/cron-triggers/#test-cron-triggers-locally\u001b[0m",
  "",
  "",
  "⎔ Starting local server...",
  "[wrangler:info] ✨ Parsed 1 valid header rule.",
  "⎔ Connection status updated",
  "[wrangler:info] Ready on http://127.0.0.1:8797",
  "[req_3q2-7wEfXb0XQ9kVdZp1sA] GET /openapi.json -> 200 (4899 ms)",
  "[wrangler:info] GET /openapi.json 200 OK (4901ms)",
  "[req_Zm9vYmFyYmF6cXV4cXV1eA] POST /admin/jobs/recover -> 200 (90 ms)",
  "[wrangler:info] POST /admin/jobs/recover 200 OK (92ms)",
  "\u001b[33m▲ \u001b[43;33m[\u001b[43;30mWARNING\u001b[43;33m]\u001b[0m \u001b[1mSomething else the user must see.\u001b[0m",
  "[wrangler:error] Error: a failure at start",
];
const SECOND_TABLE = [
  "Your Worker has access to the following bindings:",
  "Binding                                  Resource                  Mode",
  "env.JOB (JobRecord)                      Durable Object            local",
  "env.BROWSER                              Browser Run               local",
  "",
];
const WRANGLER_RUNNING = [
  "[my-ticket.7] GET /scrapers/grok -> 200 (2607 ms)",
  "[wrangler:info] GET /scrapers/grok 200 OK (2609ms)",
  "[wrangler:info] QUEUE scrape-jobs 1/1 (767ms)",
  "[wrangler:info] GET /cdn-cgi/local/scheduled?cron=*+*+*+*+* 200 OK (40ms)",
  '[canary grok US] {"event":"canary","provider":"grok","country":"US","ok":true,"latency_ms":812}',
];

/** Feeds `lines` to the filter in chunks of `chunkSize` characters (cutting lines anywhere), returns what came out. */
async function filtered(filter: DevOutputFilter, before: readonly string[], after: readonly string[], chunkSize = 7): Promise<string[]> {
  const chunks = (lines: readonly string[]): string[] => {
    const text = lines.map((line) => `${line}\n`).join("");
    const cut: string[] = [];
    for (let index = 0; index < text.length; index += chunkSize) cut.push(text.slice(index, index + chunkSize));
    return cut;
  };
  let out = "";
  filter.stream.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  const ended = new Promise<void>((resolve) => filter.stream.on("end", resolve));
  for (const chunk of chunks(before)) filter.stream.write(chunk);
  filter.started();
  for (const chunk of chunks(after)) filter.stream.write(chunk);
  filter.stream.end();
  await ended;
  return out
    .split("\n")
    .slice(0, -1)
    .map((line) => stripVTControlCharacters(line));
}

describe("npm start: wrangler's output", () => {
  it("by default keeps only what matters: the cron line, other warnings and errors, then the user's requests with their ids", async () => {
    const out = await filtered(
      devOutputFilter({ verbose: false, scheduledNotice: NOTICE }),
      [...WRANGLER_START, ...SECOND_TABLE],
      WRANGLER_RUNNING,
    );
    expect(out).toEqual([
      NOTICE,
      "▲ [WARNING] Something else the user must see.",
      "[wrangler:error] Error: a failure at start",
      "[my-ticket.7] GET /scrapers/grok -> 200 (2607 ms)",
      "[wrangler:info] QUEUE scrape-jobs 1/1 (767ms)",
      '[canary grok US] {"event":"canary","provider":"grok","country":"US","ok":true,"latency_ms":812}',
    ]);
  });

  it("with --verbose shows wrangler's banner and the bindings table once, the cron requests too", async () => {
    const out = await filtered(
      devOutputFilter({ verbose: true, scheduledNotice: NOTICE }),
      [...WRANGLER_START, ...SECOND_TABLE],
      WRANGLER_RUNNING,
      1,
    );
    expect(out.filter((line) => line === "Your Worker has access to the following bindings:")).toHaveLength(1);
    expect(out).toContain(" ⛅️ wrangler 4.164.0");
    expect(out).toContain("env.BROWSER                              Browser Run               local");
    expect(out).toContain("[wrangler:info] GET /openapi.json 200 OK (4901ms)");
    expect(out).toContain("[wrangler:info] GET /cdn-cgi/local/scheduled?cron=*+*+*+*+* 200 OK (40ms)");
    // the scheduled-Workers warning is replaced in both modes: none of its lines is left
    expect(out).toContain(NOTICE);
    expect(out.some((line) => line.includes("Scheduled Workers") || line.includes("To manually trigger"))).toBe(false);
  });

  it("a bindings table that changed is shown again with --verbose", async () => {
    const changed = SECOND_TABLE.map((line) => line.replace("env.BROWSER ", "env.BROWSR  "));
    const out = await filtered(devOutputFilter({ verbose: true, scheduledNotice: NOTICE }), [...SECOND_TABLE, ...changed], []);
    expect(out).toEqual([...SECOND_TABLE, ...changed]);
  });

  it("passes a last line without a newline through when the stream ends", async () => {
    const filter = devOutputFilter({ verbose: false, scheduledNotice: NOTICE });
    const chunks: string[] = [];
    filter.stream.on("data", (chunk: Buffer) => chunks.push(chunk.toString("utf8")));
    await new Promise<void>((resolve) => {
      filter.stream.on("end", resolve);
      Readable.from(["[wrangler:error] cut ", "short"]).pipe(filter.stream);
    });
    expect(chunks.join("")).toBe("[wrangler:error] cut short");
  });
});

describe("npm start: the Cron Triggers of wrangler.toml", () => {
  it("reads the crons of the [triggers] table only", () => {
    const toml = [
      "[vars]",
      'crons = ["not these"]',
      "",
      "# comment",
      "[triggers]",
      'crons = ["*/10 * * * *", "* * * * *"]',
      "",
      "[browser]",
      'binding = "BROWSER"',
    ].join("\n");
    expect(cronsOf(toml)).toEqual(["*/10 * * * *", "* * * * *"]);
    expect(cronsOf('name = "x"\n')).toEqual([]);
    expect(cronsOf("[triggers]\ncrons = []\n")).toEqual([]);
  });

  it("decides which minutes an expression is due in (UTC)", () => {
    const everyTen = cronSchedule("*/10 * * * *");
    expect(everyTen?.dueAt(new Date("2026-11-23T10:20:31Z"))).toBe(true);
    expect(everyTen?.dueAt(new Date("2026-11-23T10:21:00Z"))).toBe(false);
    expect(cronSchedule("* * * * *")?.dueAt(new Date("2026-11-23T10:21:00Z"))).toBe(true);
    const weekdayMornings = cronSchedule("0,30 8-9 * * 1-5");
    expect(weekdayMornings?.dueAt(new Date("2026-11-23T08:30:00Z"))).toBe(true); // a Monday
    expect(weekdayMornings?.dueAt(new Date("2026-11-22T08:30:00Z"))).toBe(false); // a Sunday
    expect(weekdayMornings?.dueAt(new Date("2026-11-23T10:00:00Z"))).toBe(false);
    expect(cronSchedule("0 0 * * 7")?.dueAt(new Date("2026-11-22T00:00:00Z"))).toBe(true); // 7 is Sunday too
    // both day fields restricted: either one matching is enough (cron's rule)
    expect(cronSchedule("0 0 1 * 1")?.dueAt(new Date("2026-11-23T00:00:00Z"))).toBe(true);
  });

  it("understands names and the last day of the month, as Cloudflare's Cron Triggers do", () => {
    expect(cronSchedule("0 0 * * MON")?.dueAt(new Date("2026-11-23T00:00:00Z"))).toBe(true); // a Monday
    expect(cronSchedule("0 0 * * MON")?.dueAt(new Date("2026-11-24T00:00:00Z"))).toBe(false);
    expect(cronSchedule("0 0 L * *")?.dueAt(new Date("2026-11-30T00:00:00Z"))).toBe(true);
    expect(cronSchedule("0 0 L * *")?.dueAt(new Date("2026-11-29T00:00:00Z"))).toBe(false);
  });

  it("leaves expressions it does not understand to the manual trigger, and says so", () => {
    expect(cronSchedule("61 * * * *")).toBeNull();
    expect(cronSchedule("* * * *")).toBeNull();
    expect(cronSchedule("every day")).toBeNull();
    const plan = planLocalCron(["*/10 * * * *", "* * * * *", "61 * * * *"]);
    expect(plan.unsupported).toEqual(["61 * * * *"]);
    expect(localCronNotice(plan, 30, "http://127.0.0.1:8787/cdn-cgi/local/scheduled")).toBe(
      'Cron Triggers: the launcher runs "*/10 * * * *" every 10 minutes, "* * * * *" every minute (first round 30 s after start); ' +
        'not run locally: "61 * * * *" (trigger with curl "http://127.0.0.1:8787/cdn-cgi/local/scheduled?cron=<expression>").',
    );
    expect(localCronNotice(planLocalCron([]), 30, "http://x")).toBe("Cron Triggers: none in wrangler.toml.");
  });

  it("says how often an expression runs", () => {
    expect(describeCron("* * * * *")).toBe("every minute");
    expect(describeCron("*/1 * * * *")).toBe("every minute");
    expect(describeCron("*/10 * * * *")).toBe("every 10 minutes");
    expect(describeCron("0 8 * * 1")).toBe('on the schedule "0 8 * * 1"');
  });
});

describe("npm start: progress", () => {
  it("announces a step, reminds while it lasts and says when it is done", async () => {
    const lines: string[] = [];
    const result = await step("Applying D1 migrations", () => new Promise<number>((resolve) => setTimeout(() => resolve(7), 130)), {
      reminderEveryMs: 50,
      write: (line) => lines.push(line),
    });
    expect(result).toBe(7);
    expect(lines[0]).toBe("Applying D1 migrations…");
    // about two reminders in 130 ms; a loaded machine may fire one more or fewer
    const reminders = lines.slice(1, -1);
    expect(reminders.length).toBeGreaterThanOrEqual(1);
    for (const reminder of reminders) expect(reminder).toBe("  … still applying D1 migrations (0 s)");
    expect(lines.at(-1)).toMatch(/^Applying D1 migrations: done in 0\.\d s$/);
  });

  it("a step that fails stops reminding and lets the error through", async () => {
    const lines: string[] = [];
    await expect(
      step("Starting wrangler dev", () => Promise.reject(new Error("no API")), { reminderEveryMs: 10, write: (line) => lines.push(line) }),
    ).rejects.toThrow("no API");
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(lines).toEqual(["Starting wrangler dev…"]);
  });
});
