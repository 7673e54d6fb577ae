/**
 * `npm run capture`: records one scrape as a capture file for the replay tests (docs/real-sites.md).
 *
 *   npm run capture -- <scraper> "<prompt>" [--country XX] [--mode …] [--<parameter> <value>] [--out <file>] [--force]
 *   npm run capture -- --accept <file>
 *
 * The first form asks the running local stack (`npm start`, or `LIVE=1 npm start` for the real sites) to run the
 * scrape with capture recording (`POST /admin/captures`, operator token from `.local/admin-token` or ADMIN_TOKEN) and
 * writes the redacted capture to test/fixtures/captures/<scraper>/, where test/unit/replay.test.ts replays it.
 * The second form replays a capture with the current parser and writes that answer into it as the expected one:
 * after a parser fix, for a capture recorded while the parser failed (`answer: null`), once the output looks right.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { type CaptureFile, CaptureFileSchema } from "../src/capture-files/format";
import { replayCapture } from "../src/capture-files/replay";
import { PROVIDERS } from "../src/scrapers/provider-list";

const root = resolve(import.meta.dirname, "..");
const CAPTURES_DIR = join(root, "test", "fixtures", "captures");
/** Below Node's 300 s wait for response headers, so the Worker's own time-out answers first. */
const DEFAULT_TIMEOUT_SECONDS = "120";

const USAGE = `Usage:
  npm run capture -- <scraper> "<prompt>" [--country XX] [--mode MODE] [--<parameter> VALUE] [--out FILE] [--force]
  npm run capture -- --accept FILE

Scrapers: ${PROVIDERS.map((provider) => provider.id).join(", ")}
The local stack must be running (npm start; LIVE=1 npm start for the real sites). API: $CAPTURE_API or http://127.0.0.1:$PORT (8787).`;

class UsageError extends Error {}

interface CaptureCommand {
  kind: "capture";
  scraper: string;
  query: Record<string, string>;
  out: string | null;
  force: boolean;
}

function parseArguments(args: readonly string[]): CaptureCommand | { kind: "accept"; file: string } {
  if (args[0] === "--accept") {
    if (args[1] === undefined || args.length > 2) throw new UsageError("--accept takes one capture file");
    return { kind: "accept", file: resolve(args[1]) };
  }
  const positional: string[] = [];
  const query: Record<string, string> = {};
  let out: string | null = null;
  let force = false;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? "";
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const [flag = "", inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (flag === "force") {
      force = true;
      continue;
    }
    const value = inline ?? args[index + 1];
    if (inline === undefined) index += 1;
    if (value === undefined) throw new UsageError(`--${flag} needs a value`);
    if (flag === "out") out = resolve(value);
    else query[flag] = value;
  }
  const [scraper, prompt, ...rest] = positional;
  if (scraper === undefined || prompt === undefined) throw new UsageError("give a scraper and a prompt");
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])} (quote the prompt)`);
  if (!PROVIDERS.some((provider) => provider.id === scraper)) throw new UsageError(`unknown scraper ${JSON.stringify(scraper)}`);
  return { kind: "capture", scraper, query: { prompt, timeout: DEFAULT_TIMEOUT_SECONDS, ...query }, out, force };
}

function adminToken(): string {
  const fromEnvironment = process.env.ADMIN_TOKEN?.trim();
  if (fromEnvironment) return fromEnvironment;
  const file = join(root, ".local", "admin-token");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  throw new UsageError("no operator token: start the stack with npm start (it writes .local/admin-token) or set ADMIN_TOKEN");
}

/** `test/fixtures/captures/grok/what-is-new-with-starship-us-mode-model-mode-fast.json` */
function defaultPath(scraper: string, query: Record<string, string>): string {
  const own = Object.entries(query).flatMap(([name, value]) => (["prompt", "country", "timeout"].includes(name) ? [] : [name, value]));
  const words = [query.prompt ?? "", query.country ?? "us", ...own];
  const slug = words
    .join(" ")
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "");
  return join(CAPTURES_DIR, scraper, `${slug || "capture"}.json`);
}

function writeCapture(path: string, file: CaptureFile): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
}

function providerOf(id: string) {
  const provider = PROVIDERS.find((candidate) => candidate.id === id);
  if (provider === undefined) throw new UsageError(`the capture is of an unknown scraper ${JSON.stringify(id)}`);
  return provider;
}

function describeCapture(file: CaptureFile): string {
  const exchanges = Object.entries(file.exchanges).map(
    ([name, exchange]) =>
      `  ${name}: ${exchange.method} ${exchange.url} → ${exchange.status}, ${exchange.chunks.length} chunks, ${exchange.frames.length} frames`,
  );
  const snapshots = Object.keys(file.snapshots);
  return [
    `${file.scraper} against ${file.site === "real" ? "the real site" : "an override"} (${file.origin})`,
    ...exchanges,
    ...(snapshots.length > 0 ? [`  page values: ${snapshots.join(", ")}`] : []),
    `  redacted: ${file.redactions.length === 0 ? "nothing needed it" : file.redactions.join("; ")}`,
  ].join("\n");
}

async function capture(command: CaptureCommand): Promise<void> {
  const path = command.out ?? defaultPath(command.scraper, command.query);
  if (existsSync(path) && !command.force)
    throw new UsageError(`${relative(root, path)} exists; pass --force to replace it or --out for another file`);
  const api = (process.env.CAPTURE_API ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`).replace(/\/+$/, "");
  console.log(`Scraping ${command.scraper} through ${api} …`);
  let response: Response;
  try {
    response = await fetch(`${api}/admin/captures`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken()}`, "content-type": "application/json" },
      body: JSON.stringify({ scraper: command.scraper, query: command.query }),
    });
  } catch (error) {
    throw new UsageError(`the API at ${api} did not answer (${String(error)}); is the stack running (npm start)?`);
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const detail = typeof body === "object" && body !== null ? Reflect.get(body, "detail") : undefined;
    throw new Error(`capture failed: HTTP ${response.status} ${typeof detail === "string" ? detail : ""}`);
  }
  const file = CaptureFileSchema.parse(body);
  writeCapture(path, file);
  console.log(describeCapture(file));
  if (file.failure !== null) {
    const code = file.failure.code === null ? "" : ` (${file.failure.code})`;
    console.log(`\nThe scrape failed: ${file.failure.status} ${file.failure.detail}${code}`);
    console.log("The capture holds what the page received; its replay fails until the parser is fixed and the answer accepted:");
    console.log(`  npm run capture -- --accept ${relative(root, path)}`);
  }
  console.log(`\nWrote ${relative(root, path)}`);
}

function accept(path: string): void {
  const file = CaptureFileSchema.parse(JSON.parse(readFileSync(path, "utf8")));
  const replayed = replayCapture(providerOf(file.scraper), file);
  if (replayed.kind === "failed") throw new Error(`the replay still fails: ${replayed.problem}`);
  if (file.answer !== null && replayed.differences.length > 0) {
    console.log(`Replacing the recorded answer; what moved:\n  ${replayed.differences.join("\n  ")}`);
  }
  writeCapture(path, { ...file, answer: replayed.answer });
  console.log(`${relative(root, path)}: the parser's answer is now the expected one:\n${JSON.stringify(replayed.answer, null, 2)}`);
}

try {
  const command = parseArguments(process.argv.slice(2));
  if (command.kind === "accept") accept(command.file);
  else await capture(command);
} catch (error) {
  console.error(error instanceof UsageError ? `${error.message}\n\n${USAGE}` : error instanceof Error ? error.message : String(error));
  process.exit(1);
}
