/**
 * The public status document (`GET /status.json`): one zod schema for the OpenAPI document, the snapshot read back
 * from D1 and the HTML page. Aggregates only: no key, no prompt, nothing per customer.
 */
import { z } from "@hono/zod-openapi";
import { FAILURE_REASONS } from "./failure-reason";

const PROVIDER_STATES = ["up", "degraded", "down", "unknown"] as const;
export type ProviderState = (typeof PROVIDER_STATES)[number];

/** A provider's states, and `partial`: none degraded or down, but some without data (status-levels.ts, serviceState). */
const SERVICE_STATES = ["up", "partial", "degraded", "down", "unknown"] as const;

const WindowFiguresSchema = z
  .object({
    scrapes: z.number().int().openapi({ description: "Scrapes that reached the provider in the window" }),
    succeeded: z.number().int(),
    success_rate: z.number().nullable().openapi({ description: "succeeded / scrapes (0 to 1); null without scrapes", example: 0.98 }),
    p50_ms: z.number().int().nullable().openapi({ description: "Median latency of the successful scrapes (ms); null without any" }),
    p95_ms: z.number().int().nullable().openapi({ description: "95th percentile latency of the successful scrapes (ms)" }),
  })
  .openapi("StatusWindowFigures");
export type WindowFigures = z.infer<typeof WindowFiguresSchema>;

const SourceFiguresSchema = z.object({ last_hour: WindowFiguresSchema, last_day: WindowFiguresSchema }).openapi("StatusSourceFigures");
export type SourceFigures = z.infer<typeof SourceFiguresSchema>;

const LastFailureSchema = z
  .object({
    reason: z.enum(FAILURE_REASONS).openapi({ description: "drift (page layout changed), challenge, login_wall, timeout or other" }),
    source: z.enum(["canary", "traffic"]),
    at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("StatusLastFailure");

const ProviderStatusSchema = z
  .object({
    provider: z.string().openapi({ example: "grok" }),
    name: z.string().openapi({ example: "Grok" }),
    status: z.enum(PROVIDER_STATES).openapi({ description: "up, degraded, down, or unknown (no scrape in the last hour)" }),
    canaries: SourceFiguresSchema.openapi({ description: "The scheduled canary scrapes" }),
    traffic: SourceFiguresSchema.openapi({ description: "Customer scrapes (sync and job attempts; cache hits excluded)" }),
    last_canary_at: z.string().nullable().openapi({ format: "date-time" }),
    last_failure: LastFailureSchema.nullable().openapi({
      description: "The latest failed scrape on record (since history_since, at most 8 days); null if none",
    }),
  })
  .openapi("ProviderStatus");
export type ProviderStatus = z.infer<typeof ProviderStatusSchema>;

export const ServiceStatusSchema = z
  .object({
    status: z.enum(SERVICE_STATES).openapi({
      description:
        "up: every provider has data and is up; partial: none degraded or down, but some without data in the last hour; " +
        "down: every provider with data is down; degraded: anything between; unknown: no provider has data in the last hour",
    }),
    generated_at: z.string().openapi({ format: "date-time" }),
    history_since: z
      .string()
      .nullable()
      .openapi({
        format: "date-time",
        description:
          "The oldest scrape outcome on record, of any provider (outcomes are kept 8 days): the figures and last_failure " +
          "cover only the time since. null when none is on record (a new deployment): no provider has data yet",
      }),
    providers: z.array(ProviderStatusSchema),
  })
  .openapi("ServiceStatus");
export type ServiceStatus = z.infer<typeof ServiceStatusSchema>;
