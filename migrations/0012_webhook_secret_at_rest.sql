-- Webhook signing secrets encrypted at rest (issue 30). `secret` now holds the AES-GCM ciphertext (base64) when
-- `secret_iv` is set, and a clear-text `whsec_…` secret when it is NULL: rows written before this migration, or while
-- the deployment has no PROVIDER_ACCOUNTS_KEY. A SQL migration cannot reach that key, so a clear row is sealed by the
-- Worker the first time it reads it with the key configured (src/webhooks/secret-at-rest.ts).
ALTER TABLE webhook_endpoints ADD COLUMN secret_iv TEXT;
