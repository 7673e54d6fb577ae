/**
 * The real stack for the dashboard's browser test: the provider replicas in Node, and the Worker under `wrangler dev`
 * on free ports with its own migrated local state in a temporary folder (nothing shared with `npm start` or other
 * test runs). Secrets are passed with --var, so no .dev.vars is needed.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { startReplicaServer, REPLICA_PROVIDERS, replicaOriginOverride } from "../../replicas/server";

declare module "vitest" {
  interface ProvidedContext {
    dashboardBaseUrl: string;
    dashboardAdminToken: string;
  }
}

const root = resolve(import.meta.dirname, "../..");
const wranglerBin = join(root, "node_modules", "wrangler", "bin", "wrangler.js");
const STARTUP_TIMEOUT_MS = 90_000;

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

function wranglerEnv(): NodeJS.ProcessEnv {
  // The project's cache folder holds the Chromium shim that local Browser Rendering launches (DESIGN.md §1).
  return { ...process.env, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? join(root, ".cache"), WRANGLER_SEND_METRICS: "false", CI: "1" };
}

async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 300));
  }
  throw new Error(`wrangler dev did not answer at ${url} within ${STARTUP_TIMEOUT_MS} ms:\n${output()}`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stateDir = mkdtempSync(join(tmpdir(), "dashboard-e2e-"));
  const adminToken = `adm_${randomBytes(24).toString("base64url")}`;
  const sessionSecret = randomBytes(32).toString("base64url");

  const migrate = spawnSync(process.execPath, [wranglerBin, "d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], {
    cwd: root,
    env: wranglerEnv(),
    encoding: "utf8",
  });
  if (migrate.status !== 0) throw new Error(`migrations failed:\n${migrate.stdout}${migrate.stderr}`);

  const replicas = await startReplicaServer({ port: 0 });
  const [port, inspectorPort] = [await freePort(), await freePort()];
  let log = "";
  const child = spawn(
    process.execPath,
    [
      wranglerBin,
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      stateDir,
      "--show-interactive-dev-session=false",
      "--var",
      `ADMIN_TOKEN:${adminToken}`,
      "--var",
      `SESSION_SECRET:${sessionSecret}`,
      ...REPLICA_PROVIDERS.flatMap((provider) => [
        "--var",
        `PROVIDER_ORIGIN_${provider.id.toUpperCase()}:${replicaOriginOverride(provider, replicas.url)}`,
      ]),
    ],
    // Its own process group, so the teardown can stop wrangler and the workerd it started, and nothing else.
    { cwd: root, env: wranglerEnv(), stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);

  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((resolveWait) => setTimeout(resolveWait, 5_000))]);
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    await replicas.close();
    rmSync(stateDir, { recursive: true, force: true });
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(`${baseUrl}/openapi.json`, child, () => log);
  } catch (error) {
    await stop();
    throw error;
  }
  project.provide("dashboardBaseUrl", baseUrl);
  project.provide("dashboardAdminToken", adminToken);
  // The replicas' fault control, for the status page test (test/browser/status-page.test.ts).
  project.provide("replicaUrl", replicas.url);
  return stop;
}
