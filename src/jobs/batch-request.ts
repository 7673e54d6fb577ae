/**
 * The body of `POST /batches`, read strictly: `{scraper, items, webhook_url?}`. Every item is validated by the same
 * schema as that scraper's query string (`querySchemaOf`), so an item accepts exactly what `?prompt=…&country=…`
 * accepts. Item values may be JSON strings (as in a query) or, for convenience, numbers and booleans, which are turned
 * into their string form first (`"timeout": 60` is `timeout=60`, `"bypass_cache": true` is `bypass_cache=true`). The
 * first invalid item is a 400 naming its index and parameter (`items[3].country: …`). An item's `evidence` (a list of
 * kinds or a header-style string: src/evidence/evidence-kinds.ts) is what its job keeps besides the answer.
 */
import { InvalidParameterError } from "../errors";
import { type EvidenceKind, parseEvidenceField } from "../evidence/evidence-kinds";
import { type ScrapeParams, describeValidationError, isCommonParams } from "../params/common-params";
import { type AnyProvider, type ScraperId, SCRAPER_IDS, acceptedParameterNames, providerById, querySchemaOf } from "../scrapers/registry";
import { checkWebhookUrlSyntax } from "../webhooks/url-policy";
import type { WebhookSettingsValues } from "../webhooks/settings";
import { isRecord } from "../util/json-record";

export const MAX_BATCH_ITEMS = 500;
const BATCH_FIELDS = ["scraper", "items", "webhook_url"] as const;

export interface BatchRequest {
  scraper: ScraperId;
  /** Validated parameters of every item, in order (never an API key). */
  items: ScrapeParams[];
  /** Each item's `evidence`, in the same order; undefined where the item did not say (the account's default applies). */
  itemEvidence: (readonly EvidenceKind[] | undefined)[];
  /** Syntactically checked; where it resolves is checked once the caller is authenticated. */
  webhookUrl: string | null;
}

/** An item's values as the query-string schema expects them: strings. */
function itemAsQuery(index: number, item: Record<string, unknown>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(item)) {
    if (name === "api_key") {
      throw new InvalidParameterError(`items[${index}].api_key: is not accepted in a batch item; send the key in the X-API-Key header`);
    }
    if (typeof value === "string") query[name] = value;
    else if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "boolean") query[name] = String(value);
    else throw new InvalidParameterError(`items[${index}].${name}: must be a string, number or boolean`);
  }
  return query;
}

function validateItem(provider: AnyProvider, index: number, item: unknown): ScrapeParams {
  if (!isRecord(item)) throw new InvalidParameterError(`items[${index}]: must be an object of parameters, such as {"prompt": "…"}`);
  const parsed = querySchemaOf(provider).safeParse(itemAsQuery(index, item));
  if (!parsed.success) {
    const accepted = acceptedParameterNames(provider).filter((name) => name !== "api_key");
    const issue = parsed.error.issues[0];
    const detail = describeValidationError(provider.id, accepted, parsed.error);
    const named = issue !== undefined && issue.code !== "unrecognized_keys" && issue.path.length > 0;
    throw new InvalidParameterError(named ? `items[${index}].${detail}` : `items[${index}]: ${detail}`);
  }
  if (!isCommonParams(parsed.data)) throw new InvalidParameterError(`items[${index}]: invalid parameters`);
  const { api_key: _never, ...params } = parsed.data;
  return params;
}

export function parseBatchRequest(body: unknown, settings: Pick<WebhookSettingsValues, "allowLoopback">): BatchRequest {
  if (!isRecord(body)) throw new InvalidParameterError('Request body: must be a JSON object {"scraper", "items", "webhook_url"?}');
  const unknown = Object.keys(body).filter((name) => !BATCH_FIELDS.some((field) => field === name));
  if (unknown.length > 0) {
    throw new InvalidParameterError(
      `${unknown.length === 1 ? "Unknown field" : "Unknown fields"}: ${unknown.join(", ")}. A batch accepts: ${BATCH_FIELDS.join(", ")}.`,
    );
  }
  if (body.scraper === undefined) throw new InvalidParameterError("scraper: is required");
  const provider = typeof body.scraper === "string" ? providerById(body.scraper) : undefined;
  if (provider === undefined) throw new InvalidParameterError(`scraper: must be one of ${SCRAPER_IDS.join(", ")}`);
  if (body.items === undefined) throw new InvalidParameterError("items: is required");
  if (!Array.isArray(body.items) || body.items.length === 0 || body.items.length > MAX_BATCH_ITEMS) {
    throw new InvalidParameterError(`items: must be an array of 1 to ${MAX_BATCH_ITEMS} items`);
  }
  const itemEvidence = body.items.map((item: unknown, index) =>
    isRecord(item) ? parseEvidenceField(`items[${index}].evidence`, item.evidence) : undefined,
  );
  const items = body.items.map((item: unknown, index) => validateItem(provider, index, withoutEvidence(item)));
  let webhookUrl: string | null = null;
  if (body.webhook_url !== undefined && body.webhook_url !== null) {
    if (typeof body.webhook_url !== "string") throw new InvalidParameterError("webhook_url: must be an absolute https URL");
    const verdict = checkWebhookUrlSyntax(body.webhook_url, settings);
    if (!verdict.ok) throw new InvalidParameterError(`webhook_url: ${verdict.reason}`);
    webhookUrl = verdict.url;
  }
  return { scraper: provider.id, items, itemEvidence, webhookUrl };
}

/** The item without its `evidence` field, which is no scrape parameter. */
function withoutEvidence(item: unknown): unknown {
  if (!isRecord(item)) return item;
  const { evidence: _evidence, ...params } = item;
  return params;
}
