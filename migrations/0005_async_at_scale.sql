-- Async at scale (issue 15): job listing, batches, idempotent submission and webhooks. See docs/async-jobs.md.

-- The jobs index learns each job's status (written by the job's Durable Object, which stays the source of truth, when
-- the job ends), so GET /jobs can filter and page in D1, and the batch (and position in it) a job belongs to.
ALTER TABLE jobs ADD COLUMN status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed'));
ALTER TABLE jobs ADD COLUMN completed_at TEXT;
ALTER TABLE jobs ADD COLUMN batch_id TEXT;
ALTER TABLE jobs ADD COLUMN batch_index INTEGER;
-- GET /jobs pages newest first by (created_at, job_id), with or without a status filter.
CREATE INDEX jobs_account_page ON jobs (account_id, created_at, job_id);
CREATE INDEX jobs_account_status_page ON jobs (account_id, status, created_at, job_id);
CREATE INDEX jobs_batch ON jobs (batch_id, batch_index) WHERE batch_id IS NOT NULL;

-- A batch of jobs submitted in one request. `job_ids` (a JSON array in item order) is written before the credits are
-- charged, so a submission interrupted half-way can be resumed with the same ids by a retry with its Idempotency-Key.
-- Only an `accepted` batch is visible to GET /batches/{batch_id}.
CREATE TABLE batches (
  batch_id     TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  key_id       TEXT,
  scraper      TEXT NOT NULL,
  item_count   INTEGER NOT NULL,
  webhook_url  TEXT,
  job_ids      TEXT NOT NULL,
  state        TEXT NOT NULL CHECK (state IN ('submitting', 'accepted')),
  created_at   TEXT NOT NULL
);
CREATE INDEX batches_account_time ON batches (account_id, created_at);

-- Idempotency-Key of POST /scrapers/{scraper}/jobs and POST /batches, per account, for 24 hours. `claim_token` says
-- which request holds an `in_flight` key; `locked_until` (ms) lets a retry take over a key whose request died.
CREATE TABLE idempotency_keys (
  account_id       TEXT NOT NULL,
  idempotency_key  TEXT NOT NULL,
  kind             TEXT NOT NULL CHECK (kind IN ('job', 'batch')),
  fingerprint      TEXT NOT NULL,
  resource_id      TEXT NOT NULL,
  state            TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
  claim_token      TEXT NOT NULL,
  locked_until     INTEGER NOT NULL,
  expires_at       INTEGER NOT NULL,
  PRIMARY KEY (account_id, idempotency_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- An account's webhook endpoint and its Standard Webhooks signing secret (`whsec_…`). The secret is stored as is: it
-- is an HMAC key the service must use, not a credential it only verifies. `url` NULL = no account-level endpoint.
CREATE TABLE webhook_endpoints (
  account_id  TEXT PRIMARY KEY REFERENCES accounts (id),
  url         TEXT,
  secret      TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);

-- One row per webhook message (a job's final status), updated after every attempt, for the dashboard and operators.
CREATE TABLE webhook_deliveries (
  webhook_id        TEXT PRIMARY KEY,
  account_id        TEXT NOT NULL,
  job_id            TEXT NOT NULL,
  batch_id          TEXT,
  event_type        TEXT NOT NULL,
  url               TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts          INTEGER NOT NULL DEFAULT 0,
  last_attempt_at   TEXT,
  last_status_code  INTEGER,
  last_error        TEXT,
  next_attempt_at   TEXT,
  created_at        TEXT NOT NULL,
  delivered_at      TEXT
);
CREATE INDEX webhook_deliveries_account_time ON webhook_deliveries (account_id, created_at);
