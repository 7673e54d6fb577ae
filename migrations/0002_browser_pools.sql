-- Countries whose browser pool has been used, so the operator view can list every pool.
CREATE TABLE browser_pools (
  country        TEXT PRIMARY KEY,
  first_used_at  TEXT NOT NULL
);
