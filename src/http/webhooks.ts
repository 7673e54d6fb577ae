/**
 * Webhook settings and delivery logs, for the operator (`/admin/accounts/{account_id}/webhook…`, bearer ADMIN_TOKEN)
 * and for key holders (`/account/webhook…`, their own account, with a key of the scope `manage` only: see
 * ./require-scope.ts): the account-level endpoint URL, the signing secret (shown, since receivers need it to verify
 * signatures), its rotation, and the latest deliveries. The dashboard offers the same on /dashboard/webhooks.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { integerQueryParam } from "../params/integer-param";
import type { Context } from "hono";
import { getAccount } from "../accounts/accounts";
import { requireAdminToken } from "./admin-token";
import { InvalidParameterError, NotFoundError, ServiceError } from "../errors";
import { type DeliveryLogEntry, recentDeliveries } from "../webhooks/delivery-log";
import { type WebhookEndpoint, ensureWebhookEndpoint, rotateWebhookSecret, setWebhookUrl } from "../webhooks/endpoints";
import { webhookSettings } from "../webhooks/settings";
import { isoTimestamp, isoTimestampOrNull } from "../util/time";
import { checkWebhookUrl } from "../webhooks/url-policy";
import { ACCOUNT_NOT_FOUND_DETAIL } from "./admin";
import { apiKeyAuth } from "./api-key-auth";
import type { AppEnv } from "./app-env";
import { strictBody } from "./json-body";
import { guideUrl } from "./docs-guides";
import { API_KEY_SECURITY, LIMITER_UNAVAILABLE_RESPONSE, errorResponse } from "./openapi-errors";
import { requireManageScope } from "./require-scope";

const DEFAULT_DELIVERIES = 50;
const MAX_DELIVERIES = 200;

const WebhookEndpointSchema = z
  .object({
    account_id: z.string(),
    url: z.string().nullable().openapi({ description: "The account-level endpoint; null when none is set", format: "uri" }),
    secret: z.string().openapi({
      description: "Standard Webhooks signing secret; verify `webhook-signature` with it (e.g. the `standardwebhooks` libraries)",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    }),
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("WebhookEndpoint");

const DeliverySchema = z
  .object({
    webhook_id: z.string().openapi({ description: "The `webhook-id` header: the same on every attempt of this message" }),
    job_id: z.string(),
    batch_id: z.string().nullable(),
    event_type: z.string().openapi({ example: "job.done" }),
    url: z.string(),
    status: z.enum(["pending", "delivered", "failed"]).openapi({ description: "`failed`: every attempt failed" }),
    attempts: z.number().int(),
    last_attempt_at: z.string().nullable().openapi({ format: "date-time", description: "When the last attempt started" }),
    last_status_code: z.number().int().nullable().openapi({ description: "The receiver's HTTP status at the last attempt" }),
    last_error: z
      .string()
      .nullable()
      .openapi({
        description:
          "`HTTP <status>` when the receiver answered with a non-2xx status; `undeliverable` when no HTTP answer was obtained (refused, " +
          "unreachable, timed out, or the URL failed its check at delivery time: which one is not said, so the log cannot probe " +
          "addresses); null after a success",
      }),
    next_attempt_at: z.string().nullable().openapi({ format: "date-time" }),
    created_at: z.string().openapi({ format: "date-time" }),
    delivered_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("WebhookDelivery");

const SetUrlBody = strictBody({
  url: z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }).openapi({
    description: "https on port 443 or 8443, not resolving to a private, loopback, link-local or reserved address",
    example: "https://hooks.example.com/scraper",
  }),
}).openapi("SetWebhookUrl");

const DeliveriesQuery = z.object({
  limit: integerQueryParam({
    name: "limit",
    min: 1,
    max: MAX_DELIVERIES,
    defaultValue: DEFAULT_DELIVERIES,
    description: "Deliveries to return, newest first",
  }),
  api_key: z
    .string()
    .optional()
    .openapi({ param: { name: "api_key", in: "query" }, description: "Key holders: alternative to the X-API-Key header" }),
});

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const endpointResponse = { 200: { description: "The webhook settings", content: json(WebhookEndpointSchema) } };
const deliveriesResponse = {
  200: { description: "Latest deliveries, newest first (kept 7 days)", content: json(z.object({ deliveries: z.array(DeliverySchema) })) },
};

function webhookEndpointJson(endpoint: WebhookEndpoint) {
  return {
    account_id: endpoint.accountId,
    url: endpoint.url,
    secret: endpoint.secret,
    created_at: isoTimestamp(endpoint.createdAt),
    updated_at: isoTimestamp(endpoint.updatedAt),
  };
}

function deliveryJson(entry: DeliveryLogEntry) {
  return {
    webhook_id: entry.webhookId,
    job_id: entry.jobId,
    batch_id: entry.batchId,
    event_type: entry.eventType,
    url: entry.url,
    status: entry.status,
    attempts: entry.attempts,
    last_attempt_at: isoTimestampOrNull(entry.lastAttemptAt),
    last_status_code: entry.lastStatusCode,
    last_error: entry.lastError,
    next_attempt_at: isoTimestampOrNull(entry.nextAttemptAt),
    created_at: isoTimestamp(entry.createdAt),
    delivered_at: isoTimestampOrNull(entry.deliveredAt),
  };
}

/** The settings carry the secret: never cached anywhere on the way. */
function endpointReply(c: Context<AppEnv>, endpoint: WebhookEndpoint) {
  c.header("Cache-Control", "no-store");
  return c.json(webhookEndpointJson(endpoint), 200);
}

