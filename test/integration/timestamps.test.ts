/**
 * Issue 18: one timestamp format everywhere the API, the operator API and webhook payloads show a time:
 * `YYYY-MM-DDTHH:MM:SS.sss+00:00`. The walker finds every timestamp-looking string in each response, so a field added
 * later in another format fails here too.
 */
import { describe, expect, it } from "vitest";
import { ISO_TIMESTAMP_PATTERN } from "../../src/util/time";
import { adminApi, adminJson, type CreatedAccount, type CreatedKey } from "../support/workers/account-helpers";
import {
  postBatch,
  receiverEndpoint,
  seedAnswer,
  setAccountWebhook,
  waitFor,
  waitForDeliveries,
  waitForTerminal,
} from "../support/workers/async-helpers";
import { api, query } from "../support/workers/helpers";

/** Anything that starts like a date and a time is meant as a timestamp (plain days such as `2026-03-01` are not). */
const LOOKS_LIKE_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

/** Every timestamp-looking string in `value`, with its JSON path. */
function timestampsIn(value: unknown, path = "$"): Array<{ path: string; value: string }> {
  if (typeof value === "string") return LOOKS_LIKE_TIMESTAMP.test(value) ? [{ path, value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => timestampsIn(item, `${path}[${index}]`));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).flatMap(([key, item]) => timestampsIn(item, `${path}.${key}`));
  return [];
}

/** Checks every timestamp of a response body; returns the paths found, so a caller can require the ones it expects. */
function expectOneFormat(what: string, body: unknown): string[] {
  const found = timestampsIn(body);
  for (const { path, value } of found) expect(value, `${what} ${path}`).toMatch(ISO_TIMESTAMP_PATTERN);
  return found.map(({ path }) => path);
}

async function jsonOf(what: string, response: Response, status = 200): Promise<unknown> {
  const text = await response.text();
  expect(response.status, `${what}: ${text}`).toBe(status);
  return JSON.parse(text);
}

describe("one timestamp format", () => {
  it("accounts, keys, sign-in links, usage, jobs, batches, webhooks and the status", async () => {
    const account = await adminJson<CreatedAccount>("/admin/accounts", { method: "POST", body: { name: "Timestamps" } }, 201);
    expect(expectOneFormat("POST /admin/accounts", account)).toContain("$.created_at");

    const key = await adminJson<CreatedKey>(
      `/admin/accounts/${account.account_id}/keys`,
      { method: "POST", body: { name: "Times", scope: "manage" } },
      201,
    );
    expect(expectOneFormat("POST keys", key)).toContain("$.created_at");

    const link = await jsonOf("login link", await adminApi(`/admin/accounts/${account.account_id}/login-links`, { method: "POST" }), 201);
    expect(expectOneFormat("POST login-links", link)).toContain("$.expires_at");

    const endpoint = await receiverEndpoint((await setAccountWebhook(account.account_id, "https://public.example/placeholder")).secret);
    const settings = await setAccountWebhook(account.account_id, endpoint.url);
    expect(expectOneFormat("PUT webhook", settings)).toEqual(expect.arrayContaining(["$.created_at", "$.updated_at"]));

    // A job that ends (a cached answer, so no browser), and its webhook.
    const prompt = `Timestamps ${crypto.randomUUID()}`;
    await seedAnswer(account.account_id, prompt);
    const submitted = await api(`/scrapers/grok/jobs?${query({ prompt })}`, { method: "POST", apiKey: key.api_key });
    const jobId = String(Reflect.get(Object(await jsonOf("submit", submitted, 202)), "job_id"));
    await waitForTerminal(jobId);
    const job = await jsonOf("GET /jobs/{id}", await api(`/jobs/${jobId}`));
    expect(expectOneFormat("GET /jobs/{id}", job)).toEqual(expect.arrayContaining(["$.created_at", "$.completed_at"]));
    const listed = await jsonOf("GET /jobs", await api("/jobs", { apiKey: key.api_key }));
    expect(expectOneFormat("GET /jobs", listed)).toContain("$.jobs[0].created_at");

    const [delivery] = await waitForDeliveries(endpoint, 1);
    const payload: unknown = JSON.parse(delivery?.body ?? "null");
    expect(expectOneFormat("webhook payload", payload)).toEqual(expect.arrayContaining(["$.timestamp", "$.data.created_at"]));
    const deliveries = await waitFor("the delivery logged as delivered", async () => {
      const body = await jsonOf("deliveries", await api("/account/webhook/deliveries", { apiKey: key.api_key }));
      return JSON.stringify(body).includes('"delivered_at":"') ? body : undefined;
    });
    expect(expectOneFormat("GET deliveries", deliveries)).toEqual(
      expect.arrayContaining(["$.deliveries[0].created_at", "$.deliveries[0].delivered_at", "$.deliveries[0].last_attempt_at"]),
    );

    const batch = await postBatch({ scraper: "grok", items: [{ prompt }] }, { apiKey: key.api_key });
    const batchId = String(Reflect.get(Object(await jsonOf("POST /batches", batch, 202)), "batch_id"));
    expect(
      expectOneFormat("GET /batches/{id}", await jsonOf("batch", await api(`/batches/${batchId}`, { apiKey: key.api_key }))),
    ).toContain("$.created_at");

    const revoked = await jsonOf("revoke", await adminApi(`/admin/keys/${key.key_id}`, { method: "DELETE" }));
    expect(expectOneFormat("DELETE key", revoked)).toEqual(expect.arrayContaining(["$.created_at", "$.revoked_at"]));

    const detail = await jsonOf("account detail", await adminApi(`/admin/accounts/${account.account_id}`));
    expect(expectOneFormat("GET /admin/accounts/{id}", detail)).toEqual(
      expect.arrayContaining([
        "$.created_at",
        "$.keys[0].created_at",
        "$.keys[0].revoked_at",
        "$.usage.since",
        "$.recent_activity[0].created_at",
      ]),
    );
    expect(expectOneFormat("GET /admin/accounts", await jsonOf("accounts", await adminApi("/admin/accounts?limit=5")))).toContain(
      "$.accounts[0].created_at",
    );

    const other = await adminJson<CreatedKey>(
      `/admin/accounts/${account.account_id}/keys`,
      { method: "POST", body: { name: "Other" } },
      201,
    );
    expect(expectOneFormat("GET /account", await jsonOf("account", await api("/account", { apiKey: other.api_key })))).toContain(
      "$.period_start",
    );

    expect(expectOneFormat("GET /status.json", await jsonOf("status", await api("/status.json")))).toContain("$.generated_at");
  });

  it("the walker sees a timestamp in another format", () => {
    expect(timestampsIn({ a: [{ b: "2026-03-01T09:26:53.589Z" }], c: "2026-03-01" })).toEqual([
      { path: "$.a[0].b", value: "2026-03-01T09:26:53.589Z" },
    ]);
    expect("2026-03-01T09:26:53.589Z").not.toMatch(ISO_TIMESTAMP_PATTERN);
    expect("2026-03-01T09:26:53.589+00:00").toMatch(ISO_TIMESTAMP_PATTERN);
  });
});
