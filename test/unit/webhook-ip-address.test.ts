/**
 * The webhook address classifier against the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
 * updates), multicast and the IPv6 Address Space registry: for every range its first, a middle and its last address,
 * and the neighbours just outside it. The expected classes are written from the registries by hand:
 *   private    RFC 1918, shared address space (100.64/10), unique local fc00::/7, local-use NAT64 64:ff9b:1::/48
 *   loopback   127/8, ::1 · link-local 169.254/16, fe80::/10
 *   reserved   everything else in the registries (documentation, benchmarking, AS112, AMT, protocol assignments,
 *              discard, SRv6, multicast, 240/4) and, in IPv6, everything outside the global unicast space 2000::/3.
 * IPv4 embedded in IPv6 forms that reach that IPv4 host is classified by it. A neighbour of an IPv6 range outside
 * 2000::/3 is itself outside it, so `reserved` (IANA: "Reserved by IETF"), not public.
 */
import { describe, expect, it } from "vitest";
import { classifyAddress } from "../../src/webhooks/ip-address";

type Expected = "public" | "loopback" | "private" | "link-local" | "reserved" | null;

/** [registry entry, addresses inside it (first, middle…, last), their class, neighbours just outside with their class]. */
const IPV4_RANGES: Array<[string, string[], Expected, Array<[string, Expected]>]> = [
  ["0.0.0.0/8 this network", ["0.0.0.0", "0.128.0.1", "0.255.255.255"], "reserved", [["1.0.0.0", "public"]]],
  [
    "10.0.0.0/8",
    ["10.0.0.0", "10.128.0.1", "10.255.255.255"],
    "private",
    [
      ["9.255.255.255", "public"],
      ["11.0.0.0", "public"],
    ],
  ],
  [
    "100.64.0.0/10 shared",
    ["100.64.0.0", "100.100.0.1", "100.127.255.255"],
    "private",
    [
      ["100.63.255.255", "public"],
      ["100.128.0.0", "public"],
    ],
  ],
  [
    "127.0.0.0/8 loopback",
    ["127.0.0.0", "127.0.0.1", "127.255.255.255"],
    "loopback",
    [
      ["126.255.255.255", "public"],
      ["128.0.0.0", "public"],
    ],
  ],
  [
    "169.254.0.0/16",
    ["169.254.0.0", "169.254.169.254", "169.254.255.255"],
    "link-local",
    [
      ["169.253.255.255", "public"],
      ["169.255.0.0", "public"],
    ],
  ],
  [
    "172.16.0.0/12",
    ["172.16.0.0", "172.24.0.1", "172.31.255.255"],
    "private",
    [
      ["172.15.255.255", "public"],
      ["172.32.0.0", "public"],
    ],
  ],
  [
    "192.0.0.0/24 IETF protocol assignments",
    ["192.0.0.0", "192.0.0.9", "192.0.0.10", "192.0.0.170", "192.0.0.255"],
    "reserved",
    [
      ["191.255.255.255", "public"],
      ["192.0.1.0", "public"],
    ],
  ],
  [
    "192.0.2.0/24 TEST-NET-1",
    ["192.0.2.0", "192.0.2.128", "192.0.2.255"],
    "reserved",
    [
      ["192.0.1.255", "public"],
      ["192.0.3.0", "public"],
    ],
  ],
  [
    "192.31.196.0/24 AS112-v4",
    ["192.31.196.0", "192.31.196.1", "192.31.196.255"],
    "reserved",
    [
      ["192.31.195.255", "public"],
      ["192.31.197.0", "public"],
    ],
  ],
  [
    "192.52.193.0/24 AMT",
    ["192.52.193.0", "192.52.193.128", "192.52.193.255"],
    "reserved",
    [
      ["192.52.192.255", "public"],
      ["192.52.194.0", "public"],
    ],
  ],
  [
    "192.88.99.0/24 6to4 relay anycast",
    ["192.88.99.0", "192.88.99.1", "192.88.99.255"],
    "reserved",
    [
      ["192.88.98.255", "public"],
      ["192.88.100.0", "public"],
    ],
  ],
  [
    "192.168.0.0/16",
    ["192.168.0.0", "192.168.1.1", "192.168.255.255"],
    "private",
    [
      ["192.167.255.255", "public"],
      ["192.169.0.0", "public"],
    ],
  ],
  [
    "192.175.48.0/24 AS112 direct delegation",
    ["192.175.48.0", "192.175.48.1", "192.175.48.255"],
    "reserved",
    [
      ["192.175.47.255", "public"],
      ["192.175.49.0", "public"],
    ],
  ],
  [
    "198.18.0.0/15 benchmarking",
    ["198.18.0.0", "198.19.0.1", "198.19.255.255"],
    "reserved",
    [
      ["198.17.255.255", "public"],
      ["198.20.0.0", "public"],
    ],
  ],
  [
    "198.51.100.0/24 TEST-NET-2",
    ["198.51.100.0", "198.51.100.128", "198.51.100.255"],
    "reserved",
    [
      ["198.51.99.255", "public"],
      ["198.51.101.0", "public"],
    ],
  ],
  [
    "203.0.113.0/24 TEST-NET-3",
    ["203.0.113.0", "203.0.113.128", "203.0.113.255"],
    "reserved",
    [
      ["203.0.112.255", "public"],
      ["203.0.114.0", "public"],
    ],
  ],
  ["224.0.0.0/4 multicast", ["224.0.0.0", "224.0.0.1", "232.1.2.3", "239.255.255.255"], "reserved", [["223.255.255.255", "public"]]],
  ["240.0.0.0/4 reserved", ["240.0.0.0", "250.1.2.3", "255.255.255.254"], "reserved", [["239.255.255.255", "reserved"]]],
  ["255.255.255.255/32 limited broadcast", ["255.255.255.255"], "reserved", [["255.255.255.254", "reserved"]]],
];

