/**
 * The ChatGPT answer's markdown (providers/chatgpt.md §4, DESIGN.md URL decisions): markers resolved through
 * `content_references`, URLs normalised (only the three DESIGN.md normalisations), hyperlinks listed, and the
 * markdown-it token tree of `result_markdown_json`.
 */
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { markdownTokenTree } from "../../src/scrapers/chatgpt/markdown-tokens";
import { linksOf, resolveAnswerMarkdown } from "../../src/scrapers/chatgpt/references";
import { normaliseMarkdownUrls, normaliseUrl } from "../../src/scrapers/chatgpt/urls";

const cite = (n: number): string => `\ue200cite\ue202turn0search${n}\ue201`;
const reference = (matched: string, alt: string, extra: Record<string, unknown> = {}) => ({ matched_text: matched, alt, ...extra });

describe("normaliseUrl: exactly DESIGN.md's three normalisations", () => {
  const cases: Array<[string, string]> = [
    ["https://example.com/a?utm_source=chatgpt.com", "https://example.com/a"],
    ["https://example.com/a?x=1&utm_source=chatgpt.com", "https://example.com/a?x=1"],
    ["https://example.com/a?utm_source=chatgpt.com&x=1", "https://example.com/a?x=1"],
    ["https://example.com/a?x=1&utm_source=chatgpt.com&y=2", "https://example.com/a?x=1&y=2"],
    ["https://example.com/a?utm_source=chatgpt.com#part", "https://example.com/a#part"],
    ["https://example.com/a#:~:text=some%20words", "https://example.com/a"],
    ["https://example.com/a?utm_source=chatgpt.com#:~:text=some%20words", "https://example.com/a"],
    ["https://example.com/a#section:~:text=words", "https://example.com/a#section"],
    ["https://www.google.com/url?q=https%3A%2F%2Fexample.net%2Fx%3Fid%3D7&sa=D", "https://example.net/x?id=7"],
    ["https://www.google.co.uk/url?url=https://example.org/&sa=t", "https://example.org/"],
    // left alone: other people's tracking, other redirects, non-http targets, relative and odd URLs
    ["https://example.com/a?utm_source=newsletter", "https://example.com/a?utm_source=newsletter"],
    ["https://example.com/a?utm_source=newsletter&utm_source=chatgpt.com", "https://example.com/a?utm_source=newsletter"],
    ["https://www.google.com/search?q=https%3A%2F%2Fexample.net", "https://www.google.com/search?q=https%3A%2F%2Fexample.net"],
    ["https://www.google.com/url?q=javascript%3Aalert(1)", "https://www.google.com/url?q=javascript%3Aalert(1)"],
    ["https://en.wikipedia.org/wiki/Mercury_(planet)", "https://en.wikipedia.org/wiki/Mercury_(planet)"],
    ["https://example.com", "https://example.com"],
    ["/relative?utm_source=chatgpt.com", "/relative"],
  ];
  for (const [input, output] of cases) it(input, () => expect(normaliseUrl(input)).toBe(output));
});

