/** Shared helpers of the Workers-runtime tests: accounts made straight in D1, requests through the real Worker. */
import { env, exports } from "cloudflare:workers";
import { type ApiKeyScope, generateApiKey } from "../../../src/auth/api-keys";

export const BASE = "http://api.test";

export interface TestAccount {
  accountId: string;
  keyId: string;
  apiKey: string;
}

/** An account with one key; `scope` as the column's default (`scrape`) unless given (`manage` for the webhook routes). */
export async function createTestAccount(credits = 1500, scope: ApiKeyScope = "scrape"): Promise<TestAccount> {
  const accountId = `acct_${crypto.randomUUID()}`;
  const key = await generateApiKey();
  const now = new Date().toISOString();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO accounts (id, name, email, credits, created_at) VALUES (?, ?, NULL, ?, ?)").bind(
      accountId,
      "Test",
      credits,
      now,
    ),
    env.DB.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, display_prefix, created_at, scope) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ).bind(key.keyId, accountId, "test key", key.keyHash, key.displayPrefix, now, scope),
  ]);
  return { accountId, keyId: key.keyId, apiKey: key.apiKey };
}

export async function balanceOf(accountId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT credits FROM accounts WHERE id = ?").bind(accountId).first<{ credits: number }>();
  return row?.credits ?? Number.NaN;
}

export async function ledgerOf(accountId: string): Promise<Array<{ kind: string; delta: number; operation_id: string | null }>> {
  const { results } = await env.DB.prepare("SELECT kind, delta, operation_id FROM credit_ledger WHERE account_id = ? ORDER BY id")
    .bind(accountId)
    .all<{ kind: string; delta: number; operation_id: string | null }>();
  return results;
}

export function api(path: string, init: RequestInit & { apiKey?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.apiKey !== undefined) headers.set("X-API-Key", init.apiKey);
  return exports.default.fetch(new Request(`${BASE}${path}`, { ...init, headers }));
}

export function query(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

/**
 * The replica's fault control (DESIGN.md §6). A control that changes what a page looks like (every one but pacing,
 * which only times the answer) also discards the pools' prepared pages: a hot page loaded before the change would
 * otherwise show the next scrape the old page (src/browser/hot-page.ts).
 */
export async function replicaControl(
  path: "faults" | "reset" | "pacing" | "layout" | "variation",
  body: Record<string, unknown> = {},
): Promise<void> {
  const response = await fetch(`${env.REPLICA_URL}/__control/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`replica control ${path} failed: ${response.status} ${await response.text()}`);
  if (path !== "pacing") await discardPreparedPages();
}

/** `POST /admin/pools/prepared-pages/discard`: the next scrape of every pooled session starts from a fresh page. */
export async function discardPreparedPages(): Promise<void> {
  const response = await api("/admin/pools/prepared-pages/discard", {
    method: "POST",
    headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}` },
  });
  if (!response.ok) throw new Error(`discarding the prepared pages failed: ${response.status} ${await response.text()}`);
}

export interface RecordedReplicaRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/** The last requests the replica of `provider` received (newest last), as the browser sent them. */
export async function replicaRequests(provider: string): Promise<RecordedReplicaRequest[]> {
  const response = await fetch(`${env.REPLICA_URL}/__control/state`);
  const state = (await response.json()) as { providers: Record<string, { requests: RecordedReplicaRequest[] }> };
  return state.providers[provider]?.requests ?? [];
}

/** The markup variants a provider's replica serves (the first is the default). */
export async function replicaLayouts(provider: string): Promise<string[]> {
  const response = await fetch(`${env.REPLICA_URL}/__control/state`);
  const state = (await response.json()) as { providers: Record<string, { layouts: string[] }> };
  return state.providers[provider]?.layouts ?? [];
}
