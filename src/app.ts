/** The Hono app: middleware, routes, and the single error handler that turns every failure into `{detail, code, request_id}`. */
import { failureEvidenceOf } from "./evidence/failure-evidence";
import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { InvalidParameterError, MethodNotAllowedError, NotFoundError, ServiceError, toServiceError } from "./errors";
import { describeBodyValidationError, serviceErrorOfHttpException } from "./http/json-body";
import { registerDashboardRoutes } from "./dashboard/routes";
import type { AppEnv } from "./http/app-env";
import { registerAccountRoutes } from "./http/account";
import { registerAdminRoutes } from "./http/admin";
import { registerAdminCaptureRoutes } from "./http/admin-captures";
import { registerAdminJobRoutes } from "./http/admin-jobs";
import { registerAdminLimitRoutes } from "./http/admin-limits";
import { registerAdminPoolRoutes } from "./http/admin-pools";
import { registerAdminProviderAccountRoutes } from "./http/admin-provider-accounts";
import { registerAdminProviderRoutes } from "./http/admin-providers";
import { registerBatchRoutes } from "./http/batches";
import { accessLog } from "./http/access-log";
import { allowedMethodsOf } from "./http/allowed-methods";
import { registerPreflightRefusal } from "./http/cors";
import { registerDocsRoutes } from "./http/docs";
import { registerJobRoutes } from "./http/jobs";
import { registerEvidenceRoutes } from "./http/evidence";
import { registerMarkdownRoutes } from "./http/markdown";
import { redactedUrl } from "./http/request-context";
import { requestId, requestLogLine } from "./http/request-id";
import { registerScraperRoutes, registerUnknownScraperRoutes } from "./http/scrapers";
import { strictTransportSecurity } from "./http/security-headers";
import { registerSecurityTxtRoute } from "./http/security-txt";
import { registerStatusRoutes } from "./http/status";
import { registerWebhookRoutes } from "./http/webhooks";
import { registerMcpRoutes } from "./mcp/routes";

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success && result.target === "json") throw new InvalidParameterError(describeBodyValidationError(result.error));
      if (!result.success) {
        const issue = result.error.issues[0];
        // zod's own wording (`Unrecognized key: "foo"`) is not ours to show.
        if (issue?.code === "unrecognized_keys")
          throw new InvalidParameterError(
            `${issue.keys.length === 1 ? "Unknown parameter" : "Unknown parameters"}: ${issue.keys.join(", ")}.`,
          );
        const name = issue?.path.map(String).join(".") ?? "";
        throw new InvalidParameterError(name === "" ? (issue?.message ?? "Invalid request.") : `${name}: ${issue?.message ?? "invalid"}`);
      }
    },
  });

  // First: everything after it, errors and 404s included, reads the id, and every response leaves with it.
  app.use("*", requestId);
  // Second: its line is written once every later middleware, route and error handler has answered.
  app.use("*", accessLog);
  app.use("*", async (c, next) => {
    c.set("startedAt", Date.now());
    await next();
  });

  app.use("*", strictTransportSecurity);
  const allowedMethods = allowedMethodsOf(app);
  registerPreflightRefusal(app, allowedMethods);
  registerScraperRoutes(app);
  registerJobRoutes(app);
  registerBatchRoutes(app);
  registerWebhookRoutes(app);
  registerUnknownScraperRoutes(app, allowedMethods);
  registerAdminPoolRoutes(app);
  registerAdminLimitRoutes(app);
  registerAdminProviderRoutes(app);
  registerAdminProviderAccountRoutes(app);
  registerAdminCaptureRoutes(app);
  registerAdminJobRoutes(app);
  registerAdminRoutes(app);
  registerAccountRoutes(app);
  registerDashboardRoutes(app);
  registerMarkdownRoutes(app);
  registerEvidenceRoutes(app);
  registerDocsRoutes(app);
  registerStatusRoutes(app);
  registerSecurityTxtRoute(app);
  registerMcpRoutes(app);

  app.notFound((c) => {
    // A documented path asked with a method it does not take is a 405 naming the ones it does, as on every path.
    const allow = allowedMethods(c.req.path, new URL(c.req.url).origin);
    if (allow !== null) throw new MethodNotAllowedError(allow);
    throw new NotFoundError("Not found. See /docs for the API reference.");
  });

  app.onError((error, c) => {
    const serviceError =
      error instanceof HTTPException && !(error instanceof ServiceError)
        ? serviceErrorOfHttpException(error, c.req.header("content-type"))
        : toServiceError(error);
    if (serviceError.status >= 500) {
      // The cause stays in the log; the client gets only the safe detail.
      console.error(requestLogLine(c, `${c.req.method} ${redactedUrl(c.req.url)} -> ${serviceError.status}`), serviceError.cause ?? error);
    }
    if (serviceError.retryAfterSeconds !== undefined) c.header("Retry-After", String(serviceError.retryAfterSeconds));
    if (serviceError instanceof MethodNotAllowedError) c.header("Allow", serviceError.allow.join(", "));
    // a failed scrape's page, when its account keeps failure evidence (src/evidence/failure-evidence.ts)
    const evidence = failureEvidenceOf(error);
    const body = serviceError.toBody(c.get("requestId"));
    return c.json(evidence === null ? body : { ...body, evidence }, serviceError.status as 400);
  });

  return app;
}
