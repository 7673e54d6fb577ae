/**
 * Evidence without a browser (issue 32, docs/evidence.md): how it is asked for and refused, and how the files are kept
 * in R2 and served: 24 hours, then 404; never larger than the limit; a failed write listed as missing, never failing the
 * answer. The e2e level (test/e2e/evidence.test.ts) takes real evidence of every scraper.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { setAccountEvidenceDefault } from "../../src/evidence/account-evidence";
import {
  EVIDENCE_TTL_MS,
  type EvidenceSet,
  MAX_EVIDENCE_FILE_BYTES,
  readEvidence,
  storeEvidence,
  sweepExpiredEvidence,
} from "../../src/evidence/evidence-store";
import { jobStub } from "../../src/jobs/job-record";
import { createUnqueuedJob, jobView, postBatch } from "../support/workers/async-helpers";
import { api, BASE, balanceOf, createTestAccount, query, type TestAccount } from "../support/workers/helpers";

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(300);
});

const OWNER = { accountId: "acct_evidence_test", jobId: "00000000-0000-4000-8000-000000000000" };
const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

function set(capturedAt = Date.now()): EvidenceSet {
  return {
    capturedAt,
    files: [
      { kind: "screenshot", fileName: "screenshot.png", contentType: "image/png", body: PNG_BYTES },
      { kind: "html", fileName: "page.html", contentType: "text/html; charset=utf-8", body: new TextEncoder().encode("<p>The answer</p>") },
    ],
    missing: [{ kind: "stream", reason: "the scraper recorded no exchange for this answer" }],
  };
}

/** The path of an evidence URL of this Worker. */
function pathOf(url: string | null): string {
  if (url === null || !url.startsWith(`${BASE}/evidence/`)) throw new Error(`not an evidence URL: ${url}`);
  return url.slice(BASE.length);
}

