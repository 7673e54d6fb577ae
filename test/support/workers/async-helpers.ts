/**
 * Helpers of the async-at-scale tests (batches, webhooks, idempotency, job listing): browser-free jobs (answers seeded
 * in the response cache, so the real queue consumer completes them as cache hits), the local webhook receiver of
 * test/support/webhook-receiver.ts, and waiting on conditions instead of sleeping.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { chargeCredits } from "../../../src/credits/ledger";
import { recordSubmittedJob } from "../../../src/jobs/jobs-table";
import { jobStub } from "../../../src/jobs/job-record";
import type { JobView } from "../../../src/jobs/job-types";
import type { ScrapeParams } from "../../../src/params/common-params";
import { adminJson, seedCachedGrokAnswer } from "./account-helpers";
import { api, type TestAccount } from "./helpers";

/** Polls `probe` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 500)) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * Puts a grok answer for `prompt` (default parameters) in `accountId`'s response cache: a job for it is then a real,
 * charged job that the consumer completes without a browser.
 */
export async function seedAnswer(accountId: string, prompt: string): Promise<void> {
  await seedCachedGrokAnswer(prompt, accountId);
}

export async function jobView(jobId: string): Promise<JobView> {
  const response = await api(`/jobs/${jobId}`);
  expect(response.status, `GET /jobs/${jobId}`).toBe(200);
  return (await response.json()) as JobView;
}

/** Waits through the public status endpoint (not rate-limited) until the job is done or failed. */
export function waitForTerminal(jobId: string, timeoutMs = 90_000): Promise<JobView> {
  return waitFor(
    `job ${jobId} to end`,
    async () => {
      const view = await jobView(jobId);
      return view.status === "pending" ? undefined : view;
    },
    timeoutMs,
  );
}

export function postBatch(body: unknown, init: { apiKey?: string; idempotencyKey?: string; rawBody?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (init.idempotencyKey !== undefined) headers["Idempotency-Key"] = init.idempotencyKey;
  return api("/batches", { method: "POST", headers, body: init.rawBody ?? JSON.stringify(body), apiKey: init.apiKey });
}

// ---------------------------------------------------------------------------------------------------------------
// The webhook receiver

export function receiverUrl(): string {
  const url: unknown = Reflect.get(env, "WEBHOOK_RECEIVER_URL");
  if (typeof url !== "string" || url === "") throw new Error("WEBHOOK_RECEIVER_URL is not set (vitest.config.ts)");
  return url;
}

export interface ReceiverEndpoint {
  id: string;
  url: string;
}

export interface ReceivedDelivery {
  webhookId: string | null;
  timestamp: string | null;
  signature: string | null;
  body: string;
  verified: boolean;
  verifyError: string | null;
  answeredStatus: number;
  receivedAt: number;
}

/** A new endpoint on the receiver that verifies with `secret` and fails its first `failFirst` deliveries with HTTP 500. */
export async function receiverEndpoint(secret: string, failFirst = 0): Promise<ReceiverEndpoint> {
  const response = await fetch(`${receiverUrl()}/__control/endpoints`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ secret, fail_first: failFirst }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as ReceiverEndpoint;
}

export async function updateReceiverSecret(endpoint: ReceiverEndpoint, secret: string): Promise<void> {
  const response = await fetch(`${receiverUrl()}/__control/endpoints/${endpoint.id}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ secret }),
  });
  expect(response.status).toBe(204);
}

export async function receivedBy(endpoint: ReceiverEndpoint): Promise<ReceivedDelivery[]> {
  const response = await fetch(`${receiverUrl()}/__control/endpoints/${endpoint.id}`);
  return ((await response.json()) as { deliveries: ReceivedDelivery[] }).deliveries;
}

/** Waits until the endpoint has received at least `count` deliveries. */
export function waitForDeliveries(endpoint: ReceiverEndpoint, count: number, timeoutMs = 60_000): Promise<ReceivedDelivery[]> {
  return waitFor(
    `${count} deliveries at ${endpoint.url}`,
    async () => {
      const deliveries = await receivedBy(endpoint);
      return deliveries.length >= count ? deliveries : undefined;
    },
    timeoutMs,
  );
}

export interface WebhookSettingsBody {
  account_id: string;
  url: string | null;
  secret: string;
  created_at: string;
  updated_at: string;
}

/** Sets the account's endpoint through the operator API; returns the settings (with the signing secret). */
export function setAccountWebhook(accountId: string, url: string): Promise<WebhookSettingsBody> {
  return adminJson<WebhookSettingsBody>(`/admin/accounts/${accountId}/webhook`, { method: "PUT", body: { url } });
}

export function accountWebhook(accountId: string): Promise<WebhookSettingsBody> {
  return adminJson<WebhookSettingsBody>(`/admin/accounts/${accountId}/webhook`);
}

/**
 * A Grok job exactly as submission leaves it (charged, in the jobs index, its record pending) except that no queue
 * message was sent: the test delivers it itself, or checks what recovers it.
 */
export async function createUnqueuedJob(
  account: TestAccount,
  params: ScrapeParams,
  createdAt = Date.now(),
  requestId?: string,
): Promise<string> {
  const jobId = crypto.randomUUID();
  await chargeCredits(env.DB, { accountId: account.accountId, operationId: jobId, scraper: "grok", keyId: account.keyId });
  // as a real submission does: GET /jobs/{id} answers only for ids in the jobs index
  await recordSubmittedJob(env.DB, {
    jobId,
    accountId: account.accountId,
    keyId: account.keyId,
    scraper: "grok",
    createdAt: new Date(createdAt).toISOString(),
    requestId,
  });
  await jobStub(env, jobId).create({
    jobId,
    scraper: "grok",
    params,
    accountId: account.accountId,
    keyId: account.keyId,
    baseUrl: "http://api.test",
    createdAt,
    requestId,
  });
  return jobId;
}
