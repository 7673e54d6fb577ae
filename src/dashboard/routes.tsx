/**
 * The customer dashboard at /dashboard: server-rendered pages (Hono JSX), signed in with a one-time link issued by
 * the operator API, with a signed session cookie and a CSRF token on every form (see ./session.ts). Data access goes
 * through src/accounts; these handlers only translate HTTP to those calls and render pages.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import { getAccount, type Account } from "../accounts/accounts";
import { recentJobs, type IndexedJobWithKey } from "../jobs/jobs-table";
import { MAX_ACTIVE_KEYS, createApiKey, getApiKey, listApiKeys, revokeApiKey } from "../accounts/keys";
import {
  consumeLoginLink,
  createSession,
  deleteExpiredSignInRows,
  endSession,
  findSession,
  endExposedLoginLink,
  newSessionId,
} from "../accounts/sign-in";
import { dailyUsage, recentLedgerEntries, usageSummary } from "../accounts/usage";
import { listRequests, REQUEST_KINDS, REQUEST_LOG_RETENTION_DAYS, type RequestKind } from "../accounts/request-log";
import { API_KEY_SCOPES, DEFAULT_API_KEY_SCOPE, isApiKeyScope } from "../auth/api-keys";
import { ServiceError, toServiceError } from "../errors";
import type { AppEnv } from "../http/app-env";
import { enforceBodyCap } from "../http/body-limit";
import { isLoopbackRequest, redactedUrl, requestBaseUrl } from "../http/request-context";
import { requestLogLine } from "../http/request-id";
import { logLine, type LogSubject, requestSubject } from "../util/log-line";
import { JOB_RETENTION_MS } from "../jobs/job-policy";
import { accountLimitsView } from "../limits/limits-view";
import { accountEvidenceDefault, setAccountEvidenceDefault } from "../evidence/account-evidence";
import type { EvidenceCardState } from "./evidence-card";
import { readEvidenceForm } from "./evidence-form";
import { DASHBOARD_CSS, DASHBOARD_JS } from "./assets";
import { setNewKeyFlash, takeNewKeyFlash } from "./new-key-flash";
import type { SignedInFrame } from "./layout";
import { JobsPage, type JobRow } from "./pages/jobs";
import { RequestsPage, type RequestsPageData, requestsHref } from "./pages/requests";
import { KeysPage, RevokeKeyPage, type KeysPageData } from "./pages/keys";
import { OverviewPage } from "./pages/overview";
import { registerWebhookPages } from "./pages/webhooks";
import { readJobWithRequest } from "./playground/owned-job";
import { registerPlaygroundPages } from "./playground/routes";
import { ConfirmSignInPage, MessagePage, SignInHelpPage, UnusableLinkPage } from "./pages/sign-in";
import {
  SESSION_TTL_MS,
  clearLoginNonceCookie,
  clearSessionCookie,
  csrfTokenForSession,
  isSameOriginRequest,
  issueLoginCsrf,
  readSessionCookie,
  sessionSecret,
  setSessionCookie,
  verifyLoginCsrf,
  verifySessionCsrf,
} from "./session";

type DashboardContext = Context<AppEnv>;

const RECENT_ACTIVITY_LIMIT = 12;
const RECENT_JOBS_LIMIT = 25;
/** Rows per page of the Requests page. */
const REQUESTS_PAGE_SIZE = 50;
/** randomToken(32) in base64url: anything else is not one of our links, and needs no database read to refuse. */
const LOGIN_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const KEY_NAME_ERROR = "Name: must be 1 to 100 characters and not blank.";

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

interface SignedIn {
  sessionId: string;
  account: Account;
  frame: SignedInFrame;
}

/** The signed-in visitor, or null (a bad, expired or ended session also clears the cookie). */
async function currentSession(c: DashboardContext, active: SignedInFrame["active"]): Promise<SignedIn | null> {
  const secret = sessionSecret(c.env);
  const sessionId = await readSessionCookie(c, secret);
  if (sessionId === null) {
    if (c.req.header("Cookie")?.includes("__Host-session=") === true) clearSessionCookie(c);
    return null;
  }
  const session = await findSession(c.env.DB, sessionId);
  const account = session === null ? null : await getAccount(c.env.DB, session.accountId);
  if (account === null) {
    clearSessionCookie(c);
    return null;
  }
  return { sessionId, account, frame: { accountName: account.name, csrf: await csrfTokenForSession(secret, sessionId), active } };
}

