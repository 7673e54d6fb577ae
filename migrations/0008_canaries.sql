-- Canaries and the public status page (issue 12, item 4; docs/status.md).

-- One row per scrape that reached a provider: every canary (source 'canary', run by the Cron Trigger, no account) and
-- every customer scrape that was not a cache hit (source 'traffic'). Nothing identifies the customer or the prompt:
-- only the provider, the country, the outcome, the latency and, for a failure, its category (derived from the error
-- class, never from provider text) with the stable drift code when it was layout drift. Rows older than 8 days are
-- deleted by the Cron Trigger.
CREATE TABLE scrape_outcomes (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  provider    TEXT NOT NULL,
  country     TEXT NOT NULL,
  source      TEXT NOT NULL CHECK (source IN ('canary', 'traffic')),
  ok          INTEGER NOT NULL CHECK (ok IN (0, 1)),
  latency_ms  INTEGER NOT NULL CHECK (latency_ms >= 0),
  reason      TEXT CHECK (reason IN ('drift', 'challenge', 'login_wall', 'timeout', 'other')),
  drift_code  TEXT,
  -- the canary round (the Cron Trigger's scheduled time, ms since epoch); NULL for traffic
  round_at    INTEGER,
  -- ms since epoch
  at          INTEGER NOT NULL,
  CHECK ((ok = 1) = (reason IS NULL))
);
-- The status windows (last hour, last day) and the retention sweep read by time; the canary rounds by source and time.
CREATE INDEX scrape_outcomes_at ON scrape_outcomes (at);
CREATE INDEX scrape_outcomes_source_at ON scrape_outcomes (source, at);

-- The last computed status (one row), so the public page costs one row read; recomputed when older than 30 seconds
-- and after every canary round.
CREATE TABLE status_snapshot (
  id           INTEGER PRIMARY KEY CHECK (id = 1),
  body         TEXT NOT NULL,
  computed_at  INTEGER NOT NULL
);
