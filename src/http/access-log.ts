/**
 * One line per request the Worker answers, written when the response leaves: `[<request id>] GET /scrapers/grok ->
 * 200 (1071 ms)`. It is the line a support ticket's `X-Request-Id` is searched for first, and it names every request,
 * the successful ones included, which log nothing else. The path only: a query carries the customer's prompt (and may
 * carry `api_key`), so it is never written.
 *
 * On by default; `ACCESS_LOG=0` turns it off (the test levels do: thousands of requests, each line noise there). Read
 * like `SCRAPE_STEP_TIMINGS`, as an undeclared setting, so a deployment needs no variable to have it.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env";
import { redactedPath } from "./request-context";
import { requestLogLine } from "./request-id";

function accessLogEnabled(env: object): boolean {
  return Reflect.get(env, "ACCESS_LOG") !== "0";
}

export const accessLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const startedAt = Date.now();
  await next();
  if (!accessLogEnabled(c.env)) return;
  const line = `${c.req.method} ${redactedPath(c.req.url)} -> ${c.res.status} (${Date.now() - startedAt} ms)`;
  console.log(requestLogLine(c, line));
};
