/**
 * Code samples of an operation in curl, Python (urllib, standard library only) and JavaScript (global fetch), derived
 * from its declaration alone: method, path, parameters and their examples, the request body's example, the key's
 * header and the response's media type. They go into the document as `x-codeSamples` (`lang`, `label`, `source`: the
 * extension Redocly and others read) and /docs shows them with each operation (public/docs/assets/code-samples.js).
 * Every sample reads the key from `API_KEY` and the base URL from `API_URL`, like the guides' examples, so it runs as
 * copied; test/browser/code-samples.test.ts runs them against the local stack.
 *
 * Which parameters a sample sets: every required one (its example, else one derived from its schema) and the optional
 * query parameters whose declaration gives an example (`country`). Never `api_key` (the samples send the header) nor
 * an optional header (`Idempotency-Key`: a fixed one would make a copied sample replay the first job).
 */
import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, SchemaObject } from "openapi3-ts/oas31";
import { shellQuote } from "../util/shell-quote";
import { exampleFromSchema } from "./openapi-examples";

export interface CodeSample {
  lang: "shell" | "python" | "javascript";
  label: "curl" | "Python" | "JavaScript";
  source: string;
}

/** The default of `API_URL`: where `npm start` serves the API. */
const LOCAL_API_URL = "http://127.0.0.1:8787";
/** The query parameter that carries the key when no header can be set: the samples use the header instead. */
const KEY_QUERY_PARAMETER = "api_key";
/** The scheme the samples authenticate with, when the operation accepts it. */
const KEY_HEADER_SCHEME = "ApiKeyHeader";
/** A scrape may take its whole `timeout` (300 s by default): the client waits a little longer than that. */
const SCRAPE_CLIENT_TIMEOUT_SECONDS = 330;
const OTHER_CLIENT_TIMEOUT_SECONDS = 60;
const JSON_MEDIA_TYPE = "application/json";

/** What a sample sends, resolved from the declaration. */
interface SampleRequest {
  method: string;
  /** The path with its parameters filled in, e.g. `/jobs/9a1f…`. */
  path: string;
  query: Array<[string, string]>;
  /** The key's header name when the operation takes the key, else null (a public operation). */
  keyHeader: string | null;
  body: unknown;
  respondsWithJson: boolean;
  /** Sent as `Accept: application/json` when the operation also answers another media type (the status page's HTML). */
  asksForJson: boolean;
  clientTimeoutSeconds: number;
}

function isReference<T extends object>(value: T | ReferenceObject): value is ReferenceObject {
  return "$ref" in value;
}

function exampleOfParameter(document: OpenAPIObject, parameter: ParameterObject): unknown {
  if (parameter.example !== undefined) return parameter.example;
  const schema = parameter.schema;
  if (schema === undefined) return "";
  if (!isReference(schema) && schema.example !== undefined) return schema.example;
  return exampleFromSchema(document, schema);
}

function hasDeclaredExample(parameter: ParameterObject): boolean {
  const schema: SchemaObject | ReferenceObject | undefined = parameter.schema;
  return parameter.example !== undefined || (schema !== undefined && !isReference(schema) && schema.example !== undefined);
}

function isSetBySample(parameter: ParameterObject): boolean {
  if (parameter.name === KEY_QUERY_PARAMETER && parameter.in === "query") return false;
  if (parameter.required === true) return true;
  return parameter.in === "query" && hasDeclaredExample(parameter);
}

function keyHeaderOf(document: OpenAPIObject, operation: OperationObject): string | null {
  const takesHeader = (operation.security ?? []).some((requirement) => KEY_HEADER_SCHEME in requirement);
  const scheme = document.components?.securitySchemes?.[KEY_HEADER_SCHEME];
  if (!takesHeader || scheme === undefined || isReference(scheme) || scheme.name === undefined) return null;
  return scheme.name;
}

function bodyExampleOf(document: OpenAPIObject, operation: OperationObject): unknown {
  const body = operation.requestBody;
  const media = body === undefined || isReference(body) ? undefined : body.content[JSON_MEDIA_TYPE];
  if (media === undefined) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  if (first !== undefined && !isReference(first) && first.value !== undefined) return first.value;
  return media.schema === undefined ? undefined : exampleFromSchema(document, media.schema);
}

