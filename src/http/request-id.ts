/**
 * A request id on every response (`X-Request-Id`), in every error body (`request_id`) and in the lines the HTTP layer
 * logs, so a support ticket can name the one request it is about (docs/errors.md, "Request ids").
 *
 * - The caller's own `X-Request-Id` is kept when it is well-formed: 1 to 128 characters, each an ASCII letter, a digit
 *   or one of `.` `_` `:` `-`. That covers UUIDs, ULIDs, W3C trace ids and our own `req_…` ids (so a client may send
 *   back the id of an earlier response), and it can never break a log line or a header. Anything else (empty, too
 *   long, other characters) is replaced, not refused: a malformed id must not cost the caller their request.
 * - Otherwise the id is generated: `req_` and 16 random bytes in base64url (22 characters), unguessable and unique.
 *
 * The middleware is registered first, so every later middleware, route, `onError` and `notFound` can read the id, and
 * it sets the header after `await next()` on whatever response came back: routes, errors, 404s, 405s, 413s, the
 * dashboard, MCP, the docs and the status page alike, with nothing for a route to remember.
 */
import type { Context, MiddlewareHandler } from "hono";
import { randomToken } from "../util/crypto";
import { logLine, requestSubject } from "../util/log-line";
import type { AppEnv } from "./app-env";

export const REQUEST_ID_HEADER = "X-Request-Id";

const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Random bytes of a generated id: 128 bits, as many as a UUIDv4 carries (less its fixed bits). */
const GENERATED_ID_BYTES = 16;

export function isWellFormedRequestId(value: string): boolean {
  return WELL_FORMED_REQUEST_ID.test(value);
}

function generatedRequestId(): string {
  return `req_${randomToken(GENERATED_ID_BYTES)}`;
}

export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const offered = c.req.header(REQUEST_ID_HEADER);
  const id = offered !== undefined && isWellFormedRequestId(offered) ? offered : generatedRequestId();
  c.set("requestId", id);
  await next();
  c.header(REQUEST_ID_HEADER, id);
};

/**
 * A log line of this request: its id first, so one search finds every line of a request a customer reports. The id is
 * safe to log as is (well-formed or ours); the message must already be (a URL through `redactedUrl`, never a key).
 */
export function requestLogLine(c: Context<AppEnv>, message: string): string {
  return logLineOfRequest(c.get("requestId"), message);
}

/** The same, where the id travelled without the context (an MCP tool call). */
export function logLineOfRequest(requestId: string, message: string): string {
  return logLine(requestSubject(requestId), message);
}
