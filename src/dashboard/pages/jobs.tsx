/** `/dashboard/jobs`: recent asynchronous jobs with their live status from each job's Durable Object. */
import { Ago, Time } from "../format";
import { Layout, PageHead, type SignedInFrame } from "../layout";

type JobRowStatus = "pending" | "done" | "failed" | "expired" | "unavailable";

export interface JobRow {
  jobId: string;
  /** The request that submitted the job (its X-Request-Id); null for jobs from before jobs kept it. */
  requestId: string | null;
  scraper: string;
  keyName: string | null;
  createdAt: string;
  status: JobRowStatus;
  completedAt: string | null;
  attempts: number | null;
  prompt: string | null;
  error: string | null;
}

const BADGES: Record<JobRowStatus, { className: string; label: string }> = {
  pending: { className: "badge warn", label: "Pending" },
  done: { className: "badge ok", label: "Done" },
  failed: { className: "badge bad", label: "Failed" },
  expired: { className: "badge muted", label: "Expired" },
  unavailable: { className: "badge muted", label: "Unavailable" },
};

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

export function JobsPage({ frame, jobs, retentionHours }: { frame: SignedInFrame; jobs: JobRow[]; retentionHours: number }) {
  return (
    <Layout title="Jobs" frame={frame}>
      <main>
        <PageHead
          title="Jobs"
          subtitle={`Asynchronous jobs submitted with POST /scrapers/{scraper}/jobs. Results are kept for ${retentionHours} hours.`}
        />
        <section class="card" aria-labelledby="jobs-title">
          <div class="card-head">
            <h2 id="jobs-title">Recent jobs</h2>
            <p>Failed jobs are refunded automatically.</p>
          </div>
          {jobs.length === 0 ? (
            <div class="empty">
              <strong>No jobs yet</strong>
              Submit one with <code>POST /scrapers/grok/jobs?prompt=…</code> and follow it here.
            </div>
          ) : (
            <div class="table-wrap">
              <table class="responsive" data-testid="jobs-table">
                <thead>
                  <tr>
                    <th>Job</th>
                    <th>Scraper</th>
                    <th>Prompt</th>
                    <th>Key</th>
                    <th>Submitted</th>
                    <th>Status</th>
                    <th>Finished</th>
                  </tr>
                </thead>
                <tbody>
                  {jobs.map((job) => {
                    const badge = BADGES[job.status];
                    const viewable = job.status !== "expired" && job.status !== "unavailable";
                    return (
                      <tr data-job-id={job.jobId}>
                        <td data-label="Job">
                          <span>
                            {viewable ? (
                              <a class="mono" href={`/dashboard/results/${job.jobId}`} title={`View the result of ${job.jobId}`}>
                                {job.jobId.slice(0, 8)}
                              </a>
                            ) : (
                              <span class="mono" title={job.jobId}>
                                {job.jobId.slice(0, 8)}
                              </span>
                            )}
                            {job.requestId !== null && (
                              <span class="job-request hint" title="The request that submitted the job (X-Request-Id)">
                                <code class="request-id" data-testid="job-request-id">
                                  {job.requestId}
                                </code>
                              </span>
                            )}
                          </span>
                        </td>
                        <td data-label="Scraper">
                          <span class="mono">{job.scraper}</span>
                        </td>
                        <td data-label="Prompt">{job.prompt === null ? <span class="hint">—</span> : truncate(job.prompt, 60)}</td>
                        <td data-label="Key">{job.keyName ?? "—"}</td>
                        <td data-label="Submitted">
                          <Time iso={job.createdAt} />
                        </td>
                        <td data-label="Status">
                          <span>
                            <span class={badge.className} title={job.error ?? undefined} data-status={job.status}>
                              {badge.label}
                            </span>
                            {job.attempts !== null && job.attempts > 1 && <span class="hint"> · {job.attempts} attempts</span>}
                            {job.status === "failed" && job.error !== null && (
                              <span class="job-error" data-testid="job-error">
                                {truncate(job.error, 160)}
                              </span>
                            )}
                          </span>
                        </td>
                        <td data-label="Finished">
                          <Ago iso={job.completedAt} />
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </section>
      </main>
    </Layout>
  );
}
