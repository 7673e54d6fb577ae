-- The refunded-browser-time budget set per account by the operator (issue 30, docs/limits.md "Refunded browser time").
-- NULL means the service's default (wrangler.toml [vars] ACCOUNT_REFUNDED_BROWSER_SECONDS_PER_HOUR), so changing the
-- default later reaches every account never given its own value. The range is REFUNDED_BROWSER_SECONDS_RANGE of
-- src/limits/capacity-rules.ts.
ALTER TABLE account_request_limits
  ADD COLUMN refunded_browser_seconds_per_hour INTEGER CHECK (refunded_browser_seconds_per_hour BETWEEN 1 AND 1000000);
