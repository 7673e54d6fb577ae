/**
 * The queue consumer: runs the same scrape pipeline as the sync endpoint, one attempt per delivery, with `timeout`
 * per attempt. Retryable failures go back to the queue with back-off until the 4th attempt; failures no retry can fix
 * (an unimplemented scraper, a login wall or region block, a bug) fail the job at once.
 *
 * A job is charged once, whatever its attempts: the browser time of a failed attempt (retried, or failed and refunded)
 * is free to the account, so it counts towards the account's refunded browser time (src/limits/refunded-browser-time.ts)
 * like a refunded synchronous scrape's. How many attempts of one account run at once is bounded by its turns
 * (src/limits/job-turns.ts).
 */
import { failureEvidenceOf } from "../evidence/failure-evidence";
import { ServiceError, toServiceError } from "../errors";
import { withAccountJobTurn } from "../limits/job-turns";
import { BrowserHoldClock, recordRefundedBrowserTime } from "../limits/refunded-browser-time";
import { runScrape } from "../pipeline/pipeline";
import { attemptNumber, hasAttemptsLeft } from "./job-attempts";
import { type JobDelivery, readJobDelivery } from "./job-message";
import { ATTEMPT_HEARTBEAT_MS, retryBaseSeconds, retryDelaySeconds } from "./job-policy";
import { jobStub } from "./job-record";
import type { AttemptDecision } from "./job-types";
import { jobSubject, logLine, serviceSubject } from "../util/log-line";

export async function handleJobBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  // Messages of one batch are independent jobs: run them side by side.
  await Promise.all(batch.messages.map((message) => handleJobMessage(message, env)));
}

async function handleJobMessage(message: Message<unknown>, env: Env): Promise<void> {
  const delivery = readJobDelivery(message);
  if (delivery === null) {
    console.error(logLine(serviceSubject("job queue"), "Dropping a malformed job message"));
    message.ack();
    return;
  }
  await withAccountJobTurn(env, message, delivery, () => runJobDelivery(message, delivery, env));
}

async function runJobDelivery(message: Message<unknown>, delivery: JobDelivery, env: Env): Promise<void> {
  const stub = jobStub(env, delivery.jobId);
  // RPC results are structured clones of the declared type.
  const decision = (await stub.beginAttempt()) as AttemptDecision;
  if (!decision.run) {
    // The queue stops delivering a message after MAX_ATTEMPTS deliveries: past that, recovery takes over.
    if (decision.reason === "leased" && hasAttemptsLeft(delivery.delivery)) {
      // Another delivery holds the job; look again when its lease ends, in case its consumer died.
      message.retry({ delaySeconds: decision.retryInSeconds });
    } else {
      message.ack();
    }
    return;
  }
  const { record } = decision;
  // Every line of the attempt names the job and the request that created it, as that request's own lines did.
  const subject = jobSubject(record.requestId ?? null, record.jobId);
  const attempt = attemptNumber(delivery.delivery, record.attempts);
  // The lease lasts only while heartbeats come: if this worker dies, recovery can hand the job on within a minute.
  const heartbeat = setInterval(() => {
    stub.heartbeat(record.attempts).catch((error: unknown) => console.error(logLine(subject, "heartbeat failed"), error));
  }, ATTEMPT_HEARTBEAT_MS);
  const browserHold = new BrowserHoldClock();
  // The attempt already holds its account's job slot (its turn): browser work needs no other admission, only a clock.
  const admitBrowserWork = browserHold.admission(async () => async () => undefined);
  try {
    const response = await runScrape(
      env,
      {
        scraper: record.scraper,
        params: record.params,
        jobId: record.jobId,
        baseUrl: record.baseUrl,
        startedAt: Date.now(),
        attempt,
        accountId: record.accountId,
        evidence: record.evidence,
        admitBrowserWork,
        logSubject: subject,
      },
      record.params.timeout,
    );
    await stub.complete(response);
    message.ack();
  } catch (error) {
    const failure = toServiceError(error);
    const heldMs = browserHold.heldMs();
    if (heldMs !== null) await recordRefundedBrowserTime(env.DB, record.accountId, heldMs, subject);
    const retryable = error instanceof ServiceError && failure.retryable;
    if (retryable && hasAttemptsLeft(attempt)) {
      const delaySeconds = retryDelaySeconds(attempt, retryBaseSeconds(env));
      await stub.releaseAttempt(failure.detail, delaySeconds);
      message.retry({ delaySeconds });
      return;
    }
    if (!(error instanceof ServiceError)) console.error(logLine(subject, "failed with an unexpected error"), error);
    await stub.fail(failure.detail, failureEvidenceOf(error));
    message.ack();
  } finally {
    clearInterval(heartbeat);
  }
}
