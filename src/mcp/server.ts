/**
 * The MCP server of one HTTP request (stateless streamable HTTP: every POST carries complete JSON-RPC messages, so a
 * server per request needs no session store and runs on any isolate). It lists the tools and dispatches calls, each
 * counted against the rate limits like an HTTP request (./call-admission.ts).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { OpenAPIObject } from "openapi3-ts/oas31";
import { toServiceError } from "../errors";
import { API_INFO } from "../http/openapi-document";
import { PostAdmission } from "./call-admission";
import { type ToolCallContext, callJobStatusTool, callScrapeTool, errorResult } from "./tool-calls";
import { JOB_STATUS_TOOL, scrapeToolName, toolDefinitions, toolProviders } from "./tool-definitions";
import { requestSubject } from "../util/log-line";

const INSTRUCTIONS =
  "Each scrape_<provider> tool submits a prompt to that AI provider's real web interface and returns its complete answer as JSON " +
  "(answer text and markdown, sources, and the provider's own fields). Every scrape costs 3 credits of the API key's account. " +
  `For long prompts pass as_job=true and poll ${JOB_STATUS_TOOL} every few seconds.`;

/**
 * A server for one request. `Server` (not `McpServer`) because the tool schemas are JSON Schemas derived from the
 * OpenAPI document and the arguments are validated by the providers' own zod schemas, not by the SDK.
 */
export function createMcpServer(document: OpenAPIObject, context: ToolCallContext): Server {
  const server = new Server(
    { name: "ai-answer-scraper", title: API_INFO.title, version: API_INFO.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const tools = toolDefinitions(document);
  const scrapers = new Map(toolProviders().map((provider) => [scrapeToolName(provider.id), provider]));
  const admission = new PostAdmission(context.env, context.key, requestSubject(context.requestId));
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    try {
      await admission.admit();
    } catch (error) {
      // tools/list has no tool result: a protocol error with the API's client-safe detail and when to retry.
      const refusal = toServiceError(error);
      throw new McpError(ErrorCode.InvalidRequest, refusal.detail, {
        status: refusal.status,
        code: refusal.code,
        retry_after: refusal.retryAfterSeconds,
      });
    }
    return { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      await admission.admit();
    } catch (error) {
      return errorResult(error, context.requestId);
    }
    const args = request.params.arguments ?? {};
    if (request.params.name === JOB_STATUS_TOOL) return callJobStatusTool(context, args);
    const provider = scrapers.get(request.params.name);
    if (provider === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    // The call stops (and refunds) when the client leaves or cancels it (notifications/cancelled).
    return callScrapeTool({ ...context, abandoned: AbortSignal.any([context.abandoned, extra.signal]) }, provider, args);
  });
  return server;
}
