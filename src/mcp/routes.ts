/**
 * `/mcp`: the Model Context Protocol endpoint (streamable HTTP, stateless) for AI assistants, on the same Worker and
 * behind the same API-key middleware as the HTTP API (key in the `X-API-Key` header or `?api_key=`; every JSON-RPC
 * request of a POST, one or an array of them, counts towards the key's and the account's rate limits:
 * ./call-admission.ts). Only POST is served: without sessions there is no server-initiated stream to open with GET,
 * nor a session to end with DELETE, and the protocol answers those with 405.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { MethodNotAllowedError } from "../errors";
import { apiKeyAuth } from "../http/api-key-auth";
import type { AppEnv } from "../http/app-env";
import { openApiDocument } from "../http/openapi-document";
import { requestBaseUrl } from "../http/request-context";
import { createMcpServer } from "./server";

const MCP_PATH = "/mcp";

export function registerMcpRoutes(app: OpenAPIHono<AppEnv>): void {
  app.post(MCP_PATH, apiKeyAuth, async (c) => {
    const baseUrl = requestBaseUrl(c);
    const server = createMcpServer(openApiDocument(app, baseUrl), {
      env: c.env,
      key: c.get("apiKey"),
      baseUrl,
      // Aborts when the client disconnects (the `enable_request_signal` flag), as for the HTTP sync route.
      abandoned: c.req.raw.signal,
      waitUntil: (work) => c.executionCtx.waitUntil(work),
      requestId: c.get("requestId"),
    });
    // No session id: stateless. Answers are streamed (SSE) so a long scrape keeps the connection alive.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  });
  app.on(["GET", "DELETE", "PUT", "PATCH"], MCP_PATH, () => {
    throw new MethodNotAllowedError(["POST"]);
  });
}
