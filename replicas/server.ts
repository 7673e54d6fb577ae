/**
 * One local HTTP server hosting every provider replica under its own path prefix (DESIGN.md §6), plus the shared
 * fault-control API (`/__control/*`, see control.ts) and `GET /__health`.
 *
 *   tsx replicas/server.ts            # listens on 127.0.0.1:$REPLICA_PORT (default 8788)
 *   tsx replicas/server.ts --variation 42 [--variation-classes hydration,interruptions]
 *                                     # every page load of every provider a seeded variant (shared/variation.ts)
 *   PROVIDER_ORIGIN_GROK=http://127.0.0.1:8788/grok
 *
 * Adding a provider: write `replicas/<provider>/index.ts` exporting a ReplicaProvider whose app's routes are the real
 * site's paths (below its mount path), then add it to REPLICA_PROVIDERS.
 */
import { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createControlApp, FaultController } from "./control";
import { amazonRufusReplica } from "./amazon_rufus";
import { chatgptReplica } from "./chatgpt";
import { copilotReplica } from "./copilot";
import { geminiReplica } from "./gemini";
import { googleAiModeReplica } from "./google_ai_mode";
import { grokReplica } from "./grok";
import { perplexityReplica } from "./perplexity";
import { attachCaptureLabSocket, CAPTURE_LAB_PATH, createCaptureLabApp } from "./capture-lab";
import type { ReplicaProvider } from "./shared/replica-provider";
import type { ReplicaEnv } from "./shared/replica-env";
import { type VariationSetting, variationFromArgs } from "./shared/variation";

export type { ReplicaProvider };

export const REPLICA_PROVIDERS: readonly ReplicaProvider[] = [
  chatgptReplica,
  perplexityReplica,
  grokReplica,
  copilotReplica,
  geminiReplica,
  googleAiModeReplica,
  amazonRufusReplica,
];

/** The origin override (`PROVIDER_ORIGIN_<ID>`) that points a provider's scraper at its replica on `baseUrl`. */
export function replicaOriginOverride(provider: ReplicaProvider, baseUrl: string): string {
  return `${baseUrl}${provider.mountPath}${provider.originSuffix ?? ""}`;
}

/** The whole replica app: control routes, health, and every provider under its prefix. */
export function createReplicaApp(controller: FaultController = new FaultController()): Hono<ReplicaEnv> {
  // Non-strict routing so "/grok" reaches the provider's home route, which redirects it to "/grok/".
  const app = new Hono<ReplicaEnv>({ strict: false });
  app.get("/__health", (c) => c.json({ ok: true, providers: controller.providerIds() }));
  app.route("/__control", createControlApp(controller));
  // A page asset that takes `ms` to arrive: a fuzzed page holds its load event back with it (hydration class).
  app.get("/__variation/slow-asset", async (c) => {
    const ms = Math.min(10_000, Math.max(0, Number(c.req.query("ms") ?? 0) || 0));
    await new Promise((resolve) => setTimeout(resolve, ms));
    return c.body(ONE_PIXEL_GIF, 200, { "content-type": "image/gif", "cache-control": "no-store" });
  });
  // The capture layer's test bench (test/e2e/capture.test.ts), not a provider.
  app.route(CAPTURE_LAB_PATH, createCaptureLabApp());
  for (const provider of REPLICA_PROVIDERS) {
    controller.registerProvider(provider.id, provider.layouts);
    app.route(provider.mountPath, provider.createApp(controller));
  }
  app.notFound((c) => c.text("Not Found", 404));
  app.onError((error, c) => {
    console.error("replica error", error);
    return c.text("Internal Server Error", 500);
  });
  return app;
}

const ONE_PIXEL_GIF = Uint8Array.from(atob("R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw=="), (char) => char.charCodeAt(0));

export interface ReplicaServerOptions {
  /** Page fuzzing every provider starts with (`--variation <seed>`); null or absent = none. */
  variation?: VariationSetting | null;
  /** 0 picks a free port. Default 8788. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface RunningReplicaServer {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:8788. */
  url: string;
  port: number;
  /** The fault controller, for in-process callers that prefer it to the HTTP control API. */
  controller: FaultController;
  /** Stops listening and cuts open connections (hanging and streaming exchanges included). */
  close(): Promise<void>;
}

export const DEFAULT_REPLICA_PORT = 8788;

export function startReplicaServer(options: ReplicaServerOptions = {}): Promise<RunningReplicaServer> {
  const host = options.host ?? "127.0.0.1";
  const controller = new FaultController(options.variation ?? null);
  const app = createReplicaApp(controller);
  const upgraded = new Set<Duplex>();
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port ?? DEFAULT_REPLICA_PORT, hostname: host }, (info: AddressInfo) => {
      server.off("error", reject);
      if (server instanceof Server) {
        // Upgraded (WebSocket) connections are not closed by closeAllConnections(): track them so close() can end them.
        server.on("upgrade", (_request, socket: Duplex) => {
          upgraded.add(socket);
          socket.once("close", () => upgraded.delete(socket));
        });
        attachCaptureLabSocket(server);
        for (const provider of REPLICA_PROVIDERS) provider.attachToServer?.(server, controller);
      }
      const urlHost = host.includes(":") ? `[${host}]` : host;
      resolve({
        url: `http://${urlHost}:${info.port}`,
        port: info.port,
        controller,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            // Streams and `hang` exchanges would keep close() waiting forever; cut them.
            if (server instanceof Server) server.closeAllConnections();
            for (const socket of upgraded) socket.destroy();
          }),
      });
    });
    server.once("error", reject);
  });
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const port = Number(process.env.REPLICA_PORT ?? DEFAULT_REPLICA_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`REPLICA_PORT must be a port number, got ${process.env.REPLICA_PORT ?? ""}`);
    process.exit(1);
  }
  let variation: VariationSetting | null;
  try {
    variation = variationFromArgs(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  const running = await startReplicaServer({ port, host: process.env.REPLICA_HOST ?? "127.0.0.1", variation });
  console.log(`replicas listening on ${running.url}`);
  if (variation !== null) console.log(`  page fuzzing: seed ${variation.seed}, classes ${variation.classes.join(", ")}`);
  for (const provider of REPLICA_PROVIDERS) console.log(`  ${provider.id}: ${replicaOriginOverride(provider, running.url)}`);
  const stop = (): void => {
    void running.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
