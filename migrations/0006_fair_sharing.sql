-- Fair sharing (issue 19): what each account has in flight, so no customer can hold the shared browsers for everyone.
-- One row per synchronous scrape ('request') or job attempt ('job') an account runs. A row is taken with a single
-- conditional INSERT (the count check and the insert cannot interleave). A request's row is deleted when its response
-- is ready; a job attempt's row is kept, marked `released_at`, for ten minutes, because how many attempts an account
-- started recently is what fair turns between accounts compare. A row whose holder died stops counting as running at
-- `expires_at` (ms since epoch: the work's deadline plus a grace period).
CREATE TABLE account_slots (
  slot_id      TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('request', 'job')),
  job_id       TEXT,
  acquired_at  INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  released_at  INTEGER
);
CREATE INDEX account_slots_account ON account_slots (account_id, kind, acquired_at);
CREATE INDEX account_slots_job ON account_slots (job_id) WHERE job_id IS NOT NULL;
