/**
 * The "your new key" page as post-redirect-get: `POST /dashboard/keys` creates the key, puts it in a one-time flash and
 * redirects (303) to `GET /dashboard/keys`, which shows it once and clears the flash. Reloading that page creates no
 * second key (the browser repeats the GET, not the POST) and no longer shows the key (the flash is gone).
 *
 * The flash is a short-lived cookie, so it is as consistent as the browser itself (a KV flash could be read back after
 * its deletion). The key never sits in it in the clear: it is AES-GCM-sealed with a key derived from SESSION_SECRET and
 * bound to the session id, so it opens only for the session that created it, and never appears in a URL or a log.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { SessionCipher } from "../provider-accounts/session-cipher";

const FLASH_COOKIE = "new_key";
/** Long enough for the redirect to be followed on a slow connection, short enough not to linger if it is not. */
const FLASH_TTL_SECONDS = 120;
const cookieOptions = { path: "/", httpOnly: true, secure: true, sameSite: "Lax", prefix: "host" } as const;

/** Derived ciphers of this isolate by secret: the derivation gives the same key each time. */
const ciphers = new Map<string, Promise<SessionCipher>>();

function cipherFor(secret: string): Promise<SessionCipher> {
  let cipher = ciphers.get(secret);
  if (cipher === undefined) {
    // A purpose suffix keeps this key apart from any other use of the same secret.
    cipher = SessionCipher.fromSecret(`${secret}/dashboard-new-key-flash`);
    ciphers.set(secret, cipher);
  }
  return cipher;
}

const associatedData = (sessionId: string) => `new-key:${sessionId}`;

interface NewKeyFlash {
  keyId: string;
  apiKey: string;
}

function isNewKeyFlash(value: unknown): value is NewKeyFlash {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof Reflect.get(value, "keyId") === "string" &&
    typeof Reflect.get(value, "apiKey") === "string"
  );
}

export async function setNewKeyFlash(c: Context, secret: string, sessionId: string, flash: NewKeyFlash): Promise<void> {
  const sealed = await (await cipherFor(secret)).seal(JSON.stringify(flash), associatedData(sessionId));
  setCookie(c, FLASH_COOKIE, `${sealed.iv}.${sealed.ciphertext}`, { ...cookieOptions, maxAge: FLASH_TTL_SECONDS });
}

/**
 * The flash of this session, read once: the cookie is cleared whatever it holds. Null when there is none, or when it
 * was sealed for another session or altered.
 */
export async function takeNewKeyFlash(c: Context, secret: string, sessionId: string): Promise<NewKeyFlash | null> {
  const value = getCookie(c, FLASH_COOKIE, "host");
  if (value === undefined) return null;
  deleteCookie(c, FLASH_COOKIE, cookieOptions);
  const [iv = "", ciphertext = ""] = value.split(".");
  try {
    const parsed: unknown = JSON.parse(await (await cipherFor(secret)).open({ iv, ciphertext }, associatedData(sessionId)));
    return isNewKeyFlash(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