/** A URL fit for an account endpoint, or a 400 (`url: …`); 503 when its host cannot be resolved right now. */
export async function acceptableWebhookUrl(env: Env, raw: string, field = "url"): Promise<string> {
  const verdict = await checkWebhookUrl(raw, webhookSettings(env));
  if (verdict.ok) return verdict.url;
  const detail = `${field}: ${verdict.reason}`;
  throw verdict.temporary
    ? new ServiceError(503, detail, { code: "service_unavailable", retryable: true, retryAfterSeconds: 5 })
    : new InvalidParameterError(detail);
}

// ---------------------------------------------------------------------------------------------------------------
// One definition per operation, registered for both audiences: the operator names the account in the path, a key
// holder's account is the key's.

interface Audience {
  prefix: string;
  /** What the operationIds of this audience are named after (`getAccountWebhook`, `getAdminAccountWebhook`). */
  operationNoun: string;
  tags: string[];
  security: Array<Record<string, string[]>>;
  middleware: [typeof requireAdminToken] | [typeof apiKeyAuth, typeof requireManageScope];
  /** Who may call it, appended to every operation's description. */
  accessNote: string;
  params: z.ZodObject<{ account_id: z.ZodString }> | undefined;
  errors: Record<number, ReturnType<typeof errorResponse>>;
  accountOf(c: Context<AppEnv>): Promise<string>;
}

const OPERATOR: Audience = {
  prefix: "/admin/accounts/{account_id}/webhook",
  operationNoun: "AdminAccountWebhook",
  tags: ["Operator"],
  security: [{ AdminToken: [] }],
  middleware: [requireAdminToken],
  accessNote: "",
  params: z.object({
    account_id: z
      .string()
      .min(1)
      .max(100)
      .openapi({ param: { name: "account_id", in: "path" } }),
  }),
  errors: { 401: errorResponse("Missing or invalid admin token"), 404: errorResponse("No account with this id") },
  async accountOf(c) {
    const accountId = c.req.param("account_id") ?? "";
    if ((await getAccount(c.env.DB, accountId)) === null) throw new NotFoundError(ACCOUNT_NOT_FOUND_DETAIL);
    return accountId;
  },
};

const KEY_HOLDER: Audience = {
  prefix: "/account/webhook",
  operationNoun: "AccountWebhook",
  tags: ["Account"],
  security: API_KEY_SECURITY,
  middleware: [apiKeyAuth, requireManageScope],
  accessNote:
    " Needs an API key with the scope `manage` (create one in the dashboard: API keys → Create a key → Scope: manage); " +
    "a `scrape` key gets 403 `insufficient_scope`.",
  params: undefined,
  errors: {
    401: errorResponse("API key missing, invalid or revoked"),
    403: errorResponse("The key's scope is `scrape`: webhook settings need a key with the scope `manage` (`insufficient_scope`)"),
    429: errorResponse("Per-key rate limit (see Retry-After)"),
    ...LIMITER_UNAVAILABLE_RESPONSE,
  },
  async accountOf(c) {
    return c.get("apiKey").accountId;
  },
};

