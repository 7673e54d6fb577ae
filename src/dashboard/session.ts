/**
 * Dashboard sessions and CSRF tokens, signed with SESSION_SECRET through Web Crypto HMAC-SHA256.
 *
 * - Session cookie `__Host-session` = `<session id>.<HMAC("session:" + id)>`: HttpOnly, Secure, SameSite=Lax, Path=/,
 *   no Domain (the `__Host-` prefix makes the browser enforce the last three, so a sibling subdomain cannot plant one).
 *   The signature rejects forged or altered cookies before any database read; the D1 row (see src/accounts/sign-in.ts)
 *   makes signing out, expiry and the operator's "end sessions" take effect at once.
 * - CSRF token of a signed-in form = HMAC("csrf:" + session id): bound to the session, nothing extra to store.
 * - The sign-in form has no session yet: its token is bound to a random nonce in a short-lived `__Host-login_nonce`
 *   cookie (signed double submit), so another site cannot sign a visitor into an account of its choosing.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { ServiceError } from "../errors";
import { base64UrlToBytes, bytesToBase64Url } from "../util/base64";
import { randomToken } from "../util/crypto";

const SESSION_COOKIE = "session";
const LOGIN_NONCE_COOKIE = "login_nonce";
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const LOGIN_NONCE_TTL_SECONDS = 30 * 60;
const MIN_SECRET_LENGTH = 16;

const DASHBOARD_NOT_CONFIGURED_DETAIL = "The dashboard is not configured on this deployment (SESSION_SECRET is not set).";

let cachedKey: { secret: string; key: CryptoKey } | undefined;

async function hmacKey(secret: string): Promise<CryptoKey> {
  if (cachedKey?.secret === secret) return cachedKey.key;
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
  cachedKey = { secret, key };
  return key;
}

export function sessionSecret(env: Env): string {
  const secret = env.SESSION_SECRET ?? "";
  if (secret.length < MIN_SECRET_LENGTH) throw new ServiceError(503, DASHBOARD_NOT_CONFIGURED_DETAIL, { code: "not_configured" });
  return secret;
}

export async function sign(secret: string, purpose: string, value: string): Promise<string> {
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(secret), new TextEncoder().encode(`${purpose}:${value}`));
  return bytesToBase64Url(new Uint8Array(signature));
}

/** `crypto.subtle.verify` compares in constant time. */
async function verify(secret: string, purpose: string, value: string, signature: string): Promise<boolean> {
  const bytes = base64UrlToBytes(signature, { urlAlphabetOnly: true });
  if (bytes === null) return false;
  return crypto.subtle.verify("HMAC", await hmacKey(secret), bytes, new TextEncoder().encode(`${purpose}:${value}`));
}

const cookieOptions = { path: "/", httpOnly: true, secure: true, sameSite: "Lax", prefix: "host" } as const;

export async function setSessionCookie(c: Context, secret: string, sessionId: string): Promise<void> {
  setCookie(c, SESSION_COOKIE, `${sessionId}.${await sign(secret, "session", sessionId)}`, {
    ...cookieOptions,
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

/** The session id of a correctly signed session cookie, or null. */
export async function readSessionCookie(c: Context, secret: string): Promise<string | null> {
  const value = getCookie(c, SESSION_COOKIE, "host");
  if (value === undefined) return null;
  const dot = value.lastIndexOf(".");
  if (dot <= 0) return null;
  const sessionId = value.slice(0, dot);
  return (await verify(secret, "session", sessionId, value.slice(dot + 1))) ? sessionId : null;
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, cookieOptions);
}

export function csrfTokenForSession(secret: string, sessionId: string): Promise<string> {
  return sign(secret, "csrf", sessionId);
}

export function verifySessionCsrf(secret: string, sessionId: string, token: string): Promise<boolean> {
  return verify(secret, "csrf", sessionId, token);
}

/** Starts a sign-in form: sets the nonce cookie and returns the token the form must send back. */
export async function issueLoginCsrf(c: Context, secret: string): Promise<string> {
  const nonce = randomToken(24);
  setCookie(c, LOGIN_NONCE_COOKIE, nonce, { ...cookieOptions, maxAge: LOGIN_NONCE_TTL_SECONDS });
  return sign(secret, "login-csrf", nonce);
}

export async function verifyLoginCsrf(c: Context, secret: string, token: string): Promise<boolean> {
  const nonce = getCookie(c, LOGIN_NONCE_COOKIE, "host");
  if (nonce === undefined || nonce === "") return false;
  return verify(secret, "login-csrf", nonce, token);
}

export function clearLoginNonceCookie(c: Context): void {
  deleteCookie(c, LOGIN_NONCE_COOKIE, cookieOptions);
}

/**
 * A second, independent CSRF check: a browser that says where a form came from (Origin, Sec-Fetch-Site) must say it
 * came from this origin. Older clients that send neither are still covered by the token.
 */
export function isSameOriginRequest(c: Context): boolean {
  const origin = c.req.header("Origin");
  if (origin !== undefined && origin !== "null" && origin !== new URL(c.req.url).origin) return false;
  if (origin === "null") return false;
  const site = c.req.header("Sec-Fetch-Site");
  return site === undefined || site === "same-origin" || site === "none";
}
