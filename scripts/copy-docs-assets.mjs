/**
 * Copies the Swagger UI files that /docs loads from node_modules/swagger-ui-dist into the Worker's static assets
 * (public/docs/assets/swagger-ui/, git-ignored), so the reference works offline and nothing of the vendor bundle is
 * committed; then renders the customer guides to public/docs/guides/ (git-ignored too; scripts/render-docs-guides.mjs). wrangler runs it before `wrangler dev`, `wrangler deploy` and `wrangler types` (wrangler.toml `[build]`),
 * which covers `npm start`, the browser tests and deployment; it is also safe to run by hand.
 *
 * Plain Node (no TypeScript; of the packages only markdown-it, a dependency): wrangler runs it with whatever `node` is on
 * PATH, before anything is built.
 * Each file is written to a temporary name and renamed, so a second wrangler starting at the same moment never serves
 * half a file; an unchanged file is left alone.
 */
import { copyFileSync, mkdirSync, renameSync, statSync, utimesSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { renderGuides } from "./render-docs-guides.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "node_modules", "swagger-ui-dist");
const target = join(root, "public", "docs", "assets", "swagger-ui");
/** What the page needs (the bundle includes React and the base layout), its icon, and the licence notices that travel with it. */
const FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE", "NOTICE"];

function unchanged(from, to) {
  try {
    const [a, b] = [statSync(from), statSync(to)];
    // Within a millisecond: utimes sets times no finer than that.
    return a.size === b.size && Math.abs(a.mtimeMs - b.mtimeMs) < 1;
  } catch {
    return false;
  }
}

mkdirSync(target, { recursive: true });
for (const file of FILES) {
  const from = join(source, file);
  const to = join(target, file);
  if (unchanged(from, to)) continue;
  const temporary = `${to}.${process.pid}.tmp`;
  try {
    copyFileSync(from, temporary);
    // The source's times, so the next run sees the copy as up to date.
    const { atime, mtime } = statSync(from);
    utimesSync(temporary, atime, mtime);
  } catch (error) {
    console.error(`copy-docs-assets: cannot read ${from} (run npm install first)`);
    throw error;
  }
  renameSync(temporary, to);
}

renderGuides(root);
