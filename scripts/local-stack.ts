/**
 * The pieces of a local stack that `npm start` (scripts/start-local.ts) and the benchmark (bench/stack.ts) share:
 * running wrangler (optionally with its own state directory), seeding an account with credits and an API key, probing
 * ports, waiting for the API, and stopping wrangler together with every process below it (workerd, Chromium).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

export const projectRoot = resolve(import.meta.dirname, "..");
/** The project's own wrangler, so a script started without `npm run` (no node_modules/.bin on PATH) finds it too. */
const wranglerBinary = existsSync(join(projectRoot, "node_modules/.bin/wrangler"))
  ? join(projectRoot, "node_modules/.bin/wrangler")
  : "wrangler";

/**
 * Where local state lives: wrangler's default (`.wrangler/state`) or a directory of its own (`--persist-to`); and
 * which configuration is used: wrangler.toml, or another file (`--config`).
 */
export interface StateOptions {
  persistTo?: string;
  config?: string;
}

function persistArguments(options: StateOptions): string[] {
  return [
    ...(options.persistTo === undefined ? [] : ["--persist-to", options.persistTo]),
    ...(options.config === undefined ? [] : ["--config", options.config]),
  ];
}

/**
 * Runs one wrangler command to completion; its output is shown only when it fails. Asynchronous, so that a caller can
 * keep reporting progress while wrangler (several seconds per command on a busy machine) works.
 */
export async function runWrangler(args: string[], environment: NodeJS.ProcessEnv = process.env): Promise<void> {
  const child = spawn(wranglerBinary, args, { cwd: projectRoot, stdio: ["ignore", "pipe", "pipe"], env: environment });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const status = await new Promise<number | null>((resolveExit, rejectExit) => {
    child.once("error", rejectExit);
    child.once("close", resolveExit);
  });
  if (status !== 0) {
    process.stderr.write(output);
    throw new Error(`wrangler ${args.join(" ")} failed`);
  }
}

export function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export async function applyMigrations(options: StateOptions = {}): Promise<void> {
  await runWrangler(["d1", "migrations", "apply", "DB", "--local", ...persistArguments(options)]);
}

export interface SeededAccount {
  accountId: string;
  keyId: string;
  apiKey: string;
  name: string;
  email: string;
  credits: number;
  keyName: string;
  /** The key's scope (migrations/0011_key_scopes.sql); default `scrape`, like a key made without one. */
  keyScope?: "scrape" | "manage";
}

/**
 * Creates the account (with its sign-up grant in the ledger) and its API key when absent, and makes sure the key is
 * active with exactly this secret: idempotent, so it runs on every start.
 */
export async function seedAccount(account: SeededAccount, options: StateOptions = {}): Promise<void> {
  const now = new Date().toISOString();
  const keyHash = createHash("sha256").update(account.apiKey).digest("hex");
  const prefix = account.apiKey.slice(0, 10);
  const scope = account.keyScope ?? "scrape";
  const id = sqlText(account.accountId);
  await runWrangler([
    "d1",
    "execute",
    "DB",
    "--local",
    ...persistArguments(options),
    "--command",
    `INSERT OR IGNORE INTO accounts (id, name, email, credits, created_at) VALUES (${id}, ${sqlText(account.name)}, ${sqlText(account.email)}, ${account.credits}, ${sqlText(now)});
     INSERT OR IGNORE INTO credit_ledger (account_id, kind, delta, balance_after, reason, operation_id, created_at) VALUES (${id}, 'grant', ${account.credits}, ${account.credits}, 'sign-up credits', 'signup:${account.accountId}', ${sqlText(now)});
     INSERT OR IGNORE INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at, scope) VALUES (${sqlText(account.keyId)}, ${id}, ${sqlText(account.keyName)}, ${sqlText(keyHash)}, ${sqlText(prefix)}, ${sqlText(now)}, ${sqlText(scope)});
     UPDATE api_keys SET revoked_at = NULL, key_hash = ${sqlText(keyHash)}, display_prefix = ${sqlText(prefix)}, scope = ${sqlText(scope)} WHERE id = ${sqlText(account.keyId)};`,
  ]);
}

export async function isPortFree(port: number): Promise<boolean> {
  return new Promise<boolean>((resolvePort) => {
    const probe = createServer();
    probe.once("error", () => resolvePort(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolvePort(true)));
  });
}

/** The first free port in [from, to], for a stack that must not collide with others on this machine. */
export async function firstFreePort(from: number, to: number, taken: ReadonlySet<number> = new Set()): Promise<number> {
  for (let port = from; port <= to; port += 1) if (!taken.has(port) && (await isPortFree(port))) return port;
  throw new Error(`No free port between ${from} and ${to}`);
}

export async function waitForApi(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 500));
  }
  throw new Error(`The API did not come up at ${url}`);
}

export interface WranglerDevOptions extends StateOptions {
  port: number;
  /** Another instance's inspector may hold wrangler's default 9229. */
  inspectorPort?: number;
  /** Replaces `.dev.vars` (wrangler reads only these files when one is given). */
  envFile?: string;
  stdio: "inherit" | "ignore" | "pipe";
  environment?: NodeJS.ProcessEnv;
}

/** `wrangler dev` in its own process group, so stopping it reaches workerd and the Chromium it launched, nothing else. */
export function spawnWranglerDev(options: WranglerDevOptions): ChildProcess {
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(options.port), "--show-interactive-dev-session=false"];
  if (options.inspectorPort !== undefined) args.push("--inspector-port", String(options.inspectorPort));
  if (options.envFile !== undefined) args.push("--env-file", options.envFile);
  args.push(...persistArguments(options));
  return spawn(wranglerBinary, args, {
    cwd: projectRoot,
    stdio: ["ignore", options.stdio, options.stdio],
    // No network at start: no metrics, and the placeholder `request.cf` instead of fetching workers.cloudflare.com/cf.json
    // (offline, that fetch printed two stack traces; the Worker never reads `request.cf`).
    env: { ...(options.environment ?? process.env), WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    detached: true,
  });
}

/** Every process below `root` (children, grandchildren…), from `ps`; empty when it cannot be read. */
export function descendantsOf(root: number | undefined): number[] {
  if (root === undefined) return [];
  const listing = spawnSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" });
  if (listing.status !== 0) return [];
  const children = new Map<number, number[]>();
  for (const line of listing.stdout.split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid === undefined || ppid === undefined || !Number.isInteger(pid) || !Number.isInteger(ppid)) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const found: number[] = [];
  const queue = [root];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already stopped
  }
}

/** Sends `signal` to the process group of `child` (best effort: it may be gone already). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already stopped
  }
}
