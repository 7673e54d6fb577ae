/**
 * The Rufus replica's signed-in sessions (replicas/amazon_rufus/sign-in.ts): the sign-in form issues session cookies
 * for its marketplace; with sign-in required, the store and the streaming endpoint answer only a valid session and
 * send anything else to the sign-in page; an expired session also loses its cookies. Off by default.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningReplicaServer, startReplicaServer } from "../../replicas/server";

const STREAMING_QUERY = "?tabId=tab-1&programId=NILE_CLASSIC%3Adesktop-cl";

let server: RunningReplicaServer;

beforeAll(async () => {
  server = await startReplicaServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  await signInControl({ reset: true });
});

const root = (domain: string): string => `${server.url}/amazon_rufus/${domain}/`;

async function signInControl(body: Record<string, unknown>): Promise<{ required: boolean; sessions: number; session_seconds: number }> {
  const response = await fetch(`${server.url}/amazon_rufus/__control/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { required: boolean; sessions: number; session_seconds: number };
}

/** Signs in through the form and returns the cookies it set, as a Cookie header, and the raw Set-Cookie values. */
async function signIn(
  domain: string,
  returnTo = `https://www.${domain}/`,
): Promise<{ cookie: string; setCookies: string[]; location: string }> {
  const response = await fetch(`${root(domain)}ap/signin`, {
    method: "POST",
    body: new URLSearchParams({ email: "shopper@example.com", password: "correct horse", "openid.return_to": returnTo }),
    redirect: "manual",
  });
  expect(response.status).toBe(302);
  const setCookies = response.headers.getSetCookie();
  const cookie = setCookies.map((line) => line.split(";")[0]).join("; ");
  return { cookie, setCookies, location: response.headers.get("location") ?? "" };
}

async function pageToken(domain: string, cookie: string): Promise<string> {
  const html = await (await fetch(root(domain), { headers: { cookie } })).text();
  const token = /"csrfToken":"([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error("no token in the page");
  return token;
}

function ask(domain: string, token: string, cookie: string): Promise<Response> {
  return fetch(`${root(domain)}rufus/cl/streaming${STREAMING_QUERY}`, {
    method: "POST",
    headers: { "content-type": "application/json", "anti-csrftoken-a2z": token, cookie },
    body: JSON.stringify({ queryContext: { query: "desk lamp" } }),
    redirect: "manual",
  });
}

describe("Rufus replica: signed-in sessions", () => {
  it("is off by default: a signed-out store page and answer, as before", async () => {
    expect(await signInControl({})).toMatchObject({ required: false, sessions: 0 });
    const page = await fetch(root("amazon.com"), { redirect: "manual" });
    expect(page.status).toBe(200);
    const answer = await ask("amazon.com", await pageToken("amazon.com", ""), "");
    expect(answer.status).toBe(200);
  });

  it("the sign-in form sets the session cookies for its marketplace's path and returns to the page asked", async () => {
    const { setCookies, location } = await signIn("amazon.de", "https://www.amazon.de/dp/B0EXAMPLE1");
    expect(setCookies.map((line) => line.split("=")[0]).sort()).toEqual(["at-main", "sess-at-main", "session-id", "ubid-main"]);
    for (const line of setCookies) expect(line).toContain("Path=/amazon_rufus/amazon.de/");
    expect(setCookies.find((line) => line.startsWith("at-main="))).toMatch(/HttpOnly/);
    expect(location).toBe("/amazon_rufus/amazon.de/dp/B0EXAMPLE1");
    // without a password it is the form again, and no session
    const refused = await fetch(`${root("amazon.de")}ap/signin`, { method: "POST", body: new URLSearchParams({ email: "a@b.c" }) });
    expect(refused.status).toBe(200);
    expect(refused.headers.getSetCookie()).toEqual([]);
    expect(await refused.text()).toMatch(/<form name="signIn"/);
  });

  it("with sign-in required: no session → the sign-in page; a valid one → the store and Rufus's answer", async () => {
    await signInControl({ required: true });
    const walled = await fetch(root("amazon.com"), { redirect: "manual" });
    expect(walled.status).toBe(302);
    expect(walled.headers.get("location")).toMatch(
      /^\/amazon_rufus\/amazon\.com\/ap\/signin\?openid\.return_to=https%3A%2F%2Fwww\.amazon\.com%2F/,
    );

    const { cookie } = await signIn("amazon.com");
    const page = await fetch(root("amazon.com"), { headers: { cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    const token = await pageToken("amazon.com", cookie);
    expect((await ask("amazon.com", token, cookie)).status).toBe(200);
    // the streaming endpoint checks the session too
    const signedOut = await ask("amazon.com", token, "");
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toContain("/ap/signin");
  });

  it("a session belongs to its marketplace", async () => {
    await signInControl({ required: true });
    const { cookie } = await signIn("amazon.de");
    expect((await fetch(root("amazon.de"), { headers: { cookie }, redirect: "manual" })).status).toBe(200);
    expect((await fetch(root("amazon.co.uk"), { headers: { cookie }, redirect: "manual" })).status).toBe(302);
  });

  it("an expired session is sent to sign in and its cookies are cleared, as on the real site", async () => {
    await signInControl({ required: true });
    const { cookie } = await signIn("amazon.com");
    expect((await fetch(root("amazon.com"), { headers: { cookie }, redirect: "manual" })).status).toBe(200);
    const expired = await fetch(`${server.url}/amazon_rufus/__control/sessions/expire`, { method: "POST" });
    expect(await expired.json()).toMatchObject({ expired: 1 });
    const walled = await fetch(root("amazon.com"), { headers: { cookie }, redirect: "manual" });
    expect(walled.status).toBe(302);
    expect(walled.headers.get("location")).toContain("/ap/signin");
    const cleared = walled.headers.getSetCookie();
    expect(cleared.map((line) => line.split("=")[0]).sort()).toEqual(["at-main", "sess-at-main", "session-id", "ubid-main"]);
    for (const line of cleared) expect(line).toMatch(/Max-Age=0/);
  });

  it("a session's cookies live as long as the session (Max-Age), which the control API can shorten", async () => {
    await signInControl({ session_seconds: 120 });
    const { setCookies } = await signIn("amazon.com");
    for (const line of setCookies) expect(line).toContain("Max-Age=120");
  });

  it("refuses an invalid control body", async () => {
    const response = await fetch(`${server.url}/amazon_rufus/__control/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ required: "yes" }),
    });
    expect(response.status).toBe(400);
  });
});
