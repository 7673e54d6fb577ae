/**
 * `POST /admin/captures` (operator token): runs one scrape with capture recording and answers the capture file
 * (docs/real-sites.md). `npm run capture` calls it on the running stack and writes the file; the unit tests replay it.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { requireAdminToken } from "./admin-token";
import { CaptureFileSchema } from "../capture-files/format";
import { recordCapture } from "../capture-files/record-capture";
import { InvalidParameterError } from "../errors";
import { describeValidationError, isCommonParams } from "../params/common-params";
import { acceptedParameterNames, providerById, querySchemaOf, SCRAPER_IDS } from "../scrapers/registry";
import type { AppEnv } from "./app-env";
import { strictBody } from "./json-body";
import { errorResponse, SCRAPE_ERROR_RESPONSES } from "./openapi-errors";
import { requestBaseUrl } from "./request-context";

/** Parameters that make no sense for a capture: it always scrapes afresh, and it is not a customer's request. */
const NOT_FOR_CAPTURES = ["api_key", "bypass_cache"];

const CaptureBody = strictBody({
  scraper: z.enum(SCRAPER_IDS, { error: `must be one of ${SCRAPER_IDS.join(", ")}` }).openapi({ example: "grok" }),
  query: z.record(z.string(), z.string({ error: "every value must be a string, as in a query string" })).openapi({
    description: "The scraper's query parameters as strings, exactly as for GET /scrapers/{scraper} (prompt, country, mode…)",
    example: { prompt: "What is new with Starship?", mode: "MODEL_MODE_FAST" },
  }),
}).openapi("CaptureRequest");

const route = createRoute({
  method: "post",
  path: "/admin/captures",
  tags: ["Operator"],
  summary: "Record a capture (raw exchanges and answer) of one scrape",
  description:
    "Runs one scrape against the configured origin (a replica locally, the real site in live mode), with the provider's " +
    "signed-in session when it has one, and answers the capture file: every recorded exchange (request, each chunk or " +
    "frame with its timing), the page values the parser reads, and the parsed answer; cookies and tokens redacted. " +
    "Costs no credits and never reads or writes the response cache. When the parser fails, the file still comes back, " +
    "with `answer: null` and the `failure`: the test of the fix. `npm run capture` calls this and writes the file.",
  security: [{ AdminToken: [] }],
  middleware: [requireAdminToken] as const,
  request: { body: { required: true, content: { "application/json": { schema: CaptureBody } } } },
  responses: {
    200: { description: "The capture file", content: { "application/json": { schema: CaptureFileSchema.openapi("CaptureFile") } } },
    400: errorResponse("Invalid body or query parameter; `detail` names it"),
    401: errorResponse("Missing or invalid admin token"),
    408: SCRAPE_ERROR_RESPONSES[408],
    429: SCRAPE_ERROR_RESPONSES[429],
    500: errorResponse("The scrape failed with an unexpected result before anything was recorded, or the capture did not replay"),
    502: SCRAPE_ERROR_RESPONSES[502],
    503: SCRAPE_ERROR_RESPONSES[503],
    504: SCRAPE_ERROR_RESPONSES[504],
  },
});

export function registerAdminCaptureRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const provider = providerById(body.scraper);
    if (provider === undefined) throw new InvalidParameterError(`scraper: must be one of ${SCRAPER_IDS.join(", ")}`);
    const refused = NOT_FOR_CAPTURES.find((name) => name in body.query);
    if (refused !== undefined) throw new InvalidParameterError(`query.${refused}: not used by captures (they always scrape afresh)`);
    const parsed = querySchemaOf(provider).safeParse(body.query);
    if (!parsed.success) {
      throw new InvalidParameterError(`query: ${describeValidationError(provider.id, acceptedParameterNames(provider), parsed.error)}`);
    }
    if (!isCommonParams(parsed.data)) throw new InvalidParameterError("query: invalid parameters");
    const file = await recordCapture(c.env, { provider, params: parsed.data, baseUrl: requestBaseUrl(c) });
    return c.json(file, 200);
  });
}
