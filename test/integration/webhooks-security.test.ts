/**
 * Webhook hardening (issue 30, point 4) through the Worker: only ports 443 and 8443 are accepted when a URL is set
 * (account endpoint or batch webhook_url); the delivery log tells nothing about a target that was refused or did not
 * answer (one neutral "undeliverable"); the signing secret is encrypted at rest, rows stored in the clear before keep
 * working (and are sealed when read), and a secret that no longer opens is recovered by rotating it.
 * The webhook routes are driven through the operator API so that these tests do not depend on key scopes.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newWebhookSecret } from "../../src/webhooks/endpoints";
import { WebhookSecretUnreadableError, openWebhookSecret, sealWebhookSecret } from "../../src/webhooks/secret-at-rest";
import { adminApi, adminJson } from "../support/workers/account-helpers";
import { postBatch, receiverEndpoint, seedAnswer, setAccountWebhook, waitFor, waitForDeliveries } from "../support/workers/async-helpers";
import { api, createTestAccount, query, type TestAccount } from "../support/workers/helpers";

interface DeliveryJson {
  job_id: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
}

interface EndpointJson {
  url: string | null;
  secret: string;
}

interface StoredRow {
  secret: string;
  secret_iv: string | null;
}

const PORT_DETAIL = "must use port 443 or 8443 (the https default is 443)";

async function submitCachedJob(account: TestAccount): Promise<string> {
  const prompt = `Webhook security ${crypto.randomUUID()}`;
  await seedAnswer(account.accountId, prompt);
  const response = await api(`/scrapers/grok/jobs?${query({ prompt })}`, { method: "POST", apiKey: account.apiKey });
  expect(response.status).toBe(202);
  return ((await response.json()) as { job_id: string }).job_id;
}

function operatorDeliveries(accountId: string): Promise<{ deliveries: DeliveryJson[] }> {
  return adminJson<{ deliveries: DeliveryJson[] }>(`/admin/accounts/${accountId}/webhook/deliveries`);
}

async function storedRow(accountId: string): Promise<StoredRow | null> {
  return env.DB.prepare("SELECT secret, secret_iv FROM webhook_endpoints WHERE account_id = ?").bind(accountId).first<StoredRow>();
}

describe("ports", () => {
  it("an account endpoint on a port other than 443 or 8443 is a 400 naming the allowed ports", async () => {
    const account = await createTestAccount(0);
    for (const url of ["https://public.example:8080/hook", "https://public.example:22/hook", "https://93.184.215.14:6379/hook"]) {
      const response = await adminApi(`/admin/accounts/${account.accountId}/webhook`, { method: "PUT", body: { url } });
      expect(response.status, url).toBe(400);
      expect(await response.json(), url).toEqual({
        detail: `url: ${PORT_DETAIL}`,
        code: "invalid_parameter",
        request_id: response.headers.get("X-Request-Id"),
      });
    }
    for (const url of ["https://public.example/hook", "https://public.example:443/hook", "https://public.example:8443/hook"]) {
      const response = await adminApi(`/admin/accounts/${account.accountId}/webhook`, { method: "PUT", body: { url } });
      expect(response.status, url).toBe(200);
    }
  });

  it("a batch's webhook_url on another port is a 400 and nothing is charged", async () => {
    const account = await createTestAccount(100);
    const response = await postBatch(
      { scraper: "grok", items: [{ prompt: "hello" }], webhook_url: "https://public.example:9200/hook" },
      { apiKey: account.apiKey },
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toBe(`webhook_url: ${PORT_DETAIL}`);
    const balance = await env.DB.prepare("SELECT credits FROM accounts WHERE id = ?").bind(account.accountId).first<{ credits: number }>();
    expect(balance?.credits).toBe(100);
  });
});

describe("the delivery log tells nothing about targets that did not answer", () => {
  it("a closed port logs 'undeliverable', with no status and no connection detail", async () => {
    const account = await createTestAccount(100);
    // The loopback allowance of the tests accepts any port; nothing listens on the discard port.
    await setAccountWebhook(account.accountId, "http://127.0.0.1:9/hook");
    const jobId = await submitCachedJob(account);
    const entry = await waitFor("a failed attempt to be logged", async () => {
      const [first] = (await operatorDeliveries(account.accountId)).deliveries;
      return first !== undefined && first.attempts >= 1 ? first : undefined;
    });
    expect(entry).toMatchObject({ job_id: jobId, last_status_code: null, last_error: "undeliverable" });
  });

  it("a URL refused by the check at delivery time logs 'undeliverable', not why", async () => {
    const account = await createTestAccount(100);
    await setAccountWebhook(account.accountId, "https://public.example/hook");
    // As if the name had been accepted and now led somewhere private: the check before the attempt refuses it.
    await env.DB.prepare("UPDATE webhook_endpoints SET url = ? WHERE account_id = ?")
      .bind("https://private.example/hook", account.accountId)
      .run();
    await submitCachedJob(account);
    const entry = await waitFor("a refused attempt to be logged", async () => {
      const [first] = (await operatorDeliveries(account.accountId)).deliveries;
      return first !== undefined && first.attempts >= 1 ? first : undefined;
    });
    expect(entry).toMatchObject({ status: "pending", last_status_code: null, last_error: "undeliverable" });
  });
});

describe("the signing secret at rest", () => {
  it("is stored encrypted: the row holds neither the secret nor its whsec_ form, and the API still shows it", async () => {
    const account = await createTestAccount(0);
    const shown = await adminJson<EndpointJson>(`/admin/accounts/${account.accountId}/webhook`);
    expect(shown.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = await storedRow(account.accountId);
    expect(row?.secret_iv).toEqual(expect.any(String));
    expect(row?.secret).not.toContain("whsec_");
    expect(row?.secret).not.toContain(shown.secret.slice("whsec_".length));

    const rotated = await adminJson<EndpointJson>(`/admin/accounts/${account.accountId}/webhook/rotate-secret`, { method: "POST" });
    expect(rotated.secret).not.toBe(shown.secret);
    expect((await storedRow(account.accountId))?.secret).not.toContain(rotated.secret.slice("whsec_".length));
    expect((await adminJson<EndpointJson>(`/admin/accounts/${account.accountId}/webhook`)).secret).toBe(rotated.secret);
  });

  it("a row stored in the clear before keeps its secret, is sealed when read, and signs deliveries", async () => {
    const account = await createTestAccount(100);
    const legacySecret = newWebhookSecret();
    const endpoint = await receiverEndpoint(legacySecret);
    const now = new Date().toISOString();
    await env.DB.prepare("INSERT INTO webhook_endpoints (account_id, url, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
      .bind(account.accountId, endpoint.url, legacySecret, now, now)
      .run();

    expect((await adminJson<EndpointJson>(`/admin/accounts/${account.accountId}/webhook`)).secret).toBe(legacySecret);
    const sealed = await storedRow(account.accountId);
    expect(sealed?.secret_iv).toEqual(expect.any(String));
    expect(sealed?.secret).not.toBe(legacySecret);

    await submitCachedJob(account);
    const [delivery] = await waitForDeliveries(endpoint, 1);
    expect(delivery?.verified, delivery?.verifyError ?? "").toBe(true);
  });

  it("a sealed secret copied into another account's row does not open (503); rotating gives a working one", async () => {
    const owner = await createTestAccount(0);
    const other = await createTestAccount(0);
    await adminJson<EndpointJson>(`/admin/accounts/${owner.accountId}/webhook`);
    await adminJson<EndpointJson>(`/admin/accounts/${other.accountId}/webhook`);
    const stolen = await storedRow(owner.accountId);
    await env.DB.prepare("UPDATE webhook_endpoints SET secret = ?, secret_iv = ? WHERE account_id = ?")
      .bind(stolen?.secret ?? "", stolen?.secret_iv ?? null, other.accountId)
      .run();

    const unreadable = await adminApi(`/admin/accounts/${other.accountId}/webhook`);
    expect(unreadable.status).toBe(503);
    expect(((await unreadable.json()) as { code: string }).code).toBe("not_configured");
    const rotated = await adminApi(`/admin/accounts/${other.accountId}/webhook/rotate-secret`, { method: "POST" });
    expect(rotated.status).toBe(200);
    expect(((await rotated.json()) as EndpointJson).secret).toMatch(/^whsec_/);
  });

  it("a deployment without PROVIDER_ACCOUNTS_KEY keeps secrets in the clear (as before) and cannot open sealed ones", async () => {
    // The key is not declared on Env (src/provider-accounts/session-cipher.ts reads it by name), so it is unset by name.
    const withoutKey: Env = { ...env };
    Reflect.set(withoutKey, "PROVIDER_ACCOUNTS_KEY", "");
    const secret = newWebhookSecret();
    expect(await sealWebhookSecret(withoutKey, "acct_x", secret)).toEqual({ secret, iv: null });
    const sealed = await sealWebhookSecret(env, "acct_x", secret);
    expect(sealed.iv).not.toBeNull();
    expect(await openWebhookSecret(env, "acct_x", sealed)).toBe(secret);
    await expect(openWebhookSecret(withoutKey, "acct_x", sealed)).rejects.toBeInstanceOf(WebhookSecretUnreadableError);
  });
});
