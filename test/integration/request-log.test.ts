/**
 * Issue 36, part 7: a request id in the response, the logs and the dashboard. Every synchronous scrape, job and batch
 * request is listed on the dashboard's Requests page (newest first) with its X-Request-Id, status code, outcome,
 * credits and a link to its result, to its own account only; a job keeps the id of the request that created it, and
 * the lines its attempts log start with `[<request id> job <job id>]` (docs/errors.md "Request ids", docs/dashboard.md).
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pruneRequestLog } from "../../src/accounts/request-log";
import worker from "../../src/index";
import { adminJson } from "../support/workers/account-helpers";
import { createUnqueuedJob, seedAnswer } from "../support/workers/async-helpers";
import { signedInVisitor } from "../support/workers/dashboard-visitor";
import { api, BASE, createTestAccount, query, type TestAccount } from "../support/workers/helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

/** A country whose pool may launch no browser: a scrape that needs one fails at once (503), with nothing to wait for. */
const NO_BROWSER_COUNTRY = "IS";

/** One row of the Requests page as the test reads it back from the HTML (the page's own `data-*` attributes). */
interface ListedRow {
  requestId: string;
  html: string;
}

function rowsOf(html: string): ListedRow[] {
  return [...html.matchAll(/<tr data-request-id="([^"]+)">([\s\S]*?)<\/tr>/g)].map((match) => ({
    requestId: match[1] ?? "",
    html: match[2] ?? "",
  }));
}

function rowOf(html: string, requestId: string): string {
  const row = rowsOf(html).find((listed) => listed.requestId === requestId);
  expect(row, `a row for ${requestId}`).toBeDefined();
  return row?.html ?? "";
}

function cell(row: string, label: string): string {
  return new RegExp(`<td data-label="${label}"[^>]*>([\\s\\S]*?)</td>`).exec(row)?.[1] ?? "";
}

async function requestsPage(accountId: string, path = "/dashboard/requests"): Promise<string> {
  const { visitor } = await signedInVisitor(accountId);
  const response = await visitor.get(path);
  expect(response.status).toBe(200);
  return response.text();
}

