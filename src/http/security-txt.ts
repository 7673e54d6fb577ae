/**
 * `GET /.well-known/security.txt` (RFC 9116): where a researcher reports a vulnerability in this deployment. The contact
 * is the operator's (`SECURITY_CONTACT`, a `mailto:` or `https:` URI); a deployment without one publishes no file rather
 * than an address nobody reads. docs/security.md says what happens to a report.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { NotFoundError } from "../errors";
import type { AppEnv } from "./app-env";
import { requestBaseUrl } from "./request-context";

const SECURITY_TXT_PATH = "/.well-known/security.txt";
const NO_CONTACT_DETAIL = "This deployment publishes no security contact (its operator has not set SECURITY_CONTACT).";
/** RFC 9116 §2.5.5: Expires should be less than a year away; the file is generated, so it is always this far ahead. */
const EXPIRES_AFTER_MS = 180 * 86_400_000;
const CONTACT_URI = /^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/;

/** The configured contacts (comma-separated), each a `mailto:` or `https:` URI; anything else is ignored. */
function securityContacts(configured: string | undefined): string[] {
  return (configured ?? "")
    .split(",")
    .map((contact) => contact.trim())
    .filter((contact) => CONTACT_URI.test(contact));
}

export function registerSecurityTxtRoute(app: OpenAPIHono<AppEnv>): void {
  app.get(SECURITY_TXT_PATH, (c) => {
    const contacts = securityContacts(c.env.SECURITY_CONTACT);
    if (contacts.length === 0) throw new NotFoundError(NO_CONTACT_DETAIL);
    const lines = [
      ...contacts.map((contact) => `Contact: ${contact}`),
      `Expires: ${new Date(Date.now() + EXPIRES_AFTER_MS).toISOString()}`,
      `Canonical: ${requestBaseUrl(c)}${SECURITY_TXT_PATH}`,
      "Preferred-Languages: en",
    ];
    return c.text(`${lines.join("\n")}\n`, 200, { "Cache-Control": "public, max-age=86400" });
  });
}
