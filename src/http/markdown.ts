/** `GET /md/{job_id}.md`: the hosted markdown of a response, for 24 hours. */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { readHostedMarkdown } from "../cache/hosted-markdown";
import { NotFoundError } from "../errors";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./openapi-errors";
import { isUuid } from "../util/uuid";
import { HOSTED_DOCUMENT_HEADERS } from "./security-headers";

const EXPIRED_DETAIL = "Markdown not found. Hosted markdown expires 24 hours after the response, or the ID is invalid.";
const route = createRoute({
  method: "get",
  path: "/md/{file}",
  tags: ["Results"],
  summary: "Hosted markdown of a response",
  description:
    "The `markdown_url` of a response or done job, for 24 hours. A synchronous answer is sent before its document is " +
    "written; a request that comes first waits for it (up to 1 s) instead of answering 404.",
  request: { params: z.object({ file: z.string().openapi({ example: "0b7c9a8e-6a53-4a62-9a43-2f1f1b0f6c1d.md" }) }) },
  responses: {
    200: { description: "The reply as markdown", content: { "text/markdown": { schema: z.string() } } },
    404: errorResponse("Unknown or expired (older than 24 hours)"),
  },
});

export function registerMarkdownRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const jobId = c.req.valid("param").file.replace(/\.md$/, "");
    if (!isUuid(jobId)) throw new NotFoundError(EXPIRED_DETAIL);
    const markdown = await readHostedMarkdown(c.env.MARKDOWN, jobId.toLowerCase());
    if (markdown === null) throw new NotFoundError(EXPIRED_DETAIL);
    return c.body(markdown, 200, {
      "Content-Type": "text/markdown; charset=utf-8",
      "Cache-Control": "private, max-age=300",
      ...HOSTED_DOCUMENT_HEADERS,
    });
  });
}
