import type { ScrapeParams } from "../params/common-params";
import type { ScraperId } from "../scrapers/registry";
import type { WebhookDeliveryState } from "../webhooks/job-delivery";

export type JobStatus = "pending" | "done" | "failed";

/** What the job's Durable Object stores. */
export interface JobRecordState {
  jobId: string;
  scraper: ScraperId;
  params: ScrapeParams;
  accountId: string;
  keyId: string;
  baseUrl: string;
  status: JobStatus;
  result: Record<string, unknown> | null;
  error: string | null;
  createdAt: number;
  completedAt: number | null;
  /** Attempts started (a redelivered message that does no work is not counted). */
  attempts: number;
  /** While an attempt runs: when its lease ends (its timeout plus a grace period). */
  leaseExpiresAt: number | null;
  lastError: string | null;
  /** The batch the job was submitted in (absent in records written before batches existed). */
  batchId?: string | null;
  /** The batch's own `webhook_url`, which replaces the account's endpoint for this job. */
  webhookUrl?: string | null;
  /** true while a failed job's refund is not recorded yet (the alarm retries it; the ledger makes it happen once). */
  refundPending?: boolean;
  /** false while the D1 jobs index does not show the terminal status yet (the alarm retries the write). */
  indexSynced?: boolean;
  /** The webhook message of the job's final status, from the moment the job ends. */
  webhook?: WebhookDeliveryState | null;
}

/** `GET /jobs/{job_id}` (spec §2.7 plus `attempts`). */
export interface JobView {
  job_id: string;
  status: JobStatus;
  scraper: ScraperId;
  result?: Record<string, unknown>;
  error?: string;
  created_at: string;
  completed_at: string | null;
  attempts: number;
}

/** The queue message: only the id; the Durable Object is the one source of the job's parameters. */
export interface JobMessage {
  jobId: string;
}

export type AttemptDecision =
  | { run: true; record: JobRecordState }
  | { run: false; reason: "terminal" | "missing" }
  | { run: false; reason: "leased"; retryInSeconds: number };
