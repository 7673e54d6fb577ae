import type { EvidenceRequest } from "../evidence/evidence-kinds";
import type { EvidenceView } from "../evidence/evidence-store";
import type { ScrapeParams } from "../params/common-params";
import type { ScraperId } from "../scrapers/registry";
import type { WebhookDeliveryState } from "../webhooks/delivery-state";

export type JobStatus = "pending" | "done" | "failed";

/** What the job's Durable Object stores. */
export interface JobRecordState {
  jobId: string;
  scraper: ScraperId;
  params: ScrapeParams;
  accountId: string;
  keyId: string;
  baseUrl: string;
  /** The evidence each attempt keeps (src/evidence/); absent in records written before evidence existed: none. */
  evidence?: EvidenceRequest;
  /** The failure evidence of the attempt that failed the job, when its account keeps failure evidence. */
  failureEvidence?: EvidenceView | null;
  /** The request that created the job (`X-Request-Id`); absent in records written before jobs carried it. */
  requestId?: string;
  status: JobStatus;
  result: Record<string, unknown> | null;
  error: string | null;
  createdAt: number;
  completedAt: number | null;
  /** Attempts started (a redelivered message that does no work is not counted). */
  attempts: number;
  /**
   * While an attempt runs: when its lease ends. The running attempt renews it with heartbeats (ATTEMPT_HEARTBEAT_MS)
   * up to its timeout plus a grace period, so an attempt whose worker died loses it within LEASE_WITHOUT_HEARTBEAT_MS.
   */
  leaseExpiresAt: number | null;
  /** When the attempt holding the lease began (absent in records written before recovery existed). */
  leaseStartedAt?: number | null;
  /** When the job's next delivery is due: its submission, or the end of its last back-off (./recovery.ts). */
  nextDeliveryAt?: number;
  /** When recovery last sent the job a new queue message because its own had gone missing. */
  recoveredAt?: number | null;
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
  /** A failed job's failure evidence (docs/evidence.md); a done job's evidence is in `result.evidence`. */
  evidence?: EvidenceView;
  created_at: string;
  completed_at: string | null;
  attempts: number;
}

/** What recovery (./recovery.ts) should do about one job, as its Durable Object sees it. */
export type RecoveryDecision =
  | { requeue: false }
  | {
      requeue: true;
      /** Why: the attempt holding the lease died (no heartbeat, or it ran before a restart), or no delivery came. */
      reason: "dead_attempt" | "no_delivery";
      /** When the dead attempt began: account slots taken for it up to then are freed. */
      deadAttemptStartedAt: number | null;
    };

export type AttemptDecision =
  | { run: true; record: JobRecordState }
  | { run: false; reason: "terminal" | "missing" }
  | { run: false; reason: "leased"; retryInSeconds: number };
