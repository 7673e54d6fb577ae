/**
 * Where a host name resolves, through a DNS-over-HTTPS resolver's JSON API (`?name=…&type=A|AAAA`, answered as
 * `application/dns-json`: Cloudflare's 1.1.1.1 and Google's dns.google speak it). Workers have no DNS API of their own,
 * and the webhook checks need every address a name has, not just whether a connection succeeds.
 */
const RECORD_TYPES = { A: 1, AAAA: 28 } as const;
const LOOKUP_TIMEOUT_MS = 5_000;
const NXDOMAIN = 3;

/** The resolver could not be asked or gave no usable answer: nothing is known about the name. */
export class DnsLookupError extends Error {}

/** One address record of an answer, with the time-to-live the resolver gave it (seconds). */
export interface AddressRecord {
  address: string;
  ttl: number;
}

function answersOf(body: unknown, type: number): AddressRecord[] | "nxdomain" {
  if (typeof body !== "object" || body === null || !("Status" in body) || typeof body.Status !== "number") {
    throw new DnsLookupError("The resolver's answer is not DNS JSON");
  }
  if (body.Status === NXDOMAIN) return "nxdomain";
  if (body.Status !== 0) throw new DnsLookupError(`The resolver answered status ${body.Status}`);
  const answer: unknown = "Answer" in body ? body.Answer : [];
  if (!Array.isArray(answer)) return [];
  const addresses: AddressRecord[] = [];
  for (const record of answer) {
    if (typeof record !== "object" || record === null || !("type" in record) || !("data" in record)) continue;
    // CNAME records come before the addresses they lead to; only the addresses matter. A missing TTL counts as 0.
    const ttl = "TTL" in record && typeof record.TTL === "number" ? record.TTL : 0;
    if (record.type === type && typeof record.data === "string") addresses.push({ address: record.data.trim(), ttl });
  }
  return addresses;
}

async function lookup(resolverUrl: string, hostname: string, type: keyof typeof RECORD_TYPES): Promise<AddressRecord[] | "nxdomain"> {
  const url = new URL(resolverUrl);
  url.searchParams.set("name", hostname);
  url.searchParams.set("type", type);
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: "application/dns-json" }, signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
  } catch (cause) {
    throw new DnsLookupError(`The resolver could not be reached`, { cause });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new DnsLookupError(`The resolver answered HTTP ${response.status}`);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (cause) {
    throw new DnsLookupError("The resolver's answer is not JSON", { cause });
  }
  return answersOf(body, RECORD_TYPES[type]);
}

/**
 * Every IPv4 and IPv6 address record of `hostname` (empty when the name does not exist or has no address).
 * Throws DnsLookupError when the resolver cannot tell.
 */
export async function resolveHostRecords(resolverUrl: string, hostname: string): Promise<AddressRecord[]> {
  const [ipv4, ipv6] = await Promise.all([lookup(resolverUrl, hostname, "A"), lookup(resolverUrl, hostname, "AAAA")]);
  return [...(ipv4 === "nxdomain" ? [] : ipv4), ...(ipv6 === "nxdomain" ? [] : ipv6)];
}
