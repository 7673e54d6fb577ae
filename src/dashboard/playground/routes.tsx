/**
 * The playground and the result viewer, on the dashboard's session (src/dashboard/routes.tsx hands its session and
 * CSRF checks in):
 * - `GET /dashboard/playground`: the form (a link may prefill it: `?scraper=grok&prompt=…&grok.mode=…`);
 * - `POST /dashboard/playground`: runs it with one of the account's keys, through the same steps as the API (query
 *   validation, key checks and rate limits, the account's request slot, the credit charge, the pipeline), then
 *   redirects to the result: a reload never runs (and charges) it twice;
 * - `GET /dashboard/playground/snippets?…`: the form as curl, Python and JavaScript (the page script asks as you type);
 * - `GET /dashboard/results/{id}`: a playground run or a job of the account.
 */
import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Account } from "../../accounts/accounts";
import { getApiKey, listApiKeys } from "../../accounts/keys";
import { CREDITS_PER_REQUEST } from "../../credits/ledger";
import { toServiceError, UnauthorizedError } from "../../errors";
import type { AppEnv } from "../../http/app-env";
import { requestBaseUrl, requestOrigin } from "../../http/request-context";
import { requestLogLine } from "../../http/request-id";
import { submitJob } from "../../jobs/submit";
import type { ScrapeParams } from "../../params/common-params";
import type { ScrapeResponse } from "../../pipeline/scrape-request";
import { scrapeSynchronously } from "../../pipeline/sync-scrape";
import { isoTimestamp } from "../../util/time";
import type { NavItem, SignedInFrame } from "../layout";
import { PlaygroundPage, type PlaygroundRefusal } from "../pages/playground";
import { ResultPage, type ResultPageData } from "../pages/result";
import { MessagePage } from "../pages/sign-in";
import { admitPickedKey, type PickedKey } from "./key-admission";
import { readOwnedJob } from "./owned-job";
import { readShownEvidence } from "./shown-evidence";
import { accountEvidenceDefault } from "../../evidence/account-evidence";
import {
  countryRefusal,
  evidenceAsked,
  type PlaygroundInput,
  playgroundLink,
  queryPairs,
  readPlaygroundInput,
  validatedParams,
} from "./playground-input";
import { readPlaygroundRun, recentPlaygroundRuns, type StoredPlaygroundRun, storePlaygroundRun } from "./run-store";
import { countryOptions, playgroundScraper, playgroundScrapers } from "./scraper-forms";
import { buildSnippets, maskedKey, type Snippets } from "./snippets";
import { isUuid } from "../../util/uuid";
import { requestSubject } from "../../util/log-line";

type DashboardContext = Context<AppEnv>;

interface SignedInVisitor {
  account: Account;
  frame: SignedInFrame;
}

/** What these pages need of the dashboard's session handling (routes.tsx owns it). */
interface PlaygroundSessionAccess {
  currentSession(c: DashboardContext, active: NavItem | null): Promise<SignedInVisitor | null>;
  /** The signed-in visitor and the form's fields, or the response to send (sign-in redirect, expired-form page). */
  signedInForm(c: DashboardContext): Promise<{ signedIn: SignedInVisitor; form: Record<string, string> } | Response>;
}

const RECENT_RUNS = 10;
const SIGNED_OUT_DETAIL = "Sign in to the dashboard first.";
const noop = (): void => undefined;

/** The statuses of the service's errors (DESIGN.md §4); a page answering another is sent as a 500. */
const ERROR_PAGE_STATUSES: readonly ContentfulStatusCode[] = [400, 401, 403, 404, 405, 408, 409, 429, 500, 502, 503, 504];

function isErrorPageStatus(status: number): status is ContentfulStatusCode {
  return ERROR_PAGE_STATUSES.some((known) => known === status);
}

/** The account's active keys, and the one the form has chosen (the first when none or an unknown one is). */
async function keysFor(env: Env, accountId: string, input: PlaygroundInput) {
  const keys = (await listApiKeys(env.DB, accountId)).filter((key) => key.revokedAt === null);
  const chosen = keys.find((key) => key.keyId === input.keyId) ?? keys[0] ?? null;
  return { keys, chosen };
}

function snippetsFor(c: DashboardContext, input: PlaygroundInput, displayPrefix: string | null): Snippets {
  return buildSnippets({
    baseUrl: requestBaseUrl(c),
    scraper: input.scraper.id,
    query: queryPairs(input),
    maskedKey: maskedKey(displayPrefix),
    run: input.run,
    evidence: input.evidence,
  });
}

