-- Provider accounts (issue 12, item 3; docs/real-sites.md): signed-in sessions the scrapers use on sites that answer
-- signed-out sessions badly or not at all. The session (cookies, localStorage) is stored only encrypted (AES-GCM, key
-- derived from the PROVIDER_ACCOUNTS_KEY secret, the row's id, provider and marketplace as associated data);
-- `session_summary` is the masked view the operator API shows (cookie names, domains, expiry, last 4 characters).
CREATE TABLE provider_accounts (
  id                    TEXT PRIMARY KEY,
  provider              TEXT NOT NULL,
  -- '' when one session serves every country; the marketplace domain (amazon.de) where sessions are per marketplace
  marketplace           TEXT NOT NULL DEFAULT '',
  label                 TEXT NOT NULL,
  -- active: used in rotation · needs_attention: a login wall (or an undecryptable session) took it out · disabled: by the operator
  state                 TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'needs_attention', 'disabled')),
  state_reason          TEXT,
  session_ciphertext    TEXT NOT NULL,
  session_iv            TEXT NOT NULL,
  session_summary       TEXT NOT NULL,
  created_at            TEXT NOT NULL,
  updated_at            TEXT NOT NULL,
  last_used_at          TEXT,
  last_success_at       TEXT,
  last_failure_at       TEXT,
  last_failure_reason   TEXT,
  success_count         INTEGER NOT NULL DEFAULT 0,
  failure_count         INTEGER NOT NULL DEFAULT 0,
  consecutive_failures  INTEGER NOT NULL DEFAULT 0
);
-- Rotation: the least recently used active account of a provider and marketplace.
CREATE INDEX provider_accounts_rotation ON provider_accounts (provider, marketplace, state, last_used_at);