const apiKeyOnlyQuery = DeliveriesQuery.pick({ api_key: true });

function registerFor(app: OpenAPIHono<AppEnv>, audience: Audience): void {
  const base = { tags: audience.tags, security: audience.security, middleware: audience.middleware };
  const query = audience.params === undefined ? { query: apiKeyOnlyQuery } : {};
  const params = audience.params === undefined ? {} : { params: audience.params };
  const whose = audience === OPERATOR ? "the account's" : "your account's";

  app.openapi(
    createRoute({
      ...base,
      method: "get",
      path: audience.prefix,
      operationId: `get${audience.operationNoun}`,
      summary: `Show ${whose} webhook endpoint and signing secret`,
      description:
        `Creates the signing secret on first use. Every job's final status is sent to \`url\` when it ends (see [webhooks](${guideUrl("async-jobs")}#webhooks)).` +
        audience.accessNote,
      request: { ...params, ...query },
      responses: { ...endpointResponse, ...audience.errors },
    }),
    async (c) => endpointReply(c, await ensureWebhookEndpoint(c.env, await audience.accountOf(c))),
  );

  app.openapi(
    createRoute({
      ...base,
      method: "put",
      path: audience.prefix,
      operationId: `set${audience.operationNoun}`,
      summary: `Set ${whose} webhook endpoint`,
      description:
        "https only, on port 443 or 8443; a URL that is or resolves to a private, loopback, link-local or reserved address is refused. Applies to jobs that end from " +
        "now on (a batch's own `webhook_url` takes precedence). The signing secret is kept." +
        audience.accessNote,
      request: { ...params, ...query, body: { required: true, content: json(SetUrlBody) } },
      responses: { ...endpointResponse, 400: errorResponse("Invalid or refused URL"), ...audience.errors },
    }),
    async (c) => {
      const accountId = await audience.accountOf(c);
      const url = await acceptableWebhookUrl(c.env, c.req.valid("json").url);
      return endpointReply(c, await setWebhookUrl(c.env, accountId, url));
    },
  );

  app.openapi(
    createRoute({
      ...base,
      method: "delete",
      path: audience.prefix,
      operationId: `remove${audience.operationNoun}`,
      summary: `Remove ${whose} webhook endpoint`,
      description: `Jobs that end from now on are not delivered (except to a batch's own \`webhook_url\`). The secret is kept.${audience.accessNote}`,
      request: { ...params, ...query },
      responses: { ...endpointResponse, ...audience.errors },
    }),
    async (c) => endpointReply(c, await setWebhookUrl(c.env, await audience.accountOf(c), null)),
  );

  app.openapi(
    createRoute({
      ...base,
      method: "post",
      path: `${audience.prefix}/rotate-secret`,
      operationId: `rotate${audience.operationNoun}Secret`,
      summary: `Replace ${whose} webhook signing secret`,
      description: `Takes effect at once: every later delivery attempt, retries included, is signed with the new secret.${audience.accessNote}`,
      request: { ...params, ...query },
      responses: { ...endpointResponse, ...audience.errors },
    }),
    async (c) => endpointReply(c, await rotateWebhookSecret(c.env, await audience.accountOf(c))),
  );

  app.openapi(
    createRoute({
      ...base,
      method: "get",
      path: `${audience.prefix}/deliveries`,
      operationId: `list${audience.operationNoun}Deliveries`,
      summary: `${audience === OPERATOR ? "The account's" : "Your"} latest webhook deliveries`,
      description:
        "One entry per message (a job's final status) with its attempts, the receiver's last answer and the next retry." +
        audience.accessNote,
      request: { ...params, query: DeliveriesQuery },
      responses: { ...deliveriesResponse, 400: errorResponse("Invalid limit"), ...audience.errors },
    }),
    async (c) => {
      const deliveries = await recentDeliveries(c.env.DB, await audience.accountOf(c), c.req.valid("query").limit);
      c.header("Cache-Control", "no-store");
      return c.json({ deliveries: deliveries.map(deliveryJson) }, 200);
    },
  );
}

export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>): void {
  registerFor(app, OPERATOR);
  registerFor(app, KEY_HOLDER);
}
