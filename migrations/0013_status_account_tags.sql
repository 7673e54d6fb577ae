-- The status page decided by distinct accounts, and a cap on the rows one account writes (issue 30, point 3;
-- docs/status.md).

-- The account a traffic row came from, as a keyed hash that cannot be turned back into the account
-- (src/status/account-tag.ts): it lets the status page count how many distinct accounts saw a provider fail, and caps
-- the rows of one account per provider and 5 minutes. NULL for canaries (no account) and for rows written before it.
ALTER TABLE scrape_outcomes ADD COLUMN account_tag TEXT;

-- The cap's count (one account, one provider, one window) reads only that account's rows of the window.
CREATE INDEX scrape_outcomes_account_tag ON scrape_outcomes (account_tag, provider, at) WHERE account_tag IS NOT NULL;
