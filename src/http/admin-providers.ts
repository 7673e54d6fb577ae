/**
 * `GET /admin/providers`: the operator's view of the providers: layout drift per provider, and the latest failure
 * evidence per provider and country (a drift's screenshot and HTML: src/evidence/failure-evidence.ts).
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { requireAdminToken } from "./admin-token";
import { latestFailureEvidence } from "../evidence/failure-evidence";
import { driftSummary } from "../scrapers/drift-log";
import { requestBaseUrl } from "./request-context";
import { allProviders } from "../scrapers/registry";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./openapi-errors";

const ProviderHealthSchema = z
  .object({
    provider: z.string(),
    name: z.string(),
    drift_last_hour: z.number().int().openapi({ description: "Scrapes that failed because the page did not look as expected" }),
    drift_last_day: z.number().int(),
    last_drift_code: z.string().nullable().openapi({ description: "Stable code of the latest drift, e.g. grok.mode_item_missing" }),
    last_drift_at: z.string().nullable().openapi({ format: "date-time" }),
    latest_failure_evidence: z
      .array(
        z.object({
          country: z.string(),
          error_code: z
            .string()
            .openapi({ description: "The drift code, or the error code of another failure", example: "grok.composer_missing" }),
          detail: z.string(),
          screenshot_url: z.string().nullable(),
          html_url: z.string().nullable(),
          captured_at: z.string().openapi({ format: "date-time" }),
          expires_at: z.string().openapi({ format: "date-time" }),
        }),
      )
      .openapi({
        description:
          "Per country, the latest failed scrape whose page was kept (canaries always; customers' when their account keeps " +
          "failure evidence), while its files last (24 hours)",
      }),
  })
  .openapi("ProviderHealth");

const route = createRoute({
  method: "get",
  path: "/admin/providers",
  tags: ["Operator"],
  summary: "Providers and their layout drift",
  description:
    "Per provider: how many scrapes failed in the last hour and day because its page no longer looked " +
    "as its module expects (the site changed), with the latest stable drift code and the latest failed page kept (screenshot, HTML).",
  security: [{ AdminToken: [] }],
  middleware: [requireAdminToken] as const,
  responses: {
    200: {
      description: "Provider health",
      content: { "application/json": { schema: z.object({ providers: z.array(ProviderHealthSchema) }) } },
    },
    401: errorResponse("Missing or invalid admin token"),
  },
});

export function registerAdminProviderRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const providers = allProviders();
    const [drift, failures] = await Promise.all([
      driftSummary(
        c.env.DB,
        providers.map((provider) => provider.id),
      ),
      latestFailureEvidence(c.env.DB),
    ]);
    const baseUrl = requestBaseUrl(c);
    const urlOf = (path: string | null) => (path === null ? null : `${baseUrl}${path}`);
    return c.json(
      {
        providers: providers.map((provider, index) => ({
          provider: provider.id,
          name: provider.name,
          drift_last_hour: drift[index]?.last_hour ?? 0,
          drift_last_day: drift[index]?.last_day ?? 0,
          last_drift_code: drift[index]?.last_code ?? null,
          last_drift_at: drift[index]?.last_at ?? null,
          latest_failure_evidence: failures
            .filter((failure) => failure.provider === provider.id)
            .map((failure) => ({
              country: failure.country,
              error_code: failure.error_code,
              detail: failure.detail,
              screenshot_url: urlOf(failure.screenshot_path),
              html_url: urlOf(failure.html_path),
              captured_at: failure.captured_at,
              expires_at: failure.expires_at,
            })),
        })),
      },
      200,
    );
  });
}
