/**
 * The fast path of a key-authenticated request (issue 14, docs/cache-path.md): what its shortcuts may and may not do.
 * - The isolate's memo of active keys: a key revoked behind its back stops working once the memo's time is up, and never
 *   spends a credit meanwhile (the charge re-checks the key in the same statement).
 * - The isolate's leases of the rate limiter: never more requests than the limiter counted, a lease never larger than
 *   its cap, and a busy key asks the limiter once per lease instead of once per request.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { authenticateApiKey, INVALID_KEY_DETAIL, KEY_MEMO_TTL_MS } from "../../src/auth/api-keys";
import { chargeBatchCredits, chargeCredits } from "../../src/credits/ledger";
import { LEASE_MS, type LeaseRequest, RateAllowances } from "../../src/limits/rate-allowance";
import { giveBackRate, takeRates } from "../../src/limits/rate-window";
import { leaseCap, requestRateLimiterStub } from "../../src/limits/request-rate-limiter";
import { adminJson, newAccount, newKey } from "../support/workers/account-helpers";
import { seedAnswer } from "../support/workers/async-helpers";
import { api, balanceOf, createTestAccount, ledgerOf, query } from "../support/workers/helpers";

function revokeBehindTheMemo(keyId: string): Promise<D1Result> {
  // straight in D1, as another isolate's revocation looks from this one: nothing tells this isolate's memo
  return env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?").bind(new Date().toISOString(), keyId).run();
}

/** The limiter's lease for `keyId`, recording the size of every lease it granted. */
function recordingLease(accountId: string, keyId: string): { granted: number[]; lease: LeaseRequest } {
  const granted: number[] = [];
  const lease: LeaseRequest = async (wanted, unspent) => {
    const decision = await requestRateLimiterStub(env, accountId).lease(accountId, keyId, wanted, unspent);
    if (decision.admitted) granted.push(decision.granted);
    return decision;
  };
  return { granted, lease };
}

describe("the memo of active keys", () => {
  it("a key revoked elsewhere is refused once the memo's time is up, and is looked up again from then on", async () => {
    const account = await createTestAccount(30);
    const start = Date.now();
    expect(await authenticateApiKey(env.DB, account.apiKey, start)).toEqual({
      keyId: account.keyId,
      accountId: account.accountId,
      scope: "scrape",
    });
    await revokeBehindTheMemo(account.keyId);
    // Within the bound, this isolate still trusts it (that is the documented staleness of a free request)…
    expect((await authenticateApiKey(env.DB, account.apiKey, start + KEY_MEMO_TTL_MS - 1)).keyId).toBe(account.keyId);
    // …and not a moment after it.
    await expect(authenticateApiKey(env.DB, account.apiKey, start + KEY_MEMO_TTL_MS)).rejects.toMatchObject({
      status: 401,
      detail: INVALID_KEY_DETAIL,
    });
    await expect(authenticateApiKey(env.DB, account.apiKey, start + KEY_MEMO_TTL_MS + 1)).rejects.toMatchObject({ status: 401 });
  });

  it("a key that matched nothing is not remembered: a key created a moment later works at once", async () => {
    const account = await createTestAccount(30);
    const wrong = `${account.apiKey}x`;
    await expect(authenticateApiKey(env.DB, wrong)).rejects.toMatchObject({ status: 401 });
    await expect(authenticateApiKey(env.DB, wrong)).rejects.toMatchObject({ status: 401 });
    expect((await authenticateApiKey(env.DB, account.apiKey)).keyId).toBe(account.keyId);
  });

  it("a remembered key revoked elsewhere spends no credit: sync scrape and job submission are 401, the balance untouched", async () => {
    const account = await createTestAccount(30);
    const prompt = "charged once, then revoked";
    await seedAnswer(account.accountId, prompt);
    const path = `/scrapers/grok?${query({ prompt })}`;
    // Authenticated once: this isolate now remembers the key.
    expect((await api(path, { apiKey: account.apiKey })).status).toBe(200);
    expect(await balanceOf(account.accountId)).toBe(27);
    await revokeBehindTheMemo(account.keyId);

    const sync = await api(path, { apiKey: account.apiKey });
    expect(sync.status).toBe(401);
    expect(await sync.json()).toMatchObject({ detail: INVALID_KEY_DETAIL });
    const job = await api(`/scrapers/grok/jobs?${query({ prompt })}`, { method: "POST", apiKey: account.apiKey });
    expect(job.status).toBe(401);
    expect(await balanceOf(account.accountId)).toBe(27);
    expect((await ledgerOf(account.accountId)).filter((row) => row.kind === "charge")).toHaveLength(1);
  });

  it("the charge itself refuses a revoked key, single or batch, and a repeated charge of one operation stays a no-op", async () => {
    const account = await createTestAccount(30);
    const charge = { accountId: account.accountId, operationId: crypto.randomUUID(), scraper: "grok", keyId: account.keyId };
    expect(await chargeCredits(env.DB, charge)).toBe(27);
    await revokeBehindTheMemo(account.keyId);
    // the same operation again: already charged, so the balance (not an error), as before the revocation
    expect(await chargeCredits(env.DB, charge)).toBe(27);
    await expect(chargeCredits(env.DB, { ...charge, operationId: crypto.randomUUID() })).rejects.toMatchObject({ status: 401 });
    await expect(
      chargeBatchCredits(env.DB, {
        accountId: account.accountId,
        operationIds: [crypto.randomUUID()],
        scraper: "grok",
        keyId: account.keyId,
      }),
    ).rejects.toMatchObject({ status: 401 });
    // without a key (an internal charge) the key plays no part; credits still bound it
    expect(await chargeCredits(env.DB, { ...charge, operationId: crypto.randomUUID(), keyId: null })).toBe(24);
    expect(await balanceOf(account.accountId)).toBe(24);
  });
});

