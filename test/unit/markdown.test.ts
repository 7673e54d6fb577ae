import { describe, expect, it } from "vitest";
import { markdownToPlainText } from "../../src/scrapers/shared/markdown";

describe("markdownToPlainText", () => {
  it("separates paragraphs and headings by one blank line and keeps heading text only", () => {
    expect(markdownToPlainText("# Title\n\nFirst paragraph.\n\n\n\nSecond paragraph.\n\nSetext\n---\n\n### Third")).toBe(
      "Title\n\nFirst paragraph.\n\nSecond paragraph.\n\nSetext\n\nThird",
    );
  });

  it("drops emphasis markers and keeps inline code as its text", () => {
    expect(markdownToPlainText("Some **bold**, *em*, __strong__, ~~gone~~ and `a * b` text.")).toBe(
      "Some bold, em, strong, gone and a * b text.",
    );
  });

  it("keeps link text, drops the url, and brackets numeric citation links", () => {
    expect(markdownToPlainText("See [the docs](https://example.com/docs) and <https://example.com/auto>.")).toBe(
      "See the docs and https://example.com/auto.",
    );
    expect(markdownToPlainText("Paris is the capital.[1](https://a.example)[12](https://b.example) Also [**2**](https://c.example).")).toBe(
      "Paris is the capital.[1][12] Also [2].",
    );
  });

  it("renders images as their alt text", () => {
    expect(markdownToPlainText("Before ![a *spiral* image](https://img.example/s.png) after")).toBe("Before a spiral image after");
  });

  it("keeps list markers: bullets as '- ', ordered items with their own number and delimiter", () => {
    const markdown = "* one\n+ two\n\n- three\n  continued\n\n3. third\n4. fourth\n\n1) paren";
    // `*` and `+` start separate lists in CommonMark; each list is its own block
    expect(markdownToPlainText(markdown)).toBe("- one\n\n- two\n\n- three\n  continued\n\n3. third\n4. fourth\n\n1) paren");
  });

  it("indents nested lists and further paragraphs of an item to the item's text column", () => {
    const markdown = "- parent\n  - child\n    1. grandchild\n- loose item\n\n  second paragraph\n- last";
    expect(markdownToPlainText(markdown)).toBe("- parent\n  - child\n    1. grandchild\n- loose item\n  second paragraph\n- last");
  });

  it("keeps fenced and indented code verbatim without fences", () => {
    const markdown =
      "Intro:\n\n```python\ndef f(x):\n    return x * 2  # **not bold**\n\n\nprint(f(2))\n```\n\n    indented <code>\n\nEnd.";
    expect(markdownToPlainText(markdown)).toBe(
      "Intro:\n\ndef f(x):\n    return x * 2  # **not bold**\n\n\nprint(f(2))\n\nindented <code>\n\nEnd.",
    );
  });

  it("renders tables as tab-separated rows without the separator row", () => {
    const markdown = "| Name | Score |\n|:-----|------:|\n| **Ada** | 10 |\n| `Bob` | [x](https://x.example) |\n| empty | |";
    expect(markdownToPlainText(markdown)).toBe("Name\tScore\nAda\t10\nBob\tx\nempty\t");
  });

  it("renders block quotes without markers and thematic breaks as nothing", () => {
    expect(markdownToPlainText("> quoted\n> line\n>\n> second\n\n---\n\nafter")).toBe("quoted\nline\n\nsecond\n\nafter");
  });

  it("turns soft and hard line breaks into newlines", () => {
    expect(markdownToPlainText("line one\nline two  \nline three\\\nline four")).toBe("line one\nline two\nline three\nline four");
  });

  it("decodes entities and escapes and keeps raw HTML as literal text", () => {
    expect(markdownToPlainText("Fish &amp; chips \\*not em\\* &copy; <b>bold?</b>")).toBe("Fish & chips *not em* © <b>bold?</b>");
  });

  it("keeps unicode, including astral characters, untouched", () => {
    expect(markdownToPlainText("**日本語** 🚀 𝕏 👨‍👩‍👧‍👦 cafe\u0301")).toBe("日本語 🚀 𝕏 👨‍👩‍👧‍👦 cafe\u0301");
  });

  it("returns an empty string for empty or whitespace-only input", () => {
    expect(markdownToPlainText("")).toBe("");
    expect(markdownToPlainText(" \n\n \n")).toBe("");
  });
});
