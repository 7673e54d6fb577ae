/**
 * JSON Schemas for MCP tool definitions, taken from the OpenAPI document (itself generated from the providers'
 * zod declarations). MCP tool schemas must stand alone, so `#/components/schemas/...` references are inlined.
 */
import type { OpenAPIObject, ReferenceObject, SchemaObject } from "openapi3-ts/oas31";
import { isRecord } from "../util/json-record";

const COMPONENT_PREFIX = "#/components/schemas/";

/** Our schemas are not recursive; the bound only guards against a future recursive type looping forever. */
const MAX_DEPTH = 16;

function inline(document: OpenAPIObject, value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(document, item, depth));
  if (!isRecord(value)) return value;
  const reference = value.$ref;
  if (typeof reference === "string" && reference.startsWith(COMPONENT_PREFIX)) {
    const target = document.components?.schemas?.[reference.slice(COMPONENT_PREFIX.length)];
    // Past the bound (or a dangling reference), an unconstrained schema: valid, and never a wrong constraint.
    if (target === undefined || depth >= MAX_DEPTH) return {};
    return inline(document, target, depth + 1);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inline(document, item, depth)]));
}

/** `schema` with every component reference replaced by the component itself. */
export function standaloneSchema(document: OpenAPIObject, schema: SchemaObject | ReferenceObject): Record<string, unknown> {
  const inlined = inline(document, schema, 0);
  return isRecord(inlined) ? inlined : {};
}