function toSignIn(c: DashboardContext): Response {
  return c.redirect("/dashboard/sign-in", 303);
}

function forbiddenPage(c: DashboardContext): Response | Promise<Response> {
  return c.html(
    <MessagePage title="This form has expired" action={{ href: "/dashboard", label: "Back to the dashboard" }}>
      The form was sent from another site, or the page was open for too long. Nothing was changed. Go back, reload the page and try again.
    </MessagePage>,
    403,
  );
}

/**
 * The form of a signed-in page, or the response to send instead (sign-in redirect, 403 page; a 413 is thrown). In the
 * order every body follows (src/http/body-limit.ts): the session (signed cookie, then its D1 row) and the browser's
 * same-origin headers, all read without the body; then the body's cap; then parsing; then the CSRF token, which a plain
 * HTML form can only carry in its body. So no one without a session makes the dashboard read a byte of a body, and a
 * signed-in one at most the form's cap.
 */
async function signedInForm(c: DashboardContext): Promise<{ signedIn: SignedIn; form: Record<string, string> } | Response> {
  const signedIn = await currentSession(c, null);
  if (signedIn === null) return toSignIn(c);
  if (!isSameOriginRequest(c)) return forbiddenPage(c);
  const form = await cappedFormFields(c);
  const token = form._csrf ?? "";
  if (!(await verifySessionCsrf(sessionSecret(c.env), signedIn.sessionId, token))) return forbiddenPage(c);
  return { signedIn, form };
}

/** The form's text fields, once its size is known to be within the route's cap (413 otherwise). */
async function cappedFormFields(c: DashboardContext): Promise<Record<string, string>> {
  const contentType = c.req.header("Content-Type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)/i.test(contentType)) return {};
  await enforceBodyCap(c, "dashboard");
  const body = await c.req.parseBody();
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) if (typeof value === "string") fields[name] = value;
  return fields;
}

/** `logSubject`: the dashboard request's, so a job that cannot be read is logged under it. */
async function jobRows(env: Env, jobs: IndexedJobWithKey[], logSubject: LogSubject, now = Date.now()): Promise<JobRow[]> {
  return Promise.all(
    jobs.map(async (job): Promise<JobRow> => {
      const base = { jobId: job.jobId, requestId: job.requestId, scraper: job.scraper, keyName: job.keyName, createdAt: job.createdAt };
      const empty = { completedAt: null, attempts: null, prompt: null, error: null };
      // Past retention the record is gone; asking its Durable Object would only wake it up.
      if (now - new Date(job.createdAt).getTime() >= JOB_RETENTION_MS) return { ...base, ...empty, status: "expired" };
      try {
        // With the request behind it: a failed job has no result, and its prompt is still worth showing.
        const owned = await readJobWithRequest(env, job.jobId);
        if (owned === null) return { ...base, ...empty, status: "unavailable" };
        const { view } = owned;
        return {
          ...base,
          status: view.status,
          completedAt: view.completed_at,
          attempts: view.attempts,
          prompt: owned.params.prompt,
          error: view.error ?? null,
        };
      } catch (error) {
        console.error(logLine(logSubject, `dashboard: job ${job.jobId} status unavailable`), error);
        return { ...base, ...empty, status: "unavailable" };
      }
    }),
  );
}

/** The Requests page's query: `kind` one of the kinds, `before` a positive entry id; null when either is something else. */
function readRequestsPageQuery(kind: string | undefined, before: string | undefined): { kind: RequestKind | null; before?: number } | null {
  const chosenKind = kind === undefined || kind === "" ? null : (REQUEST_KINDS.find((known) => known === kind) ?? undefined);
  if (chosenKind === undefined) return null;
  if (before === undefined || before === "") return { kind: chosenKind };
  if (!/^[1-9]\d{0,15}$/.test(before)) return null;
  return { kind: chosenKind, before: Number(before) };
}

async function renderKeysPage(c: DashboardContext, signedIn: SignedIn, extra: Omit<KeysPageData, "keys">, status: 200 | 400 | 409 = 200) {
  const keys = await listApiKeys(c.env.DB, signedIn.account.accountId);
  return c.html(<KeysPage frame={{ ...signedIn.frame, active: "keys" }} data={{ keys, ...extra }} />, status);
}

