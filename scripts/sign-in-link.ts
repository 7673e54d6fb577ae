/**
 * `npm run sign-in-link [-- <account id>]`: prints a fresh one-time dashboard sign-in link for the local stack's dev
 * account (or the account given), for when the link `npm start` printed has expired or was used.
 *
 * The stack's address is `API_URL` when set, else `http://127.0.0.1:$PORT` (8787 by default, as `npm start`); the
 * operator token is `ADMIN_TOKEN` when set, else the one `npm start` keeps in `.local/admin-token`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEV_ACCOUNT_ID, issueSignInLink, signInLinkNote } from "./local-sign-in-link";
import { projectRoot } from "./local-stack";

const ADMIN_TOKEN_FILE = join(projectRoot, ".local", "admin-token");

function adminToken(): string {
  const fromEnvironment = process.env.ADMIN_TOKEN?.trim() ?? "";
  if (fromEnvironment !== "") return fromEnvironment;
  if (!existsSync(ADMIN_TOKEN_FILE)) {
    throw new Error("no admin token: .local/admin-token does not exist yet (npm start writes it) and ADMIN_TOKEN is not set");
  }
  return readFileSync(ADMIN_TOKEN_FILE, "utf8").trim();
}

async function main(): Promise<void> {
  const base = (process.env.API_URL?.trim() || `http://127.0.0.1:${process.env.PORT ?? 8787}`).replace(/\/+$/, "");
  const accountId = process.argv[2] ?? DEV_ACCOUNT_ID;
  const link = await issueSignInLink(base, adminToken(), accountId);
  console.log(link.loginUrl);
  console.log(`(${signInLinkNote(accountId, link)}; open it and press "Sign in")`);
}

main().catch((error: unknown) => {
  console.error(`Could not issue a sign-in link: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
