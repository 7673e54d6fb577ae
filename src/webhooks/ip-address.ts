/**
 * Which IP addresses a webhook may be sent to. Only public unicast addresses are: every range of the IANA IPv4 and IPv6
 * Special-Purpose Address Registries (RFC 6890 and its updates) is refused, including the few that registry marks
 * "globally reachable" (AS112 and AMT anycast, PCP/TURN anycast, ORCHIDv2, Drone Remote ID): they serve protocol
 * infrastructure, never a customer's receiver. So are multicast and, in IPv6, everything outside the global unicast
 * space 2000::/3 (the IANA IPv6 Address Space registry: the rest is reserved by the IETF or special). IPv4 addresses
 * embedded in IPv6 forms that reach the same IPv4 host (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`, Teredo `2001::/32`) are classified by that IPv4 address.
 *
 * Addresses arrive as the WHATWG URL parser and DNS answers write them (dotted-quad IPv4, textual IPv6), but other
 * IPv4 spellings (`2130706433`, `0x7f.1`, `127.1`) are normalised the way the URL parser does, so no spelling slips by.
 */

export type AddressKind = "public" | "loopback" | "private" | "link-local" | "reserved";

type SpecialKind = Exclude<AddressKind, "public">;

interface Range {
  bytes: readonly number[];
  prefix: number;
  kind: SpecialKind;
}

/** Four bytes of a dotted-quad IPv4 address, or null. */
export function parseIpv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : Number.NaN));
  return bytes.every((byte) => Number.isInteger(byte) && byte <= 255) ? bytes : null;
}

