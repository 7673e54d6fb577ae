/**
 * `/dashboard/requests`: the account's recent requests (synchronous scrapes, jobs, batches; through the API, MCP or the
 * playground), newest first, with their request id, so a support ticket can name one (docs/dashboard.md "Requests").
 */
import type { LoggedRequest, RequestKind } from "../../accounts/request-log";
import { Time, formatNumber } from "../format";
import { Layout, PageHead, type SignedInFrame } from "../layout";

/** Where a row's result can be seen, when it still can: results, jobs and hosted markdown are kept for 24 hours. */
interface ResultLink {
  href: string;
  label: string;
}

export interface RequestsPageData {
  requests: readonly LoggedRequest[];
  /** The kind the list is filtered by (none: every kind). */
  kind: RequestKind | null;
  /** The link to the next (older) page, or null on the last page. */
  olderHref: string | null;
  /** True past the first page: a link back to the newest is shown. */
  paged: boolean;
  retentionDays: number;
  resultRetentionMs: number;
  now: number;
}

const KIND_FILTERS: ReadonlyArray<{ kind: RequestKind | null; label: string }> = [
  { kind: null, label: "All" },
  { kind: "sync", label: "Sync" },
  { kind: "job", label: "Jobs" },
  { kind: "batch", label: "Batches" },
];

const KIND_LABELS: Record<RequestKind, string> = { sync: "Sync", job: "Job", batch: "Batch" };
const SURFACE_NOTES: Record<LoggedRequest["surface"], string | null> = { api: null, mcp: "via MCP", dashboard: "via playground" };

export function requestsHref(kind: RequestKind | null, before?: number): string {
  const query = new URLSearchParams();
  if (kind !== null) query.set("kind", kind);
  if (before !== undefined) query.set("before", String(before));
  const text = query.toString();
  return text === "" ? "/dashboard/requests" : `/dashboard/requests?${text}`;
}

/**
 * A synchronous answer is kept as its hosted markdown (and a playground run as its result page), a job as its result
 * page, for 24 hours; a batch has no page of its own (its jobs are on the Jobs page); a failure has no result.
 */
function resultLinkOf(request: LoggedRequest, { now, resultRetentionMs }: Pick<RequestsPageData, "now" | "resultRetentionMs">) {
  if (request.jobId === null || now - Date.parse(request.createdAt) >= resultRetentionMs) return null;
  const jobId = encodeURIComponent(request.jobId);
  if (request.kind === "job") return { href: `/dashboard/results/${jobId}`, label: "Job" };
  if (request.kind !== "sync" || request.outcome !== "done") return null;
  if (request.surface === "dashboard") return { href: `/dashboard/results/${jobId}`, label: "Result" };
  return { href: `/md/${jobId}.md`, label: "Markdown" };
}

function formatLatency(ms: number): string {
  return ms < 1000 ? `${formatNumber(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function OutcomeBadge({ request }: { request: LoggedRequest }) {
  if (request.outcome === "failed") {
    return (
      <span class="badge bad" data-outcome="failed">
        Failed
      </span>
    );
  }
  if (request.outcome === "done") {
    return (
      <span class="badge ok" data-outcome="done">
        Done
      </span>
    );
  }
  // A queued job shows where it stands now; a batch's jobs are on the Jobs page.
  const jobStatus = request.kind === "job" ? request.jobStatus : null;
  const label = request.outcome === "replayed" ? "Replayed" : "Queued";
  const className = jobStatus === "done" ? "badge ok" : jobStatus === "failed" ? "badge bad" : "badge warn";
  return (
    <span class={className} data-outcome={request.outcome} title={jobStatus === null ? undefined : `The job is ${jobStatus}`}>
      {label}
      {jobStatus !== null && jobStatus !== "pending" && ` · job ${jobStatus}`}
    </span>
  );
}

function RequestRow({ request, data }: { request: LoggedRequest; data: RequestsPageData }) {
  const link: ResultLink | null = resultLinkOf(request, data);
  const surfaceNote = SURFACE_NOTES[request.surface];
  return (
    <tr data-request-id={request.requestId}>
      <td data-label="Time">
        <Time iso={request.createdAt} />
      </td>
      <td data-label="Request id">
        <code class="request-id">{request.requestId}</code>
      </td>
      <td data-label="Kind">
        <span>
          {KIND_LABELS[request.kind]}
          {request.kind === "batch" && request.itemCount !== null && <span class="hint"> · {formatNumber(request.itemCount)} items</span>}
          {surfaceNote !== null && <span class="hint"> · {surfaceNote}</span>}
        </span>
      </td>
      <td data-label="Scraper">{request.scraper === null ? <span class="hint">—</span> : <span class="mono">{request.scraper}</span>}</td>
      <td data-label="Status">
        <span>
          <span class="mono" data-status-code={request.statusCode}>
            {request.statusCode}
          </span>{" "}
          <OutcomeBadge request={request} />
          {request.errorCode !== null && <span class="hint mono"> {request.errorCode}</span>}
        </span>
      </td>
      <td data-label="Latency" class="num">
        {formatLatency(request.latencyMs)}
      </td>
      <td data-label="Credits" class="num" data-credits={request.credits}>
        {formatNumber(request.credits)}
      </td>
      <td data-label="Result">
        {link === null ? (
          <span class="hint">—</span>
        ) : (
          <a href={link.href} title={request.jobId ?? undefined}>
            {link.label}
          </a>
        )}
      </td>
    </tr>
  );
}

export function RequestsPage({ frame, data }: { frame: SignedInFrame; data: RequestsPageData }) {
  return (
    <Layout title="Requests" frame={frame}>
      <main>
        <PageHead
          title="Requests"
          subtitle={`Scrapes, jobs and batches of the last ${data.retentionDays} days, newest first. Quote a request id when you contact support.`}
        />
        <section class="card" aria-labelledby="requests-title">
          <div class="card-head">
            <h2 id="requests-title">Recent requests</h2>
            <nav class="filters" aria-label="Kind of request">
              {KIND_FILTERS.map((filter) => (
                <a
                  class="btn btn-secondary btn-small"
                  href={requestsHref(filter.kind)}
                  aria-current={filter.kind === data.kind ? "page" : undefined}
                >
                  {filter.label}
                </a>
              ))}
            </nav>
          </div>
          {data.requests.length === 0 ? (
            <div class="empty">
              <strong>{data.paged ? "No older requests" : "No requests yet"}</strong>
              Every scrape, job and batch your keys send is listed here, with its request id.
            </div>
          ) : (
            <div class="table-wrap">
              <table class="responsive dense" data-testid="requests-table">
                <thead>
                  <tr>
                    <th>Time</th>
                    <th>Request id</th>
                    <th>Kind</th>
                    <th>Scraper</th>
                    <th>Status</th>
                    <th class="num">Latency</th>
                    <th class="num">Credits</th>
                    <th>Result</th>
                  </tr>
                </thead>
                <tbody>
                  {data.requests.map((request) => (
                    <RequestRow request={request} data={data} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {(data.olderHref !== null || data.paged) && (
            <nav class="pager" aria-label="Pages">
              {data.paged && (
                <a class="btn btn-secondary btn-small" href={requestsHref(data.kind)}>
                  Newest
                </a>
              )}
              {data.olderHref !== null && (
                <a class="btn btn-secondary btn-small" href={data.olderHref} rel="next">
                  Older
                </a>
              )}
            </nav>
          )}
        </section>
      </main>
    </Layout>
  );
}
