import { describe, expect, it } from "vitest";
import { decodeNdjson, NdjsonDecoder } from "../../src/scrapers/shared/decode/ndjson";

const encoder = new TextEncoder();
const bytes = (text: string): Uint8Array => encoder.encode(text);

/** Every way of cutting `data` into two chunks, plus one chunk per byte. */
function allSplits(data: Uint8Array): Uint8Array[][] {
  const splits: Uint8Array[][] = [[data], Array.from(data, (byte) => Uint8Array.of(byte))];
  for (let at = 0; at <= data.length; at += 1) splits.push([data.subarray(0, at), data.subarray(at)]);
  return splits;
}

describe("decodeNdjson", () => {
  it("decodes one value per line and skips blank lines", () => {
    const result = decodeNdjson([bytes('{"a":1}\n\n   \n{"b":[true,null]}\n')]);
    expect(result).toEqual({ values: [{ a: 1 }, { b: [true, null] }], malformedLines: 0, endedMidLine: false });
  });

  it("accepts \\r\\n line ends and a last line without a newline", () => {
    const result = decodeNdjson([bytes('{"a":1}\r\n\r\n{"b":2}\r\n{"c":3}')]);
    expect(result).toEqual({ values: [{ a: 1 }, { b: 2 }, { c: 3 }], malformedLines: 0, endedMidLine: false });
  });

  it("keeps non-object JSON values: narrowing is the caller's job", () => {
    expect(decodeNdjson([bytes('1\n"two"\n[3]\nnull\n')]).values).toEqual([1, "two", [3], null]);
  });

  it("skips and counts malformed lines instead of throwing", () => {
    const result = decodeNdjson([bytes('{"a":1}\n{"broken":\n<html>\n{"b":2}\n')]);
    expect(result).toEqual({ values: [{ a: 1 }, { b: 2 }], malformedLines: 2, endedMidLine: false });
  });

  it("reports a body that ends inside a line", () => {
    const result = decodeNdjson([bytes('{"a":1}\n{"b":"cut he')]);
    expect(result).toEqual({ values: [{ a: 1 }], malformedLines: 1, endedMidLine: true });
  });

  it("decodes an empty body", () => {
    expect(decodeNdjson([])).toEqual({ values: [], malformedLines: 0, endedMidLine: false });
    expect(decodeNdjson([new Uint8Array(0), new Uint8Array(0)])).toEqual({ values: [], malformedLines: 0, endedMidLine: false });
  });

  it("gives the same result for every split of a body with multi-byte characters, CRLF and a broken line", () => {
    // 2-, 3- and 4-byte UTF-8 sequences (é, 日, 🚀, 𝕏, a ZWJ family), a JSON surrogate escape, a malformed line
    const body = bytes('{"t":"café 日本 🚀 𝕏 👨‍👩‍👧"}\r\n{"u":"\\ud83d\\ude80"}\n\n{"bad":\n{"end":"ü"}');
    const expected = decodeNdjson([body]);
    expect(expected).toEqual({
      values: [{ t: "café 日本 🚀 𝕏 👨‍👩‍👧" }, { u: "🚀" }, { end: "ü" }],
      malformedLines: 1,
      endedMidLine: false,
    });
    for (const chunks of allSplits(body)) expect(decodeNdjson(chunks)).toEqual(expected);
  });

  it("never produces replacement characters when a 4-byte character is split in every possible place", () => {
    const body = bytes('{"emoji":"𝕏"}\n');
    const start = body.indexOf(0xf0);
    for (let first = start + 1; first < start + 4; first += 1) {
      for (let second = first; second < start + 4; second += 1) {
        const chunks = [body.subarray(0, first), body.subarray(first, second), body.subarray(second)];
        expect(decodeNdjson(chunks).values).toEqual([{ emoji: "𝕏" }]);
      }
    }
  });
});

describe("NdjsonDecoder", () => {
  it("returns each value as soon as its line is complete", () => {
    const decoder = new NdjsonDecoder();
    expect(decoder.push(bytes('{"a":'))).toEqual([]);
    expect(decoder.push(bytes('1}\n{"b":2}\n{"c"'))).toEqual([{ a: 1 }, { b: 2 }]);
    expect(decoder.push(bytes(":3}"))).toEqual([]);
    expect(decoder.end()).toEqual([{ c: 3 }]);
    expect(decoder.malformedLines).toBe(0);
    expect(decoder.endedMidLine).toBe(false);
  });

  it("handles a long line delivered one byte at a time", () => {
    const text = "x".repeat(200_000);
    const body = bytes(`{"long":"${text}"}\n`);
    const decoder = new NdjsonDecoder();
    const values: unknown[] = [];
    for (let index = 0; index < body.length; index += 1) values.push(...decoder.push(body.subarray(index, index + 1)));
    values.push(...decoder.end());
    expect(values).toEqual([{ long: text }]);
  });
});
