/** A minimal browser for the dashboard tests: a cookie jar, same-origin form posts, no redirects followed, sign-in by link. */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { adminJson } from "./account-helpers";
import { BASE } from "./helpers";

export class Visitor {
  readonly cookies = new Map<string, string>();
  /** The Set-Cookie lines of the last response. */
  lastSetCookies: string[] = [];

  /** `origin`: where the dashboard is reached (the test host by default; `http://127.0.0.1:8787` for a local deployment). */
  constructor(readonly origin = BASE) {}

  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.send(path, { method: "GET", headers });
  }

  /** `headers` are added to the form post's own; `signal` closes the tab: the request is aborted mid-way. */
  post(
    path: string,
    fields: Record<string, string>,
    extra: { headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    return this.send(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: this.origin, ...extra.headers },
      body: new URLSearchParams(fields).toString(),
      signal: extra.signal,
    });
  }

  async send(
    path: string,
    init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
  ): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("Cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await exports.default.fetch(
      new Request(`${this.origin}${path}`, { method: init.method, headers, body: init.body, redirect: "manual", signal: init.signal }),
    );
    this.lastSetCookies = response.headers.getSetCookie();
    for (const line of this.lastSetCookies) {
      const [pair = ""] = line.split(";");
      const index = pair.indexOf("=");
      if (/max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, index));
      else this.cookies.set(pair.slice(0, index), pair.slice(index + 1));
    }
    return response;
  }
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (match?.[1] === undefined) throw new Error("no CSRF field in the page");
  return match[1];
}

/** A visitor signed in to `accountId` through a one-time link issued by the operator API, with the session's CSRF token. */
export async function signedInVisitor(accountId: string): Promise<{ visitor: Visitor; csrf: string }> {
  const { login_url: loginUrl } = await adminJson<{ login_url: string }>(
    `/admin/accounts/${accountId}/login-links`,
    { method: "POST" },
    201,
  );
  const link = new URL(loginUrl);
  const visitor = new Visitor();
  const page = await visitor.get(link.pathname);
  expect(page.status).toBe(200);
  const signIn = await visitor.post("/dashboard/login", { token: link.hash.slice(1), _csrf: csrfOf(await page.text()) });
  expect(signIn.status).toBe(303);
  return { visitor, csrf: csrfOf(await (await visitor.get("/dashboard")).text()) };
}
