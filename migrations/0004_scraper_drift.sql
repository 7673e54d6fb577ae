-- Layout drift seen by the navigation engine: one row per failed scrape whose provider page did not look as its module
-- expects, so the operator view shows within minutes which provider changed.
CREATE TABLE scraper_drift (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,
  provider  TEXT NOT NULL,
  code      TEXT NOT NULL,
  at        TEXT NOT NULL
);
CREATE INDEX scraper_drift_provider_at ON scraper_drift (provider, at);
