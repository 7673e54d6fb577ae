/**
 * `wrangler dev`'s terminal output for `npm start`. The launcher prints its own progress and, once the API answers, a
 * banner with everything a newcomer needs; wrangler's own start-up chatter (its banner, the 39-line bindings table,
 * "Starting local server…", the launcher's own start-up requests) would bury that, so by default it is left out.
 * `--verbose` (or `VERBOSE=1`) shows all of it again, minus one repetition: wrangler prints the bindings table when it
 * starts and again whenever its dev registry changes, which happens at once when this Worker registers itself as a
 * queue consumer (no flag or variable turns that off); the second, identical table reads as a restart to a newcomer.
 *
 * In both modes wrangler's warning that scheduled Workers are not triggered locally is replaced by one line: the
 * launcher triggers the crons itself (scripts/local-cron.ts). Once the stack is up, every request shows as the Worker's
 * own access line (src/http/access-log.ts: `[<request id>] GET /path -> 200 (12 ms)`); by default wrangler's line for
 * the same request is left out, since it says the same without the id. Every other line, warnings and errors
 * included, goes through untouched.
 */
import { Transform, type TransformCallback } from "node:stream";
import { stripVTControlCharacters } from "node:util";

const TABLE_HEADING = "Your Worker has access to the following bindings:";
const SCHEDULED_WARNING = "Scheduled Workers are not automatically triggered during local development.";
/** Where the launcher triggers the crons: its requests are its own business, not the user's traffic. */
export const LOCAL_SCHEDULED_PATH = "/cdn-cgi/local/scheduled";

/** Start-up lines of wrangler that say nothing a user of `npm start` needs (the banner says where the API is). */
const START_UP_CHATTER: readonly RegExp[] = [
  /^⛅️ wrangler \d/,
  /^─+$/,
  /^\[custom build\] Running: /,
  /^Using secrets defined in /,
  /^⎔ Starting local server/,
  /^⎔ Connection status updated/,
  /^\[wrangler:info\] ✨ Parsed \d+ valid header rules?\./,
  /^\[wrangler:info\] Ready on /,
];
/** wrangler's log line for one request: `[wrangler:info] GET /path 200 OK (12ms)`. */
const REQUEST_LINE = /^\[wrangler:info\] [A-Z]+ (\S+) \d{3} /;
/** The Worker's own line for one request (src/http/access-log.ts): `[req_…] GET /path -> 200 (12 ms)`. */
const ACCESS_LINE = /^\[[A-Za-z0-9._:-]+\] [A-Z]+ \S+ -> \d{3} \(\d+ ms\)$/;

export interface DevOutputOptions {
  verbose: boolean;
  /** What replaces wrangler's scheduled-Workers warning (the launcher's own schedule). */
  scheduledNotice: string;
}

/** The filter, line by line; `started()` says the launcher's banner is out, so requests from then on are the user's. */
export interface DevOutputFilter {
  stream: Transform;
  started(): void;
}

export function devOutputFilter(options: DevOutputOptions): DevOutputFilter {
  let pending = "";
  /** The table being read (heading included) until the blank line that ends it; null outside a table. */
  let table: string[] | null = null;
  let lastTable = "";
  /** Inside wrangler's scheduled-Workers warning: its indented and blank lines follow until the next plain line. */
  let inScheduledWarning = false;
  let running = false;

  const tableLine = (line: string): string => {
    if (table === null) return "";
    table.push(line);
    if (line.trim() !== "") return "";
    const text = `${table.join("\n")}\n`;
    table = null;
    if (!options.verbose || text === lastTable) return "";
    lastTable = text;
    return text;
  };

  const lineOut = (line: string): string => {
    if (table !== null) return tableLine(line);
    const plain = stripVTControlCharacters(line).trim();
    if (inScheduledWarning) {
      if (plain === "" || /^\s/.test(stripVTControlCharacters(line))) return "";
      inScheduledWarning = false;
    }
    if (plain === TABLE_HEADING) {
      table = [line];
      return "";
    }
    if (plain.includes(SCHEDULED_WARNING)) {
      inScheduledWarning = true;
      return `${options.scheduledNotice}\n`;
    }
    const request = REQUEST_LINE.exec(plain);
    if (!options.verbose) {
      // the launcher's own start-up requests, then wrangler's duplicate of each access line
      if (request !== null) return "";
      if (!running && (ACCESS_LINE.test(plain) || plain === "" || START_UP_CHATTER.some((pattern) => pattern.test(plain)))) return "";
    }
    return `${line}\n`;
  };

  const stream = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = lines.pop() ?? "";
      done(null, lines.map(lineOut).join(""));
    },
    flush(done: TransformCallback) {
      const unfinishedTable = table === null || !options.verbose ? "" : `${table.join("\n")}\n`;
      done(null, unfinishedTable + pending);
    },
  });
  return {
    stream,
    started: () => {
      running = true;
    },
  };
}
