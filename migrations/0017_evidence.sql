-- Evidence for every answer (issue 32, docs/evidence.md). The account's default: the evidence kinds every request of
-- the account keeps unless it says otherwise (comma-separated: screenshot, html, stream; empty = none), and whether a
-- failed scrape keeps its page's screenshot and HTML.
ALTER TABLE accounts ADD COLUMN evidence_kinds TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN failure_evidence INTEGER NOT NULL DEFAULT 0 CHECK (failure_evidence IN (0, 1));

-- The latest failure evidence per provider and country, for the operator (GET /admin/providers): a drift's screenshot
-- is what an operator needs. Overwritten by each newer failure; the files themselves expire with their URLs (24 h).
CREATE TABLE failure_evidence (
  provider        TEXT NOT NULL,
  country         TEXT NOT NULL,
  account_id      TEXT NOT NULL,
  error_code      TEXT NOT NULL,
  detail          TEXT NOT NULL,
  screenshot_url  TEXT,
  html_url        TEXT,
  captured_at     TEXT NOT NULL,
  expires_at      TEXT NOT NULL,
  PRIMARY KEY (provider, country)
);
