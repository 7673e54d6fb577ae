/**
 * Every relative link in the README and the docs leads somewhere: the file exists, and a `#fragment` names a heading
 * of that file as GitHub renders it. Pages move between README and docs/ (issue 36 moved most of the README), and a
 * link left pointing at the old place would otherwise only be found by a reader. Links are read with markdown-it, so
 * text inside code blocks and code spans is not mistaken for a link.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const DOCS = join(ROOT, "docs");
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  "test/README.md",
  "replicas/README.md",
  "clients/typescript/README.md",
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

const markdown = new MarkdownIt({ html: true });

/** The text of an inline token as GitHub reads it for a heading's id: words and code, without the markup. */
function plainText(inline: Token): string {
  return (inline.children ?? [])
    .filter((child) => child.type === "text" || child.type === "code_inline")
    .map((child) => child.content)
    .join("");
}

/** GitHub's heading ids: lower case, punctuation dropped, each space a hyphen; a repeated id gets `-1`, `-2`, … */
function headingIds(source: string): Set<string> {
  const ids = new Set<string>();
  const tokens = markdown.parse(source, {});
  tokens.forEach((token, index) => {
    const inline = tokens[index + 1];
    if (token.type !== "heading_open" || inline === undefined) return;
    const base = plainText(inline)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    let id = base;
    for (let repeat = 1; ids.has(id); repeat += 1) id = `${base}-${repeat}`;
    ids.add(id);
  });
  return ids;
}

/** Every link target of a page, from inline links and reference definitions alike (markdown-it resolves both). */
function linkTargets(source: string): string[] {
  return markdown
    .parse(source, {})
    .flatMap((token) => token.children ?? [])
    .filter((child) => child.type === "link_open")
    .flatMap((child) => {
      const href = child.attrGet("href");
      return typeof href === "string" ? [href] : [];
    });
}

/** Targets that leave the repository (web pages, the running service) are not this test's business. */
function isRepositoryLink(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("/");
}

interface DeadLink {
  page: string;
  target: string;
  reason: string;
}

function deadLinksOf(page: string): DeadLink[] {
  const source = readFileSync(join(ROOT, page), "utf8");
  return linkTargets(source)
    .filter(isRepositoryLink)
    .flatMap((target): DeadLink[] => {
      const [path = "", fragment] = target.split("#", 2);
      const file = path === "" ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURIComponent(path));
      if (!existsSync(file)) return [{ page, target, reason: `no file ${relative(ROOT, file)}` }];
      if (fragment === undefined || fragment === "" || statSync(file).isDirectory() || !file.endsWith(".md")) return [];
      const ids = headingIds(readFileSync(file, "utf8"));
      return ids.has(decodeURIComponent(fragment)) ? [] : [{ page, target, reason: `no heading #${fragment} in ${relative(ROOT, file)}` }];
    });
}

describe("links in the README and the docs", () => {
  it("reads GitHub's heading ids as GitHub makes them", () => {
    const ids = headingIds(
      "# Quick start\n## The local stack's terminal (`npm start`)\n## 2. An asynchronous job\n## Stop, logs and reset\n## Notes\n## Notes\n",
    );
    expect([...ids]).toEqual([
      "quick-start",
      "the-local-stacks-terminal-npm-start",
      "2-an-asynchronous-job",
      "stop-logs-and-reset",
      "notes",
      "notes-1",
    ]);
  });

  it("finds links outside code only", () => {
    const source = "See [errors](docs/errors.md#request-ids) and <https://example.com>.\n\n```md\n[not a link](nowhere.md)\n```\n";
    expect(linkTargets(source)).toEqual(["docs/errors.md#request-ids", "https://example.com"]);
  });

  it.each(PAGES)("%s has no dead relative link", (page) => {
    expect(deadLinksOf(page)).toEqual([]);
  });
});
