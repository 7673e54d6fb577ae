import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";

/**
 * Hono environment of every replica sub-app. Under `@hono/node-server` the Node request/response objects are the
 * bindings; they are `Partial` because an app driven in-process (`app.request(...)` in a test) has none.
 */
export interface ReplicaEnv {
  Bindings: Partial<HttpBindings>;
}

/**
 * Tears down the TCP connection under the current request, so the client sees a transfer that breaks off instead of
 * a clean end of body. Returns false when there is no socket to destroy (in-process requests).
 */
export function destroyConnection(c: Context<ReplicaEnv>): boolean {
  // `c.env` is undefined at runtime for in-process requests despite its declared type.
  const env: Partial<HttpBindings> | undefined = c.env;
  const socket = env?.incoming?.socket;
  if (socket === undefined || socket.destroyed) return false;
  socket.destroy();
  return true;
}
