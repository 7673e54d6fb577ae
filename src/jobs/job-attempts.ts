/**
 * How a job's attempts are counted: the one place that combines the three counts there are, so the job's `attempts`
 * (GET /jobs/{job_id}), its retry bound and its back-off always agree.
 * - The job's record (./job-record.ts) counts the attempts that started: a delivery that did no work is not one.
 * - The queue counts the deliveries of one message (`Message.attempts`, from 1) and gives up on it after
 *   MAX_ATTEMPTS (wrangler.toml: max_retries = 3).
 * - A message sent again while the job waited for its account's turn (src/limits/job-turns.ts) starts again at 1 on
 *   the queue's side, so it carries the deliveries before it (`earlierDeliveries`, ./job-message.ts).
 */

/** A job is attempted at most this many times; the queue's `max_retries` is one less. */
export const MAX_ATTEMPTS = 4;

/** This delivery's number among the job's deliveries, across the messages it waited in. */
export function deliveryNumber(queueAttempts: number, earlierDeliveries: number): number {
  return queueAttempts + earlierDeliveries;
}

/**
 * The number of the attempt a delivery runs. Its delivery number counts the job's deliveries, the record counts the
 * attempts started across every message (recovery may have sent a new one): the larger one, so that neither a new
 * message nor a redelivery gives a job more than MAX_ATTEMPTS.
 */
export function attemptNumber(delivery: number, attemptsStarted: number): number {
  return Math.max(delivery, attemptsStarted);
}

/** Whether a job that has used `attempts` attempts (or deliveries) may be delivered or attempted once more. */
export function hasAttemptsLeft(attempts: number): boolean {
  return attempts < MAX_ATTEMPTS;
}
