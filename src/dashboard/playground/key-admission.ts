/**
 * A playground run is a request made with one of the account's keys, picked by its id (the dashboard never holds a
 * key itself: only hashes are stored). It passes what the API's key middleware applies to a request with that key:
 * the key must be the account's and active, its last use is recorded, and the per-key and per-account rate limits
 * count it (src/limits/request-rate-limiter.ts, as for src/http/api-key-auth.ts).
 */
import { getApiKey } from "../../accounts/keys";
import type { AuthenticatedKey } from "../../auth/api-keys";
import { touchApiKey } from "../../auth/api-keys";
import { InvalidParameterError } from "../../errors";
import { admitRequestRate } from "../../limits/request-rate-limiter";
import type { LogSubject } from "../../util/log-line";

export const NO_SUCH_KEY_DETAIL =
  "key: choose one of your active API keys (this one does not exist, is another account's, or was revoked).";

export interface PickedKey extends AuthenticatedKey {
  name: string;
  displayPrefix: string;
}

/** What the key's last-use write needs of the request: to outlive the response. */
interface BackgroundWork {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * The account's active key with this id, admitted like a request that carries it; or a ServiceError with a safe detail.
 * `logSubject`: the playground request's, so a failure's line names it.
 */
export async function admitPickedKey(
  env: Env,
  ctx: BackgroundWork,
  accountId: string,
  keyId: string,
  logSubject: LogSubject,
): Promise<PickedKey> {
  const key = keyId === "" ? null : await getApiKey(env.DB, keyId);
  if (key === null || key.accountId !== accountId || key.revokedAt !== null) throw new InvalidParameterError(NO_SUCH_KEY_DETAIL);
  ctx.waitUntil(touchApiKey(env.DB, key.keyId, logSubject));
  await admitRequestRate(env, { keyId: key.keyId, accountId }, logSubject);
  return { keyId: key.keyId, accountId, name: key.name, displayPrefix: key.displayPrefix };
}
