/**
 * The operator API's bearer token (`ADMIN_TOKEN` secret), in this order:
 * 1. configured: unset, or shorter than ADMIN_TOKEN_MIN_LENGTH, disables the operator API (503 `not_configured`, and
 *    a log line): a short token is guessable, and refusing it at every request makes the misconfiguration visible
 *    rather than leaving a weak door open;
 * 2. not throttled: a client address with too many failures a minute gets a 429 before its token is compared
 *    (src/auth/admin-attempts.ts);
 * 3. compared in constant time (both sides hashed, src/util/crypto.ts); a wrong token is a 401 counted as a failure
 *    (a missing one is a 401 too, but guesses nothing and is not counted);
 * 4. then the route's body cap (src/http/body-limit.ts), before any validator reads the body.
 */
import type { MiddlewareHandler } from "hono";
import { ADMIN_FAILURES_PER_MINUTE, FailedAttempts, clientOfAddress } from "../auth/admin-attempts";
import { ServiceError, TooManyRequestsError, UnauthorizedError } from "../errors";
import { timingSafeEqualText } from "../util/crypto";
import type { AppEnv } from "./app-env";
import { requestLogLine } from "./request-id";
import { enforceBodyCap } from "./body-limit";

export const ADMIN_UNAUTHORIZED_DETAIL = "Missing or invalid admin token. Send it as Authorization: Bearer <ADMIN_TOKEN>.";
/** 32 random base64url characters are 192 bits; `npm start` generates 36. */
const ADMIN_TOKEN_MIN_LENGTH = 32;
const ADMIN_NOT_CONFIGURED_DETAIL =
  `The operator API is disabled on this deployment: ADMIN_TOKEN is unset or shorter than ${ADMIN_TOKEN_MIN_LENGTH} characters. ` +
  "Set a long random one (for example `openssl rand -base64 33`).";
const ADMIN_THROTTLED_DETAIL = "Too many failed admin token attempts from this address. Retry after the time in Retry-After.";

const failedAttempts = new FailedAttempts(ADMIN_FAILURES_PER_MINUTE);
/** The misconfiguration is logged once per isolate, not at every request. */
let misconfigurationLogged = false;

function isUsableAdminToken(token: string | undefined): token is string {
  return token !== undefined && token.length >= ADMIN_TOKEN_MIN_LENGTH;
}

function presentedToken(authorization: string | undefined): string {
  const header = authorization ?? "";
  return header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
}

export const requireAdminToken: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!isUsableAdminToken(expected)) {
    if (!misconfigurationLogged) {
      misconfigurationLogged = true;
      console.error(
        requestLogLine(c, `ADMIN_TOKEN is unset or shorter than ${ADMIN_TOKEN_MIN_LENGTH} characters: the operator API is disabled.`),
      );
    }
    throw new ServiceError(503, ADMIN_NOT_CONFIGURED_DETAIL, { code: "not_configured" });
  }
  // Cloudflare sets it on every request; a self-hosted runtime without it throttles its clients together.
  const client = clientOfAddress(c.req.header("CF-Connecting-IP") ?? "unknown");
  const waitMs = failedAttempts.retryAfterMs(client, Date.now());
  if (waitMs > 0) throw new TooManyRequestsError(ADMIN_THROTTLED_DETAIL, Math.max(1, Math.ceil(waitMs / 1000)), "rate_limited");
  const presented = presentedToken(c.req.header("Authorization"));
  if (presented === "" || !(await timingSafeEqualText(presented, expected))) {
    // A request without a token guesses nothing (a crawler, a forgotten header): only presented tokens are counted.
    if (presented !== "") failedAttempts.recordFailure(client, Date.now());
    throw new UnauthorizedError(ADMIN_UNAUTHORIZED_DETAIL, "invalid_admin_token");
  }
  await enforceBodyCap(c, "operator");
  await next();
};
