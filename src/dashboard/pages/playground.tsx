/**
 * `/dashboard/playground`: run a scrape with one of the account's keys and see the answer, with the same request as
 * curl, Python and JavaScript beside the form. The form's fields come from the scrapers' declarations
 * (src/dashboard/playground/scraper-forms.ts); the page script shows only the chosen scraper's own parameters and
 * the countries it serves, keeps the snippets in step with the form and shows a live timer while a run waits.
 */
import type { ApiKeySummary } from "../../accounts/keys";
import { EVIDENCE_KINDS, type EvidenceKind } from "../../evidence/evidence-kinds";
import { describeEvidenceKinds, EVIDENCE_KIND_LABELS } from "../evidence-labels";
import { Ago, formatNumber } from "../format";
import { Layout, PageHead, type SignedInFrame } from "../layout";
import {
  evidenceFieldName,
  FORM_MARKER_FIELD,
  FORM_MARKER_VALUE,
  ownFieldName,
  type PlaygroundInput,
} from "../playground/playground-input";
import type { PlaygroundRunSummary } from "../playground/run-store";
import { type CountryOption, type PlaygroundScraper, type ScraperField, servesCountry } from "../playground/scraper-forms";
import type { Snippets } from "../playground/snippets";

interface PlaygroundPageData {
  scrapers: readonly PlaygroundScraper[];
  countries: readonly CountryOption[];
  /** The account's active keys. */
  keys: ApiKeySummary[];
  input: PlaygroundInput;
  snippets: Snippets;
  credits: number;
  creditsPerRequest: number;
  recentRuns: PlaygroundRunSummary[];
  /** The account's evidence default: what a run keeps when no kind is chosen. */
  accountEvidenceKinds: readonly EvidenceKind[];
  /** The last run's failure, or a prefilled link's refusal, shown above the form (the form keeps what was typed). */
  error?: PlaygroundRefusal;
}

/** The API's error for a run, or for a prefilled link checked before anything runs: its status, detail and code. */
export interface PlaygroundRefusal {
  status: number;
  detail: string;
  code: string;
  from: "run" | "link";
}

const COUNTRY_HINT =
  "The request is routed through this country, so the answer is localised. The list holds the countries this scraper serves.";

/** Said when the chosen country is not the scraper's; the page script fills the same template when the form changes. */
const UNSERVED_COUNTRY_HINT =
  "{scraper} does not serve {country}: a run with it is refused (HTTP 400) and costs nothing. Choose another country.";

function unservedCountryHint(scraperName: string, code: string): string {
  return UNSERVED_COUNTRY_HINT.replace("{scraper}", scraperName).replace("{country}", code);
}

/** Every country, plus the chosen code when it is none of them (a link's typo stays visible, and is refused as typed). */
function countryChoices(countries: readonly CountryOption[], chosen: string): ReadonlyArray<CountryOption & { unassigned?: true }> {
  return countries.some((country) => country.code === chosen)
    ? countries
    : [{ code: chosen, label: chosen, unassigned: true }, ...countries];
}

function countriesAttribute(codes: readonly string[] | null): string | undefined {
  return codes === null ? undefined : codes.join(" ");
}

function OwnField({ scraper, field, value }: { scraper: PlaygroundScraper; field: ScraperField; value: string }) {
  const id = `pg-${scraper.id}-${field.name}`;
  const name = ownFieldName(scraper.id, field.name);
  if (field.kind === "boolean") {
    return (
      <div class="field check-field">
        <label class="check">
          <input type="checkbox" id={id} name={name} value="true" checked={value === "true"} />
          <code>{field.name}</code>
          <span class="hint">(default {field.defaultValue === "true" ? "on" : "off"})</span>
        </label>
        <p class="hint">{field.description}</p>
      </div>
    );
  }
  return (
    <div class="field">
      <label for={id}>
        <code>{field.name}</code>
      </label>
      {field.kind === "choice" ? (
        <select id={id} name={name}>
          {field.choices.map((choice) => (
            <option value={choice} selected={choice === value}>
              {choice === field.defaultValue ? `${choice} (default)` : choice}
            </option>
          ))}
        </select>
      ) : (
        <input id={id} name={name} type="text" value={value} placeholder={field.defaultValue} />
      )}
      <p class="hint">{field.description}</p>
    </div>
  );
}

/** One fieldset per scraper; the page script shows the chosen one and disables the others so they are not sent. */
function OwnParameters({ scraper, input }: { scraper: PlaygroundScraper; input: PlaygroundInput }) {
  const chosen = scraper.id === input.scraper.id;
  return (
    <fieldset class="own-params" data-for-scraper={scraper.id} hidden={!chosen} disabled={!chosen}>
      <legend>{scraper.name} parameters</legend>
      {scraper.own.length === 0 ? (
        <p class="hint">This scraper has no parameters of its own: prompt and country are all it takes.</p>
      ) : (
        scraper.own.map((field) => (
          <OwnField scraper={scraper} field={field} value={chosen ? (input.own[field.name] ?? field.defaultValue) : field.defaultValue} />
        ))
      )}
    </fieldset>
  );
}

