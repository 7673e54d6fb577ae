/**
 * Starts the provider replicas for the Workers-runtime tests (the Worker reaches them only through Chromium), as their
 * own Node process: the replicas are a Node app (Copilot's WebSocket uses `ws`), and this project's Vite resolves
 * packages for workerd, which is not where the replicas run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { REPLICA_PROVIDERS, replicaOriginOverride } from "../../replicas/server";

declare module "vitest" {
  interface ProvidedContext {
    replicaUrl: string;
    replicaOrigins: Record<string, string>;
  }
}

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const STARTUP_TIMEOUT_MS = 30_000;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const child = spawn(process.execPath, ["--import", "tsx", "replicas/server.ts"], {
    cwd: ROOT,
    env: { ...process.env, REPLICA_PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await listeningUrl(child);
  project.provide("replicaUrl", url);
  project.provide(
    "replicaOrigins",
    Object.fromEntries(
      REPLICA_PROVIDERS.map((provider) => [`PROVIDER_ORIGIN_${provider.id.toUpperCase()}`, replicaOriginOverride(provider, url)]),
    ),
  );
  return async () => {
    if (child.exitCode !== null) return;
    child.kill("SIGTERM");
    await once(child, "exit");
  };
}

/** The replica server prints "replicas listening on <url>" once it listens. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => reject(new Error(`replicas did not start within ${STARTUP_TIMEOUT_MS} ms:\n${output}`)),
      STARTUP_TIMEOUT_MS,
    );
    child.once("exit", (code) => reject(new Error(`replicas exited (${code}) before listening:\n${output}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /replicas listening on (\S+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
}
