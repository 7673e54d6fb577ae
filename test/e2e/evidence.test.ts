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
import { capturePageScreenshot, MAX_SCREENSHOT_CSS_HEIGHT, MAX_SCREENSHOT_PIXEL_HEIGHT } from "../../src/browser/page-evidence";
import { withScrapePage } from "../../src/browser/page-lease";
import { CaptureFileSchema } from "../../src/capture-files/format";
import { setAccountEvidenceDefault } from "../../src/evidence/account-evidence";
import { MAX_EVIDENCE_FILE_BYTES } from "../../src/evidence/evidence-store";
import { replayCapture } from "../../src/capture-files/replay";
import { providerById } from "../../src/scrapers/registry";
import { ORACLES } from "../support/oracles";
import { fieldMismatches } from "../support/oracles/draw";
import type { OracleCase } from "../support/oracles/oracle";
import { decodePng, distinctColours } from "../support/png";
import { adminJson, seedCachedGrokAnswer } from "../support/workers/account-helpers";
import { postBatch, waitForTerminal } from "../support/workers/async-helpers";
import {
  api,
  BASE,
  balanceOf,
  createTestAccount,
  discardPreparedPages,
  query,
  replicaControl,
  type TestAccount,
} from "../support/workers/helpers";

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

describe("the account's default, and what overrides it", () => {
  it("applies without the header; `X-Evidence: none` turns it off for one request", async () => {
    const own = await createTestAccount(30);
    await setAccountEvidenceDefault(env.DB, own.accountId, { kinds: ["html"], onFailure: false });
    const oracleCase = firstCase("grok");
    const path = `/scrapers/grok?${query({ ...oracleCase.params, bypass_cache: "true" })}`;
    const byDefault = (await (await api(path, { apiKey: own.apiKey })).json()) as { evidence: EvidenceBody | null };
    expect(byDefault.evidence?.screenshot_url).toBeNull();
    await expectHtmlWithAnswer(byDefault.evidence?.html_url ?? "", oracleCase);
    const turnedOff = (await (await api(path, { apiKey: own.apiKey, headers: { "X-Evidence": "none" } })).json()) as { evidence: unknown };
    expect(turnedOff.evidence).toBeNull();
  });

  it("asking for evidence never takes a cached answer: the page shown is this request's own", async () => {
    const own = await createTestAccount(30);
    const prompt = "What do people say about the launch?";
    await seedCachedGrokAnswer(prompt, own.accountId);
    const path = `/scrapers/grok?${query({ prompt })}`;
    const cached = (await (await api(path, { apiKey: own.apiKey })).json()) as { cached: boolean; result: string; evidence: unknown };
    expect([cached.cached, cached.result, cached.evidence]).toEqual([true, `Cached answer to: ${prompt}`, null]);
    const fresh = (await (await api(path, { apiKey: own.apiKey, headers: { "X-Evidence": "screenshot" } })).json()) as {
      cached: boolean;
      result: string;
      evidence: EvidenceBody | null;
    };
    expect(fresh.cached).toBe(false);
    expect(fresh.result).not.toBe(`Cached answer to: ${prompt}`);
    await expectScreenshotOfPage(fresh.evidence?.screenshot_url ?? "");
  });
});

describe("failure evidence", () => {
  interface ProviderHealth {
    provider: string;
    latest_failure_evidence: { country: string; error_code: string; screenshot_url: string | null; html_url: string | null }[];
  }

  /** The replica serves its next page load as a changed page (its composer gone): layout drift. */
  async function serveChangedPage(): Promise<void> {
    const response = await fetch(`${env.REPLICA_URL}/__control/changed-page`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider: "grok", count: 1 }),
    });
    expect(response.ok).toBe(true);
    await discardPreparedPages();
  }

  it("a drift keeps the page for an account that asks: in the error body and in the operator's view", async () => {
    const own = await createTestAccount(30);
    await setAccountEvidenceDefault(env.DB, own.accountId, { kinds: [], onFailure: true });
    await serveChangedPage();
    try {
      const response = await api(`/scrapers/grok?${query({ prompt: "What changed on the page?", bypass_cache: "true" })}`, {
        apiKey: own.apiKey,
      });
      expect(response.status).toBe(502);
      const body = (await response.json()) as { code: string; evidence?: EvidenceBody };
      expect(body.code).toBe("provider_changed");
      const evidence = body.evidence;
      if (evidence === undefined) throw new Error("the error body has no evidence");
      expect(evidence.stream_url).toBeNull();
      await expectScreenshotOfPage(evidence.screenshot_url ?? "");
      const html = await (await fetchEvidence(evidence.html_url ?? "")).text();
      expect(html).toContain("<html");

      const { providers } = await adminJson<{ providers: ProviderHealth[] }>("/admin/providers");
      const latest = providers.find((provider) => provider.provider === "grok")?.latest_failure_evidence ?? [];
      expect(latest).toContainEqual(
        expect.objectContaining({ country: "US", error_code: expect.stringMatching(/^grok\./), screenshot_url: evidence.screenshot_url }),
      );
    } finally {
      await replicaControl("reset");
    }
  });
});

