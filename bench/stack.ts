/**
 * The benchmark's own local stack: `wrangler dev` on a free port (8870–8879) with its own state under
 * `.cache/bench-state/port-<api port>` (wiped at every start, so figures and pool counters begin from zero and no developer data is
 * touched or spent), the provider replicas in this process, D1 migrated, and a bench account with its own API key and
 * credits. Nothing here reads `.dev.vars` or `.local/`: the bench never uses the dev account or a running `npm start`.
 *
 * Every process it starts (wrangler, workerd, the Chromium that the local Browser Rendering launches) is stopped by
 * `stop()`, on normal exit, and on Ctrl-C / SIGTERM.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPLICA_PROVIDERS, replicaOriginOverride, startReplicaServer } from "../replicas/server";
import { originVariable } from "../scripts/local-origins";
import {
  applyMigrations,
  descendantsOf,
  firstFreePort,
  projectRoot,
  seedAccount,
  signalGroup,
  signalProcess,
  spawnWranglerDev,
  waitForApi,
} from "../scripts/local-stack";

export interface BenchStack {
  baseUrl: string;
  replicaUrl: string;
  adminToken: string;
  apiKey: string;
  accountId: string;
  stop(): Promise<void>;
}

/** What the bench runner reads beside the shared interface: the credits granted and the processes to measure. */
export interface LocalBenchStack extends BenchStack {
  initialCredits: number;
  /** PIDs of the Chromium processes this stack started (browser and renderers), read now from the process tree. */
  chromiumPids(): number[];
}

export interface BenchStackOptions {
  /** Worker variables for this stack only (e.g. higher per-account job limits), beside wrangler.toml's [vars]. */
  variables?: Record<string, string>;
  /** Credits of the bench account; the runner reports what it spent. */
  credits?: number;
  /** Show wrangler's own log (BENCH_VERBOSE=1). */
  verbose?: boolean;
  /** Each line wrangler prints (the Worker's console output included), e.g. to collect structured step timings. */
  onLogLine?: (line: string) => void;
  /**
   * Messages per queue batch of the bench's consumer (wrangler.toml has 1). Locally miniflare hands the consumer one
   * batch at a time, so this is how many jobs run at once locally; production runs `max_concurrency` batches at once.
   */
  consumerBatchSize?: number;
}

const PORT_RANGE = { from: 8870, to: 8879 } as const;
const STATE_DIR = join(projectRoot, ".cache", "bench-state");
const BENCH_ACCOUNT_ID = "acct_bench";
const DEFAULT_CREDITS = 100_000;

function dotenvLine(name: string, value: string): string {
  return `${name}=${JSON.stringify(value)}`;
}

