/**
 * Where the webhook of a job's final status stands, as the job's record stores it (src/jobs/job-types.ts): the delivery
 * (src/webhooks/job-delivery.ts) advances it. Its own module so that the job record's type does not import the delivery
 * that reads job records.
 */

export interface WebhookDeliveryState {
  /** `webhook-id`: the same on every attempt of this message. */
  webhookId: string;
  /**
   * `resolve`: the destination is not looked up yet; `sending`: attempts are scheduled; `delivered`; `failed`: every
   * attempt failed (or the record expired first); `none`: the account had no endpoint and the job no batch URL.
   */
  phase: "resolve" | "sending" | "delivered" | "failed" | "none";
  url: string | null;
  attempts: number;
  /** When the next step is due (ms since epoch), while `resolve` or `sending`. */
  nextAt: number;
}