describe("screenshots of long pages and of pages that scroll inside a container", () => {
  /** Runs `capture` on a page holding `html`, through the browser layer like a scrape. */
  function onPage<T>(html: string, capture: (page: Parameters<typeof capturePageScreenshot>[0]) => Promise<T>): Promise<T> {
    const request = {
      country: "US",
      provider: "evidence-lab",
      allowedDomains: ["127.0.0.1"],
      signal: AbortSignal.timeout(60_000),
      deadline: Date.now() + 60_000,
    };
    return withScrapePage(env, request, async ({ page }) => {
      await page.setContent(html);
      return capture(page);
    });
  }

  /** `lines` paragraphs of text, each 40 px tall, in a page or in a 100vh column that scrolls. */
  function textPage(lines: number, inScroller: boolean): string {
    const text = Array.from({ length: lines }, (_unused, index) => `<p style="height:40px;margin:0">Line ${index} of the answer</p>`).join(
      "",
    );
    return inScroller
      ? `<body style="margin:0;height:100vh;display:flex;flex-direction:column"><header style="height:60px">Chat</header><main style="flex:1;overflow-y:auto">${text}</main></body>`
      : `<body style="margin:0">${text}</body>`;
  }

  it("a page that scrolls inside a 100vh column is captured whole, not just its viewport", async () => {
    // 150 lines of 40 px = 6,000 px of answer inside a column of a 900 px viewport
    const shot = await onPage(textPage(150, true), (page) => capturePageScreenshot(page, MAX_EVIDENCE_FILE_BYTES));
    if ("missing" in shot) throw new Error(shot.missing);
    const png = await decodePng(shot.bytes);
    expect(png.height).toBeGreaterThanOrEqual(6_000);
    expect([shot.scale, shot.truncated]).toEqual([1, false]);
  });

  it("a page taller than the pixel bound is downscaled to it; one past the CSS bound is cut there and says so", async () => {
    // 20,000 px: downscaled to at most 12,000 pixels tall
    const tall = await onPage(textPage(500, false), (page) => capturePageScreenshot(page, MAX_EVIDENCE_FILE_BYTES));
    if ("missing" in tall) throw new Error(tall.missing);
    const tallPng = await decodePng(tall.bytes);
    expect(tallPng.height).toBeLessThanOrEqual(MAX_SCREENSHOT_PIXEL_HEIGHT);
    expect(tall.scale).toBeCloseTo(MAX_SCREENSHOT_PIXEL_HEIGHT / 20_000, 2);
    expect(tall.truncated).toBe(false);
    // 40,000 px: past the CSS bound
    const endless = await onPage(textPage(1_000, false), (page) => capturePageScreenshot(page, MAX_EVIDENCE_FILE_BYTES));
    if ("missing" in endless) throw new Error(endless.missing);
    expect(endless.truncated).toBe(true);
    expect(endless.scale).toBeCloseTo(MAX_SCREENSHOT_PIXEL_HEIGHT / MAX_SCREENSHOT_CSS_HEIGHT, 2);
    expect((await decodePng(endless.bytes)).height).toBeLessThanOrEqual(MAX_SCREENSHOT_PIXEL_HEIGHT);
  });

  it("a picture over the size limit becomes a JPEG, and past that is missing with why", async () => {
    // noise does not compress: a PNG of it is far over 200 kB
    const noise = `<body style="margin:0"><canvas id="c" width="1366" height="900"></canvas><script>
      const context = document.getElementById("c").getContext("2d");
      const image = context.createImageData(1366, 900);
      let state = 2463534242;
      for (let i = 0; i < image.data.length; i += 1) {
        state ^= state << 13; state ^= state >>> 17; state ^= state << 5;
        image.data[i] = (i & 3) === 3 ? 255 : state & 255;
      }
      context.putImageData(image, 0, 0);
    </script></body>`;
    const jpeg = await onPage(noise, (page) => capturePageScreenshot(page, 1_500_000));
    if ("missing" in jpeg) throw new Error(jpeg.missing);
    expect(jpeg.contentType).toBe("image/jpeg");
    expect([jpeg.bytes[0], jpeg.bytes[1]]).toEqual([0xff, 0xd8]);
    const none = await onPage(noise, (page) => capturePageScreenshot(page, 10_000));
    expect(none).toEqual({ missing: "the screenshot is larger than the 0.01 MiB limit even as JPEG" });
  });
});