async function renderOverview(
  c: DashboardContext,
  signedIn: SignedIn,
  evidenceCard: Omit<EvidenceCardState, "setting">,
  status: 200 | 400 = 200,
) {
  const accountId = signedIn.account.accountId;
  const [usage, daily, keys, activity, limits, evidence] = await Promise.all([
    usageSummary(c.env.DB, accountId),
    dailyUsage(c.env.DB, accountId),
    listApiKeys(c.env.DB, accountId),
    recentLedgerEntries(c.env.DB, accountId, RECENT_ACTIVITY_LIMIT),
    accountLimitsView(c.env, accountId),
    accountEvidenceDefault(c.env.DB, accountId),
  ]);
  const data = {
    account: signedIn.account,
    usage,
    daily,
    activeKeys: keys.filter((key) => key.revokedAt === null).length,
    activity,
    baseUrl: requestBaseUrl(c),
    limits,
    evidence: { setting: evidence, ...evidenceCard },
  };
  return c.html(<OverviewPage frame={{ ...signedIn.frame, active: "overview" }} data={data} />, status);
}

function createDashboard(): Hono<AppEnv> {
  const dashboard = new Hono<AppEnv>();

  dashboard.use("*", async (c, next) => {
    await next();
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Frame-Options", "DENY");
    c.header("X-Content-Type-Options", "nosniff");
    // Not no-referrer: with it, Chromium sends `Origin: null` on the dashboard's own form posts, defeating the origin
    // check. same-origin still keeps sign-in links and paths from leaking to any other site.
    c.header("Referrer-Policy", "same-origin");
    if (!c.req.path.startsWith("/dashboard/assets/")) c.header("Cache-Control", "no-store");
  });

  dashboard.get("/assets/dashboard.css", (c) => {
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    return c.body(DASHBOARD_CSS, 200, { "Content-Type": "text/css; charset=utf-8" });
  });
  dashboard.get("/assets/dashboard.js", (c) => {
    c.header("Cache-Control", "public, max-age=31536000, immutable");
    return c.body(DASHBOARD_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });

  dashboard.get("/sign-in", async (c) => {
    if ((await currentSession(c, null)) !== null) return c.redirect("/dashboard", 303);
    const notice = c.req.query("signed_out") !== undefined ? "You have signed out." : undefined;
    return c.html(<SignInHelpPage notice={notice} local={isLoopbackRequest(c)} />);
  });

  // A sign-in link is /dashboard/login#<token>: the token stays in the browser, and the page's form posts it.
  dashboard.get("/login", async (c) => c.html(<ConfirmSignInPage csrf={await issueLoginCsrf(c, sessionSecret(c.env))} />));

  // The old link format carried the token in the path, which every request log records: such a token is ended, unused.
  dashboard.get("/login/:token", async (c) => {
    const token = c.req.param("token");
    if (LOGIN_TOKEN_PATTERN.test(token)) await endExposedLoginLink(c.env.DB, token);
    return c.html(<UnusableLinkPage link={{ outcome: "unknown" }} local={isLoopbackRequest(c)} />, 404);
  });

  dashboard.post("/login", async (c) => {
    const secret = sessionSecret(c.env);
    // No session yet: the same-origin headers are what can be checked before the (capped) body is read.
    const sameOrigin = isSameOriginRequest(c);
    const form = sameOrigin ? await cappedFormFields(c) : {};
    const token = form.token ?? "";
    if (!sameOrigin || !(await verifyLoginCsrf(c, secret, form._csrf ?? ""))) {
      return c.html(
        <MessagePage title="Please open your sign-in link again" action={{ href: "/dashboard/sign-in", label: "How to sign in" }}>
          The sign-in page was open for too long or was not sent from this site. Your link has not been used.
        </MessagePage>,
        403,
      );
    }
    const use = LOGIN_TOKEN_PATTERN.test(token) ? await consumeLoginLink(c.env.DB, token) : { outcome: "unknown" as const };
    if (use.outcome !== "signed_in") return c.html(<UnusableLinkPage link={use} local={isLoopbackRequest(c)} />, 400);
    const { accountId } = use;
    // A fresh session id at every sign-in: a session id known before signing in is worth nothing after it.
    const previous = await readSessionCookie(c, secret);
    if (previous !== null) await endSession(c.env.DB, previous);
    const sessionId = newSessionId();
    await createSession(c.env.DB, sessionId, accountId, SESSION_TTL_MS);
    await setSessionCookie(c, secret, sessionId);
    clearLoginNonceCookie(c);
    c.executionCtx.waitUntil(
      deleteExpiredSignInRows(c.env.DB).catch((error: unknown) => console.error(requestLogLine(c, "sign-in housekeeping failed"), error)),
    );
    return c.redirect("/dashboard", 303);
  });

  dashboard.post("/logout", async (c) => {
    const result = await signedInForm(c);
    if (result instanceof Response) return result;
    await endSession(c.env.DB, result.signedIn.sessionId);
    clearSessionCookie(c);
    return c.redirect("/dashboard/sign-in?signed_out=1", 303);
  });

  dashboard.get("/", async (c) => {
    const signedIn = await currentSession(c, "overview");
    if (signedIn === null) return toSignIn(c);
    return renderOverview(c, signedIn, { saved: c.req.query("notice") === "evidence-saved" });
  });

  // The overview's evidence card: the account's default, with the same session, same-origin and CSRF checks as every form.
  dashboard.post("/evidence", async (c) => {
    const result = await signedInForm(c);
    if (result instanceof Response) return result;
    const outcome = readEvidenceForm(result.form);
    if ("error" in outcome) return renderOverview(c, result.signedIn, { error: outcome.error }, 400);
    await setAccountEvidenceDefault(c.env.DB, result.signedIn.account.accountId, outcome.setting);
    // Post-redirect-get, back to the card.
    return c.redirect("/dashboard?notice=evidence-saved#evidence", 303);
  });

  dashboard.get("/keys", async (c) => {
    const signedIn = await currentSession(c, "keys");
    if (signedIn === null) return toSignIn(c);
    const revokedId = c.req.query("revoked");
    const revoked = revokedId === undefined ? null : await getApiKey(c.env.DB, revokedId);
    const showRevoked = revoked !== null && revoked.accountId === signedIn.account.accountId && revoked.revokedAt !== null;
    // The redirect after creating a key lands here: the flash shows the key this once, and a reload shows only the list.
    const flash = await takeNewKeyFlash(c, sessionSecret(c.env), signedIn.sessionId);
    const flashed = flash === null ? null : await getApiKey(c.env.DB, flash.keyId);
    const showCreated =
      flash !== null && flashed !== null && flashed.accountId === signedIn.account.accountId && flashed.revokedAt === null;
    return renderKeysPage(c, signedIn, {
      ...(showRevoked ? { revoked } : {}),
      ...(showCreated ? { created: { ...flashed, apiKey: flash.apiKey } } : {}),
    });
  });

  dashboard.post("/keys", async (c) => {
    const result = await signedInForm(c);
    if (result instanceof Response) return result;
    const { signedIn, form } = result;
    const name = (form.name ?? "").trim();
    if (name.length === 0 || name.length > 100)
      return renderKeysPage(c, signedIn, { formError: KEY_NAME_ERROR, formName: name.slice(0, 100) }, 400);
    // A form without the field (an older page still open) creates the least privileged key.
    const scope = form.scope === undefined || form.scope === "" ? DEFAULT_API_KEY_SCOPE : form.scope;
    if (!isApiKeyScope(scope)) {
      const formError = `Scope: must be one of ${API_KEY_SCOPES.join(", ")}.`;
      return renderKeysPage(c, signedIn, { formError, formName: name }, 400);
    }
    const outcome = await createApiKey(c.env.DB, signedIn.account.accountId, name, scope);
    if (outcome.status === "too_many_keys") {
      return renderKeysPage(
        c,
        signedIn,
        {
          formError: `You already have ${MAX_ACTIVE_KEYS} active keys. Revoke one you no longer use first.`,
          formName: name,
          formScope: scope,
        },
        409,
      );
    }
    if (outcome.status === "account_not_found") return toSignIn(c);
    // Post-redirect-get: reloading the page that shows the key must not submit the form again (a second key).
    await setNewKeyFlash(c, sessionSecret(c.env), signedIn.sessionId, { keyId: outcome.key.keyId, apiKey: outcome.key.apiKey });
    return c.redirect("/dashboard/keys", 303);
  });

  dashboard.get("/keys/:keyId/revoke", async (c) => {
    const signedIn = await currentSession(c, "keys");
    if (signedIn === null) return toSignIn(c);
    const apiKey = await getApiKey(c.env.DB, c.req.param("keyId"));
    if (apiKey === null || apiKey.accountId !== signedIn.account.accountId) {
      return c.html(
        <MessagePage title="Key not found" action={{ href: "/dashboard/keys", label: "Back to API keys" }}>
          This key does not exist or belongs to another account.
        </MessagePage>,
        404,
      );
    }
    if (apiKey.revokedAt !== null) return c.redirect(`/dashboard/keys?revoked=${encodeURIComponent(apiKey.keyId)}`, 303);
    return c.html(<RevokeKeyPage frame={signedIn.frame} apiKey={apiKey} />);
  });

  dashboard.post("/keys/:keyId/revoke", async (c) => {
    const result = await signedInForm(c);
    if (result instanceof Response) return result;
    const revoked = await revokeApiKey(c.env.DB, c.req.param("keyId"), result.signedIn.account.accountId);
    if (revoked === null) {
      return c.html(
        <MessagePage title="Key not found" action={{ href: "/dashboard/keys", label: "Back to API keys" }}>
          This key does not exist or belongs to another account. Nothing was changed.
        </MessagePage>,
        404,
      );
    }
    return c.redirect(`/dashboard/keys?revoked=${encodeURIComponent(revoked.keyId)}`, 303);
  });

  dashboard.get("/jobs", async (c) => {
    const signedIn = await currentSession(c, "jobs");
    if (signedIn === null) return toSignIn(c);
    const jobs = await jobRows(
      c.env,
      await recentJobs(c.env.DB, signedIn.account.accountId, RECENT_JOBS_LIMIT),
      requestSubject(c.get("requestId")),
    );
    return c.html(<JobsPage frame={signedIn.frame} jobs={jobs} retentionHours={JOB_RETENTION_MS / 3_600_000} />);
  });

  dashboard.get("/requests", async (c) => {
    const signedIn = await currentSession(c, "requests");
    if (signedIn === null) return toSignIn(c);
    const page = readRequestsPageQuery(c.req.query("kind"), c.req.query("before"));
    if (page === null) {
      return c.html(
        <MessagePage title="Unknown filter" action={{ href: "/dashboard/requests", label: "Show every request" }}>
          The list can be filtered by kind (sync, job or batch) and paged with the Older link only.
        </MessagePage>,
        400,
      );
    }
    const { requests, nextBefore } = await listRequests(c.env.DB, {
      accountId: signedIn.account.accountId,
      kind: page.kind ?? undefined,
      before: page.before,
      limit: REQUESTS_PAGE_SIZE,
    });
    const data: RequestsPageData = {
      requests,
      kind: page.kind,
      olderHref: nextBefore === null ? null : requestsHref(page.kind, nextBefore),
      paged: page.before !== undefined,
      retentionDays: REQUEST_LOG_RETENTION_DAYS,
      resultRetentionMs: JOB_RETENTION_MS,
      now: Date.now(),
    };
    return c.html(<RequestsPage frame={signedIn.frame} data={data} />);
  });

  registerWebhookPages(dashboard, { currentSession, signedInForm });
  registerPlaygroundPages(dashboard, { currentSession, signedInForm });

  // Last route: a sub-app's notFound is never called under app.route(), so this catch-all is the dashboard's 404.
  dashboard.all("*", (c) => {
    // People type "/dashboard/" as often as "/dashboard".
    // The raw (still percent-encoded) path: a decoded one could put CR/LF into the Location header.
    const rawPath = new URL(c.req.url).pathname;
    if (c.req.method === "GET" && rawPath.length > 1 && rawPath.endsWith("/")) return c.redirect(rawPath.replace(/\/+$/, ""), 301);
    return c.html(
      <MessagePage title="Page not found" action={{ href: "/dashboard", label: "Go to the dashboard" }}>
        There is no dashboard page at this address.
      </MessagePage>,
      404,
    );
  });

  dashboard.onError((error, c) => {
    const serviceError = error instanceof ServiceError ? error : toServiceError(error);
    if (serviceError.status >= 500)
      console.error(
        requestLogLine(c, `dashboard ${c.req.method} ${redactedUrl(c.req.url)} -> ${serviceError.status}`),
        serviceError.cause ?? error,
      );
    return c.html(
      <MessagePage
        title={serviceError.status === 503 ? "The dashboard is unavailable" : "Something went wrong"}
        action={{ href: "/dashboard", label: "Try again" }}
      >
        {serviceError.status >= 500 && serviceError.status !== 503
          ? "An unexpected error occurred. Please try again in a moment."
          : serviceError.detail}
      </MessagePage>,
      serviceError.status as 500,
    );
  });

  return dashboard;
}

export function registerDashboardRoutes(app: OpenAPIHono<AppEnv>): void {
  app.route("/dashboard", createDashboard());
}
