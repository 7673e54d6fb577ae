/**
 * The operator API of provider accounts (docs/real-sites.md): signed-in sessions per provider (and marketplace where
 * sessions are per marketplace), stored encrypted, shown only masked, with each account's state, last use, last
 * success and failures. Bearer ADMIN_TOKEN like the rest of /admin.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { requireAdminToken } from "./admin-token";
import { InvalidParameterError } from "../errors";
import { ProviderAccountsNotConfiguredError, sessionCipherOf } from "../provider-accounts/session-cipher";
import { SessionSummarySchema, StorageStateSchema } from "../provider-accounts/storage-state";
import {
  ACCOUNT_STATES,
  createProviderAccount,
  deleteProviderAccount,
  getProviderAccount,
  listProviderAccounts,
  type ProviderAccountView,
  updateProviderAccount,
} from "../provider-accounts/store";
import { type AnyProvider, providerById, SCRAPER_IDS } from "../scrapers/registry";
import type { AppEnv } from "./app-env";
import { strictBody } from "./json-body";
import { errorResponse } from "./openapi-errors";

const ProviderAccountSchema = z
  .object({
    provider_account_id: z.string().openapi({ example: "pa_Zk3q9PZr0c2mXw1a" }),
    provider: z.string().openapi({ example: "amazon_rufus" }),
    marketplace: z.string().nullable().openapi({ description: "The marketplace domain (amazon.de) where sessions are per marketplace" }),
    label: z.string(),
    state: z.enum(ACCOUNT_STATES).openapi({
      description:
        "active: used in rotation · needs_attention: a login wall (or an undecryptable session) took it out of rotation · disabled: by an operator",
    }),
    state_reason: z.string().nullable(),
    session: SessionSummarySchema,
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
    last_used_at: z.string().nullable().openapi({ format: "date-time" }),
    last_success_at: z.string().nullable().openapi({ format: "date-time" }),
    last_failure_at: z.string().nullable().openapi({ format: "date-time" }),
    last_failure_reason: z
      .string()
      .nullable()
      .openapi({ description: "drift, challenge, login_wall, timeout or other (the status page's categories)" }),
    success_count: z.number().int(),
    failure_count: z.number().int(),
    consecutive_failures: z.number().int(),
  })
  .openapi("ProviderAccount");

function accountJson(account: ProviderAccountView) {
  return {
    provider_account_id: account.id,
    provider: account.provider,
    marketplace: account.marketplace,
    label: account.label,
    state: account.state,
    state_reason: account.stateReason,
    session: account.session,
    created_at: account.createdAt,
    updated_at: account.updatedAt,
    last_used_at: account.lastUsedAt,
    last_success_at: account.lastSuccessAt,
    last_failure_at: account.lastFailureAt,
    last_failure_reason: account.lastFailureReason,
    success_count: account.successCount,
    failure_count: account.failureCount,
    consecutive_failures: account.consecutiveFailures,
  };
}

const labelField = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .trim()
  .min(1, { error: "must be 1 to 100 characters and not blank" })
  .max(100, { error: "must be 1 to 100 characters and not blank" })
  .openapi({ description: "A name to recognise the account by", example: "rufus-de-1" });

const providerField = z.enum(SCRAPER_IDS, { error: `must be one of ${SCRAPER_IDS.join(", ")}` });

const CreateBody = strictBody({
  provider: providerField,
  marketplace: z
    .string({ error: "must be a string" })
    .trim()
    .toLowerCase()
    .optional()
    .openapi({ description: "Required where sessions are per marketplace (amazon_rufus: amazon.com, amazon.de…); absent otherwise" }),
  label: labelField,
  storage_state: StorageStateSchema,
}).openapi("CreateProviderAccount");

const UpdateBody = strictBody({
  label: labelField.optional(),
  storage_state: StorageStateSchema.optional().openapi({
    description: "A fresh session: replaces the stored one and returns the account to rotation",
  }),
  state: z
    .enum(["active", "disabled"], { error: "must be active or disabled" })
    .optional()
    .openapi({ description: "active: back in rotation (after checking the site) · disabled: out of rotation" }),
})
  .refine((body) => body.label !== undefined || body.storage_state !== undefined || body.state !== undefined, {
    error: "give at least one of label, storage_state, state",
  })
  .openapi("UpdateProviderAccount");

const AccountIdParam = z.object({
  provider_account_id: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: "provider_account_id", in: "path" }, example: "pa_Zk3q9PZr0c2mXw1a" }),
});

const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });
const operator = { tags: ["Operator"], security: [{ AdminToken: [] }], middleware: [requireAdminToken] };
const UNAUTHORIZED = { 401: errorResponse("Missing or invalid admin token") };
const NOT_FOUND = { 404: errorResponse("No provider account with this id") };
const NOT_CONFIGURED = { 503: errorResponse("PROVIDER_ACCOUNTS_KEY is not set, so sessions cannot be stored") };

const createRouteDef = createRoute({
  ...operator,
  method: "post",
  path: "/admin/provider-accounts",
  summary: "Store a signed-in provider session",
  description:
    "Stores the session encrypted (AES-GCM, key from the PROVIDER_ACCOUNTS_KEY secret) and puts it in rotation: scrapes of " +
    "that provider (and marketplace) then run in a browser context carrying it, least recently used account first. " +
    "The session is never returned; the answer shows it masked.",
  request: { body: { required: true, content: json(CreateBody) } },
  responses: {
    201: { description: "The stored account", content: json(ProviderAccountSchema) },
    400: errorResponse("Invalid body; `detail` names the field and the rule"),
    ...UNAUTHORIZED,
    ...NOT_CONFIGURED,
  },
});

const listRouteDef = createRoute({
  ...operator,
  method: "get",
  path: "/admin/provider-accounts",
  summary: "Provider accounts: state, last success, failures",
  request: {
    query: z.object({
      provider: providerField.optional().openapi({ param: { name: "provider", in: "query" } }),
      state: z
        .enum(ACCOUNT_STATES, { error: `must be one of ${ACCOUNT_STATES.join(", ")}` })
        .optional()
        .openapi({ param: { name: "state", in: "query" } }),
    }),
  },
  responses: {
    200: {
      description: "Accounts by provider and marketplace",
      content: json(z.object({ provider_accounts: z.array(ProviderAccountSchema) })),
    },
    400: errorResponse("Invalid filter"),
    ...UNAUTHORIZED,
  },
});

const getRouteDef = createRoute({
  ...operator,
  method: "get",
  path: "/admin/provider-accounts/{provider_account_id}",
  summary: "A provider account",
  request: { params: AccountIdParam },
  responses: { 200: { description: "The account", content: json(ProviderAccountSchema) }, ...UNAUTHORIZED, ...NOT_FOUND },
});

const updateRouteDef = createRoute({
  ...operator,
  method: "patch",
  path: "/admin/provider-accounts/{provider_account_id}",
  summary: "Rename, refresh the session of, re-enable or disable a provider account",
  request: { params: AccountIdParam, body: { required: true, content: json(UpdateBody) } },
  responses: {
    200: { description: "The account", content: json(ProviderAccountSchema) },
    400: errorResponse("Invalid body"),
    ...UNAUTHORIZED,
    ...NOT_FOUND,
    ...NOT_CONFIGURED,
  },
});

const deleteRouteDef = createRoute({
  ...operator,
  method: "delete",
  path: "/admin/provider-accounts/{provider_account_id}",
  summary: "Delete a provider account and its stored session",
  request: { params: AccountIdParam },
  responses: { 204: { description: "Deleted" }, ...UNAUTHORIZED, ...NOT_FOUND },
});

/** The account's marketplace ('' for none), checked against what the provider declares. */
function marketplaceFor(provider: AnyProvider, given: string | undefined): string {
  const policy = provider.accounts;
  if (policy?.marketplaceOf === undefined) {
    if (given !== undefined) throw new InvalidParameterError(`marketplace: ${provider.id} sessions serve every country; leave it out`);
    return "";
  }
  const known = policy.marketplaces ?? [];
  if (given === undefined || (known.length > 0 && !known.includes(given))) {
    throw new InvalidParameterError(`marketplace: ${provider.id} sessions belong to one marketplace; give one of ${known.join(", ")}`);
  }
  return given;
}

