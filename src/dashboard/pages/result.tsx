/**
 * `/dashboard/results/{id}`: one job or playground run, readable. The answer is rendered from `result_markdown`
 * (sanitised: src/dashboard/playground/answer-html.ts), the scraper's lists become cards with links, and the raw JSON
 * is one click away. A pending job is followed by the page script (a live timer, and a reload when it ends); a failed
 * job shows its error and the prompt it was given. Evidence (the response's, or a failed job's) is shown beside the
 * answer: the screenshot, the files to download and what is missing; a source card whose URL the answer links has a
 * "Show in answer" link to that place in the answer (highlighted by the stylesheet's `:target` rule, no script).
 */
import type { Child } from "hono/jsx";
import { Time, formatNumber } from "../format";
import { Layout, PageHead, type SignedInFrame } from "../layout";
import { EVIDENCE_KIND_LABELS } from "../evidence-labels";
import { type RenderedAnswer, renderAnswer } from "../playground/answer-html";
import type { ShownEvidence } from "../playground/shown-evidence";
import { type ResultCard, type ResultSection, arrangeResult } from "../playground/result-sections";
import { isHttpUrl } from "../../util/http-url";

type ResultStatus = "pending" | "done" | "failed";

export interface ResultPageData {
  /** A playground run that waited for its answer, or an asynchronous job (the playground's or the API's). */
  source: "playground" | "job";
  id: string;
  scraper: string;
  /** The scraper's display name ("Grok"). */
  scraperName: string;
  status: ResultStatus;
  prompt: string;
  country: string | null;
  /** The 200 body (the job's `result`), when done. */
  response: Readonly<Record<string, unknown>> | null;
  error: string | null;
  createdAt: string;
  completedAt: string | null;
  attempts: number | null;
  keyName: string | null;
  /** Opens the playground with this request's parameters. */
  playgroundLink: string;
  creditsPerRequest: number;
  /** What the API itself answers for it: `GET /jobs/{id}` for a job, the 200 body for a playground run. */
  rawJson: unknown;
  /** The answer's evidence, or a failed job's failure evidence; null when none was kept. */
  evidence: ShownEvidence | null;
}

/** Where the answer links a URL (an element id in the rendered answer), or null. */
type AnchorOf = (url: string) => string | null;
const NO_ANCHORS: AnchorOf = () => null;

const STATUS_BADGES: Record<ResultStatus, { className: string; label: string }> = {
  pending: { className: "badge warn", label: "Pending" },
  done: { className: "badge ok", label: "Done" },
  failed: { className: "badge bad", label: "Failed" },
};

