/**
 * The guides served at /docs/guides/<slug> are read by customers, who have no repository: a section the docs mark
 * `<!-- not served -->` (operator settings, code, tests) stays in the Markdown for repository readers and is left out
 * of the page, and what is served names no repository path, test, admin endpoint or specification. The renderer is
 * scripts/render-docs-guides.mjs, run by wrangler's build; here it renders from the docs as they are in the tree.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type Guide, guidePages, renderGuideBody } from "../../scripts/render-docs-guides.mjs";

const ROOT = resolve(import.meta.dirname, "../..");
const NO_GUIDE_LINKS = new Map<string, Guide>();

/** The text a reader sees: tags dropped and the few entities the renderer writes decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, " ")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&");
}

function headingsOf(html: string): string[] {
  return [...html.matchAll(/<h[1-6][^>]*>([\s\S]*?)<\/h[1-6]>/g)].map((match) => visibleText(match[1] ?? "").trim());
}

describe("the not-served marker", () => {
  const source = [
    "# Guide",
    "",
    "## Calling the API",
    "",
    "Customer text.",
    "",
    "<!-- not served -->",
    "## Operator settings",
    "",
    "```sh",
    "# not a heading",
    "export ADMIN_TOKEN=secret",
    "```",
    "",
    "### Where the code is",
    "",
    "Operator text.",
    "",
    "## Retries",
    "",
    "Retry text.",
    "",
  ].join("\n");

  it("drops a marked heading and everything up to the next heading of its level, a fenced `# line` included", () => {
    const html = renderGuideBody(source, NO_GUIDE_LINKS);
    expect(headingsOf(html)).toEqual(["Guide", "Calling the API", "Retries"]);
    const text = visibleText(html);
    expect(text).toContain("Customer text.");
    expect(text).toContain("Retry text.");
    for (const dropped of ["not a heading", "ADMIN_TOKEN", "Where the code is", "Operator text.", "not served"]) {
      expect(text).not.toContain(dropped);
    }
  });

  it("drops two marked sections in a row, the second's marker being the first section's last line", () => {
    const twice = "# Guide\n\n## Use\n\nKept.\n\n<!-- not served -->\n## Configuration\n\nA.\n\n<!-- not served -->\n## Code\n\nB.\n";
    const html = renderGuideBody(twice, NO_GUIDE_LINKS);
    expect(headingsOf(html)).toEqual(["Guide", "Use"]);
    expect(visibleText(html)).not.toMatch(/\bA\.|\bB\./);
  });

  it("stops at a heading of a higher level, and runs to the end when no heading follows", () => {
    const nested = "# Guide\n\n## Part\n\n<!-- not served -->\n### Detail\n\nInternal.\n\n# Next\n\nKept.\n";
    expect(headingsOf(renderGuideBody(nested, NO_GUIDE_LINKS))).toEqual(["Guide", "Part", "Next"]);
    expect(visibleText(renderGuideBody(nested, NO_GUIDE_LINKS))).toContain("Kept.");
    const last = "# Guide\n\nIntro.\n\n<!-- not served -->\n## Tests\n\nRun them.\n\n### Slow ones\n\nAlso.\n";
    const lastHtml = renderGuideBody(last, NO_GUIDE_LINKS);
    expect(headingsOf(lastHtml)).toEqual(["Guide"]);
    expect(visibleText(lastHtml)).toContain("Intro.");
    expect(visibleText(lastHtml)).not.toMatch(/Run them|Also/);
  });

  it("before any other block drops that block only; a `served:` comment shows its Markdown on the page only", () => {
    const blocks = [
      "# Guide",
      "",
      "<!-- not served -->",
      "These blocks are run by `test/browser/examples.test.ts`.",
      "",
      "<!-- served: Every block on this page is **run as written**. -->",
      "",
      "Kept paragraph.",
      "",
    ].join("\n");
    const html = renderGuideBody(blocks, NO_GUIDE_LINKS);
    expect(html).not.toContain("test/browser");
    expect(html).toContain("<p>Every block on this page is <strong>run as written</strong>.</p>");
    expect(html).toContain("<p>Kept paragraph.</p>");
  });

  it("leaves a marker inside a fenced block alone, and refuses one that is not right before a block", () => {
    const fenced = "# Guide\n\n```md\n<!-- not served -->\n## Shown as code\n```\n\n## Kept\n";
    const html = renderGuideBody(fenced, NO_GUIDE_LINKS);
    expect(html).toContain("## Shown as code");
    expect(headingsOf(html)).toEqual(["Guide", "Kept"]);
    expect(() => renderGuideBody("# Guide\n\nText.\n\n<!-- not served -->\n", NO_GUIDE_LINKS, "docs/x.md")).toThrow(
      /docs\/x\.md:5: <!-- not served -->/,
    );
  });
});

describe("the served guides", () => {
  const pages = guidePages(ROOT);
  /** The operator and contributor sections each guide marks, as their headings read in the Markdown. */
  const droppedHeadings: Record<string, string[]> = {
    examples: ["Against a local stack"],
    errors: ["Request ids in the logs", "Where the logs are", "Quiet output"],
    "async-jobs": ["Local development", "Configuration", "Code", "Tests"],
    limits: [
      "Why each limit exists, and how it works",
      "Leases: no session is ever stranded",
      "The global browser budget",
      "Operator view and settings",
      "How it is tested",
    ],
  };

  it("are the five listed guides", () => {
    expect(pages.map((page) => page.slug)).toEqual(["examples", "errors", "async-jobs", "limits", "evidence"]);
  });

  for (const { slug, html } of pages) {
    it(`${slug}: names no repository path, test, admin endpoint or specification, and shows no marked section`, () => {
      const main = html.slice(html.indexOf("<main"));
      const text = visibleText(main);
      // Every offending phrase listed, with a little context, rather than the whole page.
      const offending = (pattern: RegExp) =>
        [...text.matchAll(pattern)].map((match) => text.slice(Math.max(0, match.index - 30), match.index + 40));
      expect(offending(/\b(src|test|tests|scripts|replicas|migrations)\//g)).toEqual([]);
      expect(offending(/[\w-]+\.(ts|tsx|sql)\b/g)).toEqual([]);
      expect(offending(/\/admin\//g)).toEqual([]);
      expect(offending(/\bspec(ification)?s?\b/gi)).toEqual([]);
      expect(offending(/\bissue \d+|\bthe issue\b/gi)).toEqual([]);
      expect(offending(/ADMIN_TOKEN/g)).toEqual([]);
      expect(text).not.toContain("<!--");
      const headings = headingsOf(main);
      for (const dropped of droppedHeadings[slug] ?? []) expect(headings).not.toContain(dropped);
    });
  }

  it("link only to anchors that exist on the served pages", () => {
    const idsOf = new Map(pages.map((page) => [page.slug, new Set([...page.html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]))]));
    for (const { slug, html } of pages) {
      for (const [, href] of html.matchAll(/ href="([^"]*#[^"]+)"/g)) {
        if (href === undefined || /^[a-z]+:|^\//.test(href)) continue;
        const [target = "", fragment = ""] = href.split("#");
        expect(idsOf.get(target === "" ? slug : target)?.has(fragment), `${slug}: ${href}`).toBe(true);
      }
    }
  });
});
