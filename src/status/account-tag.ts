/**
 * The status page counts how many distinct accounts saw a provider fail (src/status/status-levels.ts), yet the outcome
 * log must not say which account scraped what. So a traffic row carries an account tag: HMAC-SHA256 of the account id,
 * keyed with a secret the service already holds and D1 does not (SESSION_SECRET, else ADMIN_TOKEN), truncated to 64
 * bits. The same account gets the same tag on every isolate (so it counts once), two accounts practically never share
 * one (a collision among a million accounts has odds of about 1 in 37 million), and someone who can read D1 (the
 * accounts table included) cannot tell which account a tag belongs to without the secret.
 *
 * Without either secret (a bare local stack) the tag is the truncated SHA-256 of the id: still stable, still not the id,
 * but linkable by whoever holds the list of account ids. Rotating the secret re-tags accounts: within the hour that
 * follows, one account may count twice.
 */

/** A secret shorter than this is not used as a key (session.ts requires the same of SESSION_SECRET). */
const MIN_SECRET_LENGTH = 16;
/** 8 bytes: distinct enough to count accounts, too short to be worth a rainbow table of every possible account. */
const TAG_BYTES = 8;
/** Keeps this use of the secret apart from every other (cookies, CSRF tokens, flashes). */
const PURPOSE = "status-account-tag";

/** This isolate's imported key for the secret last used (secrets do not change while an isolate lives). */
let importedKey: { secret: string; key: Promise<CryptoKey> } | undefined;

function hmacKey(secret: string): Promise<CryptoKey> {
  if (importedKey?.secret !== secret) {
    const key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    importedKey = { secret, key };
  }
  return importedKey.key;
}

function tagSecret(env: Env): string | null {
  for (const secret of [env.SESSION_SECRET, env.ADMIN_TOKEN]) {
    if (typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH) return secret;
  }
  return null;
}

function hexPrefix(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes, 0, TAG_BYTES)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The account's tag in the outcome log: 16 hex digits, the same for the same account and secret. */
export async function accountTag(env: Env, accountId: string): Promise<string> {
  const message = new TextEncoder().encode(`${PURPOSE}:${accountId}`);
  const secret = tagSecret(env);
  const digest =
    secret === null ? await crypto.subtle.digest("SHA-256", message) : await crypto.subtle.sign("HMAC", await hmacKey(secret), message);
  return hexPrefix(digest);
}