/** 1.3 s, 42 s, 2 min 5 s. */
function formatElapsed(milliseconds: number): string {
  if (milliseconds < 10_000) return `${(milliseconds / 1000).toFixed(1)} s`;
  const seconds = Math.round(milliseconds / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

function numberField(response: Readonly<Record<string, unknown>> | null, name: string): number | null {
  const value = response?.[name];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function stringField(response: Readonly<Record<string, unknown>> | null, name: string): string | null {
  const value = response?.[name];
  return typeof value === "string" ? value : null;
}

function Fact({ label, children, testId }: { label: string; children: Child; testId?: string }) {
  return (
    <div class="fact">
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

function Facts({ data }: { data: ResultPageData }) {
  const badge = STATUS_BADGES[data.status];
  const elapsed = numberField(data.response, "elapsed_ms");
  const creditsUsed = numberField(data.response, "credits_used");
  const cached = data.response?.cached;
  const credits =
    data.status === "failed"
      ? `0 (${data.creditsPerRequest} refunded)`
      : data.status === "pending"
        ? `${data.creditsPerRequest} (charged at submission)`
        : formatNumber(creditsUsed ?? data.creditsPerRequest);
  return (
    <dl class="facts card">
      <Fact label="Status">
        <span class={badge.className} data-status={data.status} data-testid="result-status">
          {badge.label}
        </span>
      </Fact>
      <Fact label="Elapsed" testId="elapsed">
        {elapsed !== null ? formatElapsed(elapsed) : <span class="hint">—</span>}
      </Fact>
      <Fact label="Credits" testId="credits">
        {credits}
      </Fact>
      <Fact label="Cached">{typeof cached === "boolean" ? cached ? "Yes" : "No" : <span class="hint">—</span>}</Fact>
      <Fact label="Country">{data.country ?? <span class="hint">—</span>}</Fact>
      <Fact label="Key">{data.keyName ?? <span class="hint">—</span>}</Fact>
      <Fact label="Submitted">
        <Time iso={data.createdAt} />
      </Fact>
      {data.attempts !== null && <Fact label="Attempts">{String(data.attempts)}</Fact>}
    </dl>
  );
}

function ShowInAnswer({ anchor }: { anchor: string | null }) {
  if (anchor === null) return null;
  return (
    <a class="show-in-answer" href={`#${anchor}`}>
      Show in answer
    </a>
  );
}

function Card({ card, anchorOf }: { card: ResultCard; anchorOf: AnchorOf }) {
  return (
    <li class="result-card">
      <h3>
        {card.url === null ? (
          card.title
        ) : (
          <a href={card.url} target="_blank" rel="noopener noreferrer nofollow">
            {card.title}
          </a>
        )}
      </h3>
      {card.url !== null && (
        <p class="card-url">
          <span class="mono">{new URL(card.url).host}</span> <ShowInAnswer anchor={anchorOf(card.url)} />
        </p>
      )}
      {card.paragraphs.map((text) => (
        <p class="card-text">{text}</p>
      ))}
      {card.lists.map((list) => (
        <div class="card-list">
          <span class="card-meta-label">{list.label}</span>
          <ul>
            {list.items.map((item) => (
              <li>{item}</li>
            ))}
          </ul>
        </div>
      ))}
      {card.meta.length > 0 && (
        <p class="card-meta">
          {card.meta.map((line, index) => (
            <span>
              {index > 0 && " · "}
              {line.label !== "" && <span class="card-meta-label">{line.label} </span>}
              {line.text}
            </span>
          ))}
        </p>
      )}
    </li>
  );
}

function Section({ section, anchorOf }: { section: ResultSection; anchorOf: AnchorOf }) {
  const count = section.kind === "cards" ? section.cards.length : section.kind === "links" ? section.urls.length : section.items.length;
  return (
    <section class="card" data-section={section.field} aria-labelledby={`section-${section.field}`}>
      <div class="card-head">
        <h2 id={`section-${section.field}`}>{section.title}</h2>
        <p>
          <code>{section.field}</code> · {count}
        </p>
      </div>
      {count === 0 ? (
        <p class="hint">None in this answer.</p>
      ) : section.kind === "cards" ? (
        <ul class="result-cards">
          {section.cards.map((card) => (
            <Card card={card} anchorOf={anchorOf} />
          ))}
        </ul>
      ) : section.kind === "links" ? (
        <ul class="result-links">
          {section.urls.map((url) => (
            <li>
              <a href={url} target="_blank" rel="noopener noreferrer nofollow" class="mono">
                {url}
              </a>{" "}
              <ShowInAnswer anchor={anchorOf(url)} />
            </li>
          ))}
        </ul>
      ) : (
        <ul class="chips">
          {section.items.map((item) => (
            <li>{item}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Answer({ response, rendered }: { response: Readonly<Record<string, unknown>>; rendered: RenderedAnswer | null }) {
  const plain = stringField(response, "result") ?? "";
  const markdownUrl = stringField(response, "markdown_url");
  return (
    <section class="card" aria-labelledby="answer-title">
      <div class="card-head">
        <h2 id="answer-title">Answer</h2>
        {markdownUrl !== null && isHttpUrl(markdownUrl) && (
          <p>
            <a href={markdownUrl} target="_blank" rel="noopener" data-testid="markdown-url">
              Hosted markdown (24 h) ↗
            </a>
          </p>
        )}
      </div>
      {rendered !== null ? (
        <div class="answer" data-testid="answer" dangerouslySetInnerHTML={{ __html: rendered.html }} />
      ) : (
        <div class="answer plain" data-testid="answer">
          {plain}
        </div>
      )}
    </section>
  );
}

const FILE_KINDS: Readonly<Record<string, string>> = { png: "PNG", jpg: "JPEG", html: "HTML", json: "JSON" };
const DOWNLOAD_LABELS = { screenshot: "Download the screenshot", html: "Download the page HTML", stream: "Download the stream" } as const;

function kindLabel(kind: string): string {
  return kind === "screenshot" || kind === "html" || kind === "stream" ? EVIDENCE_KIND_LABELS[kind] : kind;
}

/** The evidence card: the screenshot (opens full size), the files to download, and each kind asked for but missing. */
function Evidence({ evidence, failure }: { evidence: ShownEvidence; failure: boolean }) {
  const screenshot = evidence.files.find((file) => file.kind === "screenshot");
  return (
    <section class="card evidence" aria-labelledby="evidence-title" data-testid="evidence">
      <div class="card-head">
        <h2 id="evidence-title">{failure ? "Failure evidence" : "Evidence"}</h2>
        <p>
          Captured <Time iso={evidence.capturedAt} />
        </p>
      </div>
      {evidence.expired ? (
        <p class="notice info" data-testid="evidence-expired">
          This evidence expired at <Time iso={evidence.expiresAt} />: evidence files are kept 24 hours after the answer, and are gone now.
        </p>
      ) : (
        <>
          {screenshot !== undefined && (
            <a class="evidence-shot" href={screenshot.path} target="_blank" rel="noopener" title="Open the screenshot full size">
              <img
                src={screenshot.path}
                alt={failure ? "Screenshot of the failed page" : "Screenshot of the answer page as the provider showed it"}
              />
            </a>
          )}
          {evidence.files.length > 0 && (
            <ul class="evidence-files">
              {evidence.files.map((file) => (
                <li>
                  <a href={file.path} download={file.fileName}>
                    {DOWNLOAD_LABELS[file.kind]}
                  </a>{" "}
                  <span class="hint">({FILE_KINDS[file.fileName.split(".").pop() ?? ""] ?? file.fileName})</span>
                </li>
              ))}
            </ul>
          )}
          <p class="hint">
            Kept until <Time iso={evidence.expiresAt} />.
          </p>
        </>
      )}
      {evidence.missing.length > 0 && (
        <ul class="evidence-missing" data-testid="evidence-missing">
          {evidence.missing.map((item) => (
            <li>
              <strong>{kindLabel(item.kind)}</strong> not kept: {item.reason}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function RawJson({ data }: { data: ResultPageData }) {
  return (
    <details class="card raw-json" data-testid="raw-json">
      <summary>Raw JSON</summary>
      <div class="code-head">
        <span>{data.source === "job" ? `GET /jobs/${data.id}` : `GET /scrapers/${data.scraper}: the 200 body`}</span>
        <span>
          {data.source === "job" && (
            <a class="btn btn-link btn-small" href={`/jobs/${data.id}`} target="_blank" rel="noopener">
              Open /jobs/{data.id.slice(0, 8)}… ↗
            </a>
          )}
          <button class="btn btn-link btn-small" type="button" data-copy-text="raw-json-text">
            Copy
          </button>
        </span>
      </div>
      <pre class="snippet code" id="raw-json-text">
        {JSON.stringify(data.rawJson, null, 2)}
      </pre>
    </details>
  );
}

export function ResultPage({ frame, data }: { frame: SignedInFrame; data: ResultPageData }) {
  const arranged = data.response === null ? null : arrangeResult(data.response);
  const markdown = data.response === null ? null : stringField(data.response, "result_markdown");
  const rendered = markdown === null ? null : renderAnswer(markdown);
  const anchorOf = rendered?.anchorOf ?? NO_ANCHORS;
  const what = data.source === "job" ? "Asynchronous job" : "Playground run";
  return (
    <Layout title={`Result ${data.id.slice(0, 8)}`} frame={frame}>
      <main>
        <PageHead title={`${data.scraperName} result`} subtitle={`${what} ${data.id}`}>
          <div class="head-actions">
            <a class="btn btn-secondary" href={data.playgroundLink}>
              Open in the playground
            </a>
            {data.source === "job" && (
              <a class="btn btn-link" href="/dashboard/jobs">
                All jobs
              </a>
            )}
          </div>
        </PageHead>
        {data.status === "pending" && (
          <div class="notice info" role="status" data-job-poll={data.id} data-created-at={data.createdAt}>
            <h2>
              Running… <strong data-elapsed="">—</strong>
            </h2>
            <p>
              The job is queued or being scraped. This page follows it and shows the answer when it is done (
              <a href={`/dashboard/results/${data.id}`}>reload</a> if it does not).
            </p>
          </div>
        )}
        {data.status === "failed" && (
          <div class="notice danger" role="alert" data-testid="job-error">
            <h2>The job failed</h2>
            <p>{data.error ?? "No error was recorded."}</p>
            <p class="hint">
              Every attempt failed{data.attempts !== null ? ` (${data.attempts})` : ""}; the {data.creditsPerRequest} credits were restored.
            </p>
          </div>
        )}
        <Facts data={data} />
        <section class="card" aria-labelledby="prompt-title">
          <div class="card-head">
            <h2 id="prompt-title">Prompt</h2>
            <p>
              <span class="mono">{data.scraper}</span>
              {data.country !== null && ` · ${data.country}`}
            </p>
          </div>
          <p class="prompt-text" data-testid="prompt">
            {data.prompt}
          </p>
        </section>
        {data.response !== null && data.evidence !== null ? (
          <div class="grid answer-grid">
            <Answer response={data.response} rendered={rendered} />
            <Evidence evidence={data.evidence} failure={false} />
          </div>
        ) : data.response !== null ? (
          <Answer response={data.response} rendered={rendered} />
        ) : (
          data.evidence !== null && <Evidence evidence={data.evidence} failure={data.status === "failed"} />
        )}
        {arranged !== null && arranged.details.length > 0 && (
          <section class="card" aria-labelledby="details-title">
            <div class="card-head">
              <h2 id="details-title">Details</h2>
            </div>
            <dl class="details-list">
              {arranged.details.map((detail) => (
                <div data-detail={detail.field}>
                  <dt>{detail.label}</dt>
                  <dd>{detail.text}</dd>
                </div>
              ))}
            </dl>
          </section>
        )}
        {arranged?.sections.map((section) => (
          <Section section={section} anchorOf={anchorOf} />
        ))}
        <RawJson data={data} />
      </main>
    </Layout>
  );
}
