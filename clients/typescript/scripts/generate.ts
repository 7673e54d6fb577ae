/**
 * Regenerates the client from the Worker's own OpenAPI documents, so the client follows the providers' declarations:
 * 1. starts the Worker locally (wrangler, real workerd, with a throwaway admin token) and saves its customer document
 *    (`/openapi.json`) as `openapi.json` and its operator document (`/admin/openapi.json`) as `openapi.operator.json`;
 * 2. runs @hey-api/openapi-ts (types, one function per operationId, its fetch client) into `src/generated/`, on the two
 *    documents merged: the client keeps covering both APIs (the operator's functions take the admin token as `auth`);
 * 3. writes `src/generated/scrapers.gen.ts`: the scraper ids with their query and response types, read from the
 *    document (`GET /scrapers/{id}` → `scrape<Id>`), which the hand-written client is typed by;
 * 4. formats the output with the repository's Biome configuration.
 * With `--check` it also fails when anything changed, i.e. when the committed client was stale (`npm test` runs it
 * this way; the files are regenerated either way, ready to commit). `--input <file or URL>` reads the customer document
 * from there instead (e.g. a deployment's `https://…/openapi.json`) rather than from a local Worker, and
 * `--operator-input <file or URL>` the operator's (a URL is fetched with `Authorization: Bearer $ADMIN_TOKEN`); without
 * it, `--input` keeps the committed `openapi.operator.json`.
 *
 * Run from the repository root:
 * `tsx clients/typescript/scripts/generate.ts [--check] [--input <file or URL>] [--operator-input <file or URL>]`.
 * The generator needs the TypeScript 5/6 compiler API, which TypeScript 7 (the repository's) no longer has, so it runs
 * from this package's own devDependencies: `npm install --prefix clients/typescript` first.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import type { UserConfig } from "@hey-api/openapi-ts";
import { unstable_startWorker } from "wrangler";

const PACKAGE_DIR = resolve(import.meta.dirname, "..");
const ROOT = resolve(PACKAGE_DIR, "../..");
const DOCUMENT_PATH = join(PACKAGE_DIR, "openapi.json");
const OPERATOR_DOCUMENT_PATH = join(PACKAGE_DIR, "openapi.operator.json");
const GENERATED_DIR = join(PACKAGE_DIR, "src/generated");
const SCRAPERS_FILE = join(GENERATED_DIR, "scrapers.gen.ts");
/** `npm start`'s address: the document's `servers` entry and so the generated client's default base URL. */
const LOCAL_ORIGIN = "http://127.0.0.1:8787";
const SCRAPE_PATH = /^\/scrapers\/([a-z0-9_]+)$/;

