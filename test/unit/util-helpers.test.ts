/**
 * The one helper of each small concern in src/util (issue 31 point 5): base64 in both alphabets, http(s) URLs, UUIDs,
 * lenient JSON. Expected values are written out by hand from the encodings' definitions (RFC 4648, WHATWG URL).
 */
import { describe, expect, it } from "vitest";
import { base64ToBytes, base64UrlToBytes, bytesToBase64, bytesToBase64Url } from "../../src/util/base64";
import { isHttpUrl, parseHttpUrl } from "../../src/util/http-url";
import { parseJsonOrUndefined, trimmedOrNull } from "../../src/util/json-record";
import { providerTimestampOrNull } from "../../src/util/time";
import { isUuid } from "../../src/util/uuid";

// 0xfb 0xff encode to the two characters that differ between the alphabets: "+/8=" standard, "-_8" url.
const TWO_BYTES = new Uint8Array([0xfb, 0xff]);

describe("base64", () => {
  it("standard base64 keeps + / and = padding, and reads back", () => {
    expect(bytesToBase64(TWO_BYTES)).toBe("+/8=");
    expect(bytesToBase64(new TextEncoder().encode("Man"))).toBe("TWFu");
    expect([...base64ToBytes("+/8=")]).toEqual([0xfb, 0xff]);
    expect([...base64ToBytes("")]).toEqual([]);
  });

  it("standard base64 that is not base64 throws", () => {
    expect(() => base64ToBytes("*")).toThrow();
  });

  it("base64url uses - and _ and drops the padding", () => {
    expect(bytesToBase64Url(TWO_BYTES)).toBe("-_8");
    expect(bytesToBase64Url(new TextEncoder().encode("Ma"))).toBe("TWE");
  });

  it("reads base64url with or without padding, and leniently the standard spelling and white space", () => {
    for (const spelling of ["-_8", "-_8=", "+/8=", "+/8", " -_8"]) expect([...(base64UrlToBytes(spelling) ?? [])]).toEqual([0xfb, 0xff]);
  });

  it("urlAlphabetOnly accepts only the unpadded url alphabet", () => {
    expect([...(base64UrlToBytes("-_8", { urlAlphabetOnly: true }) ?? [])]).toEqual([0xfb, 0xff]);
    for (const spelling of ["-_8=", "+/8=", " -_8", "-_ 8"]) expect(base64UrlToBytes(spelling, { urlAlphabetOnly: true })).toBeNull();
  });

  it("text that is not base64 reads as null in either mode", () => {
    for (const text of ["*", "a", "ab=c"]) {
      expect(base64UrlToBytes(text)).toBeNull();
      expect(base64UrlToBytes(text, { urlAlphabetOnly: true })).toBeNull();
    }
  });
});

describe("http(s) URLs", () => {
  it("absolute http and https URLs pass", () => {
    expect(isHttpUrl("https://a.example/path?q=1")).toBe(true);
    expect(isHttpUrl("http://127.0.0.1:8788/grok")).toBe(true);
    expect(parseHttpUrl("https://a.example/path")?.hostname).toBe("a.example");
  });

  it("other schemes, relative paths and non-URLs do not", () => {
    for (const text of ["javascript:alert(1)", "data:text/html,x", "ftp://a.example/", "/relative", "a.example", "", "https://"]) {
      expect(isHttpUrl(text)).toBe(false);
      expect(parseHttpUrl(text)).toBeNull();
    }
  });
});

describe("UUIDs", () => {
  it("the 8-4-4-4-12 hex shape in either case is a UUID", () => {
    expect(isUuid("123e4567-e89b-12d3-a456-426614174000")).toBe(true);
    expect(isUuid("123E4567-E89B-12D3-A456-426614174000")).toBe(true);
  });

  it("anything around or missing is not", () => {
    for (const text of [
      "123e4567-e89b-12d3-a456-42661417400",
      "123e4567-e89b-12d3-a456-426614174000.md",
      "x123e4567-e89b-12d3-a456-426614174000",
      "123e4567e89b12d3a456426614174000",
      "g23e4567-e89b-12d3-a456-426614174000",
      "",
    ]) {
      expect(isUuid(text)).toBe(false);
    }
  });
});

describe("lenient JSON", () => {
  it("parseJsonOrUndefined: the value, or undefined when the text is not JSON", () => {
    expect(parseJsonOrUndefined('{"a":[1,"x"]}')).toEqual({ a: [1, "x"] });
    expect(parseJsonOrUndefined("null")).toBeNull();
    expect(parseJsonOrUndefined("{")).toBeUndefined();
    expect(parseJsonOrUndefined("")).toBeUndefined();
  });

  it("trimmedOrNull: a non-blank string trimmed, else null", () => {
    expect(trimmedOrNull("  Grok \n")).toBe("Grok");
    expect(trimmedOrNull(" \t ")).toBeNull();
    expect(trimmedOrNull(42)).toBeNull();
    expect(trimmedOrNull(null)).toBeNull();
  });
});

describe("provider timestamps", () => {
  it("writes any ISO 8601 instant as UTC with milliseconds and a +00:00 offset", () => {
    expect(providerTimestampOrNull("2026-03-12T22:37:10Z")).toBe("2026-03-12T22:37:10.000+00:00");
    expect(providerTimestampOrNull("2026-03-12T22:37:10.5Z")).toBe("2026-03-12T22:37:10.500+00:00");
    expect(providerTimestampOrNull(" 2026-03-12T23:37:10.123+01:00 ")).toBe("2026-03-12T22:37:10.123+00:00");
    expect(providerTimestampOrNull("2026-03-12")).toBe("2026-03-12T00:00:00.000+00:00");
  });

  it("is null for what is not a date", () => {
    for (const raw of ["", "  ", "2026", "March 12, 2026", "2026-13-45T00:00:00Z", "yesterday", 1741819030, null, undefined, {}]) {
      expect(providerTimestampOrNull(raw), String(raw)).toBeNull();
    }
  });
});
