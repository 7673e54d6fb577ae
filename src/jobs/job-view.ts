/** A job record as `GET /jobs/{job_id}` shows it (spec §2.7 plus `attempts`); also the `data` of its webhook event. */
import { isoTimestamp } from "../util/time";
import type { JobRecordState, JobView } from "./job-types";

export function toJobView(record: JobRecordState): JobView {
  return {
    job_id: record.jobId,
    status: record.status,
    scraper: record.scraper,
    ...(record.status === "done" && record.result !== null ? { result: record.result } : {}),
    ...(record.status === "failed" && record.error !== null ? { error: record.error } : {}),
    ...(record.status === "failed" && record.failureEvidence != null ? { evidence: record.failureEvidence } : {}),
    created_at: isoTimestamp(record.createdAt),
    completed_at: record.completedAt === null ? null : isoTimestamp(record.completedAt),
    attempts: record.attempts,
  };
}
