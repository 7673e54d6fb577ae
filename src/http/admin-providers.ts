/** `GET /admin/providers`: the operator's view of the providers: layout drift per provider. */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { requireAdminToken } from "./admin-token";
import { driftSummary } from "../scrapers/drift-log";
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
  })
  .openapi("ProviderHealth");

const route = createRoute({
  method: "get",
  path: "/admin/providers",
  tags: ["Operator"],
  summary: "Providers and their layout drift",
  description:
    "Per provider: how many scrapes failed in the last hour and day because its page no longer looked " +
    "as its module expects (the site changed), with the latest stable drift code.",
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
    const drift = await driftSummary(
      c.env.DB,
      providers.map((provider) => provider.id),
    );
    return c.json(
      {
        providers: providers.map((provider, index) => ({
          provider: provider.id,
          name: provider.name,
          drift_last_hour: drift[index]?.last_hour ?? 0,
          drift_last_day: drift[index]?.last_day ?? 0,
          last_drift_code: drift[index]?.last_code ?? null,
          last_drift_at: drift[index]?.last_at ?? null,
        })),
      },
      200,
    );
  });
}