async function renderPlayground(
  c: DashboardContext,
  signedIn: SignedInVisitor,
  input: PlaygroundInput,
  error?: PlaygroundRefusal,
): Promise<Response> {
  const accountId = signedIn.account.accountId;
  const [{ keys, chosen }, recentRuns, accountEvidence] = await Promise.all([
    keysFor(c.env, accountId, input),
    recentPlaygroundRuns(c.env.MARKDOWN, accountId, RECENT_RUNS),
    accountEvidenceDefault(c.env.DB, accountId),
  ]);
  const chosenInput = { ...input, keyId: chosen?.keyId ?? "" };
  const data = {
    scrapers: playgroundScrapers(),
    countries: countryOptions(),
    keys,
    input: chosenInput,
    snippets: snippetsFor(c, chosenInput, chosen?.displayPrefix ?? null),
    credits: signedIn.account.credits,
    creditsPerRequest: CREDITS_PER_REQUEST,
    recentRuns,
    accountEvidenceKinds: accountEvidence.kinds,
    error,
  };
  return c.html(
    <PlaygroundPage frame={{ ...signedIn.frame, active: "playground" }} data={data} />,
    error === undefined ? 200 : isErrorPageStatus(error.status) ? error.status : 500,
  );
}

/**
 * A synchronous run, exactly as `GET /scrapers/{scraper}` runs one (its browser work within the account's request
 * slots): a visitor who closes the tab stops the scrape, and the run is handed to `waitUntil` whole, so the charge →
 * scrape → refund sequence reaches its refund after the request itself was cancelled.
 */
async function runSynchronously(
  c: DashboardContext,
  input: PlaygroundInput,
  params: ScrapeParams,
  key: PickedKey,
): Promise<ScrapeResponse> {
  const outcome = scrapeSynchronously(
    c.env,
    {
      scraper: input.scraper.id,
      params,
      jobId: crypto.randomUUID(),
      baseUrl: requestBaseUrl(c),
      startedAt: c.get("startedAt"),
      evidenceAsked: evidenceAsked(input),
      abandoned: c.req.raw.signal,
      afterResponse: (work) => c.executionCtx.waitUntil(work),
    },
    key,
    requestOrigin(c, "dashboard"),
  );
  c.executionCtx.waitUntil(outcome.then(noop, noop));
  return (await outcome).response;
}

function scraperNameOf(id: string): string {
  return playgroundScraper(id)?.name ?? id;
}

function resultFromRun(jobId: string, run: StoredPlaygroundRun): ResultPageData {
  const prompt = run.response.prompt;
  const country = run.response.country;
  return {
    source: "playground",
    id: jobId,
    scraper: run.scraper,
    scraperName: scraperNameOf(run.scraper),
    status: "done",
    prompt: typeof prompt === "string" ? prompt : "",
    country: typeof country === "string" ? country : null,
    response: run.response,
    error: null,
    createdAt: run.createdAt,
    completedAt: run.createdAt,
    attempts: null,
    keyName: run.keyName,
    playgroundLink: playgroundLink(run.scraper, run.params),
    creditsPerRequest: CREDITS_PER_REQUEST,
    rawJson: run.response,
    evidence: readShownEvidence(run.response.evidence, Date.now()),
  };
}

function notFound(c: DashboardContext): Response | Promise<Response> {
  return c.html(
    <MessagePage title="Result not found" action={{ href: "/dashboard/jobs", label: "Go to your jobs" }}>
      No job or playground run of yours has this id. Results are kept for 24 hours.
    </MessagePage>,
    404,
  );
}

