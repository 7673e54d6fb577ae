/**
 * A playground run is a request made with one of the account's keys, picked by its id (the dashboard never holds a
 * key itself: only hashes are stored). It passes what the API's key middleware applies to a request with that key:
 * the key must be the account's and active, its last use is recorded, and the per-key and per-account rate limits
 * count it (src/http/api-key-auth.ts, whose details it reuses).
 */
import { getApiKey } from "../../accounts/keys";
import type { AuthenticatedKey } from "../../auth/api-keys";
import { touchApiKey } from "../../auth/api-keys";
import { InvalidParameterError, TooManyRequestsError } from "../../errors";
import { ACCOUNT_RATE_LIMIT_DETAIL, RATE_LIMIT_DETAIL } from "../../http/api-key-auth";

/** As the API's middleware: the limiter's windows are at most 60 s, so a retry after this meets a fresh one. */
const RETRY_AFTER_SECONDS = 10;

export const NO_SUCH_KEY_DETAIL =
  "key: choose one of your active API keys (this one does not exist, is another account's, or was revoked).";

export interface PickedKey extends AuthenticatedKey {
  name: string;
  displayPrefix: string;
}

/** The account's active key with this id, admitted like a request that carries it; or a ServiceError with a safe detail. */
/** What the key's last-use write needs of the request: to outlive the response. */
export interface BackgroundWork {
  waitUntil(promise: Promise<unknown>): void;
}

export async function admitPickedKey(env: Env, ctx: BackgroundWork, accountId: string, keyId: string): Promise<PickedKey> {
  const key = keyId === "" ? null : await getApiKey(env.DB, keyId);
  if (key === null || key.accountId !== accountId || key.revokedAt !== null) throw new InvalidParameterError(NO_SUCH_KEY_DETAIL);
  ctx.waitUntil(touchApiKey(env.DB, key.keyId));
  if (!(await env.KEY_RATE_LIMITER.limit({ key: key.keyId })).success)
    throw new TooManyRequestsError(RATE_LIMIT_DETAIL, RETRY_AFTER_SECONDS);
  if (!(await env.ACCOUNT_RATE_LIMITER.limit({ key: accountId })).success) {
    throw new TooManyRequestsError(ACCOUNT_RATE_LIMIT_DETAIL, RETRY_AFTER_SECONDS);
  }
  return { keyId: key.keyId, accountId, name: key.name, displayPrefix: key.displayPrefix };
}