describe("resolveAnswerMarkdown", () => {
  it("replaces each marker by its reference's alt, with clean URLs", () => {
    const markdown = resolveAnswerMarkdown(`A ${cite(0)} and B ${cite(1)}.`, [
      reference(cite(0), "([One](https://one.example/?utm_source=chatgpt.com))"),
      reference(cite(1), "([Two](https://two.example/p?a=1&utm_source=chatgpt.com#:~:text=x))"),
    ]);
    expect(markdown).toBe("A ([One](https://one.example/)) and B ([Two](https://two.example/p?a=1)).");
  });

  it("uses references that share a matched text in order, the last one again for further occurrences", () => {
    const markdown = resolveAnswerMarkdown(`${cite(0)} ${cite(0)} ${cite(0)}`, [
      reference(cite(0), "[first](https://a.example/)"),
      reference(cite(0), "[second](https://b.example/)"),
    ]);
    expect(markdown).toBe("[first](https://a.example/) [second](https://b.example/) [second](https://b.example/)");
  });

  it("falls back to prompt_text, drops markers without a reference, and never touches text for a blank matched_text", () => {
    const nav = "\ue200navlist\ue202Reading\ue202turn0news1\ue201";
    const entity = '\ue200entity\ue202["people","Ada Lovelace"]\ue201';
    const markdown = resolveAnswerMarkdown(`${entity} wrote notes ${cite(9)}.\n\n${nav}\n\nEnd of text.`, [
      reference(entity, "", { prompt_text: "Ada Lovelace" }),
      reference(nav, ""),
      reference(" ", "", { type: "sources_footnote" }),
    ]);
    // removal is literal (chatgpt.md §4): the widget's line stays, empty
    expect(markdown).toBe("Ada Lovelace wrote notes .\n\n\n\nEnd of text.");
  });

  it("removes stray marker characters and a marker the answer ended inside; no private-use character survives", () => {
    const markdown = resolveAnswerMarkdown("Cut here\ue203, there\ue204\ue206 and at the end \ue200cite\ue202turn0se", []);
    expect(markdown).toBe("Cut here, there and at the end");
    expect(markdown).not.toMatch(/[\ue200-\ue206]/);
  });

  it("a replacement cannot bring markers back; leading blank lines and trailing whitespace are trimmed", () => {
    const markdown = resolveAnswerMarkdown(`${cite(0)}\n\nOne.\n\n${cite(1)}`, [
      reference(cite(0), "\ue200"),
      reference(cite(1), "  \ue201 "),
    ]);
    expect(markdown).toBe("One.");
  });

  it("replaces a reference whose matched text is not a whole marker at its first occurrence (older builds)", () => {
    const markdown = resolveAnswerMarkdown("Paris 【11†source】 and Rome 【11†source】.", [
      reference("【11†source】", "[1](https://p.example/)"),
    ]);
    expect(markdown).toBe("Paris [1](https://p.example/) and Rome 【11†source】.");
  });

  it("normalises ordinary markdown links too, including <bracketed> destinations and titles", () => {
    const markdown = resolveAnswerMarkdown(
      '[a](https://a.example/?utm_source=chatgpt.com "Title") and [b](<https://b.example/x y?utm_source=chatgpt.com>)',
      [],
    );
    expect(markdown).toBe('[a](https://a.example/ "Title") and [b](<https://b.example/x y>)');
  });
});

describe("linksOf", () => {
  it("lists every hyperlink in document order, citations and ordinary links, but nothing inside code", () => {
    const markdown = [
      "Intro ([Wikipedia](https://en.wikipedia.org/wiki/Mercury_(planet))) and [docs](https://docs.example/).",
      "",
      "| A | B |",
      "|---|---|",
      "| x | ([Go](https://go.dev/)) |",
      "",
      "`[not](https://code.example/)`",
      "",
      "```",
      "[also not](https://fence.example/)",
      "```",
      "",
      "[**bold** link](https://bold.example/) and [Wikipedia](https://en.wikipedia.org/wiki/Mercury_(planet)) again.",
    ].join("\n");
    expect(linksOf(markdown)).toEqual([
      { text: "Wikipedia", url: "https://en.wikipedia.org/wiki/Mercury_(planet)" },
      { text: "docs", url: "https://docs.example/" },
      { text: "Go", url: "https://go.dev/" },
      { text: "bold link", url: "https://bold.example/" },
      { text: "Wikipedia", url: "https://en.wikipedia.org/wiki/Mercury_(planet)" },
    ]);
  });
});

describe("markdownTokenTree (result_markdown_json)", () => {
  it("is markdown-it's token stream with every Token field, inline children included", () => {
    const markdown = "# Title\n\nText with [a link](https://a.example/) and `code`.\n\n| A |\n|---|\n| b |\n\n```js\nx()\n```";
    const tree = markdownTokenTree(markdown);
    expect(tree).toEqual(JSON.parse(JSON.stringify(new MarkdownIt().parse(markdown, {}))));
    for (const token of tree) {
      expect(Object.keys(token).sort()).toEqual(
        ["attrs", "block", "children", "content", "hidden", "info", "level", "map", "markup", "meta", "nesting", "tag", "type"].sort(),
      );
    }
    const inline = tree.find((token) => token.type === "inline" && token.content.includes("a link"));
    expect(inline?.children?.map((child) => child.type)).toEqual([
      "text",
      "link_open",
      "text",
      "link_close",
      "text",
      "code_inline",
      "text",
    ]);
    expect(inline?.children?.[1]?.attrs).toEqual([["href", "https://a.example/"]]);
    expect(tree.find((token) => token.type === "fence")?.info).toBe("js");
  });

  it("of an empty markdown is an empty list", () => {
    expect(markdownTokenTree("")).toEqual([]);
  });
});