/** The media types of the operation's success response (none when it has no body or is a reference). */
function successMediaTypes(operation: OperationObject): string[] {
  const success = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith("2"))?.[1];
  return success === undefined || isReference(success) ? [] : Object.keys(success.content ?? {});
}

function sampleRequest(document: OpenAPIObject, method: string, path: string, operation: OperationObject): SampleRequest {
  const parameters = (operation.parameters ?? []).filter((parameter): parameter is ParameterObject => !isReference(parameter));
  let filledPath = path;
  const query: Array<[string, string]> = [];
  for (const parameter of parameters.filter(isSetBySample)) {
    const value = String(exampleOfParameter(document, parameter));
    if (parameter.in === "path") filledPath = filledPath.replace(`{${parameter.name}}`, encodeURIComponent(value));
    if (parameter.in === "query") query.push([parameter.name, value]);
  }
  const mediaTypes = successMediaTypes(operation);
  const scrapes = parameters.some((parameter) => parameter.name === "timeout" && parameter.in === "query");
  return {
    method: method.toUpperCase(),
    path: filledPath,
    query,
    keyHeader: keyHeaderOf(document, operation),
    body: bodyExampleOf(document, operation),
    respondsWithJson: mediaTypes.length === 0 || mediaTypes.includes(JSON_MEDIA_TYPE),
    asksForJson: mediaTypes.length > 1 && mediaTypes.includes(JSON_MEDIA_TYPE),
    clientTimeoutSeconds: scrapes ? SCRAPE_CLIENT_TIMEOUT_SECONDS : OTHER_CLIENT_TIMEOUT_SECONDS,
  };
}

function curlSample(request: SampleRequest): string {
  const query = request.query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join("&");
  // Double quotes so that $API_URL expands; the encoded query holds no character the shell would touch.
  const url = `"$API_URL${request.path}${query === "" ? "" : `?${query}`}"`;
  // --fail-with-body: a non-zero exit on an error status, with the error's JSON still printed.
  const command = "curl -sS --fail-with-body";
  const lines = [request.method === "GET" ? `${command} ${url}` : `${command} -X ${request.method} ${url}`];
  if (request.keyHeader !== null) lines.push(`-H "${request.keyHeader}: $API_KEY"`);
  if (request.asksForJson) lines.push(`-H "Accept: ${JSON_MEDIA_TYPE}"`);
  if (request.body !== undefined) {
    lines.push(`-H "Content-Type: ${JSON_MEDIA_TYPE}"`);
    lines.push(`-d ${shellQuote(JSON.stringify(request.body))}`);
  }
  return lines.join(" \\\n  ");
}

/** A JSON value written as a Python literal (`true` → `True`, `null` → `None`); JSON's string escapes are Python's too. */
function pythonLiteral(value: unknown, indent = ""): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number" || typeof value === "string") return JSON.stringify(value);
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => `${inner}${pythonLiteral(item, inner)},`).join("\n")}\n${indent}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${pythonLiteral(item, inner)},`).join("\n")}\n${indent}}`;
  }
  return JSON.stringify(String(value));
}

