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
 * A message sent again starts with `attempts = 1` on the queue's side. It carries the deliveries that came before it
 * (`earlierDeliveries`), and the handler sees them added to `attempts`, so a job still gets at most its four attempts
 * and the same back-off, however often it waited for its turn.
 */
import { indexedJobAccount } from "../jobs/jobs-table";
import { accountLimits } from "./account-limits";
import { anotherAccountGoesFirst, giveBackAccountSlot, takeAccountSlot } from "./account-slots";

/** How long a job waits before it asks for its turn again. */
export const TURN_RETRY_SECONDS = 2;
/** How many times one job gives way to other accounts' waiting jobs before it runs anyway (about 30 s of waiting). */
export const MAX_TURNS_GIVEN_AWAY = 15;
/** The longest an attempt can hold its slot if its consumer dies: the largest `timeout` (600 s) plus a grace period. */
const JOB_SLOT_TTL_MS = 630_000;

interface TurnMessageBody {
  jobId: string;
  earlierDeliveries: number;
  turnsGivenAway: number;
}

function readBody(body: unknown): TurnMessageBody | null {
  if (typeof body !== "object" || body === null || !("jobId" in body) || typeof body.jobId !== "string") return null;
  const count = (name: string): number => {
    const value: unknown = Reflect.get(body, name);
    return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0;
  };
  return { jobId: body.jobId, earlierDeliveries: count("earlierDeliveries"), turnsGivenAway: count("turnsGivenAway") };
}

/** The message as the handler sees it: `attempts` counts every delivery of the job, across the messages it waited in. */
function countingEarlierDeliveries(message: Message<unknown>, earlier: number): Message<unknown> {
  if (earlier === 0) return message;
  return {
    id: message.id,
    timestamp: message.timestamp,
    body: message.body,
    attempts: message.attempts + earlier,
    retry: (options) => message.retry(options),
    ack: () => message.ack(),
  };
}

/** Runs `handle` for the message when its account has its turn; otherwise puts the job back in line. */
export async function withAccountJobTurn(
  env: Env,
  message: Message<unknown>,
  handle: (message: Message<unknown>) => Promise<void>,
): Promise<void> {
  const body = readBody(message.body);
  if (body === null) return handle(message);
  const counted = countingEarlierDeliveries(message, body.earlierDeliveries);
  const accountId = await indexedJobAccount(env.DB, body.jobId);
  // A job missing from the index (its index write failed at submission) still runs, only without a turn.
  if (accountId === null) return handle(counted);
  const { runningJobs, refundedBrowserSecondsPerHour } = accountLimits(env);
  const othersFirst = body.turnsGivenAway < MAX_TURNS_GIVEN_AWAY && (await anotherAccountGoesFirst(env.DB, accountId, runningJobs));
  const turn = othersFirst
    ? null
    : await takeAccountSlot(env.DB, {
        accountId,
        kind: "job",
        limit: runningJobs,
        ttlMs: JOB_SLOT_TTL_MS,
        jobId: body.jobId,
        refundedSecondsPerHour: refundedBrowserSecondsPerHour,
      });
  if (turn === null || !turn.taken) {
    // This delivery did no work, so it is not counted against the job's attempts.
    const next: TurnMessageBody = {
      jobId: body.jobId,
      earlierDeliveries: counted.attempts - 1,
      turnsGivenAway: body.turnsGivenAway + (othersFirst ? 1 : 0),
    };
    await env.JOBS.send(next, { delaySeconds: TURN_RETRY_SECONDS });
    message.ack();
    return;
  }
  try {
    await handle(counted);
  } finally {
    await giveBackAccountSlot(env.DB, turn.slot);
  }
}
