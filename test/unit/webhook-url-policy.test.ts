/**
 * The webhook URL policy with a scripted DNS-over-HTTPS resolver (a stubbed `fetch`): only ports 443 and 8443, IPv4
 * spellings and zone ids refused, zero-TTL answers refused, and a name whose answers change between the two look-ups
 * made right before a delivery (DNS rebinding) refused, while the loopback allowance of local development keeps any port.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { checkWebhookUrl, checkWebhookUrlForDelivery, type UrlPolicySettings } from "../../src/webhooks/url-policy";

const RESOLVER = "https://resolver.test/dns-query";
const production: UrlPolicySettings = { allowLoopback: false, dnsResolverUrl: RESOLVER };
const development: UrlPolicySettings = { ...production, allowLoopback: true };

interface Answer {
  addresses: string[];
  ttl: number;
}

/** name → the answers of its successive look-ups (the last one repeats). */
let zone: Record<string, Answer[]> = {};
let lookups: Record<string, number> = {};

function dnsResponse(url: URL): Response {
  const name = url.searchParams.get("name") ?? "";
  const type = url.searchParams.get("type") === "AAAA" ? 28 : 1;
  const answers = zone[name];
  if (answers === undefined) return Response.json({ Status: 3 });
  // A and AAAA of one look-up are asked together, A first: a look-up is counted on its A query.
  if (type === 1) lookups[name] = (lookups[name] ?? 0) + 1;
  const index = (lookups[name] ?? 1) - 1;
  const answer = answers[Math.min(index, answers.length - 1)] ?? { addresses: [], ttl: 60 };
  const records = answer.addresses
    .filter((address) => (type === 28) === address.includes(":"))
    .map((data) => ({ name: `${name}.`, type, TTL: answer.ttl, data }));
  return Response.json({ Status: 0, Answer: records });
}