export function registerPlaygroundPages(dashboard: Hono<AppEnv>, access: PlaygroundSessionAccess): void {
  dashboard.get("/playground", async (c) => {
    const signedIn = await access.currentSession(c, "playground");
    if (signedIn === null) return c.redirect("/dashboard/sign-in", 303);
    const input = readPlaygroundInput(c.req.query());
    // A link naming a country its scraper does not serve gets the API's refusal now, and keeps that country chosen:
    // falling back to another country would run (and charge) a request the link did not ask for.
    const refusal = c.req.query("country") === undefined ? null : countryRefusal(input);
    if (refusal === null) return renderPlayground(c, signedIn, input);
    return renderPlayground(c, signedIn, input, { status: refusal.status, detail: refusal.detail, code: refusal.code, from: "link" });
  });

  dashboard.post("/playground", async (c) => {
    const outcome = await access.signedInForm(c);
    if (outcome instanceof Response) return outcome;
    const { signedIn, form } = outcome;
    const input = readPlaygroundInput(form);
    const accountId = signedIn.account.accountId;
    try {
      // The API's order: the query first, then the key, then (for a run that waits) the account's slot and the charge.
      const params = validatedParams(input);
      const key = await admitPickedKey(c.env, c.executionCtx, accountId, input.keyId, requestSubject(c.get("requestId")));
      if (input.run === "job") {
        const { jobId } = await submitJob(
          c.env,
          { scraper: input.scraper.id, params, baseUrl: requestBaseUrl(c), evidenceAsked: evidenceAsked(input) },
          key,
          requestOrigin(c, "dashboard"),
        );
        return c.redirect(`/dashboard/results/${jobId}`, 303);
      }
      const response = await runSynchronously(c, input, params, key);
      const jobId = String(response.job_id);
      const run: StoredPlaygroundRun = {
        accountId,
        keyId: key.keyId,
        keyName: key.name,
        createdAt: isoTimestamp(c.get("startedAt")),
        scraper: input.scraper.id,
        params: { ...params },
        response,
      };
      try {
        await storePlaygroundRun(c.env.MARKDOWN, jobId, run);
      } catch (error) {
        // The run was charged and answered: show it now, even if it cannot be kept for a later visit.
        console.error(requestLogLine(c, `dashboard: playground run ${jobId} could not be stored`), error);
        return c.html(<ResultPage frame={signedIn.frame} data={resultFromRun(jobId, run)} />);
      }
      return c.redirect(`/dashboard/results/${jobId}`, 303);
    } catch (error) {
      const serviceError = toServiceError(error);
      if (serviceError.status >= 500)
        console.error(requestLogLine(c, `dashboard playground -> ${serviceError.status}`), serviceError.cause ?? error);
      if (serviceError.retryAfterSeconds !== undefined) c.header("Retry-After", String(serviceError.retryAfterSeconds));
      const { status, detail, code } = serviceError;
      return renderPlayground(c, signedIn, input, { status, detail, code, from: "run" });
    }
  });

  dashboard.get("/playground/snippets", async (c) => {
    const signedIn = await access.currentSession(c, null);
    if (signedIn === null) return c.json(new UnauthorizedError(SIGNED_OUT_DETAIL, "signed_out").toBody(c.get("requestId")), 401);
    const input = readPlaygroundInput(c.req.query());
    const key = input.keyId === "" ? null : await getApiKey(c.env.DB, input.keyId);
    const prefix = key !== null && key.accountId === signedIn.account.accountId ? key.displayPrefix : null;
    return c.json(snippetsFor(c, input, prefix));
  });

  dashboard.get("/results/:id", async (c) => {
    const signedIn = await access.currentSession(c, "jobs");
    if (signedIn === null) return c.redirect("/dashboard/sign-in", 303);
    const id = c.req.param("id");
    if (!isUuid(id)) return notFound(c);
    const accountId = signedIn.account.accountId;
    const run = await readPlaygroundRun(c.env.MARKDOWN, accountId, id);
    if (run !== null) return c.html(<ResultPage frame={{ ...signedIn.frame, active: "playground" }} data={resultFromRun(id, run)} />);
    const job = await readOwnedJob(c.env, accountId, id);
    if (job === null) return notFound(c);
    const { view, params } = job;
    const key = await getApiKey(c.env.DB, job.keyId);
    const data: ResultPageData = {
      source: "job",
      id,
      scraper: view.scraper,
      scraperName: scraperNameOf(view.scraper),
      status: view.status,
      prompt: params.prompt,
      country: typeof params.country === "string" ? params.country : null,
      response: view.result ?? null,
      error: view.error ?? null,
      createdAt: view.created_at,
      completedAt: view.completed_at,
      attempts: view.attempts,
      keyName: key?.name ?? null,
      playgroundLink: playgroundLink(view.scraper, params),
      creditsPerRequest: CREDITS_PER_REQUEST,
      rawJson: view,
      // a done job's evidence is its answer's; a failed one's is the failure evidence its account keeps
      evidence: readShownEvidence(view.status === "failed" ? view.evidence : view.result?.evidence, Date.now()),
    };
    return c.html(<ResultPage frame={signedIn.frame} data={data} />);
  });
}
