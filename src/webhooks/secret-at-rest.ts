/**
 * Webhook signing secrets encrypted at rest. The service must keep the secret itself (it computes HMACs with it, unlike
 * API keys, which it only verifies), so it is sealed with the service's at-rest cipher (AES-256-GCM, see
 * ../provider-accounts/session-cipher.ts) under a key derived from the same `PROVIDER_ACCOUNTS_KEY` secret for this
 * purpose alone, with the account id as additional data: a ciphertext copied into another account's row does not open.
 * A database dump alone then reveals no secret.
 *
 * Without that key (a deployment that never set it) secrets are stored in the clear as before, so webhooks keep
 * working; rows stored in the clear are sealed the first time they are read once the key is set.
 */
import { ServiceError } from "../errors";
import { PROVIDER_ACCOUNTS_KEY, SessionCipher, providerAccountsSecret } from "../provider-accounts/session-cipher";

/** A secret as stored: `iv` null means `secret` is the clear text. */
interface StoredSecret {
  secret: string;
  iv: string | null;
}

/** 503: a sealed secret does not open with this deployment's key (it was changed or removed). Rotating recovers. */
export class WebhookSecretUnreadableError extends ServiceError {
  constructor(cause: unknown) {
    super(
      503,
      "The webhook signing secret cannot be decrypted with this deployment's key. Rotate the secret (POST …/webhook/rotate-secret or the dashboard) to get a new one.",
      { code: "not_configured", cause },
    );
  }
}

/** Derived ciphers of this isolate by secret: the derivation gives the same key each time. */
const ciphers = new Map<string, Promise<SessionCipher>>();

/** The cipher of webhook secrets, or null when the deployment has no PROVIDER_ACCOUNTS_KEY. */
function webhookSecretCipher(env: Env): Promise<SessionCipher> | null {
  const key = providerAccountsSecret(env);
  if (key === null) return null;
  let cipher = ciphers.get(key);
  if (cipher === undefined) {
    // A purpose suffix keeps this key apart from the provider sessions' key derived from the same secret.
    cipher = SessionCipher.fromSecret(`${key}/webhook-signing-secrets`);
    // a rotated secret replaces the old key rather than accumulating
    ciphers.clear();
    ciphers.set(key, cipher);
  }
  return cipher;
}

const associatedData = (accountId: string) => `webhook-secret:${accountId}`;

/** The secret as it is to be stored for `accountId`: sealed when the deployment has the key. */
export async function sealWebhookSecret(env: Env, accountId: string, secret: string): Promise<StoredSecret> {
  const cipher = webhookSecretCipher(env);
  if (cipher === null) return { secret, iv: null };
  const sealed = await (await cipher).seal(secret, associatedData(accountId));
  return { secret: sealed.ciphertext, iv: sealed.iv };
}

/** The clear secret of a stored one. Throws WebhookSecretUnreadableError when it is sealed and does not open. */
export async function openWebhookSecret(env: Env, accountId: string, stored: StoredSecret): Promise<string> {
  if (stored.iv === null) return stored.secret;
  const cipher = webhookSecretCipher(env);
  if (cipher === null) throw new WebhookSecretUnreadableError(new Error(`${PROVIDER_ACCOUNTS_KEY} is not set`));
  try {
    return await (await cipher).open({ ciphertext: stored.secret, iv: stored.iv }, associatedData(accountId));
  } catch (error) {
    throw new WebhookSecretUnreadableError(error);
  }
}
