/**
 * `GET /evidence/{token}/{file}`: an evidence file (docs/evidence.md) for 24 hours, streamed from R2 as it is read (the
 * Worker never holds a whole file), with the sandboxing headers of hosted markdown. The token in the path is the only
 * credential: no API key, like `markdown_url`, so a caller can hand a screenshot link to their own client.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { EVIDENCE_HEADER, EVIDENCE_KINDS, NO_EVIDENCE } from "../evidence/evidence-kinds";
import { EVIDENCE_FILES, readEvidence } from "../evidence/evidence-store";
import { NotFoundError } from "../errors";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./openapi-errors";
import { HOSTED_DOCUMENT_HEADERS } from "./security-headers";

const EXPIRED_DETAIL = "Evidence not found. Evidence files expire 24 hours after the answer, or the URL is incomplete.";

/** The `X-Evidence` request header as the reference documents it on the scrape endpoints. */
export const EVIDENCE_REQUEST_HEADERS = z.object({
  [EVIDENCE_HEADER]: z
    .string()
    .optional()
    .openapi({
      param: { name: EVIDENCE_HEADER, in: "header" },
      description:
        `Evidence to keep of this answer, comma-separated: ${EVIDENCE_KINDS.join(", ")} (or \`all\`), or \`${NO_EVIDENCE}\` to turn ` +
        "the account's default off. The response's `evidence` then holds their URLs, valid 24 hours. No extra credits; a request " +
        "asking for evidence never takes a cached answer. An unknown kind is a 400.",
      example: "screenshot,html,stream",
    }),
});

const route = createRoute({
  method: "get",
  path: "/evidence/{token}/{file}",
  tags: ["Results"],
  summary: "An evidence file of an answer",
  description:
    "The `evidence.screenshot_url`, `html_url` or `stream_url` of a response, for 24 hours after capture. The URL is the " +
    "credential (unguessable, never listed); no API key is needed.",
  request: {
    params: z.object({
      token: z.string().openapi({ example: "Jx3sQ0p9rM4vT7yB2nK6cH1dF8gL5wZa" }),
      file: z.enum(EVIDENCE_FILES).openapi({ example: "screenshot.png" }),
    }),
  },
  responses: {
    200: {
      description: "The file",
      content: {
        "image/png": { schema: z.string().openapi({ format: "binary" }) },
        "image/jpeg": { schema: z.string().openapi({ format: "binary" }) },
        "text/html": { schema: z.string() },
        "application/json": { schema: z.string() },
      },
    },
    404: errorResponse("Unknown or expired (older than 24 hours)"),
  },
});

export function registerEvidenceRoutes(app: OpenAPIHono<AppEnv>): void {
  // the path is read by hand: a wrong file name is the same 404 as an expired one, never a validation error
  app.get("/evidence/:token/:file", async (c) => {
    const object = await readEvidence(c.env.EVIDENCE, c.req.param("token"), c.req.param("file"));
    if (object === null) throw new NotFoundError(EXPIRED_DETAIL);
    return c.body(object.body, 200, {
      "Content-Type": object.httpMetadata?.contentType ?? "application/octet-stream",
      "Content-Length": String(object.size),
      "Cache-Control": "private, max-age=300",
      "Content-Disposition": `inline; filename="${c.req.param("file")}"`,
      ...HOSTED_DOCUMENT_HEADERS,
    });
  });
  app.openAPIRegistry.registerPath(route);
}