describe("asking for evidence: what is refused, before anything is charged", () => {
  it.each([
    ["GET", "/scrapers/grok"],
    ["POST", "/scrapers/grok/jobs"],
  ])("%s %s: an unknown kind is a 400 naming the header and the accepted values", async (method, path) => {
    const before = await balanceOf(account.accountId);
    const response = await api(`${path}?${query({ prompt: "What is new?" })}`, {
      method,
      apiKey: account.apiKey,
      headers: { "X-Evidence": "screenshot,video" },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { detail: string; code: string };
    expect(body.code).toBe("invalid_parameter");
    expect(body.detail).toBe('X-Evidence: unknown evidence kind "video"; accepted: screenshot, html, stream (comma-separated), or none');
    expect(await balanceOf(account.accountId)).toBe(before);
  });

  it("an empty header is a 400 too (to turn the account's default off, send `none`)", async () => {
    const response = await api(`/scrapers/grok?${query({ prompt: "What is new?" })}`, {
      apiKey: account.apiKey,
      headers: { "X-Evidence": " , " },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/^X-Evidence: must not be empty; accepted: /);
  });

  it("a batch item's unknown kind, or a value that is no list, is a 400 naming the item", async () => {
    const before = await balanceOf(account.accountId);
    const unknown = await postBatch(
      { scraper: "grok", items: [{ prompt: "One" }, { prompt: "Two", evidence: ["screenshot", "pdf"] }] },
      { apiKey: account.apiKey },
    );
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { detail: string }).detail).toBe(
      'items[1].evidence: unknown evidence kind "pdf"; accepted: screenshot, html, stream (comma-separated), or none',
    );
    const notAList = await postBatch({ scraper: "grok", items: [{ prompt: "One", evidence: 3 }] }, { apiKey: account.apiKey });
    expect(notAList.status).toBe(400);
    expect(((await notAList.json()) as { detail: string }).detail).toMatch(/^items\[0\]\.evidence: must be a list of evidence kinds/);
    expect(await balanceOf(account.accountId)).toBe(before);
  });
});

describe("the evidence files in R2", () => {
  it("are served at unguessable URLs with their type and the sandboxing headers, for 24 hours", async () => {
    const capturedAt = Date.now();
    const view = await storeEvidence(env.EVIDENCE, BASE, set(capturedAt), OWNER);
    expect(view.html_url).toMatch(/^http:\/\/api\.test\/evidence\/[A-Za-z0-9_-]{32}\/page\.html$/);
    expect(view.stream_url).toBeNull();
    expect(view.missing).toEqual([{ kind: "stream", reason: "the scraper recorded no exchange for this answer" }]);
    expect(Date.parse(view.expires_at) - Date.parse(view.captured_at)).toBe(24 * 60 * 60 * 1000);

    const screenshot = await api(pathOf(view.screenshot_url));
    expect(screenshot.status).toBe(200);
    expect(screenshot.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await screenshot.arrayBuffer())).toEqual(PNG_BYTES);
    const html = await api(pathOf(view.html_url));
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(html.headers.get("content-security-policy")).toContain("sandbox");
    expect(html.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await html.text()).toBe("<p>The answer</p>");

    // one token per answer: another answer's files are elsewhere
    const other = await storeEvidence(env.EVIDENCE, BASE, set(capturedAt), OWNER);
    expect(pathOf(other.html_url).split("/")[2]).not.toBe(pathOf(view.html_url).split("/")[2]);
  });

  it("answer 404 once 24 hours have passed, and are deleted on that read", async () => {
    const capturedAt = Date.now();
    const view = await storeEvidence(env.EVIDENCE, BASE, set(capturedAt), OWNER);
    const [, , token, file] = pathOf(view.html_url).split("/");
    expect(await readEvidence(env.EVIDENCE, token ?? "", file ?? "", capturedAt + EVIDENCE_TTL_MS - 1)).not.toBeNull();
    expect(await readEvidence(env.EVIDENCE, token ?? "", file ?? "", capturedAt + EVIDENCE_TTL_MS)).toBeNull();
    expect(await env.EVIDENCE.head(`${token}/${file}`)).toBeNull();
    const response = await api(pathOf(view.html_url));
    expect(response.status).toBe(404);
    expect(((await response.json()) as { detail: string }).detail).toBe(
      "Evidence not found. Evidence files expire 24 hours after the answer, or the URL is incomplete.",
    );
  });

  it("captured more than 24 hours ago: 404 through the route", async () => {
    const view = await storeEvidence(env.EVIDENCE, BASE, set(Date.now() - EVIDENCE_TTL_MS - 1_000), OWNER);
    expect((await api(pathOf(view.screenshot_url))).status).toBe(404);
  });

  it("a malformed token or file name is the same 404, never a listing", async () => {
    for (const path of ["/evidence/short/page.html", "/evidence/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/secrets.txt", "/evidence/"]) {
      expect((await api(path)).status, path).toBe(404);
    }
  });

  it("the cron sweep deletes what expired and nothing else", async () => {
    const expired = await storeEvidence(env.EVIDENCE, BASE, set(Date.now() - EVIDENCE_TTL_MS - 1_000), OWNER);
    const kept = await storeEvidence(env.EVIDENCE, BASE, set(), OWNER);
    expect(await sweepExpiredEvidence(env.EVIDENCE)).toBeGreaterThanOrEqual(2);
    expect(await env.EVIDENCE.head(pathOf(expired.html_url).slice("/evidence/".length))).toBeNull();
    expect(await env.EVIDENCE.head(pathOf(kept.html_url).slice("/evidence/".length))).not.toBeNull();
  });

  it("a file over the size limit is left out and listed as missing with why", async () => {
    const tooLarge: EvidenceSet = {
      capturedAt: Date.now(),
      files: [{ kind: "html", fileName: "page.html", contentType: "text/html", body: new Uint8Array(MAX_EVIDENCE_FILE_BYTES + 1) }],
      missing: [],
    };
    const view = await storeEvidence(env.EVIDENCE, BASE, tooLarge, OWNER);
    expect(view.html_url).toBeNull();
    expect(view.missing).toEqual([{ kind: "html", reason: "larger than the 5 MiB limit of an evidence file" }]);
  });

  it("a write the store refuses twice is listed as missing; the other files are kept", async () => {
    let htmlAttempts = 0;
    const flaky: Pick<R2Bucket, "put"> = {
      put: (key, value, options) => {
        if (key.endsWith("page.html")) {
          htmlAttempts += 1;
          return Promise.reject(new Error("R2 is unavailable"));
        }
        return env.EVIDENCE.put(key, value, options);
      },
    };
    const view = await storeEvidence(flaky, BASE, set(), OWNER);
    expect(htmlAttempts).toBe(2);
    expect(view.html_url).toBeNull();
    expect(view.screenshot_url).not.toBeNull();
    expect(view.missing).toContainEqual({
      kind: "html",
      reason: "the evidence store did not accept the file (a storage error); the answer is unaffected",
    });
  });
});

describe("the account's default", () => {
  it("is stored with the account and read back", async () => {
    await setAccountEvidenceDefault(env.DB, account.accountId, { kinds: ["screenshot", "stream"], onFailure: true });
    const row = await env.DB.prepare("SELECT evidence_kinds, failure_evidence FROM accounts WHERE id = ?")
      .bind(account.accountId)
      .first<{ evidence_kinds: string; failure_evidence: number }>();
    expect(row).toEqual({ evidence_kinds: "screenshot,stream", failure_evidence: 1 });
    await setAccountEvidenceDefault(env.DB, account.accountId, { kinds: [], onFailure: false });
  });
});

describe("a failed job's failure evidence", () => {
  it("is in the job's view as `evidence` beside `error`; a failed job without it has no such field", async () => {
    const params = { prompt: "What is new?", country: "US", bypass_cache: false, timeout: 60, mode: "MODEL_MODE_AUTO" };
    const view = await storeEvidence(env.EVIDENCE, BASE, set(), OWNER);
    const withEvidence = await createUnqueuedJob(account, params);
    await jobStub(env, withEvidence).fail("The Grok page did not look as expected.", view);
    const failed = await jobView(withEvidence);
    expect(failed.status).toBe("failed");
    expect(failed.evidence).toEqual(view);
    const withoutEvidence = await createUnqueuedJob(account, params);
    await jobStub(env, withoutEvidence).fail("The Grok page did not look as expected.");
    expect(await jobView(withoutEvidence)).not.toHaveProperty("evidence");
  });
});
