/** `POST /admin/jobs/recover`: one recovery sweep of jobs whose queue message was lost, now (src/jobs/recovery.ts). */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { requireAdminToken } from "./admin-token";
import { recoverJobs } from "../jobs/recovery";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./openapi-errors";

const RecoverBody = z
  .strictObject({
    restarted_at: z
      .number({ error: "must be a time in milliseconds since 1970 (an integer), not in the future" })
      .int({ error: "must be a time in milliseconds since 1970 (an integer), not in the future" })
      .min(0, { error: "must be a time in milliseconds since 1970 (an integer), not in the future" })
      .optional()
      .openapi({
        description:
          "When the whole stack (every worker running jobs) was started. Attempts that began before it are treated as dead " +
          "and messages sent before it as lost, so those jobs are sent again at once. Only pass it right after a restart: an " +
          "attempt that is in fact still running would then run a second time beside it (never charged twice).",
        example: 1_795_000_000_000,
      }),
  })
  .openapi("RecoverJobs");

const RecoveryReportSchema = z
  .object({
    checked: z.number().int().openapi({ description: "Pending jobs looked at" }),
    requeued: z.number().int().openapi({ description: "Jobs sent a new queue message" }),
    dead_attempts: z.number().int().openapi({ description: "…because the attempt holding them stopped reporting" }),
    missing_deliveries: z.number().int().openapi({ description: "…because no attempt started when one was due" }),
    slots_released: z.number().int().openapi({ description: "Account slots of attempts that no longer run, given back" }),
  })
  .openapi("RecoveryReport");

const route = createRoute({
  method: "post",
  path: "/admin/jobs/recover",
  operationId: "recoverAdminJobs",
  tags: ["Operator"],
  summary: "Recover jobs whose queue message was lost",
  description:
    "Runs the sweep the every-minute Cron Trigger runs: a pending job whose running attempt stopped sending heartbeats, or " +
    "whose due delivery never started, gets a new queue message. Safe to repeat: a job runs only under its own lease, and " +
    "is charged and refunded at most once. `npm start` calls it with `restarted_at` once the API is up. The body is optional.",
  security: [{ AdminToken: [] }],
  middleware: [requireAdminToken] as const,
  request: { body: { required: false, content: { "application/json": { schema: RecoverBody } } } },
  responses: {
    200: { description: "What the sweep did", content: { "application/json": { schema: RecoveryReportSchema } } },
    400: errorResponse("Invalid body; `detail` names the field and the rule"),
    401: errorResponse("Missing or invalid admin token"),
  },
});

export function registerAdminJobRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const now = Date.now();
    const restartedAt = c.req.valid("json").restarted_at ?? null;
    const report = await recoverJobs(c.env, { restartedAt: restartedAt === null ? null : Math.min(restartedAt, now), now });
    return c.json(
      {
        checked: report.checked,
        requeued: report.requeued,
        dead_attempts: report.deadAttempts,
        missing_deliveries: report.missingDeliveries,
        slots_released: report.slotsReleased,
      },
      200,
    );
  });
}
