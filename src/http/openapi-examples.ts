/**
 * Examples for the OpenAPI document: a provider's declared `example` when it has one, otherwise one derived from its
 * response schema (every field present, values from the schema's own `example`/`enum`/`const`/`default`/`format`), so
 * every scraper response is illustrated without anyone writing an example by hand, and a new field appears in the
 * example as soon as it is declared. Error responses get one example per error code, with the service's real messages.
 */
import type { OpenAPIObject, ReferenceObject, SchemaObject } from "openapi3-ts/oas31";
import { ADMIN_UNAUTHORIZED_DETAIL } from "./admin-token";
import { audienceOfPath } from "./openapi-audience";
import { INVALID_KEY_DETAIL, MISSING_KEY_DETAIL } from "../auth/api-keys";
import { AT_CAPACITY_DETAIL, QUEUE_FULL_DETAIL } from "../browser/page-lease";
import {
  BrowserUnreachableError,
  CapacityUnavailableError,
  ERROR_CODE_STATUSES,
  ERROR_CODES,
  type ErrorBody,
  type ErrorCode,
  InsufficientCreditsError,
  MethodNotAllowedError,
  PoolWarmingUpError,
  ScrapeTimeoutError,
  ScraperDriftError,
  toServiceError,
  UnexpectedResultError,
} from "../errors";
import { IDEMPOTENCY_IN_PROGRESS_DETAIL, IDEMPOTENCY_MISMATCH_DETAIL } from "../jobs/idempotency";
import { ENQUEUE_FAILED_DETAIL } from "../jobs/submit";
import { RATE_LIMIT_DETAIL } from "../limits/request-rate-limiter";
import { EXAMPLE_REQUEST_ID } from "../schemas/responses";
import { PROVIDER_ACCOUNT_NOT_FOUND_DETAIL } from "../provider-accounts/store";
import { ACCOUNT_NOT_FOUND_DETAIL, KEY_NOT_FOUND_DETAIL } from "./admin";
import { BATCH_NOT_FOUND_DETAIL } from "./batches";
import { JOB_NOT_FOUND_DETAIL } from "./jobs";
import { JSON_CONTENT_TYPE_DETAIL, MALFORMED_JSON_DETAIL } from "./json-body";
import { MANAGE_SCOPE_REQUIRED_DETAIL } from "./require-scope";
import { UNKNOWN_SCRAPER_DETAIL } from "./scrapers";

type SchemaOrReference = SchemaObject | ReferenceObject;

const COMPONENT_PREFIX = "#/components/schemas/";

/** Placeholder values of the string formats our schemas use; each is valid for its format. */
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  "date-time": "2026-01-15T09:30:00Z",
  date: "2026-01-15",
  uri: "https://example.com/article",
  url: "https://example.com/article",
  uuid: "3f2c8a1e-5b7d-4c9a-8e6f-1a2b3c4d5e6f",
  email: "user@example.com",
};

/** Deep schemas (a recursive type) stop here with null rather than recursing forever. */
const MAX_DEPTH = 12;

function isReference(schema: SchemaOrReference): schema is ReferenceObject {
  return "$ref" in schema && typeof schema.$ref === "string";
}

function resolve(document: OpenAPIObject, schema: SchemaOrReference): SchemaObject | undefined {
  if (!isReference(schema)) return schema;
  if (!schema.$ref.startsWith(COMPONENT_PREFIX)) return undefined;
  const target = document.components?.schemas?.[schema.$ref.slice(COMPONENT_PREFIX.length)];
  return target === undefined ? undefined : resolve(document, target);
}

/** The first type that is not `null` (`["string", "null"]` → `string`): examples show the field filled in. */
function primaryType(schema: SchemaObject): string | undefined {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  return types.find((type) => type !== "null") ?? types[0];
}

function sampleString(schema: SchemaObject): string {
  const formatted = schema.format === undefined ? undefined : FORMAT_EXAMPLES[schema.format];
  const value = formatted ?? "string";
  const minimum = schema.minLength ?? 0;
  return value.length >= minimum ? value : value.padEnd(minimum, "x");
}

function sampleNumber(schema: SchemaObject, integer: boolean): number {
  const lower =
    typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 0;
  return integer ? Math.ceil(lower) : lower;
}

/** An example value that validates against `schema` (resolving `$ref`s within `document`). */
export function exampleFromSchema(document: OpenAPIObject, schemaOrReference: SchemaOrReference, depth = 0): unknown {
  const schema = resolve(document, schemaOrReference);
  if (schema === undefined || depth > MAX_DEPTH) return null;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches !== undefined) {
    const filled = branches.find((branch) => primaryType(resolve(document, branch) ?? {}) !== "null") ?? branches[0];
    return filled === undefined ? null : exampleFromSchema(document, filled, depth + 1);
  }
  if (schema.allOf !== undefined) {
    return Object.assign({}, ...schema.allOf.map((part) => exampleFromSchema(document, part, depth + 1)));
  }
  switch (primaryType(schema) ?? (schema.properties === undefined ? undefined : "object")) {
    case "string":
      return sampleString(schema);
    case "integer":
      return sampleNumber(schema, true);
    case "number":
      return sampleNumber(schema, false);
    case "boolean":
      return true;
    case "null":
      return null;
    case "array": {
      if (schema.maxItems === 0 || schema.items === undefined) return [];
      return [exampleFromSchema(document, schema.items, depth + 1)];
    }
    case "object":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, property]) => [name, exampleFromSchema(document, property, depth + 1)]),
      );
    default:
      return null;
  }
}

