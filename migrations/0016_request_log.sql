-- The account's recent requests (issue 36, docs/dashboard.md "Requests"): one row per customer request that ran a scrape
-- or submitted work, whichever surface it came through (the API, MCP, the dashboard's playground), so a support ticket
-- can name one by its X-Request-Id. Written after the response (never failing the request); rows older than 30 days
-- are deleted by the 10-minute Cron Trigger (src/status/scheduled.ts). `request_id` is not unique: a caller may send
-- the same X-Request-Id twice.
CREATE TABLE request_log (
  entry_id     INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id   TEXT NOT NULL,
  account_id   TEXT NOT NULL,
  key_id       TEXT,
  surface      TEXT NOT NULL CHECK (surface IN ('api', 'mcp', 'dashboard')),
  kind         TEXT NOT NULL CHECK (kind IN ('sync', 'job', 'batch')),
  -- NULL only for a batch refused before its scraper was known.
  scraper      TEXT,
  status_code  INTEGER NOT NULL,
  outcome      TEXT NOT NULL CHECK (outcome IN ('done', 'failed', 'queued', 'replayed')),
  error_code   TEXT,
  latency_ms   INTEGER NOT NULL,
  -- Charged by this request, net of what it refunded before it answered (a failed sync scrape: 0).
  credits      INTEGER NOT NULL,
  job_id       TEXT,
  batch_id     TEXT,
  item_count   INTEGER,
  created_at   TEXT NOT NULL
);
-- The dashboard's page: an account's newest first (entry_id grows with time), with or without a kind.
CREATE INDEX request_log_account_page ON request_log (account_id, entry_id);
CREATE INDEX request_log_account_kind_page ON request_log (account_id, kind, entry_id);
-- The retention sweep.
CREATE INDEX request_log_time ON request_log (created_at);

-- The request that created a job: its consumer's, pipeline's and webhook's log lines start with it.
ALTER TABLE jobs ADD COLUMN request_id TEXT;
