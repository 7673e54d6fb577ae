-- Per-account request limits set by the operator (issue 14; docs/limits.md). One row per account that differs from
-- the service's defaults (wrangler.toml [vars] KEY_REQUESTS_PER_MINUTE, ACCOUNT_REQUESTS_PER_MINUTE,
-- ACCOUNT_MAX_CONCURRENT_REQUESTS); a NULL column means "the default" for that limit, so changing a default later
-- reaches every account that was never given its own value.
CREATE TABLE account_request_limits (
  account_id                  TEXT PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  key_requests_per_minute     INTEGER CHECK (key_requests_per_minute BETWEEN 1 AND 100000),
  account_requests_per_minute INTEGER CHECK (account_requests_per_minute BETWEEN 1 AND 100000),
  concurrent_requests         INTEGER CHECK (concurrent_requests BETWEEN 1 AND 1000),
  updated_at                  TEXT NOT NULL
);