/**
 * One example body per error code, built from the service's own error classes and messages, so the reference shows
 * exactly what a client receives and cannot drift from it. A code missing here gets a generic example.
 */
const ERROR_EXAMPLE_DETAILS: Partial<Record<ErrorCode, string>> = {
  invalid_parameter: "prompt: must be 1 to 4000 characters and not blank",
  malformed_json: MALFORMED_JSON_DETAIL,
  missing_api_key: MISSING_KEY_DETAIL,
  invalid_api_key: INVALID_KEY_DETAIL,
  invalid_admin_token: ADMIN_UNAUTHORIZED_DETAIL,
  insufficient_scope: MANAGE_SCOPE_REQUIRED_DETAIL,
  not_found: "Not found. See /docs for the API reference.",
  method_not_allowed: new MethodNotAllowedError(["GET"]).detail,
  timeout: new ScrapeTimeoutError(300).detail,
  idempotency_key_reused: IDEMPOTENCY_MISMATCH_DETAIL,
  idempotency_in_progress: IDEMPOTENCY_IN_PROGRESS_DETAIL,
  unsupported_media_type: JSON_CONTENT_TYPE_DETAIL,
  insufficient_credits: new InsufficientCreditsError(3, 0).detail,
  rate_limited: RATE_LIMIT_DETAIL,
  queue_full: QUEUE_FULL_DETAIL,
  unexpected_result: new UnexpectedResultError().detail,
  internal_error: toServiceError(new Error("example")).detail,
  upstream_error: "The provider page could not be driven to an answer. Safe to retry.",
  provider_challenge: "Grok answered with an anti-bot challenge. Safe to retry (another session may pass).",
  provider_login_required: "Gemini requires a signed-in session: the browser session is signed out or expired.",
  provider_rate_limited: "ChatGPT's usage limit was reached for this session. Retry later.",
  provider_changed: new ScraperDriftError("Grok", "example", "example").detail,
  pool_warming_up: new PoolWarmingUpError().detail,
  at_capacity: AT_CAPACITY_DETAIL,
  capacity_unavailable: new CapacityUnavailableError().detail,
  service_unavailable: ENQUEUE_FAILED_DETAIL,
  browser_unreachable: new BrowserUnreachableError().detail,
};

/** 404s name what was not found: the resource of the path, where the service has a message of its own for it. */
const NOT_FOUND_BY_PATH: ReadonlyArray<[RegExp, string]> = [
  [/^\/scrapers\//, UNKNOWN_SCRAPER_DETAIL],
  [/^\/jobs\//, JOB_NOT_FOUND_DETAIL],
  [/^\/batches\//, BATCH_NOT_FOUND_DETAIL],
  [/^\/admin\/keys\//, KEY_NOT_FOUND_DETAIL],
  [/^\/admin\/provider-accounts\//, PROVIDER_ACCOUNT_NOT_FOUND_DETAIL],
  [/^\/admin\/accounts\//, ACCOUNT_NOT_FOUND_DETAIL],
];

interface NamedExample {
  summary: string;
  value: ErrorBody;
}

/** The codes a status can carry (errors.ts), in the table's order. */
function codesOfStatus(status: number): ErrorCode[] {
  return ERROR_CODES.filter((code) => ERROR_CODE_STATUSES[code] === status);
}

/**
 * Examples of an error response of `path` with `status`: one per code the response's description names (the
 * descriptions say which codes a status carries on that route, e.g. "(`rate_limited`)"), else one per code of the
 * status; on admin paths a 401 is the operator token's. Keyed by code, for the media type's `examples`.
 */
export function errorExamplesFor(path: string, status: number, description: string): Record<string, NamedExample> {
  const ofStatus = codesOfStatus(status);
  const named = ofStatus.filter((code) => description.includes(`\`${code}\``));
  const admin = audienceOfPath(path) === "operator";
  let codes = named.length > 0 ? named : ofStatus;
  if (status === 401 && named.length === 0) codes = admin ? ["invalid_admin_token"] : ["missing_api_key", "invalid_api_key"];
  const examples: Record<string, NamedExample> = {};
  for (const code of codes) {
    const notFound = code === "not_found" ? NOT_FOUND_BY_PATH.find(([pattern]) => pattern.test(path))?.[1] : undefined;
    const detail = notFound ?? ERROR_EXAMPLE_DETAILS[code] ?? `The request failed (${code.replaceAll("_", " ")}).`;
    examples[code] = { summary: code, value: { detail, code, request_id: EXAMPLE_REQUEST_ID } };
  }
  return examples;
}
