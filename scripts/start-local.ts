/**
 * `npm start`: the whole service on this machine. Local D1 (migrated), KV, Queues and Durable Objects under
 * `wrangler dev`, real Chromium through the Browser Rendering binding, the provider replicas, and a seeded dev
 * account with 1,500 credits whose API key is printed and written to `.local/dev-api-key`, with a one-time
 * dashboard sign-in link for it.
 *
 * Live mode (docs/real-sites.md): `LIVE=1 npm start` runs the same stack against the real sites (no origin overrides);
 * `PROVIDER_ORIGIN_<ID>=<url>` overrides one provider in either mode (scripts/local-origins.ts).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes, createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { startReplicaServer, REPLICA_PROVIDERS, replicaOriginOverride } from "../replicas/server";
import { localOrigins } from "./local-origins";

const root = resolve(import.meta.dirname, "..");
const localDir = join(root, ".local");
const API_PORT = Number(process.env.PORT ?? 8787);
const REPLICA_PORT = Number(process.env.REPLICA_PORT ?? 8788);
const DEV_ACCOUNT_ID = "acct_dev";
const DEV_KEY_ID = "key_dev";
const SIGN_UP_CREDITS = 1500;

function readOrCreate(file: string, create: () => string): string {
  const path = join(localDir, file);
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  const value = create();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return value;
}

function wrangler(args: string[]): void {
  const result = spawnSync("wrangler", args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`wrangler ${args.join(" ")} failed`);
  }
}

function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Fails early, with the variable to change, when a port is taken (instead of a raw EADDRINUSE trace later). */
async function requireFreePort(port: number, variable: string): Promise<void> {
  const free = await new Promise<boolean>((resolvePort) => {
    const probe = createServer();
    probe.once("error", () => resolvePort(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolvePort(true)));
  });
  if (!free) {
    console.error(`Port ${port} is already in use (another npm start?). Stop it, or choose another port: ${variable}=<port> npm start`);
    process.exit(1);
  }
}

