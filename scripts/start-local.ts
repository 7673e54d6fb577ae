/**
 * `npm start`: the whole service on this machine. Local D1 (migrated), KV, Queues and Durable Objects under
 * `wrangler dev`, real Chromium through the Browser Rendering binding, the provider replicas, and a seeded dev
 * account with 1,500 credits whose API key is printed and written to `.local/dev-api-key`, with a one-time
 * dashboard sign-in link for it.
 *
 * Live mode (docs/real-sites.md): `LIVE=1 npm start` runs the same stack against the real sites (no origin overrides);
 * `PROVIDER_ORIGIN_<ID>=<url>` overrides one provider in either mode (scripts/local-origins.ts).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes, createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
     INSERT OR IGNORE INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at) VALUES (${sqlText(DEV_KEY_ID)}, ${sqlText(DEV_ACCOUNT_ID)}, 'Local dev key', ${sqlText(keyHash)}, ${sqlText(apiKey.slice(0, 10))}, ${sqlText(now)});`,
  ]);

  const replicas = await startReplicaServer({ port: REPLICA_PORT });
  console.log(`Provider replicas at ${replicas.url}`);

  const dev = spawn("wrangler", ["dev", "--ip", "127.0.0.1", "--port", String(API_PORT), "--show-interactive-dev-session=false"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  const stop = () => {
    dev.kill("SIGINT");
    void replicas.close();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  dev.on("exit", (code) => {
    void replicas.close().finally(() => process.exit(code ?? 0));
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
                (one-time sign-in link for ${DEV_ACCOUNT_ID}, valid 24 h; a new one on every start)
 Try it:
   curl -s -H "X-API-Key: ${apiKey}" \\
     "${base}/scrapers/grok?prompt=What%20are%20people%20saying%20about%20Starship%3F"
────────────────────────────────────────────────────────────────────────
`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