/** Debian's Chromium stands in for miniflare's Chrome (scripts/setup-local-browser.sh), under the project's cache. */
function prepareLocalBrowser(cacheHome: string): void {
  const result = spawnSync("bash", [join(projectRoot, "scripts/setup-local-browser.sh")], {
    cwd: projectRoot,
    env: { ...process.env, XDG_CACHE_HOME: cacheHome },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) throw new Error("scripts/setup-local-browser.sh failed");
}

/**
 * wrangler.toml with the bench's consumer batch size, beside the state (paths made absolute, since wrangler resolves
 * them from the configuration file's folder). Everything else is the service's own configuration.
 */
function writeBenchConfig(stateDir: string, consumerBatchSize: number): string {
  const original = readFileSync(join(projectRoot, "wrangler.toml"), "utf8");
  const absolute = (_line: string, key: string, path: string): string => `${key} = ${JSON.stringify(join(projectRoot, path))}`;
  const adapted = original
    .replace(/^(main|migrations_dir|directory) = "(.+)"$/gm, absolute)
    // the [build] command runs in the configuration's folder unless told otherwise
    .replace(/^\[build\]$/m, `[build]\ncwd = ${JSON.stringify(projectRoot)}`)
    .replace(/^max_batch_size = \d+$/m, `max_batch_size = ${consumerBatchSize}`);
  const path = join(stateDir, "wrangler.bench.toml");
  writeFileSync(path, adapted);
  return path;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

export async function startBenchStack(options: BenchStackOptions = {}): Promise<LocalBenchStack> {
  const cacheHome = join(projectRoot, ".cache");
  prepareLocalBrowser(cacheHome);
  const apiPort = await firstFreePort(PORT_RANGE.from, PORT_RANGE.to);
  const replicaPort = await firstFreePort(PORT_RANGE.from, PORT_RANGE.to, new Set([apiPort]));
  const inspectorPort = await firstFreePort(PORT_RANGE.from, PORT_RANGE.to, new Set([apiPort, replicaPort]));
  // one folder per API port: two bench runs at once (different free ports) never share or wipe each other's state
  const stateDir = join(STATE_DIR, `port-${apiPort}`);
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });

  const apiKey = `sk_${randomBytes(32).toString("base64url")}`;
  const adminToken = `adm_${randomBytes(24).toString("base64url")}`;
  const credits = options.credits ?? DEFAULT_CREDITS;
  const persistTo = join(stateDir, "wrangler");
  const config = writeBenchConfig(stateDir, options.consumerBatchSize ?? 1);
  await applyMigrations({ persistTo, config });
  await seedAccount(
    { accountId: BENCH_ACCOUNT_ID, keyId: "key_bench", apiKey, name: "Benchmark", email: "bench@localhost", credits, keyName: "Bench key" },
    { persistTo, config },
  );

  const replicas = await startReplicaServer({ port: replicaPort });
  // The bench always drives the replicas: origins come from here, never from the environment (no LIVE, no overrides).
  const origins = REPLICA_PROVIDERS.map((provider) =>
    dotenvLine(originVariable(provider.id), replicaOriginOverride(provider, replicas.url)),
  );
  const envFile = join(stateDir, "bench.env");
  writeFileSync(
    envFile,
    [
      "# Written by bench/stack.ts for the benchmark's own stack.",
      dotenvLine("ADMIN_TOKEN", adminToken),
      dotenvLine("SESSION_SECRET", randomBytes(32).toString("base64url")),
      dotenvLine("PROVIDER_ACCOUNTS_KEY", randomBytes(32).toString("base64url")),
      ...origins,
      ...Object.entries(options.variables ?? {}).map(([name, value]) => dotenvLine(name, value)),
      "",
    ].join("\n"),
    { mode: 0o600 },
  );

  const dev = spawnWranglerDev({
    port: apiPort,
    inspectorPort,
    envFile,
    persistTo,
    config,
    stdio: options.verbose === true ? "inherit" : "pipe",
    environment: { ...process.env, XDG_CACHE_HOME: cacheHome },
  });
  if (options.onLogLine !== undefined && dev.stdout !== null) {
    const onLogLine = options.onLogLine;
    createInterface({ input: dev.stdout }).on("line", onLogLine);
    // stderr is read too (and dropped) so a chatty wrangler never blocks on a full pipe
    dev.stderr?.resume();
  } else {
    dev.stdout?.resume();
    dev.stderr?.resume();
  }
  let stopped: Promise<void> | undefined;
  const exited = new Promise<void>((resolveExit) => dev.once("exit", () => resolveExit()));

  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      // Chromium runs in its own process group: note the whole tree while it still hangs below wrangler.
      const tree = descendantsOf(dev.pid);
      signalGroup(dev, "SIGINT");
      const timeout = new Promise<void>((resolveTimeout) => setTimeout(resolveTimeout, 5_000).unref());
      await Promise.race([exited, timeout]);
      signalGroup(dev, "SIGKILL");
      for (const pid of [...tree, ...descendantsOf(dev.pid)]) signalProcess(pid, "SIGKILL");
      await replicas.close().catch(() => undefined);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      process.off("exit", onExit);
    })();
    return stopped;
  };
  const onSignal = (): void => {
    void stop().finally(() => process.exit(130));
  };
  // Last resort on an unexpected exit: synchronous kills only.
  const onExit = (): void => {
    for (const pid of descendantsOf(dev.pid)) signalProcess(pid, "SIGKILL");
    signalGroup(dev, "SIGKILL");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("exit", onExit);

  const baseUrl = `http://127.0.0.1:${apiPort}`;
  try {
    await Promise.race([
      waitForApi(`${baseUrl}/openapi.json`, 180_000),
      exited.then(() => {
        throw new Error("wrangler dev exited before the API came up (BENCH_VERBOSE=1 shows its log)");
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    baseUrl,
    replicaUrl: replicas.url,
    adminToken,
    apiKey,
    accountId: BENCH_ACCOUNT_ID,
    initialCredits: credits,
    chromiumPids: () => descendantsOf(dev.pid).filter((pid) => /chrom/i.test(commandOf(pid))),
    stop,
  };
}