describe("leases of the rate limiter", () => {
  it("the arithmetic: a lease takes what fits under both limits, and gives back only what it counted", () => {
    const now = 1_000_000;
    const rates = { perKey: 120, perAccount: 600 };
    const first = takeRates({ key: undefined, account: undefined }, rates, now, 200);
    // 120 a minute: the whole minute's allowance at once, not one more
    expect(first).toMatchObject({ granted: 120 });
    if (!("keyFullAt" in first)) throw new Error("expected a grant");
    expect(takeRates({ key: first.keyFullAt, account: first.accountFullAt }, rates, now, 1)).toMatchObject({ granted: 0, scope: "key" });
    // the account's limit binds when it is the smaller one
    expect(takeRates({ key: undefined, account: undefined }, { perKey: 600, perAccount: 30 }, now, 100)).toMatchObject({ granted: 30 });
    const afterAccount = takeRates({ key: undefined, account: undefined }, { perKey: 600, perAccount: 30 }, now, 30);
    if (!("keyFullAt" in afterAccount)) throw new Error("expected a grant");
    expect(takeRates({ key: undefined, account: afterAccount.accountFullAt }, { perKey: 600, perAccount: 30 }, now, 1)).toMatchObject({
      granted: 0,
      scope: "account",
    });
    // giving back 10 requests frees exactly 10 (5 s at 120 a minute), never more than a full counter
    const givenBack = giveBackRate(first.keyFullAt, rates.perKey, now, 10);
    expect(takeRates({ key: givenBack, account: undefined }, rates, now, 50)).toMatchObject({ granted: 10 });
    expect(giveBackRate(first.keyFullAt, rates.perKey, now, 10_000)).toBe(now);
  });

  it("a busy key asks the limiter once per lease, never holds more than the cap, and admits no more than the limit", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    const perKey = 600;
    await adminJson(`/admin/accounts/${account.account_id}/limits`, { method: "PATCH", body: { key_requests_per_minute: perKey } });
    const cap = leaseCap({ perKey, perAccount: 1200 });
    expect(cap).toBe(50);
    // The clock of this isolate's leases stands still (the limiter's does not): no lease expires during the test.
    const frozen = Date.now();
    const allowances = new RateAllowances(() => frozen);
    const { granted, lease } = recordingLease(account.account_id, key.key_id);
    const started = Date.now();
    let admitted = 0;
    for (let request = 0; request < perKey + 50; request += 1) {
      const outcome = await allowances.admit(key.key_id, lease);
      if (!outcome.admitted) {
        expect(outcome).toMatchObject({ scope: "key" });
        break;
      }
      admitted += 1;
      expect(allowances.unspent(key.key_id)).toBeLessThanOrEqual(cap);
    }
    // Every admitted request was counted by the limiter first; what it counted is at most the limit plus what its
    // window refilled while the test ran (one request per 100 ms at 600 a minute).
    const refilled = Math.ceil((Date.now() - started) / (60_000 / perKey)) + 1;
    const counted = granted.reduce((sum, size) => sum + size, 0);
    expect(admitted).toBeLessThanOrEqual(counted);
    expect(counted).toBeLessThanOrEqual(perKey + refilled);
    expect(admitted).toBeGreaterThanOrEqual(perKey - cap);
    expect(Math.max(...granted)).toBeLessThanOrEqual(cap);
    // 1, 2, 4, 8, 16, 32, then leases of 50: one call for many requests, not one per request
    expect(granted.slice(0, 7)).toEqual([1, 2, 4, 8, 16, 32, 50]);
    expect(granted.length).toBeLessThan(admitted / 5);
  });

  it("a burst of concurrent requests is admitted in two leases: the first request's, then one for all that waited", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    const frozen = Date.now();
    const allowances = new RateAllowances(() => frozen);
    const { granted, lease } = recordingLease(account.account_id, key.key_id);
    const outcomes = await Promise.all(Array.from({ length: 18 }, () => allowances.admit(key.key_id, lease)));
    expect(outcomes.every((outcome) => outcome.admitted)).toBe(true);
    expect(granted).toEqual([1, 17]);
  });

  it("a lease that expired unspent is given back: another isolate gets those requests", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    await adminJson(`/admin/accounts/${account.account_id}/limits`, { method: "PATCH", body: { key_requests_per_minute: 120 } });
    const stub = () => requestRateLimiterStub(env, account.account_id);
    const lease: LeaseRequest = (wanted, unspent) => stub().lease(account.account_id, key.key_id, wanted, unspent);
    let clock = Date.now();
    const idle = new RateAllowances(() => clock);
    // a lease of 1, then (spent at once) a lease of 2 of which one is left
    expect(await idle.admit(key.key_id, lease)).toEqual({ admitted: true });
    expect(await idle.admit(key.key_id, lease)).toEqual({ admitted: true });
    expect(idle.unspent(key.key_id)).toBe(1);
    clock += LEASE_MS;
    expect(idle.unspent(key.key_id)).toBe(0);
    // Its next request gives the unspent one back with its next lease: 3 counted in all, for 3 requests made.
    expect(await idle.admit(key.key_id, lease)).toEqual({ admitted: true });
    expect(idle.unspent(key.key_id)).toBe(0);
    // Another isolate asks for the rest of the minute's allowance: 117, never fewer (more only if the window refilled).
    const started = Date.now();
    const rest = await stub().lease(account.account_id, key.key_id, 1_000, null);
    const refilled = Math.floor((Date.now() - started) / 500) + 1;
    expect(rest.admitted).toBe(true);
    // one lease holds at most its cap (10 at 120 a minute): drain the rest lease by lease
    let taken = rest.admitted ? rest.granted : 0;
    for (;;) {
      const next = await stub().lease(account.account_id, key.key_id, 1_000, null);
      if (!next.admitted) break;
      taken += next.granted;
    }
    expect(taken).toBeGreaterThanOrEqual(117);
    expect(taken).toBeLessThanOrEqual(117 + refilled + Math.ceil((Date.now() - started) / 500));
  });
});
