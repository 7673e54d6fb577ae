/**
 * What a webhook URL may be: an absolute https URL without credentials, on port 443 or 8443, whose host is, or
 * resolves only to, public addresses (./ip-address.ts). It is checked when it is set and again before every delivery,
 * since DNS answers change.
 *
 * DNS rebinding: the check resolves the name through DNS-over-HTTPS, then `fetch` resolves it again on its own, and a
 * Worker's `fetch` cannot be pinned to the checked address while keeping TLS to the name. So before a delivery the name
 * is resolved twice, right before the request, and refused unless both answers hold the same addresses, all public; a
 * zero TTL (an answer meant never to be cached, the rebinding attacker's tool) is refused at once. What remains: an
 * authoritative server that answers the resolver and the runtime differently. On Cloudflare's network a Worker's
 * `fetch` cannot reach private networks anyway; a self-hosted workerd must deny them in its outbound network
 * (`network = (allow = ["public"], deny = ["private", "local"])`), which closes the gap fully.
 *
 * In local development (`WEBHOOK_ALLOW_LOOPBACK=true`) a receiver on this machine is accepted, over plain http and on
 * any port too, when the URL names it as a developer writes it: `localhost`, `127.0.0.1` or `[::1]`. Loopback reached
 * any other way (IPv4 inside IPv6, `2130706433`, `127.1`, another 127/8 address, a public name resolving to 127.0.0.1)
 * stays refused even then: those spellings are how a check is evaded, never how a local receiver is configured.
 */
import { type AddressRecord, DnsLookupError, resolveHostRecords } from "./dns";
import { type AddressKind, classifyAddress, parseIpv4, parseIpv6 } from "./ip-address";

const MAX_WEBHOOK_URL_LENGTH = 2048;

/** What the policy needs of the webhook settings (./settings.ts), and no more, so it can be checked outside workerd. */
export interface UrlPolicySettings {
  /** Local development: loopback destinations, over http and on any port, are accepted. */
  allowLoopback: boolean;
  dnsResolverUrl: string;
}

/**
 * The ports a webhook may be sent to: https's own and its usual alternative. Any other port is where internal or
 * non-web services listen, and allowing it would turn deliveries into a port scanner.
 */
const ALLOWED_WEBHOOK_PORTS: readonly number[] = [443, 8443];

/** A URL's verdict; `reason` completes "<field>: …". `temporary`: the check could not be made now (DNS unreachable). */
type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string; temporary: boolean };

type Refusal = Extract<UrlVerdict, { ok: false }>;

const refused = (reason: string, temporary = false): Refusal => ({ ok: false, reason, temporary });

const PORT_REASON = `must use port ${ALLOWED_WEBHOOK_PORTS.join(" or ")} (the https default is 443)`;

function isLocalhostName(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost");
}

/** This machine as a developer writes it for a local receiver (the URL parser's spelling of each). */
const PLAIN_LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Whether the loopback allowance covers this URL: the allowance is on, and the host is written as one of
 * PLAIN_LOOPBACK_HOSTS in `raw` itself, not reached through a spelling the parser normalised to it.
 */
function loopbackAllowance(raw: string, url: URL, settings: Pick<UrlPolicySettings, "allowLoopback">): boolean {
  if (!settings.allowLoopback || !PLAIN_LOOPBACK_HOSTS.has(url.hostname)) return false;
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw.trim())?.[1] ?? "";
  const writtenHost = authority.replace(/:\d*$/, "").toLowerCase();
  return writtenHost === url.hostname;
}

/** What this policy accepts, as a page states it: a public URL's ports, and the hosts the loopback allowance covers. */
export interface WebhookUrlRules {
  ports: readonly number[];
  /** null when the allowance is off (every deployment but local development). */
  loopbackHosts: readonly string[] | null;
}

export function webhookUrlRules(settings: Pick<UrlPolicySettings, "allowLoopback">): WebhookUrlRules {
  return { ports: ALLOWED_WEBHOOK_PORTS, loopbackHosts: settings.allowLoopback ? [...PLAIN_LOOPBACK_HOSTS] : null };
}

function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** The checks that need no network: shape, scheme, credentials, length, port. Returns the normalised URL. */
export function checkWebhookUrlSyntax(raw: string, settings: Pick<UrlPolicySettings, "allowLoopback">): UrlVerdict {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return refused(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return refused("must be an absolute https URL");
  }
  const allowLoopback = loopbackAllowance(raw, url, settings);
  if (url.protocol !== "https:" && !(allowLoopback && url.protocol === "http:")) {
    return refused(settings.allowLoopback ? "must use https (http is accepted only for loopback addresses here)" : "must use https");
  }
  if (url.username !== "" || url.password !== "") return refused("must not contain a user name or password");
  if (url.hostname === "") return refused("must be an absolute https URL");
  // With the loopback allowance the port is judged once the destination is known (./checkWebhookUrl).
  if (!allowLoopback && !ALLOWED_WEBHOOK_PORTS.includes(portOf(url))) return refused(PORT_REASON);
  url.hash = "";
  return { ok: true, url: url.href };
}