describe("one URL rule for result_markdown and links (DESIGN.md: one normalisation per value)", () => {
  // every form in which markdown can carry a link's URL; expected values written by hand
  const cases: Array<[name: string, markdown: string, clean: string, links: Array<{ text: string; url: string }>]> = [
    [
      "inline link",
      "([Ex](https://ex.com/a?utm_source=chatgpt.com))",
      "([Ex](https://ex.com/a))",
      [{ text: "Ex", url: "https://ex.com/a" }],
    ],
    [
      "link with a title",
      '[Ex](https://ex.com/a?utm_source=chatgpt.com "T")',
      '[Ex](https://ex.com/a "T")',
      [{ text: "Ex", url: "https://ex.com/a" }],
    ],
    [
      "bracketed destination",
      "[Ex](<https://ex.com/a?utm_source=chatgpt.com>)",
      "[Ex](<https://ex.com/a>)",
      [{ text: "Ex", url: "https://ex.com/a" }],
    ],
    [
      "reference definition",
      "See [Ex][1].\n\n[1]: https://ex.com/a?utm_source=chatgpt.com",
      "See [Ex][1].\n\n[1]: https://ex.com/a",
      [{ text: "Ex", url: "https://ex.com/a" }],
    ],
    [
      "autolink",
      "See <https://ex.com/a?utm_source=chatgpt.com>.",
      "See <https://ex.com/a>.",
      [{ text: "https://ex.com/a", url: "https://ex.com/a" }],
    ],
    [
      "destination on the next line",
      "[Ex](\nhttps://ex.com/a?utm_source=chatgpt.com)",
      "[Ex](\nhttps://ex.com/a)",
      [{ text: "Ex", url: "https://ex.com/a" }],
    ],
    [
      "&amp; separator",
      "[Ex](https://ex.com/a?x=1&amp;utm_source=chatgpt.com)",
      "[Ex](https://ex.com/a?x=1)",
      [{ text: "Ex", url: "https://ex.com/a?x=1" }],
    ],
    [
      "escaped & separator, tracking first",
      "[Ex](https://ex.com/a?utm_source=chatgpt.com\\&x=1)",
      "[Ex](https://ex.com/a?x=1)",
      [{ text: "Ex", url: "https://ex.com/a?x=1" }],
    ],
    [
      "a link whose text is its URL",
      "[https://ex.com/a?utm_source=chatgpt.com](https://ex.com/a?utm_source=chatgpt.com)",
      "[https://ex.com/a](https://ex.com/a)",
      [{ text: "https://ex.com/a", url: "https://ex.com/a" }],
    ],
    [
      "a link in a table cell",
      "| a | b |\n|---|---|\n| x ([Ex](https://ex.com/a?utm_source=chatgpt.com#:~:text=y)) | z |",
      "| a | b |\n|---|---|\n| x ([Ex](https://ex.com/a)) | z |",
      [{ text: "Ex", url: "https://ex.com/a" }],
    ],
    ["a bare URL in the text", "Read https://ex.com/a?utm_source=chatgpt.com.", "Read https://ex.com/a.", []],
    [
      "a Google redirect in parentheses",
      "([G](https://www.google.com/url?q=https%3A%2F%2Fex.net%2Fa%3Fid%3D7&amp;sa=D))",
      "([G](https://ex.net/a?id=7))",
      [{ text: "G", url: "https://ex.net/a?id=7" }],
    ],
  ];
  for (const [name, markdown, clean, links] of cases) {
    it(name, () => {
      const resolved = resolveAnswerMarkdown(markdown, []);
      expect(resolved).toBe(clean);
      expect(linksOf(resolved)).toEqual(links);
      expect(normaliseMarkdownUrls(resolved)).toBe(resolved);
    });
  }

  it("leaves code as written: fenced, indented and inline", () => {
    const markdown =
      "```\ncurl https://ex.com/a?utm_source=chatgpt.com\n```\n\n    https://ex.com/b?utm_source=chatgpt.com\n\n" +
      "Run `open https://ex.com/c?utm_source=chatgpt.com` or see [d](https://ex.com/d?utm_source=chatgpt.com).";
    expect(normaliseMarkdownUrls(markdown)).toBe(
      "```\ncurl https://ex.com/a?utm_source=chatgpt.com\n```\n\n    https://ex.com/b?utm_source=chatgpt.com\n\n" +
        "Run `open https://ex.com/c?utm_source=chatgpt.com` or see [d](https://ex.com/d).",
    );
  });

  it("normalises written separators the way a CommonMark reader decodes them", () => {
    expect(normaliseUrl("https://ex.com/a?x=1&amp;utm_source=chatgpt.com&amp;y=2")).toBe("https://ex.com/a?x=1&amp;y=2");
    expect(normaliseUrl("https://ex.com/a?UTM_SOURCE=ChatGPT.com")).toBe("https://ex.com/a");
  });
});