async function waitForApi(url: string, timeoutMs: number): Promise<void> {
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

/** A one-time dashboard sign-in link for the dev account, issued through the operator API like any customer's. */
async function dashboardLoginLink(base: string, adminToken: string): Promise<string> {
  try {
    const response = await fetch(`${base}/admin/accounts/${DEV_ACCOUNT_ID}/login-links`, {
      method: "POST",
      headers: { Authorization: `Bearer ${adminToken}` },
    });
    if (!response.ok) return `(could not issue a sign-in link: HTTP ${response.status})`;
    const { login_url: loginUrl } = (await response.json()) as { login_url: string };
    return loginUrl;
  } catch (error) {
    return `(could not issue a sign-in link: ${String(error)})`;
  }
}

async function main(): Promise<void> {
  mkdirSync(localDir, { recursive: true });
  const apiKey = readOrCreate("dev-api-key", () => `sk_${randomBytes(32).toString("base64url")}`);
  const adminToken = readOrCreate("admin-token", () => `adm_${randomBytes(24).toString("base64url")}`);
  const sessionSecret = readOrCreate("session-secret", () => randomBytes(32).toString("base64url"));
  // Encrypts stored provider sessions (provider accounts); losing it means storing the sessions again.
  const providerAccountsKey = readOrCreate("provider-accounts-key", () => randomBytes(32).toString("base64url"));

  const replicaBase = `http://127.0.0.1:${REPLICA_PORT}`;
  const origins = localOrigins(
    REPLICA_PROVIDERS.map((provider) => ({ id: provider.id, replicaOrigin: replicaOriginOverride(provider, replicaBase) })),
    process.env,
  );
  for (const name of origins.unknownVariables) console.warn(`Ignoring ${name}: no provider has that id.`);
  writeFileSync(
    join(root, ".dev.vars"),
    [
      "# Written by scripts/start-local.ts on every start; local secrets and replica origins.",
      `ADMIN_TOKEN=${adminToken}`,
      `SESSION_SECRET=${sessionSecret}`,
      // Local development: webhooks may go to a receiver on this machine (loopback, plain http). Never set in production.
      "WEBHOOK_ALLOW_LOOPBACK=true",
      `PROVIDER_ACCOUNTS_KEY=${providerAccountsKey}`,
      // Replicas by default; live mode (LIVE=1) leaves the origins unset, so the scrapers drive the real sites;
      // PROVIDER_ORIGIN_<ID> from the environment overrides one provider either way.
      ...Object.entries(origins.overrides).map(([name, origin]) => `${name}=${origin}`),
      "",
    ].join("\n"),
    { mode: 0o600 },
  );

  await requireFreePort(API_PORT, "PORT");
  await requireFreePort(REPLICA_PORT, "REPLICA_PORT");

  console.log("Applying D1 migrations (local)…");
  wrangler(["d1", "migrations", "apply", "DB", "--local"]);
  const now = new Date().toISOString();
  const keyHash = createHash("sha256").update(apiKey).digest("hex");
  wrangler([
    "d1",
    "execute",
    "DB",
    "--local",
    "--command",
    `INSERT OR IGNORE INTO accounts (id, name, email, credits, created_at) VALUES (${sqlText(DEV_ACCOUNT_ID)}, 'Local developer', 'dev@localhost', ${SIGN_UP_CREDITS}, ${sqlText(now)});
     INSERT OR IGNORE INTO credit_ledger (account_id, kind, delta, balance_after, reason, operation_id, created_at) VALUES (${sqlText(DEV_ACCOUNT_ID)}, 'grant', ${SIGN_UP_CREDITS}, ${SIGN_UP_CREDITS}, 'sign-up credits', 'signup:${DEV_ACCOUNT_ID}', ${sqlText(now)});
     INSERT OR IGNORE INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at) VALUES (${sqlText(DEV_KEY_ID)}, ${sqlText(DEV_ACCOUNT_ID)}, 'Local dev key', ${sqlText(keyHash)}, ${sqlText(apiKey.slice(0, 10))}, ${sqlText(now)});
     UPDATE api_keys SET revoked_at = NULL, key_hash = ${sqlText(keyHash)}, display_prefix = ${sqlText(apiKey.slice(0, 10))} WHERE id = ${sqlText(DEV_KEY_ID)};`,
  ]);

  const replicas = await startReplicaServer({ port: REPLICA_PORT });
  console.log(`Provider replicas at ${replicas.url}`);

  // Its own process group: stopping it stops workerd and the Chromium processes it launched, nothing else.
  const dev = spawn("wrangler", ["dev", "--ip", "127.0.0.1", "--port", String(API_PORT), "--show-interactive-dev-session=false"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    detached: true,
  });
  let stopping = false;
  /** The processes below wrangler when stopping began: once wrangler exits they are orphans, found only through this. */
  let tree: number[] = [];
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping the local stack…");
    // Chromium is started detached (its own process group) by the local Browser Rendering emulation: note every
    // process below wrangler now, while they are still its children, to stop them too.
    tree = descendantsOf(dev.pid);
    signalGroup(dev, "SIGINT");
    // whatever has not exited after a few seconds (a browser, a stuck worker) is stopped for good
    setTimeout(() => {
      signalGroup(dev, "SIGKILL");
      for (const pid of tree) signalProcess(pid, "SIGKILL");
    }, 5_000).unref();
    void replicas.close().catch(() => undefined);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  dev.on("exit", (code) => {
    signalGroup(dev, "SIGKILL");
    for (const pid of [...tree, ...descendantsOf(dev.pid)]) signalProcess(pid, "SIGKILL");
    void replicas
      .close()
      .catch(() => undefined)
      .finally(() => process.exit(stopping ? 0 : (code ?? 0)));
  });

  const base = `http://127.0.0.1:${API_PORT}`;
  const sites =
    origins.realSites.length === 0
      ? "the replicas"
      : origins.realSites.length === REPLICA_PROVIDERS.length
        ? "LIVE: the real sites"
        : `LIVE for ${origins.realSites.join(", ")}; the others on their replicas or overrides`;
  await waitForApi(`${base}/openapi.json`, 120_000);
  const loginUrl = await dashboardLoginLink(base, adminToken);
  console.log(`
────────────────────────────────────────────────────────────────────────
 API            ${base}        (docs: ${base}/docs)
 Dev API key    ${apiKey}
                (also in .local/dev-api-key; account ${DEV_ACCOUNT_ID})
 Admin token    ${adminToken}
                (also in .local/admin-token)
 Scrapers drive ${sites}
 Dashboard      ${loginUrl}
                (one-time, short-lived sign-in link for ${DEV_ACCOUNT_ID}; a new one on every start)
 Try it:
   curl -s -H "X-API-Key: ${apiKey}" \\
     "${base}/scrapers/grok?prompt=What%20are%20people%20saying%20about%20Starship%3F"
────────────────────────────────────────────────────────────────────────
`);
}

/** Every process below `root` (children, grandchildren…), from `ps`; empty when it cannot be read. */
function descendantsOf(root: number | undefined): number[] {
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

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already stopped
  }
}

/** Sends `signal` to the process group of `child` (best effort: it may be gone already). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already stopped
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