function describeKind(kind: Exclude<AddressKind, "public">): string {
  return kind === "reserved" ? "a reserved (non-public)" : kind === "link-local" ? "a link-local" : `a ${kind}`;
}

/** Where a URL's host leads: the kinds of its addresses and, for a name, the addresses it resolved to. */
interface Destination {
  ok: true;
  kinds: AddressKind[];
  /** null for an IP literal or a localhost name: nothing was resolved. */
  resolved: string[] | null;
}

async function destinationOf(hostname: string, settings: UrlPolicySettings): Promise<Destination | Refusal> {
  const literal = classifyAddress(hostname);
  if (literal !== null) return { ok: true, kinds: [literal], resolved: null };
  if (isLocalhostName(hostname)) return { ok: true, kinds: ["loopback"], resolved: null };
  let records: AddressRecord[];
  try {
    records = await resolveHostRecords(settings.dnsResolverUrl, hostname);
  } catch (error) {
    if (error instanceof DnsLookupError) return refused("its host name could not be resolved right now. Retry shortly.", true);
    throw error;
  }
  if (records.length === 0) return refused("its host name does not resolve to any address");
  if (records.some((record) => record.ttl <= 0)) {
    return refused("its host name's DNS answers must have a TTL of at least 1 second (answers that are never cached cannot be checked)");
  }
  const addresses = records.map((record) => record.address);
  // An answer that is not an address is treated as the worst case rather than skipped.
  return { ok: true, kinds: addresses.map((address) => classifyAddress(address) ?? "reserved"), resolved: addresses };
}

/** Every address must be public (or, in local development, loopback); http and other ports only for that allowance. */
function judge(url: URL, destination: Destination, settings: UrlPolicySettings): UrlVerdict {
  const verb = destination.resolved === null ? "point to" : "resolve to";
  for (const kind of destination.kinds) {
    if (kind === "public" && url.protocol === "http:") return refused("must use https (http is accepted only for loopback addresses here)");
    if (kind === "public" || (kind === "loopback" && settings.allowLoopback)) continue;
    return refused(`must not ${verb} a private, loopback or link-local address (it leads to ${describeKind(kind)} address)`);
  }
  const loopbackAllowance = settings.allowLoopback && destination.kinds.every((kind) => kind === "loopback");
  if (!loopbackAllowance && !ALLOWED_WEBHOOK_PORTS.includes(portOf(url))) return refused(PORT_REASON);
  return { ok: true, url: url.href };
}

/** The full check when a URL is set: the syntax, then the addresses the host is or resolves to. */
export async function checkWebhookUrl(raw: string, settings: UrlPolicySettings): Promise<UrlVerdict> {
  const syntax = checkWebhookUrlSyntax(raw, settings);
  if (!syntax.ok) return syntax;
  const url = new URL(syntax.url);
  const effective = { ...settings, allowLoopback: loopbackAllowance(raw, url, settings) };
  const destination = await destinationOf(url.hostname, effective);
  return destination.ok ? judge(url, destination, effective) : destination;
}

/** An address in one spelling, so two answers can be compared. */
function canonicalAddress(address: string): string {
  return (parseIpv4(address) ?? parseIpv6(address))?.join(".") ?? address;
}

function sameAddresses(first: readonly string[], second: readonly string[]): boolean {
  const setOf = (addresses: readonly string[]) => [...new Set(addresses.map(canonicalAddress))].sort().join(" ");
  return setOf(first) === setOf(second);
}

/**
 * The check right before a delivery: the full check, then a second resolution of the name, which must give the same
 * addresses (see the module's comment on DNS rebinding).
 */
export async function checkWebhookUrlForDelivery(raw: string, settings: UrlPolicySettings): Promise<UrlVerdict> {
  const syntax = checkWebhookUrlSyntax(raw, settings);
  if (!syntax.ok) return syntax;
  const url = new URL(syntax.url);
  const effective = { ...settings, allowLoopback: loopbackAllowance(raw, url, settings) };
  const first = await destinationOf(url.hostname, effective);
  if (!first.ok) return first;
  const verdict = judge(url, first, effective);
  if (!verdict.ok || first.resolved === null) return verdict;
  const second = await destinationOf(url.hostname, effective);
  if (!second.ok) return second;
  if (second.resolved === null || !sameAddresses(first.resolved, second.resolved)) {
    return refused("its host name resolved to different addresses in two consecutive look-ups");
  }
  return judge(url, second, effective);
}