/** The rows are written after each response (waitUntil): the page is read once they are all there. */
async function requestsPageListing(account: TestAccount, requestIds: readonly string[], path?: string): Promise<string> {
  for (let look = 0; look < 50; look += 1) {
    const html = await requestsPage(account.accountId, path);
    const listed = new Set(rowsOf(html).map((row) => row.requestId));
    if (requestIds.every((id) => listed.has(id))) return html;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the Requests page never listed ${requestIds.join(", ")}`);
}

describe("the Requests page", () => {
  it("lists a sync scrape, a job, a batch and a failed scrape with their ids, codes and credits; another account sees none", async () => {
    await adminJson(`/admin/pools/${NO_BROWSER_COUNTRY}/config`, { method: "POST", body: { launches_per_minute: 0 } });
    const account = await createTestAccount(100);
    const prompt = "What changed in the launch schedule?";
    await seedAnswer(account.accountId, prompt);

    const sync = await api(`/scrapers/grok?${query({ prompt })}`, { apiKey: account.apiKey, headers: { "X-Request-Id": "ticket-sync.1" } });
    expect(sync.status).toBe(200);
    const syncJobId = String(((await sync.json()) as { job_id: string }).job_id);

    const job = await api(`/scrapers/grok/jobs?${query({ prompt })}`, {
      method: "POST",
      apiKey: account.apiKey,
      headers: { "X-Request-Id": "ticket-job.1" },
    });
    expect(job.status).toBe(202);
    const { job_id: jobId } = (await job.json()) as { job_id: string };

    const batchResponse = await api("/batches", {
      method: "POST",
      apiKey: account.apiKey,
      headers: { "Content-Type": "application/json", "X-Request-Id": "ticket-batch.1" },
      body: JSON.stringify({ scraper: "grok", items: [{ prompt }, { prompt }] }),
    });
    expect(batchResponse.status).toBe(202);
    const { batch_id: batchId } = (await batchResponse.json()) as { batch_id: string };

    const failed = await api(
      `/scrapers/grok?${query({ prompt: "Needs a browser", country: NO_BROWSER_COUNTRY, bypass_cache: "true", timeout: "30" })}`,
      { apiKey: account.apiKey, headers: { "X-Request-Id": "ticket-failed.1" } },
    );
    expect(failed.status).toBe(503);
    const failedCode = ((await failed.json()) as { code: string }).code;

    const ids = ["ticket-sync.1", "ticket-job.1", "ticket-batch.1", "ticket-failed.1"];
    const html = await requestsPageListing(account, ids);
    // newest first
    expect(rowsOf(html).map((row) => row.requestId)).toEqual([...ids].reverse());

    const syncRow = rowOf(html, "ticket-sync.1");
    expect(cell(syncRow, "Kind")).toContain("Sync");
    expect(cell(syncRow, "Scraper")).toContain("grok");
    expect(syncRow).toContain('data-status-code="200"');
    expect(syncRow).toContain('data-outcome="done"');
    expect(syncRow).toContain('data-credits="3"');
    expect(cell(syncRow, "Result")).toContain(`href="/md/${syncJobId}.md"`);

    const jobRow = rowOf(html, "ticket-job.1");
    expect(cell(jobRow, "Kind")).toContain("Job");
    expect(jobRow).toContain('data-status-code="202"');
    expect(jobRow).toContain('data-outcome="queued"');
    expect(jobRow).toContain('data-credits="3"');
    expect(cell(jobRow, "Result")).toContain(`href="/dashboard/results/${jobId}"`);

    const batchRow = rowOf(html, "ticket-batch.1");
    expect(cell(batchRow, "Kind")).toContain("Batch");
    expect(cell(batchRow, "Kind")).toContain("2 items");
    expect(batchRow).toContain('data-status-code="202"');
    expect(batchRow).toContain('data-credits="6"');
    expect(batchId).toMatch(/^[0-9a-f-]{36}$/);

    const failedRow = rowOf(html, "ticket-failed.1");
    expect(failedRow).toContain('data-status-code="503"');
    expect(failedRow).toContain('data-outcome="failed"');
    expect(cell(failedRow, "Status")).toContain(failedCode);
    // refunded before it answered: it cost nothing, and there is no result to link to
    expect(failedRow).toContain('data-credits="0"');
    expect(cell(failedRow, "Result")).not.toContain("href=");

    // the filter keeps one kind
    const jobsOnly = await requestsPage(account.accountId, "/dashboard/requests?kind=job");
    expect(rowsOf(jobsOnly).map((row) => row.requestId)).toEqual(["ticket-job.1"]);

    // the Jobs page names the request behind each job, the batch's jobs included
    const { visitor } = await signedInVisitor(account.accountId);
    const jobsPage = await (await visitor.get("/dashboard/jobs")).text();
    expect(jobsPage).toMatch(new RegExp(`data-job-id="${jobId}"[\\s\\S]*?data-testid="job-request-id">ticket-job\\.1<`));
    expect(jobsPage.match(/data-testid="job-request-id">ticket-batch\.1</g)).toHaveLength(2);

    // another account sees none of them
    const stranger = await createTestAccount();
    const strangersPage = await requestsPage(stranger.accountId);
    expect(rowsOf(strangersPage)).toEqual([]);
    for (const id of ids) expect(strangersPage).not.toContain(id);
    expect(strangersPage).toContain("No requests yet");
  });

  it("pages newest first, 50 rows a page, with an Older link and no row twice", async () => {
    const account = await createTestAccount(1000);
    const prompt = "Paged?";
    await seedAnswer(account.accountId, prompt);
    const ids = Array.from({ length: 52 }, (_, index) => `page-${String(index).padStart(2, "0")}`);
    for (const id of ids) {
      const response = await api(`/scrapers/grok?${query({ prompt })}`, { apiKey: account.apiKey, headers: { "X-Request-Id": id } });
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
    const first = await requestsPageListing(account, [ids[51] ?? "", ids[2] ?? ""]);
    expect(rowsOf(first).map((row) => row.requestId)).toEqual(ids.slice(2).reverse());
    const older = /<a class="btn btn-secondary btn-small" href="([^"]+)" rel="next">/.exec(first)?.[1]?.replaceAll("&amp;", "&");
    expect(older).toMatch(/^\/dashboard\/requests\?before=\d+$/);
    const second = await requestsPage(account.accountId, older);
    expect(rowsOf(second).map((row) => row.requestId)).toEqual(["page-01", "page-00"]);
    expect(second).not.toContain('rel="next"');
  });

  it("lists an MCP tool call under the id of the POST /mcp that carried it, marked via MCP", async () => {
    const account = await createTestAccount();
    const prompt = "Asked by an assistant";
    await seedAnswer(account.accountId, prompt);
    const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
      fetch: (url, init) => exports.default.fetch(new Request(url, init)),
      requestInit: { headers: { "X-API-Key": account.apiKey, "X-Request-Id": "assistant-call.9" } },
    });
    const client = new Client({ name: "request-log-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      const result = await client.callTool({ name: "scrape_grok", arguments: { prompt } });
      expect(result.isError).not.toBe(true);
    } finally {
      await client.close();
    }
    const row = rowOf(await requestsPageListing(account, ["assistant-call.9"]), "assistant-call.9");
    expect(cell(row, "Kind")).toContain("via MCP");
    expect(row).toContain('data-status-code="200"');
    expect(row).toContain('data-credits="3"');
  });

  it("refuses a filter it does not know with a 400 page", async () => {
    const account = await createTestAccount();
    const { visitor } = await signedInVisitor(account.accountId);
    for (const path of ["/dashboard/requests?kind=everything", "/dashboard/requests?before=abc", "/dashboard/requests?before=0"]) {
      const response = await visitor.get(path);
      expect(response.status, path).toBe(400);
      expect(await response.text()).toContain("Unknown filter");
    }
  });

  it("keeps 30 days: the sweep deletes older rows and leaves newer ones", async () => {
    const account = await createTestAccount();
    const day = 86_400_000;
    const insert = env.DB.prepare(
      `INSERT INTO request_log (request_id, account_id, key_id, surface, kind, scraper, status_code, outcome, latency_ms, credits, created_at)
       VALUES (?, ?, ?, 'api', 'sync', 'grok', 200, 'done', 1000, 3, ?)`,
    );
    await env.DB.batch([
      insert.bind("kept-29-days", account.accountId, account.keyId, new Date(Date.now() - 29 * day).toISOString()),
      insert.bind("gone-31-days", account.accountId, account.keyId, new Date(Date.now() - 31 * day).toISOString()),
    ]);
    await pruneRequestLog(env.DB);
    const { results } = await env.DB.prepare("SELECT request_id FROM request_log WHERE account_id = ?")
      .bind(account.accountId)
      .all<{ request_id: string }>();
    expect(results.map((row) => row.request_id)).toEqual(["kept-29-days"]);
  });
});

describe("log lines name the request", () => {
  /** A response cache whose every entry is malformed: the pipeline logs it (under the request's id) and scrapes. */
  const malformedCache: Pick<KVNamespace, "get" | "put"> = {
    get: () => Promise.resolve(JSON.parse('{"not":"an answer"}')),
    put: () => Promise.resolve(),
  };

  function captureConsole(): string[] {
    const lines: string[] = [];
    const capture = (...parts: unknown[]) => {
      lines.push(parts.map(String).join(" "));
    };
    vi.spyOn(console, "error").mockImplementation(capture);
    vi.spyOn(console, "warn").mockImplementation(capture);
    vi.spyOn(console, "log").mockImplementation(capture);
    return lines;
  }

  it("a job's attempt logs under the id of the request that created it, and the job's id", async () => {
    await adminJson(`/admin/pools/${NO_BROWSER_COUNTRY}/config`, { method: "POST", body: { launches_per_minute: 0 } });
    const account = await createTestAccount();
    const params = { prompt: "Logged job", country: NO_BROWSER_COUNTRY, bypass_cache: false, timeout: 30, mode: "MODEL_MODE_AUTO" };
    // As a submission with `X-Request-Id: ticket-job-log.7` leaves it: charged, indexed, its record created, no message.
    const jobId = await createUnqueuedJob(account, params, Date.now(), "ticket-job-log.7");

    const lines = captureConsole();
    const batch = createMessageBatch("scrape-jobs", [{ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: { jobId } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, CACHE: malformedCache as KVNamespace });
    await getQueueResult(batch, ctx);

    const prefix = `[ticket-job-log.7 job ${jobId}] `;
    expect(lines.some((line) => line.startsWith(`${prefix}grok answer does not match its schema`))).toBe(true);
    const aboutTheJob = lines.filter((line) => line.includes(jobId));
    expect(aboutTheJob.length).toBeGreaterThan(0);
    for (const line of aboutTheJob) expect(line.startsWith(prefix), line).toBe(true);
  });

  it("a synchronous scrape's pipeline lines start with the request's id", async () => {
    await adminJson(`/admin/pools/${NO_BROWSER_COUNTRY}/config`, { method: "POST", body: { launches_per_minute: 0 } });
    const account = await createTestAccount();
    const lines = captureConsole();
    const request = new Request(`${BASE}/scrapers/grok?${query({ prompt: "Logged sync", country: NO_BROWSER_COUNTRY, timeout: "30" })}`, {
      headers: { "X-API-Key": account.apiKey, "X-Request-Id": "ticket-sync-log.3" },
    });
    const response = await worker.fetch(request, { ...env, CACHE: malformedCache as KVNamespace }, createExecutionContext());
    expect(response.status).toBe(503);
    await response.body?.cancel();
    expect(lines.some((line) => line.startsWith("[ticket-sync-log.3] grok answer does not match its schema"))).toBe(true);
    for (const line of lines) expect(line.startsWith("[ticket-sync-log.3] "), line).toBe(true);
  });
});
