/**
 * The MCP tools: one `scrape_<scraper>` tool per provider and `get_job`. Their input and output schemas are taken
 * from the OpenAPI document, which is generated from the providers' declarations (query parameters, answer schema),
 * so a parameter or field a provider declares appears in its tool without any change here.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, SchemaObject } from "openapi3-ts/oas31";
import { CREDITS_PER_REQUEST } from "../credits/ledger";
import { allProviders, type AnyProvider } from "../scrapers/registry";
import { standaloneSchema } from "./json-schema";

export const JOB_STATUS_TOOL = "get_job";
/** The tool argument that turns a scrape into an asynchronous job (not a query parameter of the HTTP API). */
export const AS_JOB_ARGUMENT = "as_job";
/** Query parameters that are not tool arguments: the key travels with the MCP connection. */
const TRANSPORT_PARAMETERS: ReadonlySet<string> = new Set(["api_key"]);

export function scrapeToolName(scraper: string): string {
  return `scrape_${scraper}`;
}

/** The providers that have a tool: every declared provider. */
export function toolProviders(): AnyProvider[] {
  return allProviders();
}

function isReference(value: object): value is ReferenceObject {
  return "$ref" in value;
}

function requireOperation(operation: OperationObject | undefined, what: string): OperationObject {
  if (operation === undefined) throw new Error(`The OpenAPI document has no ${what}`);
  return operation;
}

/** The JSON body schema of `status` of an operation. */
function bodySchema(operation: OperationObject, status: string): SchemaObject | ReferenceObject {
  const response = operation.responses?.[status];
  const schema = response !== undefined && !isReference(response) ? response.content?.["application/json"]?.schema : undefined;
  if (schema === undefined)
    throw new Error(`The OpenAPI document has no JSON ${status} body for ${operation.operationId ?? "an operation"}`);
  return schema;
}

function queryParameters(operation: OperationObject): ParameterObject[] {
  return (operation.parameters ?? []).filter(
    (parameter): parameter is ParameterObject =>
      !isReference(parameter) && parameter.in === "query" && !TRANSPORT_PARAMETERS.has(parameter.name),
  );
}

function scrapeTool(document: OpenAPIObject, provider: AnyProvider): Tool {
  const sync = requireOperation(document.paths?.[`/scrapers/${provider.id}`]?.get, `GET /scrapers/${provider.id}`);
  const submit = requireOperation(document.paths?.[`/scrapers/${provider.id}/jobs`]?.post, `POST /scrapers/${provider.id}/jobs`);
  const parameters = queryParameters(sync);
  const properties: Record<string, object> = {};
  for (const parameter of parameters) {
    const schema = parameter.schema === undefined ? {} : standaloneSchema(document, parameter.schema);
    properties[parameter.name] = { ...schema, description: parameter.description ?? schema.description };
  }
  if (AS_JOB_ARGUMENT in properties) throw new Error(`The ${provider.id} scraper declares a parameter named ${AS_JOB_ARGUMENT}`);
  properties[AS_JOB_ARGUMENT] = {
    type: "boolean",
    default: false,
    description: `true submits an asynchronous job instead of waiting, and returns its job_id: poll ${JOB_STATUS_TOOL} every few seconds until it is done or failed. For long or deep-reasoning prompts.`,
  };
  return {
    name: scrapeToolName(provider.id),
    title: `${provider.name} (${provider.kind})`,
    description:
      `${provider.summary} Submits the prompt to the real ${provider.name} web interface and returns the complete answer as JSON ` +
      `(typically 5 to 30 seconds, up to \`timeout\`). Costs ${CREDITS_PER_REQUEST} credits, charged only when an answer is returned ` +
      `(a job is charged at submission and refunded if it fails).`,
    inputSchema: {
      type: "object",
      properties,
      required: parameters.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
      additionalProperties: false,
    },
    // Either the answer, or (as_job) the submitted job.
    outputSchema: {
      type: "object",
      oneOf: [standaloneSchema(document, bodySchema(sync, "200")), standaloneSchema(document, bodySchema(submit, "202"))],
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  };
}

function jobStatusTool(document: OpenAPIObject): Tool {
  const status = requireOperation(document.paths?.["/jobs/{job_id}"]?.get, "GET /jobs/{job_id}");
  return {
    name: JOB_STATUS_TOOL,
    title: "Job status",
    description:
      "The status of an asynchronous scrape job: pending, done (with `result`, the complete answer) or failed (with `error`; its credits were restored). " +
      "Poll every few seconds (3 is reasonable) until it is not pending. Jobs are kept 24 hours. Free.",
    inputSchema: {
      type: "object",
      properties: {
        job_id: { type: "string", format: "uuid", description: `The job_id a scrape tool returned with ${AS_JOB_ARGUMENT}=true` },
      },
      required: ["job_id"],
      additionalProperties: false,
    },
    outputSchema: { type: "object", ...standaloneSchema(document, bodySchema(status, "200")) },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  };
}

/** Every tool, in a stable order: the scrapers as declared, then the job status. */
export function toolDefinitions(document: OpenAPIObject): Tool[] {
  return [...toolProviders().map((provider) => scrapeTool(document, provider)), jobStatusTool(document)];
}
