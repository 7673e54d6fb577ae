/**
 * Evidence end to end (issue 32, docs/evidence.md), for every scraper on its replica with real Chromium: a synchronous
 * scrape asking `X-Evidence: screenshot,html,stream`, a job asking for the screenshot and the stream, and a batch item
 * asking for the HTML. What is checked comes from the scenario (the provider's oracle) and from readers independent
 * of the code under test: the screenshot is decoded by test/support/png.ts and must be a picture (not a blank page) at
 * least a viewport tall, the HTML must hold the answer's words, and the stream must replay through the provider's
 * parser to the oracle's answer.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CaptureFileSchema } from "../../src/capture-files/format";
import { replayCapture } from "../../src/capture-files/replay";
import { providerById } from "../../src/scrapers/registry";
import { ORACLES } from "../support/oracles";
import { fieldMismatches } from "../support/oracles/draw";
import type { OracleCase } from "../support/oracles/oracle";
import { decodePng, distinctColours } from "../support/png";
import { postBatch, waitForTerminal } from "../support/workers/async-helpers";
import { api, BASE, balanceOf, createTestAccount, query, type TestAccount } from "../support/workers/helpers";

interface EvidenceBody {
  screenshot_url: string | null;
  html_url: string | null;
  stream_url: string | null;
  captured_at: string;
  expires_at: string;
  missing: { kind: string; reason: string }[];
}

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(1500);
});

/** The file behind an evidence URL of this Worker. */
async function fetchEvidence(url: string): Promise<Response> {
  expect(url.startsWith(`${BASE}/evidence/`), url).toBe(true);
  return api(url.slice(BASE.length));
}

/** Up to eight words of the answer (four letters or more), each of which the page's text must hold. */
function answerWords(expected: Readonly<Record<string, unknown>>): string[] {
  const result = typeof expected.result === "string" ? expected.result : "";
  return (result.match(/[\p{L}\p{N}]{4,}/gu) ?? []).slice(0, 8);
}

function pageText(html: string): string {
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, " ");
}

async function expectScreenshotOfPage(url: string): Promise<void> {
  const response = await fetchEvidence(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("image/png");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  const png = await decodePng(new Uint8Array(await response.arrayBuffer()));
  // the page's full width, and at least one viewport tall (1366 × 900, src/browser/session.ts)
  expect(png.width).toBe(1366);
  expect(png.height).toBeGreaterThanOrEqual(900);
  // text, controls and the page's own colours: far from a blank or single-colour picture
  expect(distinctColours(png)).toBeGreaterThan(20);
}

async function expectHtmlWithAnswer(url: string, oracleCase: OracleCase): Promise<void> {
  const response = await fetchEvidence(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(response.headers.get("content-security-policy")).toContain("sandbox");
  const html = await response.text();
  expect(html).not.toMatch(/<script[\s>]/i);
  const text = pageText(html);
  for (const word of answerWords(oracleCase.expected)) expect(text, `the page's text holds "${word}"`).toContain(word);
}

async function expectStreamReplaying(url: string, scraper: string, oracleCase: OracleCase): Promise<void> {
  const response = await fetchEvidence(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json");
  const file = CaptureFileSchema.parse(await response.json());
  const provider = providerById(scraper);
  if (provider === undefined) throw new Error(`no provider ${scraper}`);
  const replayed = replayCapture(provider, file);
  if (replayed.kind === "failed") throw new Error(`${scraper}: the stream does not replay: ${replayed.problem}`);
  expect(fieldMismatches(oracleCase.expected, replayed.answer)).toEqual([]);
}

function firstCase(scraper: string): OracleCase {
  const oracle = ORACLES.find((candidate) => candidate.provider === scraper);
  const chosen = oracle?.cases()[0];
  if (chosen === undefined) throw new Error(`no oracle case for ${scraper}`);
  return chosen;
}

describe.each(ORACLES.map((oracle) => oracle.provider))("evidence of %s answers", (scraper) => {
  it("sync: screenshot, HTML and stream of the answer, at URLs that serve them", async () => {
    const oracleCase = firstCase(scraper);
    const before = await balanceOf(account.accountId);
    const response = await api(`/scrapers/${scraper}?${query({ ...oracleCase.params, bypass_cache: "true" })}`, {
      apiKey: account.apiKey,
      headers: { "X-Evidence": "screenshot,html,stream" },
    });
    const body = (await response.json()) as Record<string, unknown> & { evidence: EvidenceBody | null };
    expect(response.status, JSON.stringify(body).slice(0, 400)).toBe(200);
    expect(fieldMismatches(oracleCase.expected, body)).toEqual([]);
    // evidence costs nothing beyond the scrape
    expect(await balanceOf(account.accountId)).toBe(before - 3);
    const evidence = body.evidence;
    if (evidence === null) throw new Error("no evidence");
    expect(evidence.missing).toEqual([]);
    expect(Date.parse(evidence.expires_at) - Date.parse(evidence.captured_at)).toBe(24 * 60 * 60 * 1000);
    await expectScreenshotOfPage(evidence.screenshot_url ?? "");
    await expectHtmlWithAnswer(evidence.html_url ?? "", oracleCase);
    await expectStreamReplaying(evidence.stream_url ?? "", scraper, oracleCase);
  });

  it("a job and a batch item: the kinds each asked for", async () => {
    const oracleCase = firstCase(scraper);
    const params = { ...oracleCase.params, bypass_cache: "true" };
    const submitted = await api(`/scrapers/${scraper}/jobs?${query(params)}`, {
      method: "POST",
      apiKey: account.apiKey,
      headers: { "X-Evidence": "screenshot, stream" },
    });
    expect(submitted.status).toBe(202);
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    const batch = await postBatch({ scraper, items: [{ ...params, evidence: ["html"] }] }, { apiKey: account.apiKey });
    expect(batch.status).toBe(202);
    const { job_ids: batchJobIds } = (await batch.json()) as { job_ids: string[] };
    const [job, item] = await Promise.all([waitForTerminal(jobId), waitForTerminal(batchJobIds[0] ?? "")]);

    expect(job.status, JSON.stringify(job).slice(0, 400)).toBe("done");
    const jobEvidence = job.result?.evidence as EvidenceBody;
    expect(jobEvidence.html_url).toBeNull();
    expect(jobEvidence.missing).toEqual([]);
    await expectScreenshotOfPage(jobEvidence.screenshot_url ?? "");
    await expectStreamReplaying(jobEvidence.stream_url ?? "", scraper, oracleCase);

    expect(item.status, JSON.stringify(item).slice(0, 400)).toBe("done");
    const itemEvidence = item.result?.evidence as EvidenceBody;
    expect([itemEvidence.screenshot_url, itemEvidence.stream_url]).toEqual([null, null]);
    await expectHtmlWithAnswer(itemEvidence.html_url ?? "", oracleCase);
  });
});

describe("evidence is only what was asked", () => {
  it("without the header (and no account default), a fresh answer has `evidence: null` and nothing is stored", async () => {
    const listedBefore = (await env.EVIDENCE.list()).objects.length;
    const oracleCase = firstCase("grok");
    const response = await api(`/scrapers/grok?${query({ ...oracleCase.params, bypass_cache: "true" })}`, { apiKey: account.apiKey });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { evidence: unknown }).evidence).toBeNull();
    expect((await env.EVIDENCE.list()).objects.length).toBe(listedBefore);
  });
});
