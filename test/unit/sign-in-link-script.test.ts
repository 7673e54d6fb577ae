/**
 * `npm run sign-in-link` (scripts/sign-in-link.ts): asks the local stack's operator API for a fresh one-time dashboard
 * link and prints it, and says in a sentence why when it cannot. The stack is stood in for by a small HTTP server
 * answering as POST /admin/accounts/{id}/login-links does.
 */
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const TOKEN = "adm_test-token-for-the-sign-in-link-script";
/** The stand-in's links last an hour from when they are issued, like the real default. */
const LINK_MINUTES = 60;
/** When the last link the stand-in issued expires. */
let lastExpiry = new Date(0);

let server: Server;
let base = "";
const requests: Array<{ method: string; path: string; authorization: string }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push({ method: request.method ?? "", path: request.url ?? "", authorization: request.headers.authorization ?? "" });
    response.setHeader("Content-Type", "application/json");
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      response.writeHead(401).end(JSON.stringify({ detail: "Missing or invalid admin token.", code: "invalid_admin_token" }));
      return;
    }
    const match = /^\/admin\/accounts\/([^/]+)\/login-links$/.exec(request.url ?? "");
    if (request.method !== "POST" || match?.[1] === undefined || match[1] === "acct_missing") {
      response.writeHead(404).end(JSON.stringify({ detail: "No account with this id.", code: "not_found" }));
      return;
    }
    lastExpiry = new Date(Date.now() + LINK_MINUTES * 60_000);
    const link = { login_url: `${base}/dashboard/login#token-for-${match[1]}`, expires_at: lastExpiry.toISOString() };
    response.writeHead(201).end(JSON.stringify(link));
  });
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  base = `http://127.0.0.1:${portOf(server)}`;
});

afterAll(async () => {
  await new Promise((resolveClose) => server.close(resolveClose));
});

/** The script as `npm run sign-in-link -- <args>` runs it, with only the given variables besides PATH. */
function signInLink(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const tsx = resolve(ROOT, "node_modules/.bin/tsx");
  const options = { cwd: ROOT, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 60_000 };
  return new Promise((resolveRun) => {
    execFile(tsx, ["scripts/sign-in-link.ts", ...args], options, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolveRun({ code, stdout, stderr });
    });
  });
}

function portOf(listening: Server): number {
  const address = listening.address();
  if (address === null || typeof address === "string") throw new Error("the server is not listening on a TCP port");
  return address.port;
}

describe("npm run sign-in-link", () => {
  it("prints a fresh link for the dev account, asked of the operator API with the admin token", async () => {
    // TZ=UTC: the note gives the expiry in the machine's clock, here UTC.
    const result = await signInLink([], { API_URL: base, ADMIN_TOKEN: TOKEN, TZ: "UTC" });
    expect(result.code).toBe(0);
    const until = lastExpiry.toISOString().slice(11, 16);
    expect(result.stdout).toBe(
      `${base}/dashboard/login#token-for-acct_dev\n` +
        `(one-time sign-in link for acct_dev, valid until ${until}, in ${LINK_MINUTES} min; open it and press "Sign in")\n`,
    );
    expect(requests.at(-1)).toEqual({ method: "POST", path: "/admin/accounts/acct_dev/login-links", authorization: `Bearer ${TOKEN}` });
  });

  it("takes another account's id", async () => {
    const result = await signInLink(["acct_northwind"], { API_URL: `${base}/`, ADMIN_TOKEN: TOKEN });
    expect(result.stdout.split("\n")[0]).toBe(`${base}/dashboard/login#token-for-acct_northwind`);
  });

  it("says why when it cannot: a wrong token, an unknown account, nothing running", async () => {
    const wrongToken = await signInLink([], { API_URL: base, ADMIN_TOKEN: "adm_wrong" });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toContain(
      "Could not issue a sign-in link: POST /admin/accounts/acct_dev/login-links answered HTTP 401: Missing or invalid admin token.",
    );
    const unknown = await signInLink(["acct_missing"], { API_URL: base, ADMIN_TOKEN: TOKEN });
    expect(unknown.stderr).toContain("answered HTTP 404: No account with this id.");
    const closed = createServer();
    await new Promise<void>((resolveListen) => closed.listen(0, "127.0.0.1", resolveListen));
    const port = portOf(closed);
    await new Promise((resolveClose) => closed.close(resolveClose));
    const notRunning = await signInLink([], { PORT: String(port), ADMIN_TOKEN: TOKEN });
    expect(notRunning.code).toBe(1);
    expect(notRunning.stderr).toContain(`Could not issue a sign-in link: nothing answers at http://127.0.0.1:${port}`);
    expect(notRunning.stderr).toContain("is npm start running?");
  });
});
