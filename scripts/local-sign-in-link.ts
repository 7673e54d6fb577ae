/**
 * A one-time dashboard sign-in link for an account of the local stack, issued through the operator API like any
 * customer's (POST /admin/accounts/{id}/login-links). `npm start` prints one for the dev account; `npm run
 * sign-in-link` (scripts/sign-in-link.ts) prints another whenever the last one expired or was used.
 */

/** The account `npm start` seeds, with the key in `.local/dev-api-key`. */
export const DEV_ACCOUNT_ID = "acct_dev";

export interface IssuedSignInLink {
  loginUrl: string;
  expiresAt: string;
}

/** The link, or an Error whose message says what went wrong in a sentence (not running, wrong token, no such account). */
export async function issueSignInLink(base: string, adminToken: string, accountId: string): Promise<IssuedSignInLink> {
  let response: Response;
  try {
    response = await fetch(`${base}/admin/accounts/${encodeURIComponent(accountId)}/login-links`, {
      method: "POST",
      headers: { Authorization: `Bearer ${adminToken}` },
    });
  } catch (error) {
    throw new Error(`nothing answers at ${base} (${String(error)}): is npm start running?`);
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.status !== 201) {
    const detail = isRecord(body) && typeof body.detail === "string" ? `: ${body.detail}` : "";
    throw new Error(`POST /admin/accounts/${accountId}/login-links answered HTTP ${response.status}${detail}`);
  }
  if (!isRecord(body) || typeof body.login_url !== "string" || typeof body.expires_at !== "string") {
    throw new Error("the operator API answered without a login_url");
  }
  return { loginUrl: body.login_url, expiresAt: body.expires_at };
}

/**
 * What the terminal says of a link, the same from `npm start` and `npm run sign-in-link`: for whom, and until when in
 * this machine's clock with its minutes left ("valid until 01:06, in 60 min").
 */
export function signInLinkNote(accountId: string, link: IssuedSignInLink, now = Date.now()): string {
  const expiresAt = new Date(link.expiresAt);
  const until = expiresAt.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  const minutesLeft = Math.max(0, Math.round((expiresAt.getTime() - now) / 60_000));
  return `one-time sign-in link for ${accountId}, valid until ${until}, in ${minutesLeft} min`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
