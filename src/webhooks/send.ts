/**
 * One delivery attempt of a webhook message, signed by the Standard Webhooks reference library: `webhook-id` (the
 * same on every retry of a message, so receivers can drop duplicates), `webhook-timestamp` (this attempt, in seconds)
 * and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`). Redirects are not followed: a 3xx could
 * lead to an address the URL check refused.
 */
import { Webhook } from "standardwebhooks";

const DELIVERY_TIMEOUT_MS = 15_000;
const USER_AGENT = "AI-Answer-Scraper-Webhooks/1.0";

interface WebhookMessage {
  url: string;
  webhookId: string;
  /** The exact bytes signed and sent. */
  body: string;
  secret: string;
}

/**
 * What the delivery log says of an attempt that got no HTTP answer: a refused connection, a time-out, a TLS failure,
 * or a URL refused by the check before sending. One word for all, because the log is read by the key holder, who also
 * chooses the URL: telling "connection refused" from "no answer" (or a fast failure from a slow one) would turn
 * webhooks into a port scanner of whatever the URL leads to.
 */
export const UNDELIVERABLE = "undeliverable";

/**
 * `ok` only for a 2xx answer. `error` is for the delivery log: the receiver's HTTP status when it answered, else
 * UNDELIVERABLE; never its body.
 */
export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

function signedHeaders(message: Omit<WebhookMessage, "url">, at: Date): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "webhook-id": message.webhookId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(message.secret).sign(message.webhookId, at, message.body),
  };
}

export async function sendWebhook(message: WebhookMessage, at = new Date()): Promise<AttemptOutcome> {
  let response: Response;
  try {
    response = await fetch(message.url, {
      method: "POST",
      headers: signedHeaders(message, at),
      body: message.body,
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
  } catch {
    return { ok: false, statusCode: null, error: UNDELIVERABLE };
  }
  // The receiver's body is never read into the log; cancel it so the connection is released.
  await response.body?.cancel();
  if (response.status >= 200 && response.status < 300) return { ok: true, statusCode: response.status, error: null };
  if (response.status >= 300 && response.status < 400) {
    return { ok: false, statusCode: response.status, error: `HTTP ${response.status}: redirects are not followed` };
  }
  return { ok: false, statusCode: response.status, error: `HTTP ${response.status}` };
}
