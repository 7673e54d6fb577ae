-- Fair capacity (issue 30, docs/limits.md "Refunded browser time"). Time-outs, client disconnects and other failures
-- are refunded, so the browser time they held is free to the account. This table adds it up per account in five-minute
-- buckets (`bucket` = ms since epoch / 300000): the last twelve buckets are the account's refunded browser time of
-- the last hour, and past ACCOUNT_REFUNDED_BROWSER_SECONDS_PER_HOUR its concurrency drops to a quarter (minimum 1).
-- An account writes at most one row per bucket (an upsert adds to it); rows older than the hour are deleted by the
-- account's next write.
CREATE TABLE account_refunded_browser_time (
  account_id        TEXT NOT NULL,
  bucket            INTEGER NOT NULL,
  refunded_seconds  INTEGER NOT NULL CHECK (refunded_seconds >= 0),
  PRIMARY KEY (account_id, bucket)
) WITHOUT ROWID;

-- The recovery sweep (src/jobs/recovery.ts) reads the oldest pending jobs of each account, so that one account's
-- backlog cannot hide another account's lost job: pending jobs by account, oldest first.
CREATE INDEX jobs_pending_account ON jobs (account_id, created_at) WHERE status = 'pending';
