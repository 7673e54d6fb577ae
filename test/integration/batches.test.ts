/**
 * Batches (issue #15): POST /batches validates every item with the scraper's own query schema (400 naming the index and
 * parameter, nothing charged), charges all items at once or none, and GET /batches/{batch_id} reports the caller's own
 * batch. Jobs run through the real queue and Durable Objects as cache hits (no browser).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BATCH_NOT_FOUND_DETAIL } from "../../src/http/batches";
import { SCRAPER_IDS } from "../../src/scrapers/registry";
import { adminApi } from "../support/workers/account-helpers";
import { postBatch, seedAnswer, waitFor, waitForTerminal } from "../support/workers/async-helpers";
import { api, balanceOf, createTestAccount, ledgerOf } from "../support/workers/helpers";

interface Submitted {
  batch_id: string;
  job_ids: string[];
  status: string;
}

interface BatchStatus {
  batch_id: string;
  scraper: string;
  status: "pending" | "done";
  created_at: string;
  webhook_url: string | null;
  total: number;
  counts: { pending: number; done: number; failed: number };
  jobs: Array<{ job_id: string; status: string }>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function detailOf(response: Response): Promise<string> {
  return ((await response.json()) as { detail: string }).detail;
}

async function jobRowCount(accountId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM jobs WHERE account_id = ?").bind(accountId).first<{ n: number }>();
  return row?.n ?? -1;
}

describe("POST /batches", () => {
  it("202 {batch_id, job_ids, status: pending}; 3 credits per item charged at once, one ledger row per job; every job runs", async () => {
    const account = await createTestAccount(100);
    const prompts = ["First batch prompt", "Second batch prompt", "Third batch prompt"].map((text) => `${text} ${crypto.randomUUID()}`);
    for (const prompt of prompts) await seedAnswer(account.accountId, prompt);
    const response = await postBatch({ scraper: "grok", items: prompts.map((prompt) => ({ prompt })) }, { apiKey: account.apiKey });
    expect(response.status).toBe(202);
    const body = (await response.json()) as Submitted;
    expect(Object.keys(body).sort()).toEqual(["batch_id", "job_ids", "status"]);
    expect(body.status).toBe("pending");
    expect(body.batch_id).toMatch(UUID);
    expect(body.job_ids).toHaveLength(3);
    for (const id of body.job_ids) expect(id).toMatch(UUID);
    expect(new Set(body.job_ids).size).toBe(3);
    expect(response.headers.get("X-Credits-Remaining")).toBe("91");
    expect(await balanceOf(account.accountId)).toBe(91);

    const ledger = await ledgerOf(account.accountId);
    expect(ledger.map((row) => [row.kind, row.delta, row.operation_id])).toEqual(body.job_ids.map((id) => ["charge", -3, id]));
    const balances = await env.DB.prepare("SELECT balance_after FROM credit_ledger WHERE account_id = ? ORDER BY id")
      .bind(account.accountId)
      .all<{ balance_after: number }>();
    expect(balances.results.map((row) => row.balance_after)).toEqual([97, 94, 91]);

    const finished = await Promise.all(body.job_ids.map((id) => waitForTerminal(id)));
    // Item order is job order: each job answered its own item's prompt.
    expect(finished.map((job) => [job.status, job.result?.prompt])).toEqual(prompts.map((prompt) => ["done", prompt]));
    const status = await waitFor("the batch to be done", async () => {
      const reply = await api(`/batches/${body.batch_id}`, { apiKey: account.apiKey });
      expect(reply.status).toBe(200);
      const batch = (await reply.json()) as BatchStatus;
      return batch.status === "done" ? batch : undefined;
    });
    expect(status).toMatchObject({
      batch_id: body.batch_id,
      scraper: "grok",
      webhook_url: null,
      total: 3,
      counts: { pending: 0, done: 3, failed: 0 },
    });
    expect(status.created_at).toMatch(/\+00:00$/);
    expect(status.jobs).toEqual(body.job_ids.map((id) => ({ job_id: id, status: "done" })));
    expect(await balanceOf(account.accountId)).toBe(91);
  });

  it("items take the query parameters as strings, or as JSON numbers and booleans read as their string form", async () => {
    const account = await createTestAccount(100);
    const prompt = `Typed values ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const response = await postBatch(
      {
        scraper: "grok",
        items: [
          { prompt, country: "us", timeout: 60, bypass_cache: false, mode: "MODEL_MODE_AUTO" },
          { prompt, country: "US", timeout: "45", bypass_cache: "no" },
        ],
      },
      { apiKey: account.apiKey },
    );
    expect(response.status).toBe(202);
    const { job_ids: jobIds } = (await response.json()) as Submitted;
    const done = await Promise.all(jobIds.map((id) => waitForTerminal(id)));
    expect(done.map((job) => [job.status, job.result?.country, job.result?.cached])).toEqual([
      ["done", "US", true],
      ["done", "US", true],
    ]);
  });

  it("one invalid item is a 400 naming its index and parameter, and nothing is charged or created", async () => {
    const account = await createTestAccount(100);
    const good = { prompt: "fine" };
    const cases: Array<[unknown, string]> = [
      [
        { scraper: "grok", items: [good, good, { prompt: "x", country: "JP" }] },
        "items[2].country: JP is not supported by the grok scraper",
      ],
      [{ scraper: "grok", items: [good, { prompt: "   " }] }, "items[1].prompt: must be 1 to 4000 characters and not blank"],
      [{ scraper: "grok", items: [{ country: "US" }] }, "items[0].prompt: is required"],
      [
        { scraper: "grok", items: [good, { prompt: "x", mode: "TURBO" }] },
        "items[1].mode: must be one of MODEL_MODE_AUTO, MODEL_MODE_FAST, MODEL_MODE_EXPERT",
      ],
      [
        { scraper: "grok", items: [good, good, good, { prompt: "x", timeout: 5 }] },
        "items[3].timeout: must be a number of seconds from 10 to 600, written in digits only (such as 300)",
      ],
      [
        { scraper: "grok", items: [{ prompt: "x", web_search: "true" }] },
        "items[0]: Unknown parameter: web_search. The grok scraper accepts: prompt, country, bypass_cache, timeout, mode.",
      ],
      [
        { scraper: "perplexity", items: [{ prompt: "x", web_search: "maybe" }] },
        "items[0].web_search: must be a boolean: true/false, 1/0, yes/no or on/off",
      ],
      [
        { scraper: "grok", items: [good, { prompt: "x", api_key: "sk_x" }] },
        "items[1].api_key: is not accepted in a batch item; send the key in the X-API-Key header",
      ],
      [{ scraper: "grok", items: [{ prompt: "x", timeout: { seconds: 60 } }] }, "items[0].timeout: must be a string, number or boolean"],
      [{ scraper: "grok", items: [good, "just a prompt"] }, 'items[1]: must be an object of parameters, such as {"prompt": "…"}'],
      [{ scraper: "grok", items: [] }, "items: must be an array of 1 to 500 items"],
      [{ scraper: "grok", items: Array.from({ length: 501 }, () => good) }, "items: must be an array of 1 to 500 items"],
      [{ scraper: "grok" }, "items: is required"],
      [{ items: [good] }, "scraper: is required"],
      [{ scraper: "bard", items: [good] }, `scraper: must be one of ${SCRAPER_IDS.join(", ")}`],
      [{ scraper: "grok", items: [good], priority: "high" }, "Unknown field: priority. A batch accepts: scraper, items, webhook_url."],
      [
        { scraper: "grok", items: [good], webhook_url: "ftp://hooks.example.com/x" },
        "webhook_url: must use https (http is accepted only for loopback addresses here)",
      ],
      [
        { scraper: "grok", items: [good], webhook_url: "https://user:secret@public.example/x" },
        "webhook_url: must not contain a user name or password",
      ],
      [[good], 'Request body: must be a JSON object {"scraper", "items", "webhook_url"?}'],
    ];
    for (const [body, detail] of cases) {
      const response = await postBatch(body, { apiKey: account.apiKey });
      expect(response.status, detail).toBe(400);
      expect(await detailOf(response)).toBe(detail);
    }
    const malformed = await postBatch(null, { apiKey: account.apiKey, rawBody: '{"scraper": "grok", "items": [' });
    expect(malformed.status).toBe(400);
    expect(await detailOf(malformed)).toMatch(/^Request body: must be a JSON object/);
    const query = await api("/batches?scraper=grok", {
      method: "POST",
      apiKey: account.apiKey,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ scraper: "grok", items: [good] }),
    });
    expect(query.status).toBe(400);
    expect(await detailOf(query)).toBe("Unknown query parameter: scraper. A batch's parameters go in the JSON body.");
    expect(await balanceOf(account.accountId)).toBe(100);
    expect(await ledgerOf(account.accountId)).toEqual([]);
    expect(await jobRowCount(account.accountId)).toBe(0);
  });

  it("the key is checked before the body (issue 30): 401 without one, even for an invalid body; the api_key query parameter works", async () => {
    const account = await createTestAccount(100);
    const missing = await postBatch({ scraper: "grok", items: [{ prompt: "hi" }] });
    expect(missing.status).toBe(401);
    expect(await detailOf(missing)).toMatch(/X-API-Key/);
    const invalidBody = await postBatch({ scraper: "grok", items: [] });
    expect(invalidBody.status).toBe(401);
    const prompt = `Query key ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const viaQuery = await api(`/batches?api_key=${encodeURIComponent(account.apiKey)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ scraper: "grok", items: [{ prompt }] }),
    });
    expect(viaQuery.status).toBe(202);
    expect(await balanceOf(account.accountId)).toBe(97);
  });
});

describe("credits: all items or none", () => {
  it("a batch the balance cannot cover in full is a 429 and charges nothing, creates nothing", async () => {
    const account = await createTestAccount(3 * 4 - 1);
    const response = await postBatch(
      { scraper: "grok", items: Array.from({ length: 4 }, (_, index) => ({ prompt: `p${index}` })) },
      { apiKey: account.apiKey },
    );
    expect(response.status).toBe(429);
    expect(await detailOf(response)).toBe(
      "Credit limit reached: this request needs 12 credits and the account has 11. Top up to continue.",
    );
    // no Retry-After on a credit 429: waiting does not help, only a top-up does
    expect(response.headers.get("Retry-After")).toBeNull();
    expect(await balanceOf(account.accountId)).toBe(11);
    expect(await ledgerOf(account.accountId)).toEqual([]);
    expect(await jobRowCount(account.accountId)).toBe(0);
    const batches = await env.DB.prepare("SELECT COUNT(*) AS n FROM batches WHERE account_id = ?")
      .bind(account.accountId)
      .first<{ n: number }>();
    expect(batches?.n).toBe(0);
  });

  it("two concurrent batches that only one balance can pay: exactly one is accepted, the balance ends at 0", async () => {
    const account = await createTestAccount(30);
    const prompt = `Concurrent batch ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const items = Array.from({ length: 10 }, () => ({ prompt }));
    const responses = await Promise.all([0, 1, 2].map(() => postBatch({ scraper: "grok", items }, { apiKey: account.apiKey })));
    expect(responses.map((response) => response.status).sort()).toEqual([202, 429, 429]);
    expect(await balanceOf(account.accountId)).toBe(0);
    expect((await ledgerOf(account.accountId)).filter((row) => row.kind === "charge")).toHaveLength(10);
    expect(await jobRowCount(account.accountId)).toBe(10);
  });

  it("500 items, the most a batch takes, are accepted and charged 1,500 credits at once", async () => {
    const account = await createTestAccount(1500);
    const prompt = `Largest batch ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const response = await postBatch(
      { scraper: "grok", items: Array.from({ length: 500 }, () => ({ prompt })) },
      { apiKey: account.apiKey },
    );
    expect(response.status).toBe(202);
    const body = (await response.json()) as Submitted;
    expect(body.job_ids).toHaveLength(500);
    expect(new Set(body.job_ids).size).toBe(500);
    expect(await balanceOf(account.accountId)).toBe(0);
    expect((await ledgerOf(account.accountId)).filter((row) => row.kind === "charge")).toHaveLength(500);
    const status = (await (await api(`/batches/${body.batch_id}`, { apiKey: account.apiKey })).json()) as BatchStatus;
    expect(status.total).toBe(500);
    expect(status.jobs.map((job) => job.job_id)).toEqual(body.job_ids);
    expect(status.counts.pending + status.counts.done + status.counts.failed).toBe(500);
  });
});

describe("GET /batches/{batch_id}", () => {
  it("is the caller's own: another account's, unknown and malformed ids are 404; no key is 401", async () => {
    const owner = await createTestAccount(100);
    const stranger = await createTestAccount(100);
    const prompt = `Owned batch ${crypto.randomUUID()}`;
    await seedAnswer(owner.accountId, prompt);
    const { batch_id: batchId } = (await (
      await postBatch({ scraper: "grok", items: [{ prompt }] }, { apiKey: owner.apiKey })
    ).json()) as Submitted;
    expect((await api(`/batches/${batchId}`, { apiKey: owner.apiKey })).status).toBe(200);
    expect((await api(`/batches/${batchId.toUpperCase()}`, { apiKey: owner.apiKey })).status).toBe(200);
    for (const path of [`/batches/${batchId}`, `/batches/${crypto.randomUUID()}`, "/batches/not-a-batch"]) {
      const response = await api(path, { apiKey: stranger.apiKey });
      expect(response.status, path).toBe(404);
      expect(await detailOf(response)).toBe(BATCH_NOT_FOUND_DETAIL);
    }
    expect((await api(`/batches/${batchId}`)).status).toBe(401);
  });

  it("a batch past the 24-hour retention is 404", async () => {
    const account = await createTestAccount(100);
    const prompt = `Old batch ${crypto.randomUUID()}`;
    await seedAnswer(account.accountId, prompt);
    const { batch_id: batchId } = (await (
      await postBatch({ scraper: "grok", items: [{ prompt }] }, { apiKey: account.apiKey })
    ).json()) as Submitted;
    await env.DB.prepare("UPDATE batches SET created_at = ? WHERE batch_id = ?")
      .bind(new Date(Date.now() - 24 * 3_600_000 - 1_000).toISOString(), batchId)
      .run();
    expect((await api(`/batches/${batchId}`, { apiKey: account.apiKey })).status).toBe(404);
  });
});

describe("OpenAPI", () => {
  it("documents the batch, listing and webhook routes and the Idempotency-Key header", async () => {
    const spec = (await (await api("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown> }>>;
    };
    expect(spec.paths["/batches"]?.post?.responses).toHaveProperty("202");
    expect(spec.paths["/batches"]?.post?.responses).toHaveProperty("409");
    expect(spec.paths["/batches/{batch_id}"]?.get).toBeDefined();
    expect(spec.paths["/jobs"]?.get?.parameters?.map((parameter) => parameter.name).sort()).toEqual([
      "api_key",
      "cursor",
      "limit",
      "scraper",
      "status",
    ]);
    // The key holder's webhook routes for customers, the operator's in the operator's document.
    const operator = (await (await adminApi("/admin/openapi.json")).json()) as typeof spec;
    const expectWebhookRoutes = (paths: typeof spec.paths, path: string) => {
      expect(Object.keys(paths[path] ?? {}).sort(), path).toEqual(["delete", "get", "put"]);
      expect(paths[`${path}/rotate-secret`]?.post, path).toBeDefined();
      expect(paths[`${path}/deliveries`]?.get, path).toBeDefined();
    };
    expectWebhookRoutes(spec.paths, "/account/webhook");
    expectWebhookRoutes(operator.paths, "/admin/accounts/{account_id}/webhook");
    for (const path of ["/batches", ...SCRAPER_IDS.map((id) => `/scrapers/${id}/jobs`)]) {
      const headers = spec.paths[path]?.post?.parameters
        ?.filter((parameter) => parameter.in === "header")
        .map((parameter) => parameter.name);
      // a batch asks for evidence per item (`items[].evidence`); a job with the X-Evidence header
      expect(headers, path).toEqual(path === "/batches" ? ["Idempotency-Key"] : ["Idempotency-Key", "X-Evidence"]);
      expect(spec.paths[path]?.post?.responses, path).toHaveProperty("409");
    }
  });
});
