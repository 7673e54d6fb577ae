/** Webhook settings read from the environment, with the production defaults. */

const DEFAULT_DNS_RESOLVER = "https://cloudflare-dns.com/dns-query";
const DEFAULT_RETRY_BASE_SECONDS = 5;

export interface WebhookSettingsValues {
  /** Local development only: loopback destinations, and plain http to them, are accepted. */
  allowLoopback: boolean;
  dnsResolverUrl: string;
  retryBaseSeconds: number;
}

export function webhookSettings(env: Env): WebhookSettingsValues {
  const retryBase = Number(env.WEBHOOK_RETRY_BASE_SECONDS);
  const resolver = env.WEBHOOK_DNS_RESOLVER?.trim() ?? "";
  return {
    allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK?.trim().toLowerCase() === "true",
    dnsResolverUrl: resolver === "" ? DEFAULT_DNS_RESOLVER : resolver,
    retryBaseSeconds: Number.isFinite(retryBase) && retryBase > 0 ? retryBase : DEFAULT_RETRY_BASE_SECONDS,
  };
}
