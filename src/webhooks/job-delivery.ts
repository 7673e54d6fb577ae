/**
 * The webhook of a job's final status, driven by the job's own Durable Object alarm: when the job ends its record gets
 * a delivery state; each alarm run takes the next step (find the destination, then attempt, then back off) and the
 * record stores where it stands. Why the alarm and not a Queue: the state must live next to the job (the message is
 * rebuilt from its record and is gone with it after 24 hours), a job's alarm already exists and survives restarts, a
 * slow receiver then holds back only its own jobs, and no new binding is needed. Delivery is at least once: the state
 * is saved after the attempt, so an alarm that dies mid-attempt sends the message again, with the same `webhook-id`.
 */
import { toJobView } from "../jobs/job-view";
import type { JobRecordState } from "../jobs/job-types";
import { logDeliveryAttempt, logDeliveryCreated } from "./delivery-log";
import type { WebhookDeliveryState } from "./delivery-state";
import { ensureWebhookEndpoint, getWebhookEndpoint } from "./endpoints";
import { retryDelayMs } from "./retry-policy";
import { type AttemptOutcome, sendWebhook, UNDELIVERABLE } from "./send";
import { webhookSettings } from "./settings";
import { checkWebhookUrlForDelivery } from "./url-policy";
import { jobSubject, logLine, type LogSubject } from "../util/log-line";

/** How long to wait before retrying a step that failed on our side (D1 unavailable), without counting an attempt. */
const INTERNAL_RETRY_MS = 30_000;

function webhookIdOf(jobId: string): string {
  return `msg_${jobId.replaceAll("-", "")}`;
}

export function startDelivery(jobId: string, now: number): WebhookDeliveryState {
  return { webhookId: webhookIdOf(jobId), phase: "resolve", url: null, attempts: 0, nextAt: now };
}

/** When the job's alarm must run for this delivery, or null when it needs nothing more. */
export function deliveryDueAt(state: WebhookDeliveryState | null | undefined): number | null {
  return state !== null && state !== undefined && (state.phase === "resolve" || state.phase === "sending") ? state.nextAt : null;
}

/** The event: Standard Webhooks' `{type, timestamp, data}` with the job's final status response as `data`. */
function jobEventOf(record: JobRecordState): { type: string; body: string } {
  const view = toJobView(record);
  const type = `job.${view.status}`;
  return { type, body: JSON.stringify({ type, timestamp: view.completed_at ?? view.created_at, data: view }) };
}

/** The delivery's log lines start with the job and the request that created it (src/util/log-line.ts). */
function subjectOf(job: Pick<JobRecordState, "requestId" | "jobId">): LogSubject {
  return jobSubject(job.requestId ?? null, job.jobId);
}

async function bestEffort(subject: LogSubject, what: string, work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    console.error(logLine(subject, `webhook delivery log: could not ${what}`), error);
  }
}

/** Takes the step that is due, if any, and returns the new state (the caller saves it). Never throws. */
export async function advanceDelivery(
  env: Env,
  job: JobRecordState,
  state: WebhookDeliveryState,
  now: number,
  retentionEndsAt: number,
): Promise<WebhookDeliveryState> {
  const due = deliveryDueAt(state);
  if (due === null || due > now) return state;
  if (state.phase === "sending" && state.url !== null) return attempt(env, job, { ...state, url: state.url }, retentionEndsAt);
  let url: string | null;
  try {
    // A batch's own URL wins; otherwise the account's endpoint as it is now, when the job ended.
    url = job.webhookUrl ?? (await getWebhookEndpoint(env, job.accountId))?.url ?? null;
  } catch (error) {
    console.error(logLine(subjectOf(job), "webhook destination look-up failed"), error);
    return { ...state, nextAt: now + INTERNAL_RETRY_MS };
  }
  if (url === null) return { ...state, phase: "none" };
  await bestEffort(
    subjectOf(job),
    "record a new delivery",
    logDeliveryCreated(env.DB, {
      webhookId: state.webhookId,
      accountId: job.accountId,
      jobId: job.jobId,
      batchId: job.batchId ?? null,
      eventType: jobEventOf(job).type,
      url,
    }),
  );
  return attempt(env, job, { ...state, phase: "sending", url, nextAt: now }, retentionEndsAt);
}

async function attempt(
  env: Env,
  job: JobRecordState,
  state: WebhookDeliveryState & { url: string },
  retentionEndsAt: number,
): Promise<WebhookDeliveryState> {
  const settings = webhookSettings(env);
  // The log shows when the attempt started, never when it ended: how long a failure took tells a closed port from a
  // filtered one.
  const attemptedAt = Date.now();
  // Checked again before every attempt: where a name resolves can change after the URL was accepted.
  let verdict: Awaited<ReturnType<typeof checkWebhookUrlForDelivery>>;
  try {
    verdict = await checkWebhookUrlForDelivery(state.url, settings);
  } catch (error) {
    console.error(logLine(subjectOf(job), "webhook URL check failed"), error);
    return { ...state, nextAt: Date.now() + INTERNAL_RETRY_MS };
  }
  let outcome: AttemptOutcome;
  if (!verdict.ok) {
    // The reason is for the operator's logs only; the key holder's log gets the neutral outcome (see UNDELIVERABLE).
    console.warn(logLine(subjectOf(job), `webhook not sent, the URL ${verdict.reason}`));
    outcome = { ok: false, statusCode: null, error: UNDELIVERABLE };
  } else {
    let secret: string;
    try {
      secret = (await ensureWebhookEndpoint(env, job.accountId)).secret;
    } catch (error) {
      console.error(logLine(subjectOf(job), "webhook secret look-up failed"), error);
      return { ...state, nextAt: Date.now() + INTERNAL_RETRY_MS };
    }
    outcome = await sendWebhook({ url: verdict.url, webhookId: state.webhookId, body: jobEventOf(job).body, secret });
  }
  const attempts = state.attempts + 1;
  const delay = outcome.ok ? null : retryDelayMs(attempts, settings.retryBaseSeconds);
  const retryAt = delay === null ? null : attemptedAt + delay;
  const phase = outcome.ok ? "delivered" : retryAt === null || retryAt >= retentionEndsAt ? "failed" : "sending";
  await bestEffort(
    subjectOf(job),
    "record an attempt",
    logDeliveryAttempt(env.DB, state.webhookId, {
      status: phase === "sending" ? "pending" : phase,
      attempts,
      attemptAt: new Date(attemptedAt),
      statusCode: outcome.statusCode,
      error: outcome.error,
      nextAttemptAt: phase === "sending" && retryAt !== null ? new Date(retryAt) : null,
    }),
  );
  return { ...state, phase, attempts, nextAt: phase === "sending" && retryAt !== null ? retryAt : attemptedAt };
}

/** The job's record is being deleted with the delivery still being retried: log that it was given up. */
export async function abandonDelivery(
  env: Env,
  job: Pick<JobRecordState, "requestId" | "jobId">,
  state: WebhookDeliveryState | null | undefined,
): Promise<void> {
  if (state === null || state === undefined || state.phase !== "sending") return;
  await bestEffort(
    subjectOf(job),
    "record an abandoned delivery",
    logDeliveryAttempt(env.DB, state.webhookId, {
      status: "failed",
      attempts: state.attempts,
      attemptAt: new Date(),
      statusCode: null,
      error: "Given up: the job's record expired (24 hours)",
      nextAttemptAt: null,
    }),
  );
}
