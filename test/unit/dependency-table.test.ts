/**
 * docs/dependencies.md says why every package is there. A package added to one of the three package.json files
 * (the project, the TypeScript client, the import-rule tooling) without a row there fails here, so the table stays
 * complete without anyone having to remember it.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const MANIFESTS = ["package.json", "clients/typescript/package.json", "tools/architecture/package.json"];

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function packagesOf(manifestPath: string): string[] {
  const manifest: Manifest = JSON.parse(readFileSync(join(ROOT, manifestPath), "utf8"));
  return [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})];
}

/** The package names the table's first column names, each written as code: `hono`, `@hono/zod-openapi`, … */
function packagesInTable(markdown: string): Set<string> {
  const firstColumns = markdown
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.split("|")[1] ?? "");
  return new Set(firstColumns.flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map(([, name]) => name ?? "")));
}

describe("docs/dependencies.md", () => {
  const table = packagesInTable(readFileSync(join(ROOT, "docs/dependencies.md"), "utf8"));

  it("reads the package names of the table's first column", () => {
    expect(packagesInTable("| `hono`, `@hono/zod-openapi` (dev) | routing; `zod` is not a row here |\n")).toEqual(
      new Set(["hono", "@hono/zod-openapi"]),
    );
  });

  it.each(MANIFESTS)("has a row for every package of %s", (manifest) => {
    expect(packagesOf(manifest).filter((name) => !table.has(name))).toEqual([]);
  });
});
