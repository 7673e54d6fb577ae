-- An index of submitted asynchronous jobs per account, for the dashboard's "recent jobs". The job itself (status,
-- result, retention) lives in its Durable Object, which has no listing; this table only says which jobs exist.
CREATE TABLE jobs (
  job_id      TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  key_id      TEXT,
  scraper     TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
CREATE INDEX jobs_account_time ON jobs (account_id, created_at);

-- One-time dashboard sign-in links issued through the operator API. Only the SHA-256 of the token is stored, so a
-- database read cannot sign anyone in; `used_at` makes each link work once.
CREATE TABLE login_links (
  token_hash  TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL,
  used_at     TEXT
);
CREATE INDEX login_links_account ON login_links (account_id);

-- Dashboard sessions. The cookie carries the session id with an HMAC (SESSION_SECRET); the row (keyed by the id's
-- SHA-256) is what makes signing out, or an operator ending an account's sessions, take effect at once.
CREATE TABLE dashboard_sessions (
  id_hash     TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL
);
CREATE INDEX dashboard_sessions_account ON dashboard_sessions (account_id);

-- The ledger is read per account and kind for usage summaries (credits used, per-scraper counts, the daily chart).
CREATE INDEX credit_ledger_account_kind_time ON credit_ledger (account_id, kind, created_at);
