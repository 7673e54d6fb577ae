/**
 * The MCP server of one HTTP request (stateless streamable HTTP: every POST carries complete JSON-RPC messages, so a
 * server per request needs no session store and runs on any isolate). It lists the tools and dispatches calls.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { OpenAPIObject } from "openapi3-ts/oas31";
import { API_INFO } from "../http/openapi-document";
import { type ToolCallContext, callJobStatusTool, callScrapeTool } from "./tool-calls";
import { JOB_STATUS_TOOL, scrapeToolName, toolDefinitions, toolProviders } from "./tool-definitions";

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
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === JOB_STATUS_TOOL) return callJobStatusTool(context, args);
    const provider = scrapers.get(request.params.name);
    if (provider === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callScrapeTool(context, provider, args);
  });
  return server;
}
