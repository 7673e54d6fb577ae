/**
 * `/dashboard/webhooks`: the account's webhook endpoint (set, change, remove), its signing secret (shown on demand,
 * copyable, rotatable) and the latest deliveries with their attempts and the receiver's answers. The forms use the
 * dashboard's session and CSRF checks, handed in by src/dashboard/routes.tsx.
 */
import type { Context, Hono } from "hono";
import { ServiceError } from "../../errors";
import type { AppEnv } from "../../http/app-env";
import { acceptableWebhookUrl } from "../../http/webhooks";
import { type DeliveryLogEntry, DELIVERY_LOG_RETENTION_DAYS, recentDeliveries } from "../../webhooks/delivery-log";
import { type WebhookEndpoint, ensureWebhookEndpoint, rotateWebhookSecret, setWebhookUrl } from "../../webhooks/endpoints";
import { MAX_DELIVERY_ATTEMPTS } from "../../webhooks/retry-policy";
import { webhookSettings } from "../../webhooks/settings";
import { Ago, Time } from "../format";
import { Layout, PageHead, type NavItem, type SignedInFrame } from "../layout";
import { EndpointRules, LOCAL_RECEIVER_EXAMPLE, RetryRules } from "./webhook-rules";

const RECENT_DELIVERIES = 50;

/** What the page needs of the dashboard's session handling (routes.tsx owns it). */
interface SignedInVisitor {
  account: { accountId: string };
  frame: SignedInFrame;
}

interface DashboardSessionAccess {
  currentSession(c: Context<AppEnv>, active: NavItem | null): Promise<SignedInVisitor | null>;
  /** The signed-in visitor and the form's fields, or the response to send (sign-in redirect, expired-form page). */
  signedInForm(c: Context<AppEnv>): Promise<{ signedIn: SignedInVisitor; form: Record<string, string> } | Response>;
}

type Notice = "saved" | "removed" | "rotated";

const NOTICES: Record<Notice, string> = {
  saved: "The endpoint was saved. Jobs that end from now on are delivered to it.",
  removed: "The endpoint was removed. Jobs that end from now on are not delivered (batches with their own webhook_url still are).",
  rotated: "A new signing secret was created. Every delivery from now on, retries included, is signed with it.",
};

const STATUS_BADGES: Record<DeliveryLogEntry["status"], { className: string; label: string }> = {
  pending: { className: "badge warn", label: "Retrying" },
  delivered: { className: "badge ok", label: "Delivered" },
  failed: { className: "badge bad", label: "Failed" },
};

interface WebhooksPageData {
  endpoint: WebhookEndpoint;
  deliveries: DeliveryLogEntry[];
  /** This deployment's webhook settings (src/webhooks/settings.ts), which the page's rules are stated for. */
  allowLoopback: boolean;
  retryBaseSeconds: number;
  notice?: Notice;
  formError?: string;
  formUrl?: string;
}

function DeliveryRow({ delivery }: { delivery: DeliveryLogEntry }) {
  const badge = STATUS_BADGES[delivery.status];
  const lastAnswer = delivery.lastError ?? (delivery.lastStatusCode === null ? null : `HTTP ${delivery.lastStatusCode}`);
  return (
    <tr data-webhook-id={delivery.webhookId}>
      <td data-label="Event">
        <span class="mono">{delivery.eventType}</span>
        <br />
        <a class="mono hint" href={`/jobs/${delivery.jobId}`} title={delivery.jobId}>
          {delivery.jobId.slice(0, 8)}
        </a>
      </td>
      <td data-label="Destination">
        <span class="mono" title={delivery.url}>
          {delivery.url.length > 48 ? `${delivery.url.slice(0, 47)}…` : delivery.url}
        </span>
      </td>
      <td data-label="Status">
        <span class={badge.className} data-status={delivery.status}>
          {badge.label}
        </span>
      </td>
      <td data-label="Attempts">{`${delivery.attempts} of ${MAX_DELIVERY_ATTEMPTS}`}</td>
      <td data-label="Last answer">{lastAnswer === null ? <span class="hint">—</span> : lastAnswer}</td>
      <td data-label="When">
        {delivery.status === "delivered" ? (
          <Ago iso={delivery.deliveredAt} />
        ) : delivery.status === "pending" && delivery.nextAttemptAt !== null ? (
          <span>
            next <Time iso={delivery.nextAttemptAt} />
          </span>
        ) : (
          <Ago iso={delivery.lastAttemptAt ?? delivery.createdAt} />
        )}
      </td>
    </tr>
  );
}

