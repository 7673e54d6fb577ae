/**
 * The decoding toolkit, every decoder through the one chunk-splitting harness: the same result for every split of the
 * body (multi-byte and astral characters, CRLF, frames and lines cut anywhere), and malformed or cut input reported.
 */
import { describe, expect, it } from "vitest";
import { htmlToMarkdown } from "../../src/scrapers/shared/decode/html-to-markdown";
import { markdownToPlainText } from "../../src/scrapers/shared/markdown";
import { attributeOf, commentsOf, parseHtml, queryAll, queryOne, removeAll, textOf, toHtml } from "../../src/scrapers/shared/decode/html";
import { applyJsonPatch, asOperation, getAtPointer, pointerTokens } from "../../src/scrapers/shared/decode/json-patch";
import { decodeLengthPrefixed } from "../../src/scrapers/shared/decode/length-prefixed";
import { decodeUtf8Chunks, LineDecoder } from "../../src/scrapers/shared/decode/lines";
import { decodeSse, parseSseJson } from "../../src/scrapers/shared/decode/sse";
import { everySplit, utf8 } from "../support/chunk-splits";

function linesOf(chunks: Uint8Array[]): string[] {
  const decoder = new LineDecoder();
  const lines = chunks.flatMap((chunk) => decoder.push(chunk));
  lines.push(decoder.end());
  return lines;
}

describe("lines", () => {
  it("splits on \\n and \\r\\n, keeps characters split across chunks whole, for every split", () => {
    const body = utf8("a é\r\n日本 🚀\n\n𝕏 end");
    const expected = ["a é", "日本 🚀", "", "𝕏 end"];
    for (const chunks of everySplit(body)) expect(linesOf(chunks)).toEqual(expected);
  });

  it("decodes whole bodies without replacement characters", () => {
    const body = utf8("👨‍👩‍👧 and ü");
    for (const chunks of everySplit(body)) expect(decodeUtf8Chunks(chunks)).toBe("👨‍👩‍👧 and ü");
  });
});

describe("SSE", () => {
  const body = utf8(
    'event: delta_encoding\ndata: "v1"\n\n: a comment\n\nevent: delta\r\ndata: {"v":"café 🚀"}\r\n\r\nid:CHUNK-1\nevent: inference\ndata: {"a":\ndata: 1}\n\ndata: [DONE]\n\n',
  );

  it("decodes events (event, id, multi-line data, CRLF, comments) identically for every split", () => {
    const expected = decodeSse([body]);
    expect(expected.events.map((event) => [event.event, event.id, event.data])).toEqual([
      ["delta_encoding", undefined, '"v1"'],
      ["delta", undefined, '{"v":"café 🚀"}'],
      ["inference", "CHUNK-1", '{"a":\n1}'],
      [undefined, undefined, "[DONE]"],
    ]);
    expect(expected.endedMidEvent).toBe(false);
    for (const chunks of everySplit(body)) expect(decodeSse(chunks)).toEqual(expected);
  });

  it("parses JSON data leniently", () => {
    const { events } = decodeSse([body]);
    expect(events.map(parseSseJson)).toEqual(["v1", { v: "café 🚀" }, { a: 1 }, undefined]);
  });

  it("reports a body cut inside an event, for every split", () => {
    const cut = utf8('data: {"a":1}\n\ndata: {"b":');
    for (const chunks of everySplit(cut)) {
      const result = decodeSse(chunks);
      expect(result.events.map((event) => event.data)).toEqual(['{"a":1}']);
      expect(result.endedMidEvent).toBe(true);
    }
    const cutAtLineEnd = utf8('data: {"a":1}\r\n\r\ndata: {"b":2}\r\n');
    for (const chunks of everySplit(cutAtLineEnd)) expect(decodeSse(chunks).endedMidEvent).toBe(true);
  });

  it("treats trailing comments and blank lines as a clean end", () => {
    expect(decodeSse([utf8("data: x\n\n: keep-alive\n\n\n")]).endedMidEvent).toBe(false);
  });
});

describe("UTF-16 length-prefixed frames", () => {
  /** A frame as Google writes it: the length counts UTF-16 units from the \n after the digits through the \n after the JSON. */
  const frame = (json: string): string => `${json.length + 2}\n${json}\n`;
  const astral = JSON.stringify([["wrb.fr", null, JSON.stringify([null, ["c", "r"], null, null, [["rc", ["Hi 🙂 𝕏"]]]])]]);
  const trailer = JSON.stringify([
    ["di", 57],
    ["af.httprm", 56, "1", 3],
  ]);
  const body = utf8(`)]}'\n\n${frame(astral)}${frame(trailer)}${frame('[["e",4,null,null,512]]')}`);

  it("decodes frames whose lengths count UTF-16 units (astral characters count 2), for every split", () => {
    const expected = decodeLengthPrefixed([body]);
    expect(expected.hadPrefix).toBe(true);
    expect(expected.malformedFrames).toBe(0);
    expect(expected.endedMidFrame).toBe(false);
    expect(expected.frames).toEqual([JSON.parse(astral), JSON.parse(trailer), [["e", 4, null, null, 512]]]);
    for (const chunks of everySplit(body)) expect(decodeLengthPrefixed(chunks)).toEqual(expected);
  });

  it("reads a frame by JSON balance when its declared length is off", () => {
    const wrong = utf8(`)]}'\n\n3\n[[1,"]"]]\n${frame("[2]")}`);
    const result = decodeLengthPrefixed([wrong]);
    expect(result.frames).toEqual([[[1, "]"]], [2]]);
  });

  it("reports a body cut inside a frame", () => {
    const cut = utf8(`)]}'\n\n${frame("[1]")}20\n[["wrb.fr"`);
    for (const chunks of everySplit(cut)) {
      const result = decodeLengthPrefixed(chunks);
      expect(result.frames).toEqual([[1]]);
      expect(result.endedMidFrame).toBe(true);
    }
  });

  it("accepts a body without the anti-hijacking prefix", () => {
    expect(decodeLengthPrefixed([utf8(frame("[1]"))])).toMatchObject({ frames: [[1]], hadPrefix: false });
  });
});

