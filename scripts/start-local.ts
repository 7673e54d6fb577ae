/**
 * `npm start`: the whole service on this machine. Local D1 (migrated), KV, Queues and Durable Objects under
 * `wrangler dev`, real Chromium through the Browser Rendering binding, the provider replicas, and a seeded dev
 * account with 1,500 credits whose API key is printed and written to `.local/dev-api-key`, with a one-time
 * dashboard sign-in link for it.
 *
 * Live mode (docs/real-sites.md): `LIVE=1 npm start` runs the same stack against the real sites (no origin overrides);
 * `PROVIDER_ORIGIN_<ID>=<url>` overrides one provider in either mode (scripts/local-origins.ts).
 *
 * Output: the launcher's own progress, then the banner; wrangler's start-up chatter (its banner, the bindings table) is
 * shown only with `npm start -- --verbose` or `VERBOSE=1 npm start` (scripts/dev-output.ts). The Cron Triggers of
 * wrangler.toml are fired by the launcher on their schedule (scripts/local-cron.ts), since `wrangler dev` does not.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startReplicaServer, REPLICA_PROVIDERS, replicaOriginOverride } from "../replicas/server";
import { cronsOf } from "./cron-schedule";
import { devOutputFilter, LOCAL_SCHEDULED_PATH } from "./dev-output";
import { localCronNotice, planLocalCron, startLocalCron } from "./local-cron";
import { localOrigins } from "./local-origins";
import { DEV_ACCOUNT_ID, issueSignInLink, signInLinkNote } from "./local-sign-in-link";
import {
  applyMigrations,
  descendantsOf,
  isPortFree,
  projectRoot,
  seedAccount,
  signalGroup,
  signalProcess,
  spawnWranglerDev,
  waitForApi,
} from "./local-stack";
import { recoverJobsAfterStart } from "./recover-jobs";
import { step } from "./start-progress";

const root = projectRoot;
const localDir = join(root, ".local");
const API_PORT = Number(process.env.PORT ?? 8787);
const REPLICA_PORT = Number(process.env.REPLICA_PORT ?? 8788);
const DEV_KEY_ID = "key_dev";
const SIGN_UP_CREDITS = 1500;
const VERBOSE = process.argv.includes("--verbose") || process.env.VERBOSE === "1";
/** Soon enough that the status page fills while the newcomer reads the banner, late enough not to slow the start. */
const FIRST_CRON_ROUND_AFTER_MS = 30_000;
/** How often the process tree below wrangler is noted again while it stops (see `stop`). */
const TREE_WATCH_MS = 250;

function readOrCreate(file: string, create: () => string): string {
  const path = join(localDir, file);
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  const value = create();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return value;
}

/** Fails early, with the variable to change, when a port is taken (instead of a raw EADDRINUSE trace later). */
async function requireFreePort(port: number, variable: string): Promise<void> {
  if (!(await isPortFree(port))) {
    console.error(`Port ${port} is already in use (another npm start?). Stop it, or choose another port: ${variable}=<port> npm start`);
    process.exit(1);
  }
}