/** Sixteen bytes of a textual IPv6 address (with `::` and an optional dotted IPv4 tail), or null. */
export function parseIpv6(text: string): number[] | null {
  let address = text.replace(/^\[|\]$/g, "").toLowerCase();
  const lastColon = address.lastIndexOf(":");
  if (lastColon < 0 || address.includes("%")) return null;
  const tail = address.slice(lastColon + 1);
  if (tail.includes(".")) {
    // "::ffff:1.2.3.4" is "::ffff:102:304".
    const ipv4 = parseIpv4(tail);
    if (ipv4 === null) return null;
    const [a = 0, b = 0, c = 0, d = 0] = ipv4;
    address = `${address.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const split = (part: string | undefined) => (part === undefined || part === "" ? [] : part.split(":"));
  const head = split(halves[0]);
  const rest = split(halves[1]);
  let groups = head;
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...Array<string>(missing).fill("0"), ...rest];
  }
  if (groups.length !== 8 || !groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/** A range from its CIDR text, so the tables below read like the registries. */
function cidr(text: string, kind: SpecialKind): Range {
  const [address = "", prefix = ""] = text.split("/");
  const bytes = address.includes(":") ? parseIpv6(address) : parseIpv4(address);
  if (bytes === null) throw new Error(`not a CIDR range: ${text}`);
  return { bytes, prefix: Number(prefix), kind };
}

/** IANA IPv4 Special-Purpose Address Registry, plus multicast (224.0.0.0/4). */
const IPV4_RANGES: readonly Range[] = [
  cidr("0.0.0.0/8", "reserved"), // "this network"
  cidr("10.0.0.0/8", "private"),
  cidr("100.64.0.0/10", "private"), // shared address space (carrier-grade NAT)
  cidr("127.0.0.0/8", "loopback"),
  cidr("169.254.0.0/16", "link-local"),
  cidr("172.16.0.0/12", "private"),
  cidr("192.0.0.0/24", "reserved"), // IETF protocol assignments (with PCP and TURN anycast, NAT64 discovery)
  cidr("192.0.2.0/24", "reserved"), // documentation TEST-NET-1
  cidr("192.31.196.0/24", "reserved"), // AS112-v4
  cidr("192.52.193.0/24", "reserved"), // AMT
  cidr("192.88.99.0/24", "reserved"), // deprecated 6to4 relay anycast
  cidr("192.168.0.0/16", "private"),
  cidr("192.175.48.0/24", "reserved"), // direct delegation AS112 service
  cidr("198.18.0.0/15", "reserved"), // benchmarking
  cidr("198.51.100.0/24", "reserved"), // documentation TEST-NET-2
  cidr("203.0.113.0/24", "reserved"), // documentation TEST-NET-3
  cidr("224.0.0.0/4", "reserved"), // multicast
  cidr("240.0.0.0/4", "reserved"), // reserved, with the limited broadcast 255.255.255.255
];

/**
 * IANA IPv6 Special-Purpose Address Registry entries not decided by an embedded IPv4 address (`::/128` and `::1/128`
 * are part of the IPv4-compatible `::/96` below), plus multicast and the deprecated site-local fec0::/10. The registry's entries outside 2000::/3 are listed for the names
 * their refusal gets; the 2000::/3 rule would refuse them anyway.
 */
const IPV6_RANGES: readonly Range[] = [
  cidr("64:ff9b:1::/48", "private"), // local-use IPv4/IPv6 translation (RFC 8215)
  cidr("100::/64", "reserved"), // discard-only
  cidr("100:0:0:1::/64", "reserved"), // dummy IPv6 prefix (RFC 9780)
  cidr("2001::/23", "reserved"), // IETF protocol assignments: Teredo, benchmarking, AMT, AS112, ORCHIDv2, Drone Remote ID…
  cidr("2001:db8::/32", "reserved"), // documentation
  cidr("2620:4f:8000::/48", "reserved"), // direct delegation AS112 service
  cidr("3fff::/20", "reserved"), // documentation (RFC 9637)
  cidr("5f00::/16", "reserved"), // segment routing (SRv6) SIDs
  cidr("fc00::/7", "private"), // unique local
  cidr("fe80::/10", "link-local"),
  cidr("fec0::/10", "private"), // deprecated site-local
  cidr("ff00::/8", "reserved"), // multicast
];

/** The IPv6 global unicast space: the only one addresses of the Internet are allocated from. */
const GLOBAL_UNICAST = cidr("2000::/3", "reserved");

function inRange(address: readonly number[], range: Range): boolean {
  let bits = range.prefix;
  for (let index = 0; bits > 0; index += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((address[index] ?? 0) & mask) !== ((range.bytes[index] ?? 0) & mask)) return false;
  }
  return true;
}

const IPV4_MAPPED = cidr("::ffff:0:0/96", "reserved");
const IPV4_COMPATIBLE = cidr("::/96", "reserved");
const NAT64 = cidr("64:ff9b::/96", "reserved");
const SIX_TO_FOUR = cidr("2002::/16", "reserved");
const TEREDO = cidr("2001::/32", "reserved");

function classifyIpv4(bytes: readonly number[]): AddressKind {
  return IPV4_RANGES.find((range) => inRange(bytes, range))?.kind ?? "public";
}

/** The embedded IPv4 address's kind when it is not public, else `fallback`: the form itself is never a receiver. */
function worstOf(embedded: AddressKind, fallback: SpecialKind): SpecialKind {
  return embedded === "public" ? fallback : embedded;
}

function classifyIpv6(bytes: readonly number[]): AddressKind {
  // The mapped form and NAT64's well-known prefix reach the embedded IPv4 host itself: it decides.
  if (inRange(bytes, IPV4_MAPPED) || inRange(bytes, NAT64)) return classifyIpv4(bytes.slice(12, 16));
  if (inRange(bytes, SIX_TO_FOUR)) return classifyIpv4(bytes.slice(2, 6));
  // `::` (unspecified), `::1` (loopback) and the deprecated IPv4-compatible `::a.b.c.d`: all bytes 0 to 11 are zero.
  if (inRange(bytes, IPV4_COMPATIBLE)) {
    if (bytes[15] === 1 && bytes.slice(12, 15).every((byte) => byte === 0)) return "loopback";
    return worstOf(classifyIpv4(bytes.slice(12, 16)), "reserved");
  }
  // Teredo carries its client's IPv4 address inverted in the last four bytes.
  if (inRange(bytes, TEREDO)) return worstOf(classifyIpv4(bytes.slice(12, 16).map((byte) => byte ^ 0xff)), "reserved");
  const special = IPV6_RANGES.find((range) => inRange(bytes, range));
  if (special !== undefined) return special.kind;
  return inRange(bytes, GLOBAL_UNICAST) ? "public" : "reserved";
}

/**
 * The dotted quad of an IPv4 address in any spelling the WHATWG URL host parser accepts (decimal `2130706433`, hex
 * `0x7f.1`, octal `0177.0.0.1`, short `127.1`, trailing dot), or null when `text` is not one (a host name).
 */
function normalisedIpv4(text: string): string | null {
  if (!/^[0-9a-fx.]+$/i.test(text)) return null;
  let hostname: string;
  try {
    hostname = new URL(`http://${text}/`).hostname;
  } catch {
    return null;
  }
  return parseIpv4(hostname) === null ? null : hostname;
}

/**
 * What kind of address `text` is, or null when it is not an IP address at all (a host name). Text with a colon is
 * never a host name: an IPv6 address with a zone id (`fe80::1%eth0`) is classified without it but never public (zones
 * exist only for scoped addresses), and anything else that does not parse is `reserved`, the worst case.
 */
export function classifyAddress(text: string): AddressKind | null {
  const ipv4 = parseIpv4(text);
  if (ipv4 !== null) return classifyIpv4(ipv4);
  if (text.includes(":")) {
    const [address = "", zone] = text.replace(/^\[|\]$/g, "").split("%");
    const ipv6 = parseIpv6(address);
    if (ipv6 === null) return "reserved";
    const kind = classifyIpv6(ipv6);
    return zone !== undefined && kind === "public" ? "reserved" : kind;
  }
  const normalised = normalisedIpv4(text);
  return normalised === null ? null : classifyAddress(normalised);
}
