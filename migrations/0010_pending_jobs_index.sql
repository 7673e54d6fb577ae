-- The recovery sweep (src/jobs/recovery.ts) reads the pending jobs of every account, oldest first, every minute. A
-- partial index keeps that read proportional to the jobs still pending, not to the 24 hours of jobs the table keeps.
CREATE INDEX jobs_pending ON jobs (created_at) WHERE status = 'pending';