interface Operation {
  operationId?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

interface Documents {
  customer: Record<string, unknown>;
  operator: Record<string, unknown>;
}

function parsedDocument(text: string, from: string): Record<string, unknown> {
  const document: unknown = JSON.parse(text);
  if (!isRecord(document)) throw new Error(`${from} is not a JSON object`);
  return document;
}

/** Both documents exactly as the Worker serves them, from a local workerd with the repository's wrangler.toml. */
async function exportDocuments(): Promise<Documents> {
  // The `Request.cf` placeholder is enough for a document request; fetching the real one needs the internet.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  // A token of this run only: the operator document is behind it like every admin route.
  const adminToken = randomBytes(33).toString("base64url");
  const worker = await unstable_startWorker({
    config: join(ROOT, "wrangler.toml"),
    bindings: { ADMIN_TOKEN: { type: "plain_text", value: adminToken } },
    dev: { server: { port: 0 }, inspector: false, logLevel: "error", watch: false },
  });
  try {
    await worker.ready;
    const fetchDocument = async (path: string, headers: Record<string, string>) => {
      const response = await worker.fetch(`${LOCAL_ORIGIN}${path}`, { headers });
      const text = await response.text();
      if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${text}`);
      return parsedDocument(text, `GET ${path}`);
    };
    return {
      customer: await fetchDocument("/openapi.json", {}),
      operator: await fetchDocument("/admin/openapi.json", { Authorization: `Bearer ${adminToken}` }),
    };
  } finally {
    await worker.dispose();
  }
}

/** The document at `input`: a file path or an http(s) URL (fetched with `headers`). */
async function readDocument(input: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const text = /^https?:\/\//.test(input) ? await (await fetch(input, { headers })).text() : await readFile(resolve(input), "utf8");
  return parsedDocument(text, input);
}

function recordOf(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * One document with both APIs for the generator: the customer document with the operator's paths, tags and components
 * added. Both halves come from the same routes and schemas, so a component both name is the same component.
 */
function mergedDocument({ customer, operator }: Documents): Record<string, unknown> {
  const customerComponents = recordOf(customer.components);
  const operatorComponents = recordOf(operator.components);
  const groups = new Set([...Object.keys(customerComponents), ...Object.keys(operatorComponents)]);
  const components = Object.fromEntries(
    [...groups].map((group) => [group, { ...recordOf(customerComponents[group]), ...recordOf(operatorComponents[group]) }]),
  );
  return {
    ...customer,
    paths: { ...recordOf(customer.paths), ...recordOf(operator.paths) },
    tags: [...listOf(customer.tags), ...listOf(operator.tags)],
    components,
  };
}

/** `scrapeGoogleAiMode` → `ScrapeGoogleAiMode`: the prefix of the type names the generator derives from an operationId. */
function typePrefix(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

/** The scrapers of the document: every `GET /scrapers/{id}` with its operationId. */
function scrapersOf(document: Record<string, unknown>): Array<{ id: string; operationId: string }> {
  const paths = isRecord(document.paths) ? document.paths : {};
  return Object.entries(paths).flatMap(([path, item]) => {
    const id = SCRAPE_PATH.exec(path)?.[1];
    const get: Operation | undefined = isRecord(item) && isRecord(item.get) ? item.get : undefined;
    if (id === undefined || typeof get?.operationId !== "string") return [];
    return [{ id, operationId: get.operationId }];
  });
}

function scrapersModule(scrapers: Array<{ id: string; operationId: string }>): string {
  const prefixes = scrapers.map(({ id, operationId }) => ({ id, prefix: typePrefix(operationId) }));
  const imports = prefixes.flatMap(({ prefix }) => [`${prefix}Data`, `${prefix}Response`]).sort();
  return [
    "// Generated by scripts/generate.ts from openapi.json: the API's scrapers and their types. Do not edit.",
    "",
    `import type { ${imports.join(", ")} } from "./types.gen.js";`,
    "",
    "/** Every scraper the API declares, in the document's order. */",
    `export const SCRAPER_IDS = [${prefixes.map(({ id }) => JSON.stringify(id)).join(", ")}] as const;`,
    "",
    "export type ScraperId = (typeof SCRAPER_IDS)[number];",
    "",
    "/** Each scraper's query parameters (the same for the synchronous scrape and the job). */",
    "export interface ScraperQueries {",
    ...prefixes.map(({ id, prefix }) => `  ${id}: ${prefix}Data["query"];`),
    "}",
    "",
    "/** Each scraper's complete answer. */",
    "export interface ScraperResponses {",
    ...prefixes.map(({ id, prefix }) => `  ${id}: ${prefix}Response;`),
    "}",
    "",
  ].join("\n");
}

async function runGenerator(document: Record<string, unknown>): Promise<void> {
  const config: UserConfig = {
    input: { path: document },
    output: { path: GENERATED_DIR, importFileExtension: ".js" },
    plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
    logs: { level: "warn" },
  };
  // Resolved from this package first (its own TypeScript 6); the repository's copy cannot run under TypeScript 7.
  const generator = await import("@hey-api/openapi-ts").catch((error: unknown) => {
    throw new Error(
      "@hey-api/openapi-ts could not be loaded with a TypeScript compiler API. Run `npm install --prefix clients/typescript` " +
        "(the package's own devDependencies: the generator and TypeScript 6).",
      { cause: error },
    );
  });
  await generator.createClient(config);
}

function biomeFormat(paths: string[]): void {
  const result = spawnSync("biome", ["format", "--write", ...paths.map((path) => relative(ROOT, path))], { cwd: ROOT, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`biome format failed:\n${result.stdout}${result.stderr}`);
}

/** The generated files and the document, by path: what `--check` compares before and after. */
async function snapshot(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const path of [DOCUMENT_PATH, OPERATOR_DOCUMENT_PATH]) {
    if (existsSync(path)) files.set(path, await readFile(path, "utf8"));
  }
  if (!existsSync(GENERATED_DIR)) return files;
  for (const entry of await readdir(GENERATED_DIR, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path, await readFile(path, "utf8"));
  }
  return files;
}

function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => before.get(path) !== after.get(path)).map((path) => relative(ROOT, path));
}

/** The value after `name` on the command line, if the option is given. */
function optionValue(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  if (index === -1) return undefined;
  const value = process.argv[index + 1];
  if (value === undefined) throw new Error(`${name} needs a file path or a URL`);
  return value;
}

async function main(): Promise<void> {
  const check = process.argv.includes("--check");
  const input = optionValue("--input");
  const operatorInput = optionValue("--operator-input");
  const before = await snapshot();
  const documents: Documents =
    input === undefined
      ? await exportDocuments()
      : {
          customer: await readDocument(input),
          operator:
            operatorInput === undefined
              ? await readDocument(OPERATOR_DOCUMENT_PATH)
              : await readDocument(operatorInput, { Authorization: `Bearer ${process.env.ADMIN_TOKEN ?? ""}` }),
        };
  await writeFile(DOCUMENT_PATH, `${JSON.stringify(documents.customer, null, 2)}\n`);
  await writeFile(OPERATOR_DOCUMENT_PATH, `${JSON.stringify(documents.operator, null, 2)}\n`);
  // Formatted at once, so the documents are left as the repository's formatter wants them even if the generator fails.
  biomeFormat([DOCUMENT_PATH, OPERATOR_DOCUMENT_PATH]);
  await runGenerator(mergedDocument(documents));
  const scrapers = scrapersOf(documents.customer);
  if (scrapers.length === 0) throw new Error("The document declares no GET /scrapers/{id} operation");
  await mkdir(GENERATED_DIR, { recursive: true });
  await writeFile(SCRAPERS_FILE, scrapersModule(scrapers));
  biomeFormat([GENERATED_DIR]);
  const changed = changedFiles(before, await snapshot());
  if (changed.length === 0) {
    console.log("The client is up to date with the Worker's OpenAPI document.");
    return;
  }
  console.log(`Regenerated from the Worker's OpenAPI document (${scrapers.length} scrapers):\n  ${changed.join("\n  ")}`);
  if (check) {
    console.error("The committed client was out of date with the API; it has been regenerated: review and commit the files above.");
    process.exitCode = 1;
  }
}

await main();
