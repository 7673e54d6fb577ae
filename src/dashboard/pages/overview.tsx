/** `/dashboard`: balance, 30-day usage chart, usage per scraper, recent balance changes and a quick start. */
import type { Account } from "../../accounts/accounts";
import type { DailyUsage, LedgerEntry, UsageSummary } from "../../accounts/usage";
import { CREDITS_PER_REQUEST } from "../../credits/ledger";
import { Ago, Time, formatNumber, formatSigned } from "../format";
import { Layout, PageHead, type SignedInFrame } from "../layout";
import type { AccountLimitsView } from "../../limits/limits-view";
import { LimitsCard } from "../limits-card";
import { EvidenceCard, type EvidenceCardState } from "../evidence-card";
import { buildSnippets, maskedKey } from "../playground/snippets";
import { Meter, UsageChart } from "../usage-chart";

/** The quick start's request, written by the playground's snippet writer: the same variables and quoting everywhere. */
function quickStartSnippet(baseUrl: string): string {
  return buildSnippets({
    baseUrl,
    scraper: "grok",
    query: [["prompt", "What is new with Starship?"]],
    maskedKey: maskedKey(null),
    run: "sync",
  }).curl;
}

/** Below this many requests' worth of credits the overview warns that the balance is running out. */
const LOW_BALANCE_REQUESTS = 20;

interface OverviewData {
  account: Account;
  usage: UsageSummary;
  daily: DailyUsage[];
  activeKeys: number;
  activity: LedgerEntry[];
  baseUrl: string;
  limits: AccountLimitsView;
  evidence: EvidenceCardState;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function describeEntry(entry: LedgerEntry): string {
  const what = entry.isJob ? "job" : "request";
  switch (entry.kind) {
    case "charge":
      return `${entry.scraper ?? "Scrape"} ${what}`;
    case "refund":
      return `Refund: ${entry.scraper ?? "scrape"} ${what} (${entry.reason})`;
    default:
      return capitalise(entry.reason);
  }
}

function ActivityTable({ entries }: { entries: LedgerEntry[] }) {
  if (entries.length === 0) {
    return (
      <div class="empty">
        <strong>No activity yet</strong>
        Balance changes appear here as you use the API.
      </div>
    );
  }
  return (
    <div class="table-wrap">
      <table class="responsive">
        <thead>
          <tr>
            <th>When</th>
            <th>What</th>
            <th>Key</th>
            <th class="num">Credits</th>
            <th class="num">Balance</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr>
              <td data-label="When">
                <Ago iso={entry.createdAt} />
              </td>
              <td data-label="What">{describeEntry(entry)}</td>
              <td data-label="Key">{entry.keyName ?? "—"}</td>
              <td data-label="Credits" class={`num ${entry.delta > 0 ? "positive" : "negative"}`}>
                {formatSigned(entry.delta)}
              </td>
              <td data-label="Balance" class="num">
                {formatNumber(entry.balanceAfter)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ScraperUsage({ usage }: { usage: UsageSummary }) {
  if (usage.byScraper.length === 0) {
    return (
      <div class="empty">
        <strong>No requests in the last 30 days</strong>
        Each scrape costs {CREDITS_PER_REQUEST} credits.
      </div>
    );
  }
  const top = Math.max(...usage.byScraper.map((row) => row.requests));
  return (
    <ul class="usage-list">
      {usage.byScraper.map((row) => (
        <li>
          <div class="usage-row">
            <span class="mono">{row.scraper}</span>
            <span>
              {formatNumber(row.requests)} {row.requests === 1 ? "request" : "requests"} · {formatNumber(row.credits)} credits
            </span>
          </div>
          <Meter fraction={row.requests / top} />
        </li>
      ))}
    </ul>
  );
}

export function OverviewPage({ frame, data }: { frame: SignedInFrame; data: OverviewData }) {
  const { account, usage } = data;
  const low = account.credits < LOW_BALANCE_REQUESTS * CREDITS_PER_REQUEST;
  return (
    <Layout title="Overview" frame={frame}>
      <main>
        <PageHead title="Overview" subtitle={`${account.name}${account.email !== null ? ` · ${account.email}` : ""}`}>
          <a class="btn btn-primary" href="/dashboard/keys">
            Manage API keys
          </a>
        </PageHead>
        {low && (
          <div class="notice danger" role="status">
            <h2>Your balance is running low</h2>
            <p>
              {formatNumber(account.credits)} credits left, enough for {formatNumber(Math.floor(account.credits / CREDITS_PER_REQUEST))}{" "}
              more requests. Requests are refused with HTTP 429 once the balance is spent. Contact your account manager to top up.
            </p>
          </div>
        )}
        <section class="grid stats" aria-label="Summary">
          <div class="card">
            <div class="stat-label">Credits remaining</div>
            <div class={low ? "stat-value low" : "stat-value"} data-testid="credits-remaining">
              {formatNumber(account.credits)}
            </div>
            <div class="stat-note">
              ≈ {formatNumber(Math.floor(account.credits / CREDITS_PER_REQUEST))} requests at {CREDITS_PER_REQUEST} credits each
            </div>
          </div>
          <div class="card">
            <div class="stat-label">Used in the last 30 days</div>
            <div class="stat-value" data-testid="credits-used">
              {formatNumber(usage.creditsUsed)}
            </div>
            <div class="stat-note">
              credits over {formatNumber(usage.requests)} {usage.requests === 1 ? "request" : "requests"}
            </div>
          </div>
          <div class="card">
            <div class="stat-label">Active API keys</div>
            <div class="stat-value">{formatNumber(data.activeKeys)}</div>
            <div class="stat-note">
              <a href="/dashboard/keys">{data.activeKeys === 0 ? "Create your first key →" : "View and manage keys →"}</a>
            </div>
          </div>
        </section>

        <section class="card" aria-labelledby="usage-title">
          <div class="card-head">
            <h2 id="usage-title">Credits used per day</h2>
            <p>Last 30 days, UTC · refunded requests excluded</p>
          </div>
          <UsageChart days={data.daily} size="wide" />
          <UsageChart days={data.daily} size="compact" />
        </section>

        <div class="grid two-col">
          <section class="card" aria-labelledby="activity-title">
            <div class="card-head">
              <h2 id="activity-title">Recent activity</h2>
              <p>Every change to your balance</p>
            </div>
            <ActivityTable entries={data.activity} />
          </section>
          <div class="stack">
            <section class="card" aria-labelledby="scrapers-title">
              <div class="card-head">
                <h2 id="scrapers-title">By scraper</h2>
                <p>Last 30 days</p>
              </div>
              <ScraperUsage usage={usage} />
            </section>
            <LimitsCard limits={data.limits} />
            <section class="card" aria-labelledby="start-title">
              <div class="card-head">
                <h2 id="start-title">Quick start</h2>
              </div>
              <p class="hint">Send your key in the X-API-Key header. Each request costs {CREDITS_PER_REQUEST} credits.</p>
              <pre class="snippet code" data-testid="quick-start">
                <code>{quickStartSnippet(data.baseUrl)}</code>
              </pre>
              <p class="hint">
                The same in Python and JavaScript, with every parameter: <a href="/dashboard/playground">try it in the playground</a> · Full
                reference: <a href="/docs">API docs</a> · Member since <Time iso={account.createdAt} />
              </p>
            </section>
          </div>
        </div>
        <EvidenceCard state={data.evidence} csrf={frame.csrf} />
      </main>
    </Layout>
  );
}