beforeEach(() => {
  zone = {};
  lookups = {};
  vi.stubGlobal("fetch", async (input: string | URL | Request) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (`${url.origin}${url.pathname}` !== RESOLVER) throw new Error(`unexpected fetch ${url.href}`);
    return dnsResponse(url);
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("ports", () => {
  it("accepts 443 (explicit or implied) and 8443, refuses every other port at once, before any DNS look-up", async () => {
    zone["hooks.example"] = [{ addresses: ["93.184.215.14"], ttl: 300 }];
    expect(await checkWebhookUrl("https://hooks.example/x", production)).toEqual({ ok: true, url: "https://hooks.example/x" });
    expect(await checkWebhookUrl("https://hooks.example:443/x", production)).toEqual({ ok: true, url: "https://hooks.example/x" });
    expect(await checkWebhookUrl("https://hooks.example:8443/x", production)).toEqual({ ok: true, url: "https://hooks.example:8443/x" });
    expect(await checkWebhookUrl("https://93.184.215.14:8443/x", production)).toMatchObject({ ok: true });
    for (const url of [
      "https://hooks.example:22/x",
      "https://hooks.example:80/x",
      "https://hooks.example:6379/x",
      "https://93.184.215.14:8080/x",
      "https://[2606:4700::1111]:444/x",
    ]) {
      expect(await checkWebhookUrl(url, production), url).toEqual({
        ok: false,
        reason: "must use port 443 or 8443 (the https default is 443)",
        temporary: false,
      });
    }
    expect(lookups["hooks.example"]).toBe(3);
  });

  it("in local development a loopback receiver may use any port, a public host still may not", async () => {
    zone["hooks.example"] = [{ addresses: ["93.184.215.14"], ttl: 300 }];
    expect(await checkWebhookUrl("http://127.0.0.1:9999/hook", development)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl("https://localhost:8787/hook", development)).toMatchObject({ ok: true });
    expect(await checkWebhookUrl("https://hooks.example:9999/hook", development)).toMatchObject({
      ok: false,
      reason: "must use port 443 or 8443 (the https default is 443)",
    });
    // Loopback outside local development is refused whatever the port.
    expect(await checkWebhookUrl("https://127.0.0.1/hook", production)).toMatchObject({ ok: false });
  });

  it("in local development only localhost, 127.0.0.1 and [::1] as written are allowed: other ways to reach loopback stay refused", async () => {
    zone["loopback.example"] = [{ addresses: ["127.0.0.1"], ttl: 300 }];
    for (const url of ["http://localhost:9999/hook", "http://LOCALHOST/hook", "http://127.0.0.1/hook", "http://[::1]:9999/hook"]) {
      expect(await checkWebhookUrl(url, development), url).toMatchObject({ ok: true });
    }
    for (const url of [
      "https://2130706433/hook",
      "https://127.1/hook",
      "https://0x7f.0.0.1:9999/hook",
      "https://127.0.0.2/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[::ffff:0:7f00:1]/hook",
      "https://[64:ff9b::7f00:1]/hook",
      "https://[0:0:0:0:0:0:0:1]/hook",
      "https://loopback.example/hook",
    ]) {
      expect(await checkWebhookUrl(url, development), url).toMatchObject({ ok: false });
    }
    // Written another way, loopback gets neither plain http nor another port.
    expect(await checkWebhookUrl("http://2130706433:9999/hook", development)).toMatchObject({ ok: false });
  });
});

describe("other spellings of an address", () => {
  it("refuses loopback, private and link-local hosts written in decimal, octal, hex or short form, and zone ids", async () => {
    for (const url of [
      "https://2130706433/hook",
      "https://0x7f.1/hook",
      "https://127.1/hook",
      "https://0177.0.0.1/hook",
      "https://0xa9fea9fe/hook",
      "https://10.1/hook",
      "https://[::ffff:7f00:1]/hook",
      "https://[0:0:0:0:0:0:0:1]/hook",
      "https://[FE80::1]/hook",
      "https://[fe80::1%25eth0]/hook",
      "https://[64:ff9b:1::a00:1]/hook",
      "https://[::0.0.0.5]/hook",
    ]) {
      expect((await checkWebhookUrl(url, production)).ok, url).toBe(false);
    }
  });
});

describe("DNS answers", () => {
  it("refuses a name answered with a zero TTL", async () => {
    zone["zero-ttl.example"] = [{ addresses: ["93.184.215.14"], ttl: 0 }];
    expect(await checkWebhookUrl("https://zero-ttl.example/hook", production)).toEqual({
      ok: false,
      reason: "its host name's DNS answers must have a TTL of at least 1 second (answers that are never cached cannot be checked)",
      temporary: false,
    });
  });

  it("before a delivery, refuses a name whose second look-up gives other addresses (DNS rebinding)", async () => {
    zone["rebinding.example"] = [
      { addresses: ["93.184.215.14"], ttl: 1 },
      { addresses: ["93.184.215.99"], ttl: 1 },
    ];
    expect(await checkWebhookUrlForDelivery("https://rebinding.example/hook", production)).toEqual({
      ok: false,
      reason: "its host name resolved to different addresses in two consecutive look-ups",
      temporary: false,
    });
    expect(lookups["rebinding.example"]).toBe(2);
  });

  it("before a delivery, refuses a name that turns private on its second look-up", async () => {
    zone["turns-private.example"] = [
      { addresses: ["93.184.215.14"], ttl: 1 },
      { addresses: ["10.0.0.7"], ttl: 1 },
    ];
    expect((await checkWebhookUrlForDelivery("https://turns-private.example/hook", production)).ok).toBe(false);
  });

  it("before a delivery, accepts a name whose two look-ups agree, in any order and spelling", async () => {
    zone["stable.example"] = [
      { addresses: ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"], ttl: 300 },
      { addresses: ["93.184.215.14", "2606:2800:021f:cb07:6820:80DA:AF6B:8B2C"], ttl: 299 },
    ];
    expect(await checkWebhookUrlForDelivery("https://stable.example/hook", production)).toEqual({
      ok: true,
      url: "https://stable.example/hook",
    });
    expect(lookups["stable.example"]).toBe(2);
  });

  it("an IP literal needs no look-up, before a delivery either", async () => {
    expect(await checkWebhookUrlForDelivery("https://93.184.215.14/hook", production)).toEqual({
      ok: true,
      url: "https://93.184.215.14/hook",
    });
    expect(lookups).toEqual({});
  });
});