describe("JSON Patch", () => {
  it("applies RFC 6902 operations to a copy, root replacement included", () => {
    const original = { chunks: ["a"], progress: "IN_PROGRESS" };
    const { document, failed } = applyJsonPatch(original, [
      { op: "add", path: "/chunks/1", value: "b" },
      { op: "replace", path: "/progress", value: "DONE" },
      { op: "remove", path: "/missing/x" },
    ]);
    expect(document).toEqual({ chunks: ["a", "b"], progress: "DONE" });
    expect(failed).toBe(1);
    expect(original).toEqual({ chunks: ["a"], progress: "IN_PROGRESS" });
    expect(applyJsonPatch(null, [{ op: "replace", path: "", value: { x: 1 } }]).document).toEqual({ x: 1 });
  });

  it("narrows unknown operations and reads pointers", () => {
    expect(asOperation({ op: "append", path: "/a", v: 1 })).toBeNull();
    expect(asOperation({ op: "add", path: "a", value: 1 })).toBeNull();
    expect(getAtPointer({ a: [{ "b/c": 2 }] }, "/a/0/b~1c")).toBe(2);
    expect(getAtPointer({ a: 1 }, "/x/y")).toBeUndefined();
    expect(pointerTokens("/message/content/parts/0")).toEqual(["message", "content", "parts", "0"]);
  });
});

describe("HTML", () => {
  const html = `<div data-container-id="main-col"><p>Tom &amp; Jerry <b>bold</b><button data-icl-uuid="u1" aria-label="Site"></button></p>
<ul><li>One</li><li>Two 🙂</li></ul><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>
<!--Sv6Kpe[["u1",["Title"]]]--><script>ignored()</script></div>`;

  it("queries, reads text and attributes, finds comments and removes chrome", () => {
    const document = parseHtml(html);
    const container = queryOne(document, '[data-container-id="main-col"]');
    expect(container).not.toBeNull();
    const [button] = queryAll(document, "button[data-icl-uuid]");
    expect(button === undefined ? null : attributeOf(button, "data-icl-uuid")).toBe("u1");
    expect(commentsOf(document)).toEqual(['Sv6Kpe[["u1",["Title"]]]']);
    removeAll(document, "button, script");
    expect(queryAll(document, "button")).toHaveLength(0);
    expect(textOf(document)).toContain("Tom & Jerry bold");
    expect(toHtml(document)).not.toContain("<button");
  });

  it("converts to markdown with lists, tables, emphasis and links", () => {
    const markdown = htmlToMarkdown(
      '<h2>Title</h2><p>Some <strong>bold</strong> and <a href="https://example.com/a">a link</a>.</p><ul><li>One</li><li>Two</li></ul><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>',
    );
    expect(markdown).toContain("## Title");
    expect(markdown).toContain("**bold**");
    expect(markdown).toContain("[a link](https://example.com/a)");
    expect(markdown).toMatch(/^- One$/m);
    expect(markdown).toMatch(/\| A +\| B +\|/);
  });

  it("keeps link URLs exactly as sent (only what would end the destination is escaped)", () => {
    const url = "https://example.com/a_b(1)*c?x=1&y=~z#frag";
    const markdown = htmlToMarkdown(`<p><a href="${url}">t</a></p>`);
    expect(markdown).toBe("[t](https://example.com/a_b\\(1\\)*c?x=1&y=~z#frag)");
    expect(markdownToPlainText(markdown)).toBe("t");
    // relative and script links keep their text only
    expect(htmlToMarkdown('<p><a href="/search?q=x">internal</a> <a href="javascript:void(0)">js</a></p>')).toBe("internal js");
  });

  it("nests lists by the marker's width, keeps item order and escapes every | of a table cell", () => {
    expect(htmlToMarkdown("<ol><li>One<ul><li>nested</li></ul></li><li>Two</li></ol>")).toBe("1. One\n   - nested\n2. Two");
    expect(markdownToPlainText(htmlToMarkdown("<ol><li>One<ul><li>nested</li></ul></li><li>Two</li></ol>"))).toBe(
      "1. One\n   - nested\n2. Two",
    );
    expect(htmlToMarkdown("<table><tr><th>A</th></tr><tr><td>a|b|c</td></tr></table>")).toBe("| A |\n| --- |\n| a\\|b\\|c |");
    expect(markdownToPlainText(htmlToMarkdown("<table><tr><th>A</th></tr><tr><td>a|b|c</td></tr></table>"))).toBe("A\na|b|c");
  });

  it("escapes markdown syntax in text so the plain text round-trips", () => {
    const html = "<p>snake_case, *stars*, [1], `tick` and 2024. done</p><p>1. not a list</p><p># not a heading</p>";
    expect(markdownToPlainText(htmlToMarkdown(html))).toBe(
      "snake_case, *stars*, [1], `tick` and 2024. done\n\n1. not a list\n\n# not a heading",
    );
  });

  it("fences code with its language and a fence longer than any backtick run inside", () => {
    expect(htmlToMarkdown('<pre><code class="language-py">print("```")\n</code></pre>')).toBe('````py\nprint("```")\n````');
  });
});