function pythonSample(request: SampleRequest): string {
  const lines = ["import json", "import os", "import urllib.error"];
  if (request.query.length > 0) lines.push("import urllib.parse");
  lines.push("import urllib.request", "");
  if (request.keyHeader !== null) lines.push('API_KEY = os.environ["API_KEY"]');
  lines.push(`API_URL = os.environ.get("API_URL", "${LOCAL_API_URL}")`, "");
  let url = `f"{API_URL}${request.path}"`;
  if (request.query.length > 0) {
    const pairs = request.query.map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`).join(", ");
    lines.push(`query = urllib.parse.urlencode({${pairs}})`);
    url = `f"{API_URL}${request.path}?{query}"`;
  }
  const headers: string[] = [];
  if (request.keyHeader !== null) headers.push(`"${request.keyHeader}": API_KEY`);
  if (request.asksForJson) headers.push(`"Accept": "${JSON_MEDIA_TYPE}"`);
  if (request.body !== undefined) {
    headers.push(`"Content-Type": "${JSON_MEDIA_TYPE}"`);
    lines.push(`body = ${pythonLiteral(request.body)}`);
  }
  lines.push(
    "request = urllib.request.Request(",
    `    ${url},`,
    `    method="${request.method}",`,
    ...(headers.length > 0 ? [`    headers={${headers.join(", ")}},`] : []),
    ...(request.body !== undefined ? ["    data=json.dumps(body).encode(),"] : []),
    ")",
    "try:",
    `    with urllib.request.urlopen(request, timeout=${request.clientTimeoutSeconds}) as response:`,
    request.respondsWithJson ? "        print(json.dumps(json.load(response), indent=2))" : "        print(response.read().decode())",
    "except urllib.error.HTTPError as error:",
    '    # Every error answers JSON: {"detail": …, "code": …, "request_id": …}',
    "    failure = json.load(error)",
    `    raise SystemExit(f"{error.code} {failure['code']}: {failure['detail']}")`,
  );
  return lines.join("\n");
}

/** A property name as JavaScript writes it: bare when it is an identifier. */
function javascriptKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

/** A JSON value written as a JavaScript literal: bare keys where they are identifiers, trailing commas. */
function javascriptLiteral(value: unknown, indent = ""): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => `${inner}${javascriptLiteral(item, inner)},`).join("\n")}\n${indent}]`;
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([key, item]) => `${inner}${javascriptKey(key)}: ${javascriptLiteral(item, inner)},`).join("\n")}\n${indent}}`;
  }
  return JSON.stringify(value ?? null);
}

function javascriptSample(request: SampleRequest): string {
  const lines = request.keyHeader === null ? [] : ["const API_KEY = process.env.API_KEY;"];
  lines.push(`const API_URL = process.env.API_URL ?? "${LOCAL_API_URL}";`, "");
  let url = `\`\${API_URL}${request.path}\``;
  if (request.query.length > 0) {
    const pairs = request.query.map(([name, value]) => `${javascriptKey(name)}: ${JSON.stringify(value)}`);
    lines.push(`const query = new URLSearchParams({ ${pairs.join(", ")} });`);
    url = `\`\${API_URL}${request.path}?\${query}\``;
  }
  const headers: string[] = [];
  if (request.keyHeader !== null) headers.push(`"${request.keyHeader}": API_KEY`);
  if (request.asksForJson) headers.push(`Accept: "${JSON_MEDIA_TYPE}"`);
  if (request.body !== undefined) headers.push(`"Content-Type": "${JSON_MEDIA_TYPE}"`);
  const options = [`  method: "${request.method}",`];
  if (headers.length > 0) options.push(`  headers: { ${headers.join(", ")} },`);
  if (request.body !== undefined) options.push(`  body: JSON.stringify(${javascriptLiteral(request.body, "  ")}),`);
  options.push(`  signal: AbortSignal.timeout(${request.clientTimeoutSeconds * 1000}),`);
  lines.push(`const response = await fetch(${url}, {`, ...options, "});");
  if (request.respondsWithJson) {
    lines.push(
      "const body = await response.json();",
      "// Every error answers JSON: {detail, code, request_id}.",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample is JavaScript source with template literals
      "if (!response.ok) throw new Error(`${response.status} ${body.code}: ${body.detail}`);",
      "console.log(JSON.stringify(body, null, 2));",
    );
  } else {
    lines.push(
      "if (!response.ok) {",
      "  // Every error answers JSON: {detail, code, request_id}.",
      "  const failure = await response.json();",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample is JavaScript source with template literals
      "  throw new Error(`${response.status} ${failure.code}: ${failure.detail}`);",
      "}",
      "console.log(await response.text());",
    );
  }
  return lines.join("\n");
}

/** The operation's samples in curl, Python and JavaScript, in that order. */
export function codeSamplesOf(document: OpenAPIObject, method: string, path: string, operation: OperationObject): CodeSample[] {
  const request = sampleRequest(document, method, path, operation);
  return [
    { lang: "shell", label: "curl", source: curlSample(request) },
    { lang: "python", label: "Python", source: pythonSample(request) },
    { lang: "javascript", label: "JavaScript", source: javascriptSample(request) },
  ];
}
