/**
 * Fair turns for asynchronous jobs. A delivery of a job runs only when
 * - its account has fewer than `ACCOUNT_MAX_RUNNING_JOBS` attempts running (2 by default: below half the consumer's
 *   `max_concurrency`, so no two accounts fill every consumer; a quarter of it, at least 1, while the account's
 *   refunded browser time is past its budget), and
 * - no other account is waiting with a job that never started while having had fewer attempts lately
 *   (`anotherAccountGoesFirst`).
 * Otherwise the delivery does no work: the message is sent again with a short delay and acknowledged, so the consumer
 * moves on to the next message. A queue is first in, first out, and consumers may run one job at a time (as locally):
 * this is what lets a light account's job pass a heavy account's backlog instead of waiting behind all of it.
 *
 * A job gives way to other accounts at most MAX_TURNS_GIVEN_AWAY times: a job of another account that looks waiting
 * but will never run (an index row whose submission died half-way) can delay others by seconds, not for as long as it
 * looks waiting.
 *
 * A message sent again starts again at 1 on the queue's side: it carries the deliveries that came before it
 * (src/jobs/job-message.ts, src/jobs/job-attempts.ts), so a job still gets at most its four attempts and the same
 * back-off, however often it waited for its turn.
 */
import { type JobDelivery, jobMessageAfterWaiting } from "../jobs/job-message";
import { indexedJobAccount } from "../jobs/jobs-table";
import { accountLimits } from "./account-limits";
import { anotherAccountGoesFirst, giveBackAccountSlot, takeAccountSlot } from "./account-slots";
import { jobSubject } from "../util/log-line";

/** How long a job waits before it asks for its turn again. */
const TURN_RETRY_SECONDS = 2;
/** How many times one job gives way to other accounts' waiting jobs before it runs anyway (about 30 s of waiting). */
export const MAX_TURNS_GIVEN_AWAY = 15;
/** The longest an attempt can hold its slot if its consumer dies: the largest `timeout` (600 s) plus a grace period. */
const JOB_SLOT_TTL_MS = 630_000;

/** Runs `handle` for the delivery when its account has its turn; otherwise puts the job back in line. */
export async function withAccountJobTurn(
  env: Env,
  message: Message<unknown>,
  delivery: JobDelivery,
  handle: () => Promise<void>,
): Promise<void> {
  const accountId = await indexedJobAccount(env.DB, delivery.jobId);
  // A job missing from the index (its index write failed at submission) still runs, only without a turn.
  if (accountId === null) return handle();
  const { runningJobs, refundedBrowserSecondsPerHour } = accountLimits(env);
  const othersFirst = delivery.turnsGivenAway < MAX_TURNS_GIVEN_AWAY && (await anotherAccountGoesFirst(env.DB, accountId, runningJobs));
  const turn = othersFirst
    ? null
    : await takeAccountSlot(env.DB, {
        accountId,
        kind: "job",
        limit: runningJobs,
        ttlMs: JOB_SLOT_TTL_MS,
        jobId: delivery.jobId,
        refundedSecondsPerHour: refundedBrowserSecondsPerHour,
      });
  if (turn === null || !turn.taken) {
    // This delivery did no work, so it is not counted against the job's attempts.
    await env.JOBS.send(jobMessageAfterWaiting(delivery, { gaveWay: othersFirst }), { delaySeconds: TURN_RETRY_SECONDS });
    message.ack();
    return;
  }
  try {
    await handle();
  } finally {
    // Before the job's record is read, its id is all there is to name it by.
    await giveBackAccountSlot(env.DB, turn.slot, jobSubject(null, delivery.jobId));
  }
}
