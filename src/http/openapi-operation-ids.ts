/**
 * Stable, predictable `operationId`s for every operation of the OpenAPI document, chosen in one place so that routes
 * added by anyone get a good SDK method name without declaring one. Precedence: an `operationId` the route declares,
 * then the platform's names (`scrape<Scraper>` / `submit<Scraper>Job` for every provider, a few renames below), then a
 * name derived from the method and the path. Generated clients and the MCP tools depend on these names: changing one
 * is a breaking change for every SDK user.
 */
import { allProviders } from "../scrapers/registry";
import { pascalCase } from "../util/pascal-case";

/**
 * The singular of an English collection name as used in our paths (`batches` → `batch`, `entries` → `entry`,
 * `keys` → `key`); words that are not plurals (`status`, `analysis`, `md`) come back unchanged.
 */
function singularOf(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|sh|ch|x|z|us)es$/.test(word)) return word.slice(0, -2);
  if (/(ss|us|is)$/.test(word)) return word;
  if (/s$/.test(word)) return word.slice(0, -1);
  return word;
}

const isPathParameter = (segment: string): boolean => segment.startsWith("{") && segment.endsWith("}");

const VERB_OF_METHOD: Readonly<Record<string, string>> = {
  get: "get",
  post: "create",
  put: "replace",
  patch: "update",
  delete: "delete",
  head: "head",
  options: "options",
  trace: "trace",
};

/**
 * The name derived from the method and path alone, so it never changes when other routes are added:
 * the verb (`get`, `create` for POST, `replace` for PUT, `update` for PATCH, `delete`; `list` for a GET whose path
 * ends in a plural collection) followed by every literal segment in PascalCase, a segment followed by a path parameter
 * in the singular (`/admin/accounts/{account_id}/keys`: POST → `createAdminAccountKey`, `/jobs/{job_id}`: GET →
 * `getJob`, `/jobs`: GET → `listJobs`, `/batches`: POST → `createBatch`).
 */
export function derivedOperationId(method: string, path: string): string {
  const segments = path.split("/").filter((segment) => segment !== "");
  const lastLiteral = segments.findLastIndex((segment) => !isPathParameter(segment));
  const endsWithParameter = segments.length > 0 && lastLiteral !== segments.length - 1;
  const verb = VERB_OF_METHOD[method] ?? method;
  const nouns = segments.flatMap((segment, index) => {
    if (isPathParameter(segment)) return [];
    const next = segments[index + 1];
    const itemOfCollection = next !== undefined && isPathParameter(next);
    const createdItem = index === lastLiteral && method === "post";
    return [pascalCase(itemOfCollection || createdItem ? singularOf(segment) : segment)];
  });
  const lastNoun = segments[lastLiteral];
  const listsCollection = method === "get" && !endsWithParameter && lastNoun !== undefined && singularOf(lastNoun) !== lastNoun;
  const name = (listsCollection ? "list" : verb) + nouns.join("");
  return name === verb ? `${verb}Root` : name;
}

/**
 * Names where the derived one would mislead: a DELETE that revokes, a POST that adjusts, sets or performs an action
 * named in the path, a GET of one object whose path is a plural noun. A route may instead declare its own operationId.
 */
const RENAMED_OPERATIONS: Readonly<Record<string, string>> = {
  "get /md/{file}": "getHostedMarkdown",
  "delete /admin/keys/{key_id}": "revokeAdminKey",
  "post /admin/accounts/{account_id}/credits": "adjustAdminAccountCredits",
  "post /admin/pools/{country}/config": "updateAdminPoolConfig",
  "post /admin/browser-budget": "updateAdminBrowserBudget",
  "get /admin/accounts/{account_id}/limits": "getAdminAccountLimits",
  "post /account/webhook/rotate-secret": "rotateAccountWebhookSecret",
  "post /admin/accounts/{account_id}/webhook/rotate-secret": "rotateAdminAccountWebhookSecret",
};

/** `scrapeGrok` / `submitGrokJob` for every declared provider: a new provider gets its names with its routes. */
const SCRAPER_OPERATION_IDS: ReadonlyMap<string, string> = new Map(
  allProviders().flatMap(
    (provider): Array<[string, string]> => [
      [`get /scrapers/${provider.id}`, `scrape${pascalCase(provider.id)}`],
      [`post /scrapers/${provider.id}/jobs`, `submit${pascalCase(provider.id)}Job`],
    ],
  ),
);

/** The platform's name for an operation that does not declare its own. */
export function operationIdFor(method: string, path: string): string {
  const key = `${method} ${path}`;
  return SCRAPER_OPERATION_IDS.get(key) ?? RENAMED_OPERATIONS[key] ?? derivedOperationId(method, path);
}