/** The evidence the run keeps: the kinds checked, or (none checked) the account's default, as for an API request. */
function EvidenceChoice({ input, accountKinds }: { input: PlaygroundInput; accountKinds: readonly EvidenceKind[] }) {
  return (
    <fieldset class="evidence-choice">
      <legend>Evidence</legend>
      {EVIDENCE_KINDS.map((kind) => (
        <label class="check">
          <input type="checkbox" name={evidenceFieldName(kind)} value="true" checked={input.evidence.includes(kind)} />
          {EVIDENCE_KIND_LABELS[kind]}
        </label>
      ))}
      <p class="hint" data-testid="evidence-default">
        Sent as the <code>X-Evidence</code> header; no extra credits, kept 24 hours, and the run is scraped afresh (never from the cache).
        None checked: your account's default applies ({describeEvidenceKinds(accountKinds)}; <a href="/dashboard#evidence">change it</a>).
      </p>
    </fieldset>
  );
}

function CodeBlock({ id, label, code }: { id: string; label: string; code: string }) {
  return (
    <div class="code-block">
      <div class="code-head">
        <span>{label}</span>
        <button class="btn btn-link btn-small" type="button" data-copy-text={id}>
          Copy
        </button>
      </div>
      <pre class="snippet code" id={id} data-snippet={id.replace("snippet-", "")}>
        {code}
      </pre>
    </div>
  );
}

