/** The operator API's bearer token (`ADMIN_TOKEN` secret), compared in constant time. */
import type { MiddlewareHandler } from "hono";
import { UnauthorizedError } from "../errors";
import type { AppEnv } from "../http/app-env";
import { timingSafeEqualText } from "../util/crypto";

export const ADMIN_UNAUTHORIZED_DETAIL = "Missing or invalid admin token. Send it as Authorization: Bearer <ADMIN_TOKEN>.";

export const requireAdminToken: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN ?? "";
  const header = c.req.header("Authorization") ?? "";
  const presented = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
  // An unset token disables the operator API rather than accepting an empty one.
  if (expected === "" || presented === "" || !(await timingSafeEqualText(presented, expected))) {
    throw new UnauthorizedError(ADMIN_UNAUTHORIZED_DETAIL, "invalid_admin_token");
  }
  await next();
};
