/** The public status page (`GET /status` in a browser): the status document rendered as HTML, no script. */
import { html } from "hono/html";
import { FAILURE_REASON_LABELS } from "../status/failure-reason";
import { STATUS_THRESHOLDS } from "../status/status-levels";
import type { ProviderState, ProviderStatus, ServiceStatus, WindowFigures } from "../status/status-schema";
import { relativeTime } from "../util/relative-time";
import { BrandMark } from "./brand-mark";
import { statusHeadline } from "./status-headline";

/** The page reloads itself this often (seconds); the figures behind it are at most 30 s old. */
const REFRESH_SECONDS = 60;

const STATE_LABELS: Readonly<Record<ProviderState, string>> = {
  up: "Up",
  degraded: "Degraded",
  down: "Down",
  unknown: "No data",
};

const UTC_TIME = new Intl.DateTimeFormat("en-GB", {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
  timeZone: "UTC",
});

function utc(iso: string): string {
  return `${UTC_TIME.format(new Date(iso))} UTC`;
}

function percent(rate: number): string {
  const value = rate * 100;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} %`;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function rateClass(rate: number): string {
  if (rate >= STATUS_THRESHOLDS.degradedBelowRate) return "rate good";
  return rate >= STATUS_THRESHOLDS.downBelowRate ? "rate fair" : "rate poor";
}

function Figures({ figures }: { figures: WindowFigures }) {
  if (figures.success_rate === null) return <span class="none">No scrapes</span>;
  return (
    <>
      <span class={rateClass(figures.success_rate)}>{percent(figures.success_rate)}</span>{" "}
      <span class="small">
        of {figures.scrapes} {figures.scrapes === 1 ? "scrape" : "scrapes"}
      </span>
      <br />
      <span class="small">
        {figures.p50_ms === null || figures.p95_ms === null
          ? "no successful scrape"
          : `p50 ${duration(figures.p50_ms)} · p95 ${duration(figures.p95_ms)}`}
      </span>
    </>
  );
}

function When({ iso, now }: { iso: string; now: number }) {
  return (
    <time datetime={iso} title={utc(iso)}>
      {relativeTime(iso, now)}
    </time>
  );
}

/** No failure on record: said over the history that exists, never over a window the log does not hold yet. */
function NoFailure({ historySince }: { historySince: string | null }) {
  if (historySince === null) return <strong>none on record</strong>;
  return (
    <strong>
      none since <time datetime={historySince}>{utc(historySince)}</time>
    </strong>
  );
}

function ProviderCard({ provider, now, historySince }: { provider: ProviderStatus; now: number; historySince: string | null }) {
  const headingId = `provider-${provider.provider}`;
  return (
    <article class="provider" aria-labelledby={headingId}>
      <div class="provider-head">
        <h2 id={headingId}>{provider.name}</h2>
        <span class={`pill ${provider.status}`}>
          <span class="dot" aria-hidden="true"></span>
          {STATE_LABELS[provider.status]}
        </span>
      </div>
      <table>
        <caption class="visually-hidden">{`${provider.name}: success rate and latency`}</caption>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Last hour</th>
            <th scope="col">Last 24 hours</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Canaries</th>
            <td>
              <Figures figures={provider.canaries.last_hour} />
            </td>
            <td>
              <Figures figures={provider.canaries.last_day} />
            </td>
          </tr>
          <tr>
            <th scope="row">Customer traffic</th>
            <td>
              <Figures figures={provider.traffic.last_hour} />
            </td>
            <td>
              <Figures figures={provider.traffic.last_day} />
            </td>
          </tr>
        </tbody>
      </table>
      <div class="provider-foot">
        <span>
          Last canary: {provider.last_canary_at === null ? <strong>none yet</strong> : <When iso={provider.last_canary_at} now={now} />}
        </span>
        <span>
          Last failure:{" "}
          {provider.last_failure === null ? (
            <NoFailure historySince={historySince} />
          ) : (
            <>
              <strong>{FAILURE_REASON_LABELS[provider.last_failure.reason]}</strong> (
              {provider.last_failure.source === "canary" ? "canary" : "customer traffic"}, <When iso={provider.last_failure.at} now={now} />
              )
            </>
          )}
        </span>
      </div>
    </article>
  );
}

/** The whole document, with its doctype (standards mode), for `c.html`. */
export function statusPageHtml(status: ServiceStatus) {
  return html`<!doctype html>${<StatusPage status={status} />}`;
}

function StatusPage({ status }: { status: ServiceStatus }) {
  const now = new Date(status.generated_at).getTime();
  const headline = statusHeadline(status);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta http-equiv="refresh" content={String(REFRESH_SECONDS)} />
        <link rel="icon" href="data:," />
        <title>Status · AI Answer Scraper</title>
        <link rel="stylesheet" href="/status.css" />
      </head>
      <body>
        <header class="topbar">
          <div class="topbar-inner">
            <span class="brand">
              <BrandMark />
              AI Answer Scraper status
            </span>
            <a class="json" href="/status.json">
              JSON
            </a>
          </div>
        </header>
        <main>
          <section class={`banner ${status.status}`} aria-live="polite">
            <span class="dot" aria-hidden="true"></span>
            <div>
              <h1>{headline.title}</h1>
              {headline.detail !== null && <p class="headline-detail">{headline.detail}</p>}
              <p>
                Updated <time datetime={status.generated_at}>{utc(status.generated_at)}</time>. This page refreshes every minute.
              </p>
            </div>
          </section>
          <section class="providers" aria-label="Providers">
            {status.providers.map((provider) => (
              <ProviderCard provider={provider} now={now} historySince={status.history_since} />
            ))}
          </section>
          <section class="explain">
            <h2>How to read this page</h2>
            <p>
              Canaries are scheduled test scrapes of every provider (one short prompt, through the same browsers and code as customer
              requests). Customer traffic counts every scrape that reached a provider; cached answers are not counted. Latency is that of
              the successful scrapes.
            </p>
            <ul>
              <li>
                <strong>Down</strong>: every canary of the last {STATUS_THRESHOLDS.failedRoundsForDown} rounds failed, or fewer than{" "}
                {percent(STATUS_THRESHOLDS.downBelowRate)} of the last hour's scrapes succeeded (once there are at least{" "}
                {STATUS_THRESHOLDS.minScrapesForRate}).
              </li>
              <li>
                <strong>Degraded</strong>: a canary of the latest round failed, or fewer than {percent(STATUS_THRESHOLDS.degradedBelowRate)}{" "}
                of the last hour's scrapes succeeded (once there are at least {STATUS_THRESHOLDS.minScrapesForRate}).
              </li>
              <li>
                <strong>Up</strong>: otherwise. <strong>No data</strong>: no scrape of that provider in the last hour.
              </li>
            </ul>
            <p>
              The headline says all providers are up only when every provider has data and is up. Outcomes are kept 8 days: the last failure
              is the latest on record, so "none since" gives the oldest outcome the service holds.
            </p>
            <p>
              Machine-readable: <a href="/status.json">/status.json</a>.
            </p>
          </section>
        </main>
      </body>
    </html>
  );
}
