/** A minimal browser for the dashboard tests: a cookie jar, same-origin form posts, no redirects followed, sign-in by link. */
import { expect } from "vitest";
import { adminJson } from "../support/workers/account-helpers";
import { BASE, api } from "../support/workers/helpers";

export class Visitor {
  readonly cookies = new Map<string, string>();

  get(path: string): Promise<Response> {
    return this.send(path, { method: "GET", headers: {} });
  }

  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.send(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
      body: new URLSearchParams(fields).toString(),
    });
  }

  async send(path: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("Cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await api(path, { method: init.method, headers, body: init.body, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
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