async function requireCipher(env: Env) {
  const cipher = await sessionCipherOf(env);
  if (cipher === null) throw new ProviderAccountsNotConfiguredError();
  return cipher;
}

export function registerAdminProviderAccountRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createRouteDef, async (c) => {
    const body = c.req.valid("json");
    const provider = providerById(body.provider);
    if (provider === undefined) throw new InvalidParameterError(`provider: must be one of ${SCRAPER_IDS.join(", ")}`);
    const marketplace = marketplaceFor(provider, body.marketplace);
    const cipher = await requireCipher(c.env);
    const account = await createProviderAccount(c.env.DB, cipher, {
      provider: provider.id,
      marketplace,
      label: body.label,
      session: body.storage_state,
    });
    return c.json(accountJson(account), 201);
  });

  app.openapi(listRouteDef, async (c) => {
    const filter = c.req.valid("query");
    const accounts = await listProviderAccounts(c.env.DB, filter);
    return c.json({ provider_accounts: accounts.map(accountJson) }, 200);
  });

  app.openapi(getRouteDef, async (c) => {
    const account = await getProviderAccount(c.env.DB, c.req.valid("param").provider_account_id);
    return c.json(accountJson(account), 200);
  });

  app.openapi(updateRouteDef, async (c) => {
    const body = c.req.valid("json");
    const account = await updateProviderAccount(c.env.DB, () => requireCipher(c.env), c.req.valid("param").provider_account_id, {
      label: body.label,
      session: body.storage_state,
      state: body.state,
    });
    return c.json(accountJson(account), 200);
  });

  app.openapi(deleteRouteDef, async (c) => {
    await deleteProviderAccount(c.env.DB, c.req.valid("param").provider_account_id);
    return c.body(null, 204);
  });
}
