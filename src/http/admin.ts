/**
 * The operator API (bearer ADMIN_TOKEN): accounts, their keys, credits and dashboard sign-in links. JSON in and out;
 * every route is declared with zod schemas so it appears in /openapi.json.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { integerQueryParam } from "../params/integer-param";
import { SIGN_UP_CREDITS, createAccount, getAccount, listAccounts, type Account } from "../accounts/accounts";
import { MAX_ACTIVE_KEYS, createApiKey, listApiKeys, revokeApiKey, type ApiKeySummary } from "../accounts/keys";
import {
  LOGIN_LINK_DEFAULT_MINUTES,
  LOGIN_LINK_MAX_MINUTES,
  LOGIN_LINK_MIN_MINUTES,
  deleteExpiredSignInRows,
  endAccountSessions,
  issueLoginLink,
  loginLinkUrl,
} from "../accounts/sign-in";
import { recentLedgerEntries, usageSummary, type LedgerEntry, type UsageSummary } from "../accounts/usage";
import { requireAdminToken } from "./admin-token";
import { API_KEY_SCOPES, DEFAULT_API_KEY_SCOPE } from "../auth/api-keys";
import { adjustCredits } from "../credits/ledger";
import { ConflictError, NotFoundError } from "../errors";
import { isoTimestamp, isoTimestampOrNull } from "../util/time";
import type { AppEnv } from "./app-env";
import { strictBody } from "./json-body";
import { errorResponse } from "./openapi-errors";
import { requestBaseUrl } from "./request-context";
import { requestLogLine } from "./request-id";

const MAX_CREDITS = 1_000_000_000;
const RECENT_ACTIVITY_LIMIT = 20;

/** 409: the request is well formed but conflicts with the current state (a taken email, a balance that would go below 0). */
export const ACCOUNT_NOT_FOUND_DETAIL = "Account not found.";
export const KEY_NOT_FOUND_DETAIL = "API key not found.";

// ---------------------------------------------------------------------------------------------------------------
// Shapes shared with the account API.

