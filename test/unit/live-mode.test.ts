/**
 * Live mode by configuration (issue 12, item 1): which origin each scraper of the local stack drives, from the
 * environment `npm start` sees (scripts/local-origins.ts), and what "no override" means for each provider: its real
 * site. Nothing here reaches a real site; the replica runs of every other test use the same switch the other way.
 */
import { describe, expect, it } from "vitest";
import { REPLICA_PROVIDERS, replicaOriginOverride } from "../../replicas/server";
import { isLiveMode, localOrigins, originVariable } from "../../scripts/local-origins";
import type { CommonParams } from "../../src/params/common-params";
import { PROVIDERS } from "../../src/scrapers/provider-list";

const REPLICA_BASE = "http://127.0.0.1:8788";
const replicas = REPLICA_PROVIDERS.map((provider) => ({ id: provider.id, replicaOrigin: replicaOriginOverride(provider, REPLICA_BASE) }));
const ALL_VARIABLES = PROVIDERS.map((provider) => originVariable(provider.id)).sort();

describe("npm start: replicas by default", () => {
  it("points every provider at its replica", () => {
    const origins = localOrigins(replicas, {});
    expect(origins.live).toBe(false);
    expect(origins.realSites).toEqual([]);
    expect(Object.keys(origins.overrides).sort()).toEqual(ALL_VARIABLES);
    expect(origins.overrides.PROVIDER_ORIGIN_GROK).toBe("http://127.0.0.1:8788/grok");
    expect(origins.overrides.PROVIDER_ORIGIN_AMAZON_RUFUS).toBe("http://127.0.0.1:8788/amazon_rufus/{domain}");
  });

  it("has a replica for every provider, so the switch covers them all", () => {
    expect(REPLICA_PROVIDERS.map((provider) => provider.id).sort()).toEqual(PROVIDERS.map((provider) => provider.id).sort());
  });

  it("PROVIDER_ORIGIN_<ID> overrides that one provider; set but empty sends it to its real site", () => {
    const origins = localOrigins(replicas, { PROVIDER_ORIGIN_GROK: "http://10.0.0.5:9000/grok/", PROVIDER_ORIGIN_GEMINI: "" });
    expect(origins.overrides.PROVIDER_ORIGIN_GROK).toBe("http://10.0.0.5:9000/grok");
    expect(origins.overrides.PROVIDER_ORIGIN_GEMINI).toBeUndefined();
    expect(origins.realSites).toEqual(["gemini"]);
    expect(origins.overrides.PROVIDER_ORIGIN_CHATGPT).toBe("http://127.0.0.1:8788/chatgpt");
  });
});

describe("LIVE=1 npm start: the real sites", () => {
  it("sets no origin at all, so every scraper drives its real site", () => {
    const origins = localOrigins(replicas, { LIVE: "1" });
    expect(origins.live).toBe(true);
    expect(origins.overrides).toEqual({});
    expect([...origins.realSites].sort()).toEqual(PROVIDERS.map((provider) => provider.id).sort());
  });

  it("still lets PROVIDER_ORIGIN_<ID> override one provider (e.g. keep Rufus on its replica)", () => {
    const rufus = "http://127.0.0.1:8788/amazon_rufus/{domain}";
    const origins = localOrigins(replicas, { LIVE: "1", PROVIDER_ORIGIN_AMAZON_RUFUS: rufus });
    expect(origins.overrides).toEqual({ PROVIDER_ORIGIN_AMAZON_RUFUS: rufus });
    expect(origins.realSites).not.toContain("amazon_rufus");
    expect(origins.realSites).toHaveLength(PROVIDERS.length - 1);
  });

  it("accepts the usual true words and nothing else", () => {
    for (const word of ["1", "true", "TRUE", "yes", "on"]) expect(isLiveMode({ LIVE: word })).toBe(true);
    for (const word of ["", "0", "false", "no", "live"]) expect(isLiveMode({ LIVE: word })).toBe(false);
    expect(isLiveMode({})).toBe(false);
  });

  it("refuses an override that is not an http(s) URL, and reports variables that name no provider", () => {
    expect(() => localOrigins(replicas, { PROVIDER_ORIGIN_GROK: "grok.example" })).toThrow(/PROVIDER_ORIGIN_GROK must be an http\(s\) URL/);
    expect(() => localOrigins(replicas, { PROVIDER_ORIGIN_GROK: "file:///etc/passwd" })).toThrow(/PROVIDER_ORIGIN_GROK/);
    expect(localOrigins(replicas, { PROVIDER_ORIGIN_GORK: "http://x" }).unknownVariables).toEqual(["PROVIDER_ORIGIN_GORK"]);
  });
});

/** A provider seen through its origin declaration with the common parameters (as the registry sees it). */
interface OriginDeclaration {
  origin: { real(params: CommonParams): string };
}
const realOrigin = (provider: OriginDeclaration, params: CommonParams): string => provider.origin.real(params);

describe("without an override, each scraper's origin is its real site", () => {
  const params: CommonParams = { prompt: "x", country: "US", bypass_cache: false, timeout: 300, api_key: undefined };
  const REAL_SITES: Readonly<Record<string, string>> = {
    chatgpt: "https://chatgpt.com",
    perplexity: "https://www.perplexity.ai",
    grok: "https://grok.com",
    copilot: "https://copilot.microsoft.com",
    gemini: "https://gemini.google.com",
    google_ai_mode: "https://www.google.com",
    amazon_rufus: "https://www.amazon.com",
  };
  for (const provider of PROVIDERS) {
    it(`${provider.id} → ${REAL_SITES[provider.id]}`, () => {
      expect(realOrigin(provider, params)).toBe(REAL_SITES[provider.id]);
    });
  }

  it("Amazon's real origin is the marketplace of the country (amazon.de for DE)", () => {
    const rufus = PROVIDERS.find((provider) => provider.id === "amazon_rufus");
    expect(rufus === undefined ? null : realOrigin(rufus, { ...params, country: "DE" })).toBe("https://www.amazon.de");
  });
});
