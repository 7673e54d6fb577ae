-- Accounts, API keys and credits. Keys are stored only as SHA-256 hashes; balances never go below zero
-- (the CHECK is the last line of defence, the UPDATE ... WHERE credits >= cost is the first).
CREATE TABLE accounts (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  email       TEXT,
  credits     INTEGER NOT NULL CHECK (credits >= 0),
  created_at  TEXT NOT NULL
);
CREATE UNIQUE INDEX accounts_email ON accounts (email) WHERE email IS NOT NULL;

CREATE TABLE api_keys (
  id              TEXT PRIMARY KEY,
  account_id      TEXT NOT NULL REFERENCES accounts (id),
  name            TEXT NOT NULL,
  key_hash        TEXT NOT NULL UNIQUE,
  display_prefix  TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  last_used_at    TEXT,
  revoked_at      TEXT
);
CREATE INDEX api_keys_account ON api_keys (account_id);

-- Every change of a balance is one row. `operation_id` makes a charge or refund of one job idempotent:
-- a redelivered message or a retried request can never charge or refund the same job twice.
CREATE TABLE credit_ledger (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id     TEXT NOT NULL REFERENCES accounts (id),
  kind           TEXT NOT NULL CHECK (kind IN ('grant', 'charge', 'refund', 'adjustment')),
  delta          INTEGER NOT NULL,
  balance_after  INTEGER NOT NULL,
  reason         TEXT NOT NULL,
  operation_id   TEXT,
  scraper        TEXT,
  key_id         TEXT,
  created_at     TEXT NOT NULL
);
CREATE UNIQUE INDEX credit_ledger_once ON credit_ledger (operation_id, kind) WHERE operation_id IS NOT NULL;
CREATE INDEX credit_ledger_account_time ON credit_ledger (account_id, created_at);
