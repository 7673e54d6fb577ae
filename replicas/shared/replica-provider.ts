import type { Server } from "node:http";
import type { Hono } from "hono";
import type { FaultController } from "../control";
import type { ReplicaEnv } from "./replica-env";

/** A mounted provider replica: its id in the control API, its path prefix, its layouts and its app factory. */
export interface ReplicaProvider {
  /** The scraper id (`grok`, `amazon_rufus`, …); also the provider name in the control API. */
  id: string;
  /** Path prefix the real site's paths hang below, e.g. "/grok". */
  mountPath: string;
  /**
   * Appended to `http://host:port<mountPath>` to make the scraper's origin override; Amazon's is "/{domain}" (a
   * template the scraper fills with the marketplace domain). Default: nothing.
   */
  originSuffix?: string;
  /** Markup variants the pages can be served in (at least two, sheet-legal); the first is the default. */
  layouts: readonly string[];
  createApp: (controller: FaultController) => Hono<ReplicaEnv>;
  /**
   * Called once the replica server listens, for what a Hono app cannot serve by itself (Copilot's WebSocket upgrade).
   * `mountPath` is this provider's prefix on that server.
   */
  attachToServer?: (server: Server, controller: FaultController) => void;
}
