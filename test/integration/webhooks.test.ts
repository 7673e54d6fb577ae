/**
 * Webhooks (issue #15), end to end through the Worker: a job's final status is delivered to the account's endpoint (or a
 * batch's own webhook_url) by the job's Durable Object alarm, signed by the Standard Webhooks convention and verified by
 * the local receiver with the `standardwebhooks` library; failed deliveries are retried with back-off and the same
 * webhook-id; deliveries are visible to the key holder, the operator and in the dashboard; URLs are checked.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { chargeCredits } from "../../src/credits/ledger";
import { jobStub } from "../../src/jobs/job-record";
import type { JobRecordState } from "../../src/jobs/job-types";
import { classifyAddress } from "../../src/webhooks/ip-address";
import { MAX_DELIVERY_ATTEMPTS, retryDelayMs } from "../../src/webhooks/retry-policy";
import { webhookSettings } from "../../src/webhooks/settings";
import { checkWebhookUrl } from "../../src/webhooks/url-policy";
import { adminApi, adminJson } from "../support/workers/account-helpers";
import {
  accountWebhook,
  jobView,
  postBatch,
  receivedBy,
  receiverEndpoint,
  seedAnswer,
  setAccountWebhook,
  updateReceiverSecret,
  waitFor,
  waitForDeliveries,
  waitForTerminal,
} from "../support/workers/async-helpers";
import { BASE, api, createTestAccount, query, type TestAccount } from "../support/workers/helpers";

interface DeliveryJson {
  webhook_id: string;
  job_id: string;
  batch_id: string | null;
  event_type: string;
  url: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

async function submitCachedJob(account: TestAccount, prompt = `Webhook job ${crypto.randomUUID()}`): Promise<string> {
  await seedAnswer(account.accountId, prompt);
  const response = await api(`/scrapers/grok/jobs?${query({ prompt })}`, { method: "POST", apiKey: account.apiKey });
  expect(response.status).toBe(202);
  return ((await response.json()) as { job_id: string }).job_id;
}

async function deliveriesOf(account: TestAccount): Promise<DeliveryJson[]> {
  const response = await api("/account/webhook/deliveries", { apiKey: account.apiKey });
  expect(response.status).toBe(200);
  return ((await response.json()) as { deliveries: DeliveryJson[] }).deliveries;
}

describe("delivery of a job's final status", () => {
  it("the account's endpoint receives the signed job.done event: Standard Webhooks headers, the status response as data", async () => {
    const account = await createTestAccount(100, "manage");
    const settings = await setAccountWebhook(account.accountId, "https://public.example/placeholder");
    expect(settings.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const endpoint = await receiverEndpoint(settings.secret);
    expect((await setAccountWebhook(account.accountId, endpoint.url)).secret).toBe(settings.secret);

    const jobId = await submitCachedJob(account);
    const [delivery] = await waitForDeliveries(endpoint, 1);
    expect(delivery?.verified, delivery?.verifyError ?? "").toBe(true);
    expect(delivery?.webhookId).toBe(`msg_${jobId.replaceAll("-", "")}`);
    expect(delivery?.signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(Math.abs(Number(delivery?.timestamp) - Date.now() / 1000)).toBeLessThan(120);
    const event = JSON.parse(delivery?.body ?? "{}") as { type: string; timestamp: string; data: Record<string, unknown> };
    const view = await jobView(jobId);
    expect(event).toEqual({ type: "job.done", timestamp: view.completed_at, data: view });
    expect(view.status).toBe("done");

    const logged = await waitFor("the delivery to be logged as delivered", async () => {
      const [entry] = await deliveriesOf(account);
      return entry?.status === "delivered" ? entry : undefined;
    });
    expect(logged).toMatchObject({
      webhook_id: delivery?.webhookId,
      job_id: jobId,
      batch_id: null,
      event_type: "job.done",
      url: endpoint.url,
      attempts: 1,
      last_status_code: 204,
      last_error: null,
      next_attempt_at: null,
    });
    // Exactly one delivery: a job's final status is sent once when nothing fails.
    expect(await receivedBy(endpoint)).toHaveLength(1);
  });

  it("a receiver that fails twice gets the same message three times (same webhook-id, each signed), then it is delivered", async () => {
    const account = await createTestAccount(100, "manage");
    const { secret } = await accountWebhook(account.accountId);
    const endpoint = await receiverEndpoint(secret, 2);
    await setAccountWebhook(account.accountId, endpoint.url);
    const jobId = await submitCachedJob(account);

    const deliveries = await waitForDeliveries(endpoint, 3);
    expect(deliveries.map((delivery) => delivery.answeredStatus)).toEqual([500, 500, 204]);
    expect(new Set(deliveries.map((delivery) => delivery.webhookId))).toEqual(new Set([`msg_${jobId.replaceAll("-", "")}`]));
    expect(deliveries.every((delivery) => delivery.verified)).toBe(true);
    expect(new Set(deliveries.map((delivery) => delivery.body)).size).toBe(1);
    // Back-off (base 1 s here: retries after 1 s, then 3 s): the second retry waits longer than the first. The gaps are
    // measured at the receiver, and each attempt resolves the host (twice) before it sends, so a gap can be shorter
    // than its delay by the difference of two resolutions on a busy machine: the bounds leave that margin.
    const [first, second, third] = deliveries.map((delivery) => delivery.receivedAt);
    const firstGap = (second ?? 0) - (first ?? 0);
    const secondGap = (third ?? 0) - (second ?? 0);
    expect(firstGap).toBeGreaterThanOrEqual(500);
    expect(secondGap).toBeGreaterThanOrEqual(2_000);
    expect(secondGap).toBeGreaterThan(firstGap);

    const logged = await waitFor("the delivery log to show the delivery", async () => {
      const [entry] = await deliveriesOf(account);
      return entry?.status === "delivered" ? entry : undefined;
    });
    expect(logged).toMatchObject({ attempts: 3, last_status_code: 204, last_error: null });
    const operatorView = await adminJson<{ deliveries: DeliveryJson[] }>(`/admin/accounts/${account.accountId}/webhook/deliveries`);
    expect(operatorView.deliveries.map((entry) => [entry.job_id, entry.status, entry.attempts])).toEqual([[jobId, "delivered", 3]]);
  });

  it("while retries are pending the log shows the receiver's answer and the next attempt", async () => {
    const account = await createTestAccount(100, "manage");
    const { secret } = await accountWebhook(account.accountId);
    const endpoint = await receiverEndpoint(secret, 1);
    await setAccountWebhook(account.accountId, endpoint.url);
    await submitCachedJob(account);
    const pending = await waitFor("a failed first attempt to be logged", async () => {
      const [entry] = await deliveriesOf(account);
      return entry?.attempts === 1 ? entry : undefined;
    });
    expect(pending).toMatchObject({ status: "pending", last_status_code: 500, last_error: "HTTP 500" });
    expect(Date.parse(pending.next_attempt_at ?? "")).toBeGreaterThan(Date.now() - 5_000);
    await waitForDeliveries(endpoint, 2);
  });

  it("a failed job sends job.failed with its error", async () => {
    const account = await createTestAccount(100);
    const { secret } = await accountWebhook(account.accountId);
    const endpoint = await receiverEndpoint(secret);
    await setAccountWebhook(account.accountId, endpoint.url);
    // A job whose message never reaches the queue, failed through its Durable Object as the consumer would.
    const jobId = crypto.randomUUID();
    await chargeCredits(env.DB, { accountId: account.accountId, operationId: jobId, scraper: "grok", keyId: account.keyId });
    await jobStub(env, jobId).create({
      jobId,
      scraper: "grok",
      params: { prompt: "never runs", country: "US", bypass_cache: false, timeout: 60, mode: "MODEL_MODE_AUTO" },
      accountId: account.accountId,
      keyId: account.keyId,
      baseUrl: BASE,
      createdAt: Date.now(),
    });
    await jobStub(env, jobId).fail("The provider could not be reached. Credits were restored.");
    const [delivery] = await waitForDeliveries(endpoint, 1);
    const event = JSON.parse(delivery?.body ?? "{}") as { type: string; data: Record<string, unknown> };
    expect(event.type).toBe("job.failed");
    expect(event.data).toMatchObject({
      job_id: jobId,
      status: "failed",
      error: "The provider could not be reached. Credits were restored.",
    });
    expect(event.data).not.toHaveProperty("result");
  });

  it("a batch's webhook_url receives its jobs instead of the account's endpoint", async () => {
    const account = await createTestAccount(100, "manage");
    const { secret } = await accountWebhook(account.accountId);
    const accountEndpoint = await receiverEndpoint(secret);
    const batchEndpoint = await receiverEndpoint(secret);
    await setAccountWebhook(account.accountId, accountEndpoint.url);
    const prompts = [`Batch hook one ${crypto.randomUUID()}`, `Batch hook two ${crypto.randomUUID()}`];
    for (const prompt of prompts) await seedAnswer(account.accountId, prompt);
    const response = await postBatch(
      { scraper: "grok", items: prompts.map((prompt) => ({ prompt })), webhook_url: batchEndpoint.url },
      { apiKey: account.apiKey },
    );
    expect(response.status).toBe(202);
    const { batch_id: batchId, job_ids: jobIds } = (await response.json()) as { batch_id: string; job_ids: string[] };
    const deliveries = await waitForDeliveries(batchEndpoint, 2);
    const events = deliveries.map((delivery) => JSON.parse(delivery.body) as { data: { job_id: string; status: string } });
    expect(events.map((event) => event.data.job_id).sort()).toEqual([...jobIds].sort());
    expect(events.every((event) => event.data.status === "done")).toBe(true);
    expect(deliveries.every((delivery) => delivery.verified)).toBe(true);
    // Every job has ended and been delivered once to the batch's URL; none went to the account's endpoint.
    await Promise.all(jobIds.map((id) => waitForTerminal(id)));
    await waitFor("both deliveries to be logged", async () => {
      const entries = await deliveriesOf(account);
      return entries.length === 2 && entries.every((entry) => entry.status === "delivered") ? entries : undefined;
    });
    expect((await deliveriesOf(account)).map((entry) => [entry.batch_id, entry.url])).toEqual([
      [batchId, batchEndpoint.url],
      [batchId, batchEndpoint.url],
    ]);
    expect(await receivedBy(accountEndpoint)).toEqual([]);
  });

  it("a job of an account without an endpoint sends nothing and logs nothing", async () => {
    const account = await createTestAccount(100, "manage");
    const jobId = await submitCachedJob(account);
    await waitForTerminal(jobId);
    // The job's object looked for a destination, found none, and stopped there.
    const phase = await waitFor("the job's webhook step to settle", async () => {
      const record = await runInDurableObject(jobStub(env, jobId), (_instance, state) => state.storage.kv.get<JobRecordState>("record"));
      const current = record?.webhook?.phase;
      return current === "resolve" ? undefined : current;
    });
    expect(phase).toBe("none");
    expect(await deliveriesOf(account)).toEqual([]);
  });
});

describe("the signing secret", () => {
  it("rotation takes effect for the next delivery; the old secret no longer verifies", async () => {
    const account = await createTestAccount(100);
    const original = await accountWebhook(account.accountId);
    const endpoint = await receiverEndpoint(original.secret);
    await setAccountWebhook(account.accountId, endpoint.url);
    const rotated = await adminJson<{ secret: string; url: string }>(`/admin/accounts/${account.accountId}/webhook/rotate-secret`, {
      method: "POST",
    });
    expect(rotated.secret).not.toBe(original.secret);
    expect(rotated.url).toBe(endpoint.url);
    await submitCachedJob(account);
    const [withOldSecret] = await waitForDeliveries(endpoint, 1);
    expect(withOldSecret?.verified).toBe(false);
    expect(withOldSecret?.verifyError).toBe("No matching signature found");

    await updateReceiverSecret(endpoint, rotated.secret);
    await submitCachedJob(account);
    const deliveries = await waitForDeliveries(endpoint, 2);
    expect(deliveries[1]?.verified).toBe(true);
  });

  it("key holders manage their own endpoint with the API key; the operator API needs the admin token", async () => {
    const account = await createTestAccount(100, "manage");
    expect((await api("/account/webhook")).status).toBe(401);
    const shown = await api("/account/webhook", { apiKey: account.apiKey });
    expect(shown.status).toBe(200);
    expect(shown.headers.get("Cache-Control")).toBe("no-store");
    const initial = (await shown.json()) as { url: string | null; secret: string; account_id: string };
    expect(initial).toMatchObject({ url: null, account_id: account.accountId });
    const put = await api("/account/webhook", {
      method: "PUT",
      apiKey: account.apiKey,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ url: "https://public.example/hooks/scraper" }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ url: "https://public.example/hooks/scraper", secret: initial.secret });
    const removed = await api("/account/webhook", { method: "DELETE", apiKey: account.apiKey });
    expect(await removed.json()).toMatchObject({ url: null, secret: initial.secret });
    expect((await adminApi(`/admin/accounts/${account.accountId}/webhook`, { token: null })).status).toBe(401);
    expect((await adminApi("/admin/accounts/acct_missing/webhook")).status).toBe(404);
  });
});

describe("URL checks", () => {
  const refused: Array<[string, string]> = [
    ["http://public.example/hook", "url: must use https (http is accepted only for loopback addresses here)"],
    ["https://private.example/hook", "url: must not resolve to a private, loopback or link-local address (it leads to a private address)"],
    [
      "https://linklocal.example/hook",
      "url: must not resolve to a private, loopback or link-local address (it leads to a link-local address)",
    ],
    ["https://mixed.example/hook", "url: must not resolve to a private, loopback or link-local address (it leads to a private address)"],
    ["https://ula.example/hook", "url: must not resolve to a private, loopback or link-local address (it leads to a private address)"],
    ["https://10.1.2.3/hook", "url: must not point to a private, loopback or link-local address (it leads to a private address)"],
    [
      "https://169.254.169.254/latest/meta-data",
      "url: must not point to a private, loopback or link-local address (it leads to a link-local address)",
    ],
    ["https://[fe80::1]/hook", "url: must not point to a private, loopback or link-local address (it leads to a link-local address)"],
    [
      "https://[::ffff:192.168.0.1]/hook",
      "url: must not point to a private, loopback or link-local address (it leads to a private address)",
    ],
    ["https://0x0a.0.0.1/hook", "url: must not point to a private, loopback or link-local address (it leads to a private address)"],
    ["https://nowhere.example/hook", "url: its host name does not resolve to any address"],
    ["https://user:pw@public.example/hook", "url: must not contain a user name or password"],
    ["not a url", "url: must be an absolute https URL"],
  ];

  it("refuses non-https URLs and hosts that are or resolve to private, loopback or link-local addresses", async () => {
    for (const [url, detail] of refused) {
      const response = await adminApi(`/admin/accounts/${(await createTestAccount(0)).accountId}/webhook`, {
        method: "PUT",
        body: { url },
      });
      expect(response.status, url).toBe(400);
      expect(((await response.json()) as { detail: string }).detail, url).toBe(detail);
    }
    const account = await createTestAccount(0);
    for (const url of ["https://public.example/hook", "https://93.184.215.14/hook", "http://127.0.0.1:9/hook", "http://localhost:9/hook"]) {
      const response = await adminApi(`/admin/accounts/${account.accountId}/webhook`, { method: "PUT", body: { url } });
      expect(response.status, url).toBe(200);
    }
  });

  it("a batch's webhook_url is checked the same way, and nothing is charged when it is refused", async () => {
    const account = await createTestAccount(100);
    const response = await postBatch(
      { scraper: "grok", items: [{ prompt: "hello" }], webhook_url: "https://private.example/hook" },
      { apiKey: account.apiKey },
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toBe(
      "webhook_url: must not resolve to a private, loopback or link-local address (it leads to a private address)",
    );
    const balance = await env.DB.prepare("SELECT credits FROM accounts WHERE id = ?").bind(account.accountId).first<{ credits: number }>();
    expect(balance?.credits).toBe(100);
  });

  it("outside local development loopback is refused too, and http always", async () => {
    const production = { ...webhookSettings(env), allowLoopback: false };
    for (const url of ["https://127.0.0.1/hook", "https://localhost/hook", "https://loopback.example/hook", "https://[::1]/hook"]) {
      const verdict = await checkWebhookUrl(url, production);
      expect(verdict.ok, url).toBe(false);
    }
    expect(await checkWebhookUrl("http://127.0.0.1:8080/hook", production)).toMatchObject({ ok: false, reason: "must use https" });
    expect(await checkWebhookUrl("https://public.example/hook#frag", production)).toEqual({ ok: true, url: "https://public.example/hook" });
  });

  it("classifies the addresses that lead to the same host in other spellings", () => {
    const cases: Array<[string, string | null]> = [
      ["8.8.8.8", "public"],
      ["127.0.0.1", "loopback"],
      ["0.0.0.0", "reserved"],
      ["100.64.0.1", "private"],
      ["172.31.255.255", "private"],
      ["172.32.0.1", "public"],
      ["224.0.0.1", "reserved"],
      ["[::1]", "loopback"],
      ["::", "reserved"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["64:ff9b::a00:1", "private"],
      ["2002:c0a8:0101::1", "private"],
      ["fd00::1", "private"],
      ["fe80::1", "link-local"],
      ["ff02::1", "reserved"],
      ["2606:4700:4700::1111", "public"],
      ["example.com", null],
    ];
    for (const [address, kind] of cases) expect(classifyAddress(address), address).toBe(kind);
  });

  it("retries back off over about 10 h 36 min, within the job's 24-hour retention", () => {
    const delays = Array.from({ length: MAX_DELIVERY_ATTEMPTS }, (_, index) => retryDelayMs(index + 1, 5));
    expect(delays).toEqual([5_000, 15_000, 60_000, 300_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000, null]);
  });
});

describe("the dashboard page", () => {
  async function signIn(accountId: string): Promise<{ cookie: string; csrf: string }> {
    const { login_url: url } = await adminJson<{ login_url: string }>(`/admin/accounts/${accountId}/login-links`, { method: "POST" }, 201);
    // The token travels in the link's fragment (`/dashboard/login#<token>`) or, in older links, as the last path segment.
    const link = new URL(url);
    const token = link.hash === "" ? (link.pathname.split("/").pop() ?? "") : link.hash.slice(1);
    const page = await api(link.pathname);
    const nonce = page.headers.getSetCookie().map((line) => line.split(";")[0] ?? "");
    const loginCsrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
    const login = await api("/dashboard/login", {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE, Cookie: nonce.join("; ") },
      body: new URLSearchParams({ token, _csrf: loginCsrf }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = login.headers
      .getSetCookie()
      .map((line) => line.split(";")[0] ?? "")
      .filter((pair) => pair.startsWith("__Host-session="))
      .join("; ");
    const overview = await api("/dashboard/webhooks", { headers: { Cookie: cookie } });
    expect(overview.status).toBe(200);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await overview.text())?.[1] ?? "";
    return { cookie, csrf };
  }

  function postForm(path: string, cookie: string, fields: Record<string, string>): Promise<Response> {
    return api(path, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE, Cookie: cookie },
      body: new URLSearchParams(fields).toString(),
    });
  }

  it("states what this deployment accepts (local: loopback over http, and why) and how long a failing endpoint is retried", async () => {
    // This test Worker runs as a local deployment (WEBHOOK_ALLOW_LOOPBACK=true), with retries 1 s × the schedule apart.
    const account = await createTestAccount(100);
    const { cookie, csrf } = await signIn(account.accountId);
    const html = await (await api("/dashboard/webhooks", { headers: { Cookie: cookie } })).text();
    const rules = (/data-testid="webhook-url-rules">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? "").replace(/<[^>]+>/g, "");
    expect(rules).toContain("A receiver on this machine is accepted because this is a local deployment");
    expect(rules).toContain("localhost, 127.0.0.1 or [::1], over http or https and on any port");
    expect(rules).toContain("Any other URL must use https on port 443 or 8443");
    // 1 + 3 + 12 + 60 + 360 + 720 + 2160 + 4320 = 7,636 s after the first failure: 2 h 7 min.
    expect(html.replace(/<[^>]+>/g, "")).toContain("up to 9 attempts in all, the last about 2 h 7 min after the first one failed.");
    expect(html).toContain('placeholder="http://127.0.0.1:9000/webhooks"');
    // What the page says is what the check does: the example it gives is accepted.
    const saved = await postForm("/dashboard/webhooks", cookie, { url: "http://127.0.0.1:9000/webhooks", _csrf: csrf });
    expect(saved.status).toBe(303);
    expect((await accountWebhook(account.accountId)).url).toBe("http://127.0.0.1:9000/webhooks");
  });

  it("sets, shows, rotates and removes the endpoint with CSRF-checked forms, and lists deliveries", async () => {
    const account = await createTestAccount(100);
    expect((await api("/dashboard/webhooks", { redirect: "manual" })).status).toBe(303);
    const { cookie, csrf } = await signIn(account.accountId);
    const { secret } = await accountWebhook(account.accountId);
    const endpoint = await receiverEndpoint(secret);

    expect((await postForm("/dashboard/webhooks", cookie, { url: endpoint.url })).status).toBe(403);
    const refused = await postForm("/dashboard/webhooks", cookie, { url: "https://private.example/x", _csrf: csrf });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("URL: must not resolve to a private, loopback or link-local address");

    const saved = await postForm("/dashboard/webhooks", cookie, { url: endpoint.url, _csrf: csrf });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe("/dashboard/webhooks?notice=saved");
    expect((await accountWebhook(account.accountId)).url).toBe(endpoint.url);

    const jobId = await submitCachedJob(account);
    await waitForDeliveries(endpoint, 1);
    const page = await waitFor("the delivery in the dashboard", async () => {
      const html = await (await api("/dashboard/webhooks", { headers: { Cookie: cookie } })).text();
      return html.includes('data-status="delivered"') ? html : undefined;
    });
    expect(page).toContain(endpoint.url);
    expect(page).toContain(secret);
    expect(page).toContain(jobId.slice(0, 8));
    expect(page).toContain('aria-current="page">Webhooks');

    const rotated = await postForm("/dashboard/webhooks/rotate-secret", cookie, { _csrf: csrf });
    expect(rotated.headers.get("Location")).toBe("/dashboard/webhooks?notice=rotated");
    expect((await accountWebhook(account.accountId)).secret).not.toBe(secret);
    const removed = await postForm("/dashboard/webhooks/remove", cookie, { _csrf: csrf });
    expect(removed.headers.get("Location")).toBe("/dashboard/webhooks?notice=removed");
    expect((await accountWebhook(account.accountId)).url).toBeNull();
  });
});
