/**
 * The message of the `JOBS` queue: its one type, its one parser and the messages the service sends. It carries the
 * job's id only (the job's Durable Object is the one source of its parameters), plus, when the job was put back in
 * line to wait for its account's turn (src/limits/job-turns.ts), what the queue forgets about it: the deliveries that
 * came before (./job-attempts.ts) and how often it gave way to other accounts.
 */
import { deliveryNumber } from "./job-attempts";

interface JobMessage {
  jobId: string;
  /** Deliveries of the job in the messages before this one (absent: none). */
  earlierDeliveries?: number;
  /** Times the job gave way to another account's waiting job (absent: none). */
  turnsGivenAway?: number;
}

/** One delivery of a job message, as the consumer and the fair turns read it. */
export interface JobDelivery {
  jobId: string;
  /** This delivery's number among all the job's deliveries (1 for the first). */
  delivery: number;
  turnsGivenAway: number;
}

/** The message that queues a job for its first delivery (submission, a batch, recovery). */
export function newJobMessage(jobId: string): JobMessage {
  return { jobId };
}

/**
 * Reads a delivered message; null when it is no job message. `attempts` is the queue's count of this message's
 * deliveries. A count missing or malformed in the body reads as 0.
 */
export function readJobDelivery(message: { body: unknown; attempts: number }): JobDelivery | null {
  const { body } = message;
  if (typeof body !== "object" || body === null || !("jobId" in body) || typeof body.jobId !== "string") return null;
  const count = (name: keyof JobMessage): number => {
    const value: unknown = Reflect.get(body, name);
    return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0;
  };
  return {
    jobId: body.jobId,
    delivery: deliveryNumber(message.attempts, count("earlierDeliveries")),
    turnsGivenAway: count("turnsGivenAway"),
  };
}

/**
 * The message that puts a job back in line after a delivery that did no work because it was not its account's turn:
 * that delivery is not counted against the job, the ones before it are; `gaveWay` when another account went first.
 */
export function jobMessageAfterWaiting(delivery: JobDelivery, { gaveWay }: { gaveWay: boolean }): JobMessage {
  return {
    jobId: delivery.jobId,
    earlierDeliveries: delivery.delivery - 1,
    turnsGivenAway: delivery.turnsGivenAway + (gaveWay ? 1 : 0),
  };
}
