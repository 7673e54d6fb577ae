/**
 * Examples for the OpenAPI document: a provider's declared `example` when it has one, otherwise one derived from its
 * response schema (every field present, values from the schema's own `example`/`enum`/`const`/`default`/`format`), so
 * every scraper response is illustrated without anyone writing an example by hand, and a new field appears in the
 * example as soon as it is declared.
 */
import type { OpenAPIObject, ReferenceObject, SchemaObject } from "openapi3-ts/oas31";

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
