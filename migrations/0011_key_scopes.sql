-- API key scopes (issue 30, point 5). A `scrape` key runs scrapes, jobs and batches, reads `GET /account` and calls the
-- MCP tools; only a `manage` key (or the dashboard's session) reads or changes the account's webhook endpoint, its
-- signing secret and its delivery log, so a key leaked from a scraping client cannot re-point the account's webhook to
-- itself and receive every job result. Every key that exists before this migration becomes `scrape`: it keeps working
-- for everything it was used for in practice (scraping), and the owner creates a `manage` key in the dashboard when a
-- program really administers webhooks. The scope of a key never changes after its creation.
ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'scrape' CHECK (scope IN ('scrape', 'manage'));