function WebhooksPage({ frame, data }: { frame: SignedInFrame; data: WebhooksPageData }) {
  const { endpoint } = data;
  return (
    <Layout title="Webhooks" frame={frame}>
      <main>
        <PageHead
          title="Webhooks"
          subtitle="Get each asynchronous job's final status pushed to your server when it ends, signed by the Standard Webhooks convention."
        />
        {data.notice !== undefined && (
          <div class="notice info" role="status">
            {NOTICES[data.notice]}
          </div>
        )}
        <section class="card" aria-labelledby="endpoint-title">
          <div class="card-head">
            <h2 id="endpoint-title">Endpoint</h2>
            <p>
              {endpoint.url === null ? "No endpoint is set." : "Jobs are delivered to this URL."} A batch's own <code>webhook_url</code>{" "}
              takes precedence.
            </p>
          </div>
          <EndpointRules allowLoopback={data.allowLoopback} />
          <form method="post" action="/dashboard/webhooks">
            <input type="hidden" name="_csrf" value={frame.csrf} />
            <div class="form-row">
              <div class="field">
                <label for="webhook-url">URL</label>
                <input
                  id="webhook-url"
                  name="url"
                  type="url"
                  required
                  maxlength={2048}
                  placeholder={data.allowLoopback ? LOCAL_RECEIVER_EXAMPLE : "https://hooks.example.com/scraper"}
                  value={data.formUrl ?? endpoint.url ?? ""}
                  aria-invalid={data.formError !== undefined ? "true" : undefined}
                  aria-describedby={data.formError !== undefined ? "webhook-url-error" : undefined}
                />
              </div>
              <button class="btn btn-primary" type="submit">
                Save endpoint
              </button>
            </div>
            {data.formError !== undefined && (
              <p id="webhook-url-error" class="hint" role="alert">
                <span class="link-danger">{data.formError}</span>
              </p>
            )}
          </form>
          {endpoint.url !== null && (
            <form method="post" action="/dashboard/webhooks/remove">
              <input type="hidden" name="_csrf" value={frame.csrf} />
              <button class="btn btn-secondary btn-small" type="submit">
                Remove endpoint
              </button>
            </form>
          )}
        </section>
        <section class="card" aria-labelledby="secret-title">
          <div class="card-head">
            <h2 id="secret-title">Signing secret</h2>
            <p>
              Verify the <code>webhook-signature</code> header of every delivery with it, for example with the <code>standardwebhooks</code>{" "}
              library. Updated <Ago iso={endpoint.updatedAt} />.
            </p>
          </div>
          <details>
            <summary>Show the secret</summary>
            <div class="secret">
              <input
                id="webhook-secret"
                type="text"
                readonly
                value={endpoint.secret}
                aria-label="Webhook signing secret"
                spellcheck={false}
                autocomplete="off"
              />
              <button class="btn btn-secondary" type="button" data-copy-target="webhook-secret">
                Copy
              </button>
            </div>
          </details>
          <form method="post" action="/dashboard/webhooks/rotate-secret">
            <input type="hidden" name="_csrf" value={frame.csrf} />
            <button class="btn btn-danger btn-small" type="submit">
              Replace the secret
            </button>
          </form>
        </section>
        <section class="card" aria-labelledby="deliveries-title">
          <div class="card-head">
            <h2 id="deliveries-title">Recent deliveries</h2>
            <p>
              <RetryRules retryBaseSeconds={data.retryBaseSeconds} /> Kept {DELIVERY_LOG_RETENTION_DAYS} days.
            </p>
          </div>
          {data.deliveries.length === 0 ? (
            <div class="empty">
              <strong>No deliveries yet</strong>
              They appear here when a job ends while an endpoint is set (or in a batch with a webhook_url).
            </div>
          ) : (
            <div class="table-wrap">
              <table class="responsive" data-testid="deliveries-table">
                <thead>
                  <tr>
                    <th>Event</th>
                    <th>Destination</th>
                    <th>Status</th>
                    <th>Attempts</th>
                    <th>Last answer</th>
                    <th>When</th>
                  </tr>
                </thead>
                <tbody>
                  {data.deliveries.map((delivery) => (
                    <DeliveryRow delivery={delivery} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      </main>
    </Layout>
  );
}

function noticeOf(value: string | undefined): Notice | undefined {
  return value === "saved" || value === "removed" || value === "rotated" ? value : undefined;
}

/** The page's routes on the dashboard sub-app (mounted at /dashboard). */
export function registerWebhookPages(dashboard: Hono<AppEnv>, session: DashboardSessionAccess): void {
  const render = async (
    c: Context<AppEnv>,
    visitor: SignedInVisitor,
    extra: Omit<WebhooksPageData, "endpoint" | "deliveries" | "allowLoopback" | "retryBaseSeconds">,
    status = 200,
  ) => {
    const accountId = visitor.account.accountId;
    const [endpoint, deliveries] = await Promise.all([
      ensureWebhookEndpoint(c.env, accountId),
      recentDeliveries(c.env.DB, accountId, RECENT_DELIVERIES),
    ]);
    const { allowLoopback, retryBaseSeconds } = webhookSettings(c.env);
    return c.html(
      <WebhooksPage
        frame={{ ...visitor.frame, active: "webhooks" }}
        data={{ endpoint, deliveries, allowLoopback, retryBaseSeconds, ...extra }}
      />,
      status === 400 ? 400 : 200,
    );
  };

  dashboard.get("/webhooks", async (c) => {
    const visitor = await session.currentSession(c, "webhooks");
    if (visitor === null) return c.redirect("/dashboard/sign-in", 303);
    return render(c, visitor, { notice: noticeOf(c.req.query("notice")) });
  });

  dashboard.post("/webhooks", async (c) => {
    const result = await session.signedInForm(c);
    if (result instanceof Response) return result;
    const raw = (result.form.url ?? "").trim();
    let url: string;
    try {
      url = await acceptableWebhookUrl(c.env, raw, "URL");
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status >= 500) throw error;
      return render(c, result.signedIn, { formError: `${error.detail}.`, formUrl: raw.slice(0, 2048) }, 400);
    }
    await setWebhookUrl(c.env, result.signedIn.account.accountId, url);
    return c.redirect("/dashboard/webhooks?notice=saved", 303);
  });

  dashboard.post("/webhooks/remove", async (c) => {
    const result = await session.signedInForm(c);
    if (result instanceof Response) return result;
    await setWebhookUrl(c.env, result.signedIn.account.accountId, null);
    return c.redirect("/dashboard/webhooks?notice=removed", 303);
  });

  dashboard.post("/webhooks/rotate-secret", async (c) => {
    const result = await session.signedInForm(c);
    if (result instanceof Response) return result;
    await rotateWebhookSecret(c.env, result.signedIn.account.accountId);
    return c.redirect("/dashboard/webhooks?notice=rotated", 303);
  });
}