function RecentRuns({ runs }: { runs: PlaygroundRunSummary[] }) {
  if (runs.length === 0) return null;
  return (
    <section class="card" aria-labelledby="runs-title">
      <div class="card-head">
        <h2 id="runs-title">Your recent runs</h2>
        <p>Runs that waited for their answer, kept 24 hours. Runs submitted as jobs are under Jobs.</p>
      </div>
      <div class="table-wrap">
        <table class="responsive" data-testid="recent-runs">
          <thead>
            <tr>
              <th>Scraper</th>
              <th>Prompt</th>
              <th>When</th>
              <th class="actions">
                <span class="visually-hidden">Open</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr data-run-id={run.jobId}>
                <td data-label="Scraper">
                  <span class="mono">{run.scraper}</span>
                </td>
                <td data-label="Prompt">{run.prompt}</td>
                <td data-label="When">
                  <Ago iso={run.createdAt} />
                </td>
                <td class="actions">
                  <a href={`/dashboard/results/${run.jobId}`}>View result</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export function PlaygroundPage({ frame, data }: { frame: SignedInFrame; data: PlaygroundPageData }) {
  const { input } = data;
  const canRun = data.keys.length > 0;
  const timeout = input.scraper.common.timeout;
  return (
    <Layout title="Playground" frame={frame}>
      <main>
        <PageHead title="Playground" subtitle="Try any scraper on a prompt, see the answer, and copy the same request as code." />
        {data.error !== undefined && (
          <div class="notice danger" role="alert" data-testid="run-error">
            <h2>
              {data.error.from === "link"
                ? `The API refuses this link's request (HTTP ${data.error.status})`
                : `The run was refused or failed (HTTP ${data.error.status})`}
            </h2>
            <p>
              <code data-testid="run-error-code">{data.error.code}</code>: <span data-testid="run-error-detail">{data.error.detail}</span>
            </p>
            <p class="hint">
              {data.error.from === "link" ? "Nothing was run or charged. Change it below, then run." : "Nothing was charged for it."}
            </p>
          </div>
        )}
        <div class="grid playground-grid">
          <section class="card" aria-labelledby="run-title">
            <div class="card-head">
              <h2 id="run-title">Request</h2>
            </div>
            <form method="post" action="/dashboard/playground" id="playground-form" data-playground-form="">
              <input type="hidden" name="_csrf" value={frame.csrf} />
              <input type="hidden" name={FORM_MARKER_FIELD} value={FORM_MARKER_VALUE} />
              <div class="field">
                <label for="pg-scraper">Scraper</label>
                <select id="pg-scraper" name="scraper" data-scraper-select="">
                  {data.scrapers.map((scraper) => (
                    <option
                      value={scraper.id}
                      selected={scraper.id === input.scraper.id}
                      data-refused={countriesAttribute(scraper.refusedCountries)}
                      data-allowed={countriesAttribute(scraper.allowedCountries)}
                    >
                      {`${scraper.name} — ${scraper.kind}`}
                    </option>
                  ))}
                </select>
                {data.scrapers.map((scraper) => (
                  <p class="hint" data-for-scraper={scraper.id} hidden={scraper.id !== input.scraper.id}>
                    {scraper.summary}
                  </p>
                ))}
              </div>
              <div class="field">
                <label for="pg-prompt">Prompt</label>
                <textarea
                  id="pg-prompt"
                  name="prompt"
                  rows={4}
                  required
                  maxlength={4000}
                  placeholder="What are people saying about the new Falcon launch?"
                >
                  {input.prompt}
                </textarea>
              </div>
              <div class="field">
                <label for="pg-country">Country</label>
                <select id="pg-country" name="country" data-country-select="">
                  {countryChoices(data.countries, input.country).map((country) => {
                    const chosen = country.code === input.country;
                    // Offered: the countries the scraper serves, and the chosen one whatever it is (never swapped silently).
                    const offered = chosen || servesCountry(input.scraper, country.code);
                    return (
                      <option
                        value={country.code}
                        selected={chosen}
                        hidden={!offered}
                        disabled={!offered}
                        data-unassigned={country.unassigned === true ? "" : undefined}
                      >
                        {country.label}
                      </option>
                    );
                  })}
                </select>
                <p class="hint" data-country-hint="" data-default-hint={COUNTRY_HINT} data-unserved-hint={UNSERVED_COUNTRY_HINT}>
                  {servesCountry(input.scraper, input.country) ? COUNTRY_HINT : unservedCountryHint(input.scraper.name, input.country)}
                </p>
              </div>
              {data.scrapers.map((scraper) => (
                <OwnParameters scraper={scraper} input={input} />
              ))}
              <EvidenceChoice input={input} accountKinds={data.accountEvidenceKinds} />
              <details class="more-options">
                <summary>More options</summary>
                <div class="field check-field">
                  <label class="check">
                    <input type="checkbox" id="pg-bypass-cache" name="bypass_cache" value="true" checked={input.bypassCache} />
                    <code>bypass_cache</code>
                  </label>
                  <p class="hint">{input.scraper.common.bypass_cache.description}</p>
                </div>
                <div class="field">
                  <label for="pg-timeout">
                    <code>timeout</code> (seconds)
                  </label>
                  <input
                    id="pg-timeout"
                    name="timeout"
                    type="number"
                    inputmode="numeric"
                    min={timeout.minimum}
                    max={timeout.maximum}
                    value={input.timeout}
                    placeholder={timeout.defaultValue}
                  />
                  <p class="hint">{timeout.description}</p>
                </div>
              </details>
              <div class="field">
                <label for="pg-key">API key</label>
                {canRun ? (
                  <select id="pg-key" name="key_id" data-key-select="">
                    {data.keys.map((key) => (
                      <option value={key.keyId} selected={key.keyId === input.keyId} data-prefix={key.displayPrefix}>
                        {`${key.name} (${key.displayPrefix}…)`}
                      </option>
                    ))}
                  </select>
                ) : (
                  <p class="notice info" data-testid="no-keys">
                    You have no active API key. <a href="/dashboard/keys">Create one</a> to run the playground: runs are made with one of
                    your keys.
                  </p>
                )}
                <p class="hint">The run is charged to this key and counts against its rate limit, like a request that carries it.</p>
              </div>
              <fieldset class="run-mode">
                <legend>Run</legend>
                <label class="check">
                  <input type="radio" name="run" value="sync" checked={input.run === "sync"} />
                  Wait for the answer <span class="hint">(the synchronous endpoint, with a live timer)</span>
                </label>
                <label class="check">
                  <input type="radio" name="run" value="job" checked={input.run === "job"} />
                  Submit as a job <span class="hint">(the jobs endpoint; the result page follows the job)</span>
                </label>
              </fieldset>
              <p class="hint credits-note" data-testid="credits-note">
                Each run costs {data.creditsPerRequest} credits of your balance (<strong>{formatNumber(data.credits)}</strong> left),
                charged as for any API request with the chosen key: a run that waits is charged only when it answers; a job is charged when
                it is submitted and refunded if every attempt fails.
              </p>
              <div class="run-row">
                <button class="btn btn-primary" type="submit" disabled={!canRun} data-run-button="">
                  Run · {data.creditsPerRequest} credits
                </button>
                <div class="run-status" data-run-status="" role="status" aria-live="polite" hidden>
                  <span class="spinner" aria-hidden="true"></span>
                  <span data-run-label="">Waiting for the answer…</span> <strong data-elapsed="">0.0 s</strong>
                </div>
              </div>
            </form>
          </section>
          <section class="card snippets" aria-labelledby="code-title">
            <div class="card-head">
              <h2 id="code-title">The same request as code</h2>
              <p>
                Each snippet reads your full key from <code>API_KEY</code> and this API's address from <code>API_URL</code> (only a key's
                first characters are stored, so no snippet can hold it). Standard library only: Python's <code>urllib.request</code>, and{" "}
                <code>fetch</code> in Node 18+ or a browser.
              </p>
            </div>
            <CodeBlock id="snippet-curl" label="curl" code={data.snippets.curl} />
            <CodeBlock id="snippet-python" label="Python (urllib.request)" code={data.snippets.python} />
            <CodeBlock id="snippet-javascript" label="JavaScript (fetch)" code={data.snippets.javascript} />
          </section>
        </div>
        <RecentRuns runs={data.recentRuns} />
      </main>
    </Layout>
  );
}
