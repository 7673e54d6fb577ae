-- Monitors (issue 33, docs/monitors.md; in progress: nothing serves them yet). A monitor is an account's definition
-- (validated JSON: prompts, scrapers, countries, schedule, brands, evidence, webhook), charged for the key that created
-- it; `next_run_at` is when the cron starts its next run (NULL while paused).
CREATE TABLE monitors (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  key_id      TEXT,
  name        TEXT NOT NULL,
  definition  TEXT NOT NULL,
  paused      INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
  next_run_at TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
-- The cron's question every minute: which monitors are due.
CREATE INDEX monitors_due ON monitors (next_run_at) WHERE paused = 0 AND next_run_at IS NOT NULL;
-- An account's list, newest first.
CREATE INDEX monitors_account ON monitors (account_id, created_at);
