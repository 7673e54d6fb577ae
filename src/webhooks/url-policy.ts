/**
 * What a webhook URL may be: an absolute https URL without credentials whose host is, or resolves only to, public
 * addresses. A URL that resolves to a private, loopback or link-local address (the usual server-side request forgery
 * targets) is refused, when it is set and again before every delivery, since DNS answers change. In local development
 * (`WEBHOOK_ALLOW_LOOPBACK=true`) loopback destinations are accepted, over plain http too: a receiver on this machine.
 */
import { classifyAddress, type AddressKind } from "./ip-address";
import { DnsLookupError, resolveHostAddresses } from "./dns";
import type { WebhookSettingsValues } from "./settings";

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** A URL's verdict; `reason` completes "<field>: …". `temporary`: the check could not be made now (DNS unreachable). */
export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string; temporary: boolean };

const refused = (reason: string, temporary = false): UrlVerdict => ({ ok: false, reason, temporary });

function isLocalhostName(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost");
}

/** The checks that need no network: shape, scheme, credentials, length. Returns the normalised URL. */
export function checkWebhookUrlSyntax(raw: string, settings: Pick<WebhookSettingsValues, "allowLoopback">): UrlVerdict {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return refused(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return refused("must be an absolute https URL");
  }
  const httpAllowed = settings.allowLoopback && url.protocol === "http:";
  if (url.protocol !== "https:" && !httpAllowed) {
    return refused(settings.allowLoopback ? "must use https (http is accepted only for loopback addresses here)" : "must use https");
  }
  if (url.username !== "" || url.password !== "") return refused("must not contain a user name or password");
  if (url.hostname === "") return refused("must be an absolute https URL");
  url.hash = "";
  return { ok: true, url: url.href };
}

function describeKind(kind: Exclude<AddressKind, "public">): string {
  return kind === "reserved" ? "a reserved (non-public)" : kind === "link-local" ? "a link-local" : `a ${kind}`;
}

/**
 * The full check: the syntax, then the addresses the host is or resolves to. Every address must be public (or, in
 * local development, loopback); an http URL must lead to loopback only.
 */
export async function checkWebhookUrl(raw: string, settings: WebhookSettingsValues): Promise<UrlVerdict> {
  const syntax = checkWebhookUrlSyntax(raw, settings);
  if (!syntax.ok) return syntax;
  const url = new URL(syntax.url);
  const literal = classifyAddress(url.hostname);
  let kinds: AddressKind[];
  let resolved = false;
  if (literal !== null) {
    kinds = [literal];
  } else if (isLocalhostName(url.hostname)) {
    kinds = ["loopback"];
  } else {
    let addresses: string[];
    try {
      addresses = await resolveHostAddresses(settings.dnsResolverUrl, url.hostname);
    } catch (error) {
      if (error instanceof DnsLookupError) return refused("its host name could not be resolved right now. Retry shortly.", true);
      throw error;
    }
    if (addresses.length === 0) return refused("its host name does not resolve to any address");
    // An answer that is not an address is treated as the worst case rather than skipped.
    kinds = addresses.map((address) => classifyAddress(address) ?? "reserved");
    resolved = true;
  }
  const verb = resolved ? "resolve to" : "point to";
  for (const kind of kinds) {
    if (kind === "public" && url.protocol === "http:") return refused("must use https (http is accepted only for loopback addresses here)");
    if (kind === "public" || (kind === "loopback" && settings.allowLoopback)) continue;
    return refused(`must not ${verb} a private, loopback or link-local address (it leads to ${describeKind(kind)} address)`);
  }
  return syntax;
}
