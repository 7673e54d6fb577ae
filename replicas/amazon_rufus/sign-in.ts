/**
 * Signed-in sessions of the Rufus replica (amazon_rufus.md §1: Rufus answers reliably only for signed-in sessions,
 * cookies `session-id`, `ubid-main`, `at-main`, `sess-at-main`). The sign-in form (`POST /ap/signin` with an email
 * and a password) issues a session for its marketplace: the cookies, scoped to the marketplace's path on the replica
 * (every marketplace shares one host here), with the session's lifetime as Max-Age.
 *
 * A session is valid while the replica knows its `at-main` token, the token has not expired, and it was issued for the
 * marketplace asked. When sign-in is required (off by default, so the signed-out scenarios and tests keep working;
 * `POST /amazon_rufus/__control/sign-in {"required": true}` turns it on), a request without a valid session is sent to
 * the sign-in page, as the real store does; an expired session also has its cookies cleared, as a real expiry does.
 * The sheet's suffixed cookie names of other marketplaces (`ubid-acbde`) are unverified, so `-main` is used everywhere.
 */
import { randomBytes } from "node:crypto";

export const AUTH_COOKIE = "at-main";
/** What the sign-in form issues besides the auth token (values are opaque ids, as on the site). */
const COMPANION_COOKIES = ["session-id", "ubid-main", "sess-at-main"] as const;
/** A real Amazon sign-in lasts about a year unless it is revoked; the control API can shorten it. */
export const DEFAULT_SESSION_SECONDS = 365 * 24 * 3600;

export type SessionCheck = "valid" | "expired" | "absent";

interface IssuedSession {
  domain: string;
  expiresAt: number;
}

export class RufusSessions {
  private readonly sessions = new Map<string, IssuedSession>();
  /** When true, every store page and streaming request needs a valid session. */
  required = false;
  /** Lifetime of the sessions the sign-in form issues from now on. */
  sessionSeconds = DEFAULT_SESSION_SECONDS;

  /** A new session for `domain`; the Set-Cookie values that carry it, scoped to `path`. */
  signIn(domain: string, path: string, now = Date.now()): string[] {
    const token = `Atza|${randomBytes(48).toString("base64url")}`;
    this.sessions.set(token, { domain, expiresAt: now + this.sessionSeconds * 1000 });
    const attributes = `Path=${path}; Max-Age=${this.sessionSeconds}; SameSite=Lax`;
    return [
      `${AUTH_COOKIE}=${token}; ${attributes}; HttpOnly`,
      ...COMPANION_COOKIES.map((name) => `${name}=${randomBytes(10).toString("hex")}; ${attributes}`),
    ];
  }

  /** The best of the auth cookies the request carries (one set for the marketplace's path and one for "/" can both arrive). */
  check(cookieHeader: string | undefined, domain: string, now = Date.now()): SessionCheck {
    let result: SessionCheck = "absent";
    for (const token of cookieValues(cookieHeader, AUTH_COOKIE)) {
      const session = this.sessions.get(token);
      if (session === undefined || session.domain !== domain) continue;
      if (session.expiresAt > now) return "valid";
      result = "expired";
    }
    return result;
  }

  /** Ends every session now (as when the site expires or revokes them); their cookies stop working. */
  expireAll(now = Date.now()): number {
    for (const session of this.sessions.values()) session.expiresAt = Math.min(session.expiresAt, now);
    return this.sessions.size;
  }

  reset(): void {
    this.sessions.clear();
    this.required = false;
    this.sessionSeconds = DEFAULT_SESSION_SECONDS;
  }

  /** Set-Cookie values that clear the session cookies (sent with the sign-in redirect of an expired session). */
  static clearingCookies(path: string): string[] {
    return [AUTH_COOKIE, ...COMPANION_COOKIES].map((name) => `${name}=; Path=${path}; Max-Age=0`);
  }

  state(): { required: boolean; session_seconds: number; sessions: number } {
    return { required: this.required, session_seconds: this.sessionSeconds, sessions: this.sessions.size };
  }
}

function cookieValues(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) values.push(part.slice(at + 1).trim());
  }
  return values;
}
