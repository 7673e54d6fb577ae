/**
 * What the webhook page says about the endpoint this deployment accepts and how long a failing one is retried, taken
 * from the rules themselves (src/webhooks/url-policy.ts, src/webhooks/retry-policy.ts) and the deployment's settings,
 * so the page cannot say one thing while the checks do another.
 */
import { MAX_DELIVERY_ATTEMPTS, retrySpanMs } from "../../webhooks/retry-policy";
import { webhookUrlRules } from "../../webhooks/url-policy";
import { formatDuration } from "../format";

/** An example of a local receiver, written the way the allowance accepts it. */
export const LOCAL_RECEIVER_EXAMPLE = "http://127.0.0.1:9000/webhooks";

export function EndpointRules({ allowLoopback }: { allowLoopback: boolean }) {
  const rules = webhookUrlRules({ allowLoopback });
  const ports = rules.ports.join(" or ");
  const publicRule = `https on port ${ports}, with a host that is, or resolves only to, public addresses`;
  if (rules.loopbackHosts === null) {
    return (
      <p data-testid="webhook-url-rules">
        The URL must use {publicRule}: private, loopback, link-local and reserved addresses are refused.
      </p>
    );
  }
  const hosts = rules.loopbackHosts;
  return (
    <p data-testid="webhook-url-rules">
      A receiver on this machine is accepted because this is a local deployment: a URL whose host is written{" "}
      {hosts.map((host, index) => (
        <>
          {index === 0 ? "" : index === hosts.length - 1 ? " or " : ", "}
          <code>{host}</code>
        </>
      ))}
      , over http or https and on any port (for example <code>{LOCAL_RECEIVER_EXAMPLE}</code>). Any other URL must use {publicRule}, as on a
      deployed service.
    </p>
  );
}

export function RetryRules({ retryBaseSeconds }: { retryBaseSeconds: number }) {
  return (
    <span data-testid="webhook-retry-rules">
      A failed delivery is retried with back-off, always with the same <code>webhook-id</code>: up to {MAX_DELIVERY_ATTEMPTS} attempts in
      all, the last about {formatDuration(retrySpanMs(retryBaseSeconds))} after the first one failed.
    </span>
  );
}