/** The banner's two lines about a one-time dashboard sign-in link for the dev account, or why there is none. */
async function dashboardLoginLink(base: string, adminToken: string): Promise<{ url: string; note: string }> {
  const another = "another one: npm run sign-in-link";
  try {
    const link = await issueSignInLink(base, adminToken, DEV_ACCOUNT_ID);
    return { url: link.loginUrl, note: `(${signInLinkNote(DEV_ACCOUNT_ID, link)}; ${another})` };
  } catch (error) {
    return { url: `(could not issue a sign-in link: ${error instanceof Error ? error.message : String(error)})`, note: `(${another})` };
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

  await step("Applying D1 migrations and seeding the dev account (local D1)", async () => {
    await applyMigrations();
    await seedAccount({
      accountId: DEV_ACCOUNT_ID,
      keyId: DEV_KEY_ID,
      apiKey,
      name: "Local developer",
      email: "dev@localhost",
      credits: SIGN_UP_CREDITS,
      keyName: "Local dev key",
      // The developer's own key on their own machine: docs/async-jobs.md sets the local webhook with it.
      keyScope: "manage",
    });
  });

  const replicas = await step("Starting the provider replicas", () => startReplicaServer({ port: REPLICA_PORT }));
  console.log(`Provider replicas at ${replicas.url}`);

  const base = `http://127.0.0.1:${API_PORT}`;
  const cronPlan = planLocalCron(cronsOf(readFileSync(join(root, "wrangler.toml"), "utf8")));
  const cronNotice = localCronNotice(cronPlan, FIRST_CRON_ROUND_AFTER_MS / 1000, `${base}${LOCAL_SCHEDULED_PATH}`);
  // Attempts that began before this moment died with the previous stack (docs/reliability.md).
  const stackStartedAt = Date.now();
  // Its own process group: stopping it stops workerd and the Chromium processes it launched, nothing else.
  const dev = spawnWranglerDev({ port: API_PORT, stdio: "pipe" });
  const stdoutFilter = devOutputFilter({ verbose: VERBOSE, scheduledNotice: cronNotice });
  const stderrFilter = devOutputFilter({ verbose: VERBOSE, scheduledNotice: cronNotice });
  dev.stdout?.pipe(stdoutFilter.stream).pipe(process.stdout);
  dev.stderr?.pipe(stderrFilter.stream).pipe(process.stderr);
  let stopCron = (): void => undefined;
  let stopping = false;
  /**
   * Every process seen below wrangler since stopping began: once wrangler exits they are orphans, found only through
   * this. Chromium is started detached (its own process group) by the local Browser Rendering emulation, and the pool
   * may still launch one while wrangler shuts down, so the tree is noted again every few hundred milliseconds until
   * wrangler has exited, not once.
   */
  const tree = new Set<number>();
  const noteTree = (): void => {
    for (const pid of descendantsOf(dev.pid)) tree.add(pid);
  };
  let treeWatch: NodeJS.Timeout | undefined;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping the local stack…");
    stopCron();
    noteTree();
    treeWatch = setInterval(noteTree, TREE_WATCH_MS);
    treeWatch.unref();
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
    clearInterval(treeWatch);
    noteTree();
    signalGroup(dev, "SIGKILL");
    for (const pid of tree) signalProcess(pid, "SIGKILL");
    void replicas
      .close()
      .catch(() => undefined)
      .finally(() => process.exit(stopping ? 0 : (code ?? 0)));
  });

  const sites =
    origins.realSites.length === 0
      ? "the replicas"
      : origins.realSites.length === REPLICA_PROVIDERS.length
        ? "LIVE: the real sites"
        : `LIVE for ${origins.realSites.join(", ")}; the others on their replicas or overrides`;
  await step("Starting wrangler dev (workerd with local D1, KV, Queues, Durable Objects, Browser Rendering)", () =>
    waitForApi(`${base}/openapi.json`, 120_000),
  );
  // The local queue does not survive a stop: jobs left pending by the previous run get a new message now.
  try {
    const recovered = await recoverJobsAfterStart(base, adminToken, stackStartedAt);
    if (recovered.requeued > 0) console.log(`Recovered ${recovered.requeued} pending jobs of the previous run.`);
  } catch (error) {
    console.warn(`Could not recover pending jobs: ${String(error)}`);
  }
  const signInLink = await dashboardLoginLink(base, adminToken);
  console.log(`
────────────────────────────────────────────────────────────────────────
 API            ${base}        (docs: ${base}/docs)
 Dev API key    ${apiKey}
                (also in .local/dev-api-key; account ${DEV_ACCOUNT_ID})
 Admin token    ${adminToken}
                (also in .local/admin-token)
 Scrapers drive ${sites}
 Dashboard      ${signInLink.url}
                ${signInLink.note}
 Try it:
   curl -s -H "X-API-Key: ${apiKey}" \\
     "${base}/scrapers/grok?prompt=What%20are%20people%20saying%20about%20Starship%3F"
────────────────────────────────────────────────────────────────────────
`);
  // From here on, requests in the log are the user's. wrangler logs a request a moment after answering it, so the
  // launcher's own last start-up requests (the sign-in link) are still hidden for a second.
  setTimeout(() => {
    stdoutFilter.started();
    stderrFilter.started();
  }, 1_000).unref();
  if (!stopping) stopCron = startLocalCron({ base, plan: cronPlan, firstRoundAfterMs: FIRST_CRON_ROUND_AFTER_MS, verbose: VERBOSE });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
