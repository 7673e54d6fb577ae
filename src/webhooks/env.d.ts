/** Optional webhook settings (`[vars]` or the environment); unset means the production defaults of ./settings.ts. */
interface WebhookSettings {
  /** "true" only in local development and tests: loopback destinations (and plain http to them) are accepted. */
  WEBHOOK_ALLOW_LOOPBACK?: string;
  /** DNS-over-HTTPS JSON endpoint used to check where a webhook host resolves. */
  WEBHOOK_DNS_RESOLVER?: string;
  /** Back-off before the first retry of a failed delivery, in seconds; later retries multiply it. */
  WEBHOOK_RETRY_BASE_SECONDS?: string;
}
interface Env extends WebhookSettings {}
declare namespace Cloudflare {
  interface Env extends WebhookSettings {}
}
