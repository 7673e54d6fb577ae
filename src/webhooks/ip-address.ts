/**
 * Which IP addresses a webhook may be sent to. Only public unicast addresses are: private, loopback, link-local,
 * carrier-grade NAT, documentation, multicast and reserved ranges are refused, including IPv4 addresses embedded in
 * IPv6 forms (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), which reach the same IPv4 host.
 * Addresses arrive as the WHATWG URL parser and DNS answers write them: dotted-quad IPv4, textual IPv6.
 */

export type AddressKind = "public" | "loopback" | "private" | "link-local" | "reserved";

interface Range {
  bytes: readonly number[];
  prefix: number;
  kind: Exclude<AddressKind, "public">;
}

const IPV4_RANGES: readonly Range[] = [
  { bytes: [0, 0, 0, 0], prefix: 8, kind: "reserved" },
  { bytes: [10, 0, 0, 0], prefix: 8, kind: "private" },
  { bytes: [100, 64, 0, 0], prefix: 10, kind: "private" },
  { bytes: [127, 0, 0, 0], prefix: 8, kind: "loopback" },
  { bytes: [169, 254, 0, 0], prefix: 16, kind: "link-local" },
  { bytes: [172, 16, 0, 0], prefix: 12, kind: "private" },
  { bytes: [192, 0, 0, 0], prefix: 24, kind: "reserved" },
  { bytes: [192, 0, 2, 0], prefix: 24, kind: "reserved" },
  { bytes: [192, 88, 99, 0], prefix: 24, kind: "reserved" },
  { bytes: [192, 168, 0, 0], prefix: 16, kind: "private" },
  { bytes: [198, 18, 0, 0], prefix: 15, kind: "reserved" },
  { bytes: [198, 51, 100, 0], prefix: 24, kind: "reserved" },
  { bytes: [203, 0, 113, 0], prefix: 24, kind: "reserved" },
  { bytes: [224, 0, 0, 0], prefix: 4, kind: "reserved" },
  { bytes: [240, 0, 0, 0], prefix: 4, kind: "reserved" },
];

const IPV6_RANGES: readonly Range[] = [
  { bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], prefix: 128, kind: "loopback" },
  { bytes: [0x01, 0x00, 0, 0, 0, 0, 0, 0], prefix: 64, kind: "reserved" },
  { bytes: [0x20, 0x01, 0x0d, 0xb8], prefix: 32, kind: "reserved" },
  { bytes: [0x20, 0x01, 0x00, 0x00], prefix: 32, kind: "reserved" },
  { bytes: [0xfc], prefix: 7, kind: "private" },
  { bytes: [0xfe, 0x80], prefix: 10, kind: "link-local" },
  { bytes: [0xfe, 0xc0], prefix: 10, kind: "private" },
  { bytes: [0xff], prefix: 8, kind: "reserved" },
];

function inRange(address: readonly number[], range: Range): boolean {
  let bits = range.prefix;
  for (let index = 0; bits > 0; index += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((address[index] ?? 0) & mask) !== ((range.bytes[index] ?? 0) & mask)) return false;
  }
  return true;
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

function classifyIpv4(bytes: readonly number[]): AddressKind {
  return IPV4_RANGES.find((range) => inRange(bytes, range))?.kind ?? "public";
}

function classifyIpv6(bytes: readonly number[]): AddressKind {
  const allZero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  if (allZero(0, 16)) return "reserved";
  // IPv4-mapped (::ffff:0:0/96) and the deprecated IPv4-compatible (::/96) forms reach the embedded IPv4 host.
  if (allZero(0, 10) && ((bytes[10] === 0xff && bytes[11] === 0xff) || (bytes[10] === 0 && bytes[11] === 0 && !allZero(12, 15)))) {
    return classifyIpv4(bytes.slice(12, 16));
  }
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) also lead to an IPv4 host.
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && allZero(4, 12)) {
    return classifyIpv4(bytes.slice(12, 16));
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return classifyIpv4(bytes.slice(2, 6));
  return IPV6_RANGES.find((range) => inRange(bytes, range))?.kind ?? "public";
}

/** What kind of address `text` is, or null when it is not an IP address at all (a host name). */
export function classifyAddress(text: string): AddressKind | null {
  const ipv4 = parseIpv4(text);
  if (ipv4 !== null) return classifyIpv4(ipv4);
  const ipv6 = text.includes(":") ? parseIpv6(text) : null;
  return ipv6 === null ? null : classifyIpv6(ipv6);
}