const IPV6_RANGES: Array<[string, string[], Expected, Array<[string, Expected]>]> = [
  ["::/128 unspecified", ["::", "0:0:0:0:0:0:0:0"], "reserved", [["::1", "loopback"]]],
  [
    "::1/128 loopback",
    ["::1", "0:0:0:0:0:0:0:1", "::0.0.0.1"],
    "loopback",
    [
      ["::", "reserved"],
      ["::2", "reserved"],
    ],
  ],
  ["::/96 IPv4-compatible (deprecated)", ["::0.0.0.2", "::0.0.0.255", "::8.8.8.8", "::ffff:ffff"], "reserved", [["::1:0:0:0", "reserved"]]],
  [
    "::ffff:0:0/96 IPv4-mapped, edges",
    ["::ffff:0:0", "::ffff:0.0.0.0", "::ffff:255.255.255.255"],
    "reserved",
    [
      ["::fffe:ffff:ffff", "reserved"],
      ["::1:0:0:0:0", "reserved"],
    ],
  ],
  ["::ffff:0:0:0/96 IPv4-translated (SIIT)", ["::ffff:0:0:0", "::ffff:0:8.8.8.8", "::ffff:0:127.0.0.1"], "reserved", []],
  [
    "64:ff9b::/96 NAT64, edges",
    ["64:ff9b::", "64:ff9b::255.255.255.255"],
    "reserved",
    [
      ["64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"],
      ["64:ff9b::1:0:0", "reserved"],
    ],
  ],
  [
    "64:ff9b:1::/48 local-use NAT64",
    ["64:ff9b:1::", "64:ff9b:1:8000::1", "64:ff9b:1::808:808", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"],
    "private",
    [
      ["64:ff9b:0:ffff:ffff:ffff:ffff:ffff", "reserved"],
      ["64:ff9b:2::", "reserved"],
    ],
  ],
  [
    "100::/64 discard-only",
    ["100::", "100::8000:0:0:1", "100::ffff:ffff:ffff:ffff"],
    "reserved",
    [["ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"]],
  ],
  [
    "100:0:0:1::/64 dummy prefix",
    ["100:0:0:1::", "100:0:0:1:8000::1", "100:0:0:1:ffff:ffff:ffff:ffff"],
    "reserved",
    [["100:0:0:2::", "reserved"]],
  ],
  [
    "2001::/23 IETF protocol assignments and sub-ranges",
    [
      "2001::",
      "2001:0:4136:e378:8000:63bf:f7f7:f7f7", // Teredo with a public client: the tunnel is not a receiver either
      "2001:1::1", // PCP anycast
      "2001:1::2", // TURN anycast
      "2001:1::3", // DNS-SD SRP anycast
      "2001:2::1", // benchmarking 2001:2::/48
      "2001:3::1", // AMT 2001:3::/32
      "2001:4:112::1", // AS112-v6 2001:4:112::/48
      "2001:5::1", // EID space for LISP 2001:5::/32
      "2001:10::1", // deprecated ORCHID 2001:10::/28
      "2001:20::1", // ORCHIDv2 2001:20::/28
      "2001:30::1", // Drone Remote ID 2001:30::/28
      "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
    ],
    "reserved",
    [
      ["2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public"],
      ["2001:200::", "public"],
    ],
  ],
  [
    "2001:db8::/32 documentation",
    ["2001:db8::", "2001:db8:8000::1", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"],
    "reserved",
    [
      ["2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "public"],
      ["2001:db9::", "public"],
    ],
  ],
  [
    "2002::/16 6to4, edges",
    ["2002::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    "reserved",
    [
      ["2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public"],
      ["2003::", "public"],
    ],
  ],
  [
    "2620:4f:8000::/48 AS112 direct delegation",
    ["2620:4f:8000::", "2620:4f:8000:8000::1", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff"],
    "reserved",
    [
      ["2620:4f:7fff:ffff:ffff:ffff:ffff:ffff", "public"],
      ["2620:4f:8001::", "public"],
    ],
  ],
  [
    "3fff::/20 documentation",
    ["3fff::", "3fff:800::1", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"],
    "reserved",
    [
      ["3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "public"],
      ["3fff:1000::", "public"],
    ],
  ],
  [
    "5f00::/16 SRv6 SIDs",
    ["5f00::", "5f00:8000::1", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    "reserved",
    [
      ["5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"],
      ["5f01::", "reserved"],
    ],
  ],
  [
    "fc00::/7 unique local",
    ["fc00::", "fd12:3456:789a::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    "private",
    [
      ["fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"],
      ["fe00::", "reserved"],
    ],
  ],
  [
    "fe80::/10 link-local",
    ["fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    "link-local",
    [
      ["fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"],
      ["fec0::", "private"],
    ],
  ],
  [
    "ff00::/8 multicast",
    ["ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    "reserved",
    [["feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "private"]],
  ], // below: deprecated site-local fec0::/10
  [
    "2000::/3 global unicast, edges",
    ["2000::", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    "public",
    [
      ["1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "reserved"],
      ["4000::", "reserved"],
    ],
  ],
];

/** The host an embedding form reaches decides: [address, class of the embedded IPv4 host]. */
const EMBEDDED_IPV4: Array<[string, Expected]> = [
  // IPv4-mapped ::ffff:0:0/96
  ["::ffff:8.8.8.8", "public"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:169.254.169.254", "link-local"],
  ["::ffff:192.0.2.1", "reserved"],
  // IPv4-compatible ::a.b.c.d: never public, the embedded host's class when it is worse
  ["::127.0.0.1", "loopback"],
  ["::10.0.0.1", "private"],
  ["::169.254.1.1", "link-local"],
  ["::0.0.0.5", "reserved"],
  // NAT64 64:ff9b::/96
  ["64:ff9b::8.8.8.8", "public"],
  ["64:ff9b::808:808", "public"],
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::a00:1", "private"],
  ["64:ff9b::169.254.169.254", "link-local"],
  ["64:ff9b::100.64.0.1", "private"],
  // 6to4 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
  ["2002:808:808::1", "public"],
  ["2002:7f00:1::1", "loopback"],
  ["2002:c0a8:101::1", "private"],
  ["2002:a9fe:a9fe::", "link-local"],
  ["2002:c000:22a::1", "reserved"],
  // Teredo 2001:0:<server>:<flags>:<port>:<client IPv4 inverted>
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"], // client 127.0.0.1
  ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "private"], // client 10.0.0.1
  ["2001:0:4136:e378:8000:63bf:5601:5601", "link-local"], // client 169.254.169.254
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"], // client 192.0.2.45 (RFC 4380's example)
];

/** Other spellings of the same addresses. */
const NOTATIONS: Array<[string, Expected]> = [
  ["2130706433", "loopback"],
  ["0x7f000001", "loopback"],
  ["0x7f.1", "loopback"],
  ["127.1", "loopback"],
  ["0177.0.0.1", "loopback"],
  ["127.0.0.1.", "loopback"],
  ["10.1", "private"],
  ["167772161", "private"],
  ["0xa9.0xfe.0xa9.0xfe", "link-local"],
  ["3232235777", "private"],
  ["134744072", "public"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["0000:0000:0000:0000:0000:0000:0000:0001", "loopback"],
  ["[::1]", "loopback"],
  ["::FFFF:7F00:1", "loopback"],
  ["::FFFF:127.0.0.1", "loopback"],
  ["FE80::1", "link-local"],
  ["FD00::1", "private"],
  ["2001:DB8::1", "reserved"],
  ["2606:4700:4700:0:0:0:0:1111", "public"],
  // zone ids: classified without the zone, never public
  ["fe80::1%eth0", "link-local"],
  ["[fe80::1%25eth0]", "link-local"],
  ["2606:4700:4700::1111%eth0", "reserved"],
  // not an address: the worst case when it has a colon, a host name otherwise
  ["1::2::3", "reserved"],
  ["12345::1", "reserved"],
  ["::ffff:999.0.0.1", "reserved"],
  ["1:2:3:4:5:6:7:8:9", "reserved"],
  ["example.com", null],
  ["cafe.example", null],
  ["deadbeef", null],
];

describe("the IPv4 special-purpose registry", () => {
  for (const [name, inside, kind, neighbours] of IPV4_RANGES) {
    it(name, () => {
      for (const address of inside) expect(classifyAddress(address), address).toBe(kind);
      for (const [address, neighbourKind] of neighbours) expect(classifyAddress(address), address).toBe(neighbourKind);
    });
  }
});

describe("the IPv6 special-purpose registry", () => {
  for (const [name, inside, kind, neighbours] of IPV6_RANGES) {
    it(name, () => {
      for (const address of inside) expect(classifyAddress(address), address).toBe(kind);
      for (const [address, neighbourKind] of neighbours) expect(classifyAddress(address), address).toBe(neighbourKind);
    });
  }
});

describe("IPv4 embedded in IPv6 and other notations", () => {
  it("classifies mapped, compatible, NAT64, 6to4 and Teredo forms by the IPv4 host they reach", () => {
    for (const [address, kind] of EMBEDDED_IPV4) expect(classifyAddress(address), address).toBe(kind);
  });

  it("classifies decimal, octal, hex and short IPv4, uppercase and uncompressed IPv6, and zone ids", () => {
    for (const [address, kind] of NOTATIONS) expect(classifyAddress(address), address).toBe(kind);
  });
});