const AccountSchema = z
  .object({
    account_id: z.string().openapi({ example: "acct_3kq9PZr0c2mXw1aB" }),
    name: z.string(),
    email: z.string().nullable(),
    credits: z.number().int().openapi({ description: "Current balance" }),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Account");

const KEY_SCOPE_DESCRIPTION =
  "What the key may do: `scrape` runs scrapes, jobs and batches, reads GET /account and calls the MCP tools; `manage` may " +
  "also read and change the account's webhook settings (endpoint, signing secret, delivery log). Fixed at creation.";
const KeyScopeSchema = z.enum(API_KEY_SCOPES).openapi({ description: KEY_SCOPE_DESCRIPTION, example: DEFAULT_API_KEY_SCOPE });

const ApiKeySummarySchema = z
  .object({
    key_id: z.string(),
    name: z.string(),
    display_prefix: z
      .string()
      .openapi({ description: "First characters of the key, to recognise it; the key itself is never shown again", example: "sk_Ab3dE9x" }),
    scope: KeyScopeSchema,
    created_at: z.string().openapi({ format: "date-time" }),
    last_used_at: z.string().nullable().openapi({ format: "date-time" }),
    revoked: z.boolean(),
    revoked_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("ApiKeySummary");

const UsageSchema = z
  .object({
    since: z.string().openapi({ format: "date-time", description: "Start of the 30-day window" }),
    credits_used: z.number().int(),
    requests: z.number().int().openapi({ description: "Charged requests (refunded ones excluded)" }),
    by_scraper: z.array(z.object({ scraper: z.string(), requests: z.number().int(), credits: z.number().int() })),
  })
  .openapi("Usage");

const LedgerEntrySchema = z
  .object({
    kind: z.enum(["grant", "charge", "refund", "adjustment"]),
    delta: z.number().int(),
    balance_after: z.number().int(),
    reason: z.string(),
    operation_id: z.string().nullable().openapi({ description: "Request or job id for charges and refunds" }),
    scraper: z.string().nullable(),
    key_id: z.string().nullable(),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("LedgerEntry");

function accountJson(account: Account) {
  return {
    account_id: account.accountId,
    name: account.name,
    email: account.email,
    credits: account.credits,
    created_at: isoTimestamp(account.createdAt),
  };
}

function apiKeyJson(key: ApiKeySummary) {
  return {
    key_id: key.keyId,
    name: key.name,
    display_prefix: key.displayPrefix,
    scope: key.scope,
    created_at: isoTimestamp(key.createdAt),
    last_used_at: isoTimestampOrNull(key.lastUsedAt),
    revoked: key.revokedAt !== null,
    revoked_at: isoTimestampOrNull(key.revokedAt),
  };
}

function usageJson(usage: UsageSummary) {
  return { since: isoTimestamp(usage.since), credits_used: usage.creditsUsed, requests: usage.requests, by_scraper: usage.byScraper };
}

function ledgerJson(entry: LedgerEntry) {
  return {
    kind: entry.kind,
    delta: entry.delta,
    balance_after: entry.balanceAfter,
    reason: entry.reason,
    operation_id: entry.operationId,
    scraper: entry.scraper,
    key_id: entry.keyId,
    created_at: isoTimestamp(entry.createdAt),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request schemas: every message reads as "<field>: <message>" in the 400 detail.

const nameField = (what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, { error: `must be 1 to 100 characters and not blank` })
    .max(100, { error: `must be 1 to 100 characters and not blank` })
    .openapi({ description: what, example: "Production" });

const CreateAccountBody = strictBody({
  name: nameField("Customer or company name").openapi({ example: "Acme Research" }),
  email: z
    .email({ error: "must be a valid email address" })
    .max(254, { error: "must be at most 254 characters" })
    .transform((email) => email.toLowerCase())
    .optional()
    .openapi({ description: "Unique per account when given", example: "ops@acme.example" }),
  credits: z
    .number({ error: "must be an integer from 0 to 1000000000" })
    .int({ error: "must be an integer from 0 to 1000000000" })
    .min(0, { error: "must be an integer from 0 to 1000000000" })
    .max(MAX_CREDITS, { error: "must be an integer from 0 to 1000000000" })
    .optional()
    .openapi({ description: `Starting balance; default: the sign-up grant of ${SIGN_UP_CREDITS}`, default: SIGN_UP_CREDITS }),
}).openapi("CreateAccount");

const SCOPE_ERROR = `must be one of ${API_KEY_SCOPES.map((scope) => `"${scope}"`).join(", ")}`;

const CreateKeyBody = strictBody({
  name: nameField("A label to recognise the key by"),
  scope: z
    .enum(API_KEY_SCOPES, { error: SCOPE_ERROR })
    .optional()
    .openapi({ description: `${KEY_SCOPE_DESCRIPTION} Default: \`${DEFAULT_API_KEY_SCOPE}\`.`, default: DEFAULT_API_KEY_SCOPE }),
}).openapi("CreateApiKey");

const AdjustCreditsBody = strictBody({
  delta: z
    .number({ error: "must be a non-zero integer from -1000000000 to 1000000000" })
    .int({ error: "must be a non-zero integer from -1000000000 to 1000000000" })
    .min(-MAX_CREDITS, { error: "must be a non-zero integer from -1000000000 to 1000000000" })
    .max(MAX_CREDITS, { error: "must be a non-zero integer from -1000000000 to 1000000000" })
    .refine((delta) => delta !== 0, { error: "must be a non-zero integer from -1000000000 to 1000000000" })
    .openapi({ description: "Credits to add (positive, a top-up) or remove (negative, a correction)", example: 5000 }),
  reason: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, { error: "must be 1 to 200 characters and not blank" })
    .max(200, { error: "must be 1 to 200 characters and not blank" })
    .openapi({ description: "Recorded in the credit ledger", example: "Invoice 2026-114 paid" }),
}).openapi("AdjustCredits");

const TTL_MINUTES_RULE = `must be an integer from ${LOGIN_LINK_MIN_MINUTES} to ${LOGIN_LINK_MAX_MINUTES}`;

const LoginLinkBody = strictBody({
  ttl_minutes: z
    .number({ error: TTL_MINUTES_RULE })
    .int({ error: TTL_MINUTES_RULE })
    .min(LOGIN_LINK_MIN_MINUTES, { error: TTL_MINUTES_RULE })
    .max(LOGIN_LINK_MAX_MINUTES, { error: TTL_MINUTES_RULE })
    .optional()
    .openapi({ description: "How long the link stays valid", default: LOGIN_LINK_DEFAULT_MINUTES }),
}).openapi("CreateLoginLink");

const AccountIdParam = z.object({
  account_id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "account_id", in: "path" }, example: "acct_3kq9PZr0c2mXw1aB" }),
});

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: json(schema) });
const UNAUTHORIZED = { 401: errorResponse("Missing or invalid admin token") };
const BAD_REQUEST = { 400: errorResponse("Invalid body; `detail` names the field and the rule") };
const ACCOUNT_404 = { 404: errorResponse("No account with this id") };

// Spread into every route below: the tag, the documented security scheme and the bearer check itself.
const operator = { tags: ["Operator"], security: [{ AdminToken: [] }], middleware: [requireAdminToken] };

// ---------------------------------------------------------------------------------------------------------------
// Routes

const createAccountRoute = createRoute({
  ...operator,
  method: "post",
  path: "/admin/accounts",
  summary: "Create an account",
  description: `The account starts with \`credits\` (default: the sign-up grant of ${SIGN_UP_CREDITS}), recorded as a \`grant\` in its ledger. It has no API key yet: create one with POST /admin/accounts/{account_id}/keys, or issue a dashboard sign-in link and let the customer create it.`,
  request: { body: jsonBody(CreateAccountBody) },
  responses: {
    201: { description: "The new account", content: json(AccountSchema) },
    ...BAD_REQUEST,
    ...UNAUTHORIZED,
    409: errorResponse("An account with this email already exists"),
  },
});

const listAccountsRoute = createRoute({
  ...operator,
  method: "get",
  path: "/admin/accounts",
  summary: "List accounts",
  description: "Newest first. Pass the last `created_at` of a page as `before` for the next page.",
  request: {
    query: z.object({
      limit: integerQueryParam({ name: "limit", min: 1, max: 200, defaultValue: 50, description: "Accounts per page" }),
      before: z
        .string()
        .optional()
        .openapi({ param: { name: "before", in: "query" }, description: "created_at of the last account of the previous page" }),
    }),
  },
  responses: {
    200: { description: "Accounts", content: json(z.object({ accounts: z.array(AccountSchema) })) },
    ...BAD_REQUEST,
    ...UNAUTHORIZED,
  },
});

const AccountDetailSchema = AccountSchema.extend({
  keys: z.array(ApiKeySummarySchema).openapi({ description: "Active keys first, then revoked ones" }),
  usage: UsageSchema.openapi({ description: "The last 30 days" }),
  recent_activity: z.array(LedgerEntrySchema).openapi({ description: `The latest ${RECENT_ACTIVITY_LIMIT} balance changes, newest first` }),
}).openapi("AccountDetail");

const getAccountRoute = createRoute({
  ...operator,
  method: "get",
  path: "/admin/accounts/{account_id}",
  summary: "An account: balance, keys and recent usage",
  request: { params: AccountIdParam },
  responses: {
    200: { description: "The account", content: json(AccountDetailSchema) },
    ...UNAUTHORIZED,
    ...ACCOUNT_404,
  },
});

const CreatedKeySchema = z
  .object({
    key_id: z.string(),
    api_key: z.string().openapi({ description: "The secret key. Shown only in this response: store it now.", example: "sk_Ab3dE9x…" }),
    name: z.string(),
    display_prefix: z.string(),
    scope: KeyScopeSchema,
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("CreatedApiKey");

const createKeyRoute = createRoute({
  ...operator,
  method: "post",
  path: "/admin/accounts/{account_id}/keys",
  summary: "Create an API key",
  description: `Returns the key once; only its SHA-256 is stored. An account can hold up to ${MAX_ACTIVE_KEYS} active keys, all drawing on its one balance. \`scope\` (default \`${DEFAULT_API_KEY_SCOPE}\`) says what it may do: only a \`manage\` key reads or changes the account's webhook settings.`,
  request: { params: AccountIdParam, body: jsonBody(CreateKeyBody) },
  responses: {
    201: { description: "The new key (the only time `api_key` is shown)", content: json(CreatedKeySchema) },
    ...BAD_REQUEST,
    ...UNAUTHORIZED,
    ...ACCOUNT_404,
    409: errorResponse(`The account already has ${MAX_ACTIVE_KEYS} active keys`),
  },
});

const revokeKeyRoute = createRoute({
  ...operator,
  method: "delete",
  path: "/admin/keys/{key_id}",
  summary: "Revoke an API key",
  description:
    "Takes effect on the very next request made with the key (401). Revoking a revoked key changes nothing and answers the same.",
  request: {
    params: z.object({
      key_id: z
        .string()
        .min(1)
        .max(100)
        .openapi({ param: { name: "key_id", in: "path" } }),
    }),
  },
  responses: {
    200: { description: "The revoked key", content: json(ApiKeySummarySchema.extend({ account_id: z.string() }).openapi("RevokedApiKey")) },
    ...UNAUTHORIZED,
    404: errorResponse("No key with this id"),
  },
});

const adjustCreditsRoute = createRoute({
  ...operator,
  method: "post",
  path: "/admin/accounts/{account_id}/credits",
  summary: "Top up or correct the balance",
  description:
    "Adds `delta` (negative to remove) atomically and records it in the ledger as an `adjustment`. The balance never goes below 0: a removal larger than the balance is refused with 409 and changes nothing.",
  request: { params: AccountIdParam, body: jsonBody(AdjustCreditsBody) },
  responses: {
    200: {
      description: "The new balance",
      content: json(z.object({ account_id: z.string(), credits: z.number().int(), delta: z.number().int() }).openapi("CreditBalance")),
    },
    ...BAD_REQUEST,
    ...UNAUTHORIZED,
    ...ACCOUNT_404,
    409: errorResponse("The balance would go below 0"),
  },
});

const loginLinkRoute = createRoute({
  ...operator,
  method: "post",
  path: "/admin/accounts/{account_id}/login-links",
  summary: "Issue a one-time dashboard sign-in link",
  description:
    "Send the link to the customer through a channel you trust. It signs into the dashboard once, within `ttl_minutes` " +
    `(default ${LOGIN_LINK_DEFAULT_MINUTES}); only a hash of it is stored. The body is optional.`,
  request: { params: AccountIdParam, body: { required: false, content: json(LoginLinkBody) } },
  responses: {
    201: {
      description: "The link (shown once)",
      content: json(
        z
          .object({ login_url: z.string().openapi({ format: "uri" }), expires_at: z.string().openapi({ format: "date-time" }) })
          .openapi("LoginLink"),
      ),
    },
    ...BAD_REQUEST,
    ...UNAUTHORIZED,
    ...ACCOUNT_404,
  },
});

const endSessionsRoute = createRoute({
  ...operator,
  method: "delete",
  path: "/admin/accounts/{account_id}/sessions",
  summary: "Sign the account out of the dashboard everywhere",
  request: { params: AccountIdParam },
  responses: {
    200: { description: "Sessions ended", content: json(z.object({ account_id: z.string(), sessions_ended: z.number().int() })) },
    ...UNAUTHORIZED,
    ...ACCOUNT_404,
  },
});

async function requireAccount(db: D1Database, accountId: string): Promise<Account> {
  const account = await getAccount(db, accountId);
  if (account === null) throw new NotFoundError(ACCOUNT_NOT_FOUND_DETAIL);
  return account;
}

export function registerAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createAccountRoute, async (c) => {
    const body = c.req.valid("json");
    const outcome = await createAccount(c.env.DB, { name: body.name, email: body.email ?? null, credits: body.credits ?? SIGN_UP_CREDITS });
    if (outcome.status === "email_taken") throw new ConflictError("email: an account with this email already exists");
    return c.json(accountJson(outcome.account), 201);
  });

  app.openapi(listAccountsRoute, async (c) => {
    const { limit, before } = c.req.valid("query");
    const accounts = await listAccounts(c.env.DB, limit, before);
    return c.json({ accounts: accounts.map(accountJson) }, 200);
  });

  app.openapi(getAccountRoute, async (c) => {
    const account = await requireAccount(c.env.DB, c.req.valid("param").account_id);
    const [keys, usage, activity] = await Promise.all([
      listApiKeys(c.env.DB, account.accountId),
      usageSummary(c.env.DB, account.accountId),
      recentLedgerEntries(c.env.DB, account.accountId, RECENT_ACTIVITY_LIMIT),
    ]);
    return c.json(
      { ...accountJson(account), keys: keys.map(apiKeyJson), usage: usageJson(usage), recent_activity: activity.map(ledgerJson) },
      200,
    );
  });

  app.openapi(createKeyRoute, async (c) => {
    const body = c.req.valid("json");
    const outcome = await createApiKey(c.env.DB, c.req.valid("param").account_id, body.name, body.scope ?? DEFAULT_API_KEY_SCOPE);
    if (outcome.status === "account_not_found") throw new NotFoundError(ACCOUNT_NOT_FOUND_DETAIL);
    if (outcome.status === "too_many_keys") {
      throw new ConflictError(`The account already has ${MAX_ACTIVE_KEYS} active keys; revoke one before creating another.`);
    }
    const { key } = outcome;
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        key_id: key.keyId,
        api_key: key.apiKey,
        name: key.name,
        display_prefix: key.displayPrefix,
        scope: key.scope,
        created_at: isoTimestamp(key.createdAt),
      },
      201,
    );
  });

  app.openapi(revokeKeyRoute, async (c) => {
    const key = await revokeApiKey(c.env.DB, c.req.valid("param").key_id);
    if (key === null) throw new NotFoundError(KEY_NOT_FOUND_DETAIL);
    return c.json({ ...apiKeyJson(key), account_id: key.accountId }, 200);
  });

  app.openapi(adjustCreditsRoute, async (c) => {
    const accountId = c.req.valid("param").account_id;
    const { delta, reason } = c.req.valid("json");
    const outcome = await adjustCredits(c.env.DB, { accountId, delta, kind: "adjustment", reason });
    if (outcome.status === "account_not_found") throw new NotFoundError(ACCOUNT_NOT_FOUND_DETAIL);
    if (outcome.status === "would_go_negative") {
      throw new ConflictError(`delta: would take the balance below 0 (the balance is ${outcome.balance}); nothing was changed`);
    }
    return c.json({ account_id: accountId, credits: outcome.balance, delta }, 200);
  });

  app.openapi(loginLinkRoute, async (c) => {
    const accountId = c.req.valid("param").account_id;
    const minutes = c.req.valid("json").ttl_minutes ?? LOGIN_LINK_DEFAULT_MINUTES;
    const link = await issueLoginLink(c.env.DB, accountId, minutes * 60_000);
    if (link === null) throw new NotFoundError(ACCOUNT_NOT_FOUND_DETAIL);
    c.executionCtx.waitUntil(
      deleteExpiredSignInRows(c.env.DB).catch((error: unknown) => console.error(requestLogLine(c, "sign-in housekeeping failed"), error)),
    );
    c.header("Cache-Control", "no-store");
    return c.json({ login_url: loginLinkUrl(requestBaseUrl(c), link.token), expires_at: isoTimestamp(link.expiresAt) }, 201);
  });

  app.openapi(endSessionsRoute, async (c) => {
    const account = await requireAccount(c.env.DB, c.req.valid("param").account_id);
    const ended = await endAccountSessions(c.env.DB, account.accountId);
    return c.json({ account_id: account.accountId, sessions_ended: ended }, 200);
  });
}
