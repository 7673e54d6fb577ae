/**
 * Issue 32 in the dashboard, in a real headless Chromium against the whole Worker under `wrangler dev` with the
 * provider replicas: the account's evidence default is set with the overview's card; a playground run of Grok (no
 * kind chosen in the form, so the default applies) lands on a result page whose screenshot has loaded, whose three
 * download links answer 200 with the right types, and whose "Show in answer" link moves to a link inside the answer;
 * on a phone the answer and the evidence stack without horizontal scroll. The playground's snippets with evidence
 * chosen run as written and print the evidence's URLs. Screenshots in test-artifacts/evidence/.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adminCaller } from "../support/admin-client";
import { launchChromium } from "../support/chromium";
import { createAccountKey, runSnippet } from "../support/snippet-runner";

const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts/evidence");
const LAPTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
/** A first scrape launches a browser session; later ones reuse it. */
const SCRAPE_TIMEOUT_MS = 90_000;
const PROMPT = "What is new with Starship?";

const baseUrl = inject("dashboardBaseUrl");
const adminToken = inject("dashboardAdminToken");

let browser: Browser;
let context: BrowserContext;
let page: Page;

const admin = adminCaller(baseUrl, adminToken);

async function shot(name: string, target: Page = page): Promise<void> {
  await target.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: LAPTOP, baseURL: baseUrl });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe("evidence in the dashboard, in Chromium", () => {
  let resultPath = "";
  const cspViolations: string[] = [];

  it("sets the account's evidence default with the overview's card", async () => {
    const account = await admin<{ account_id: string }>("/admin/accounts", "POST", { name: "Evidence Readers" });
    await admin(`/admin/accounts/${account.account_id}/keys`, "POST", { name: "Evaluation" });
    const { login_url: loginUrl } = await admin<{ login_url: string }>(`/admin/accounts/${account.account_id}/login-links`, "POST");
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    await page.goto(loginUrl);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${baseUrl}/dashboard`);

    const card = page.getByRole("region", { name: "Evidence" });
    expect(await card.textContent()).toContain("No extra credits");
    expect(await card.textContent()).toContain("X-Evidence: none");
    const boxes = [/^Screenshot/, /^Page HTML/, /^Stream/, /^Keep failure evidence/].map((name) => card.getByRole("checkbox", { name }));
    for (const box of boxes) expect(await box.isChecked()).toBe(false);
    for (const box of boxes) await box.check();
    await card.getByRole("button", { name: "Save evidence settings" }).click();
    await page.waitForURL(`${baseUrl}/dashboard?notice=evidence-saved#evidence`);
    expect(await page.getByRole("region", { name: "Evidence" }).getByRole("status").textContent()).toContain("Saved.");
    // Read back from the account, not from the form just sent.
    await page.goto("/dashboard");
    for (const box of boxes) expect(await box.isChecked()).toBe(true);
    await shot("01-evidence-card");
  });

  it("a playground run with no kind chosen keeps the account's default", async () => {
    await page.goto(`/dashboard/playground?scraper=grok&prompt=${encodeURIComponent(PROMPT)}`);
    const choice = page.getByRole("group", { name: "Evidence" });
    expect(await choice.textContent()).toContain("your account's default applies (Screenshot, Page HTML, Stream;");
    for (const name of ["Screenshot", "Page HTML", "Stream"]) expect(await choice.getByRole("checkbox", { name }).isChecked()).toBe(false);
    // No kind chosen: the snippets send no X-Evidence, so the account's default applies to them too.
    expect(await page.locator("#snippet-curl").textContent()).not.toContain("X-Evidence");
    await choice.getByRole("checkbox", { name: "Screenshot" }).check();
    await expect.poll(() => page.locator("#snippet-curl").textContent(), { timeout: 10_000 }).toContain("-H 'X-Evidence: screenshot'");
    await choice.getByRole("checkbox", { name: "Screenshot" }).uncheck();
    await expect.poll(() => page.locator("#snippet-curl").textContent(), { timeout: 10_000 }).not.toContain("X-Evidence");

    await page.getByRole("button", { name: /^Run/ }).click({ timeout: SCRAPE_TIMEOUT_MS });
    await page.waitForURL(/\/dashboard\/results\//, { timeout: SCRAPE_TIMEOUT_MS });
    resultPath = new URL(page.url()).pathname;
    expect(await page.getByTestId("result-status").textContent()).toBe("Done");
  });

  it("shows the loaded screenshot beside the answer, and the three files download from this origin", async () => {
    const screenshot = page.getByRole("img", { name: "Screenshot of the answer page as the provider showed it" });
    await expect
      .poll(() => screenshot.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth), { timeout: 15_000 })
      .toBeGreaterThan(0);
    // Two columns on a laptop: the screenshot's card is to the right of the answer's.
    const answerBox = await page.getByRole("region", { name: "Answer" }).boundingBox();
    const evidenceBox = await page.getByRole("region", { name: "Evidence" }).boundingBox();
    if (answerBox === null || evidenceBox === null) throw new Error("the answer or the evidence is not on screen");
    expect(evidenceBox.x).toBeGreaterThanOrEqual(answerBox.x + answerBox.width);
    // Clicking the screenshot opens it full size.
    expect(await page.getByRole("link", { name: "Screenshot of the answer page as the provider showed it" }).getAttribute("target")).toBe(
      "_blank",
    );

    const expected = [
      ["Download the screenshot", "image/png"],
      ["Download the page HTML", "text/html; charset=utf-8"],
      ["Download the stream", "application/json"],
    ] as const;
    for (const [name, contentType] of expected) {
      const link = page.getByRole("link", { name });
      expect(await link.getAttribute("download"), name).not.toBeNull();
      const href = (await link.getAttribute("href")) ?? "";
      expect(href, name).toMatch(/^\/evidence\//);
      const response = await page.request.get(href);
      expect(response.status(), name).toBe(200);
      expect(response.headers()["content-type"], name).toBe(contentType);
      expect((await response.body()).byteLength, name).toBeGreaterThan(0);
    }
    expect(await page.getByTestId("evidence-missing").count()).toBe(0);
    await shot("02-result-with-evidence");
  });

  it("'Show in answer' moves to the source's link inside the answer, and marks it", async () => {
    const card = page
      .locator('[data-section="web_sources"] .result-card')
      .filter({ has: page.getByRole("link", { name: "Show in answer" }) })
      .first();
    const sourceUrl = (await card.locator("h3 a").getAttribute("href")) ?? "";
    expect(sourceUrl).toMatch(/^https:\/\//);
    await card.getByRole("link", { name: "Show in answer" }).click();
    const target = () =>
      page.evaluate(() => {
        const element = document.querySelector(":target");
        return element === null
          ? null
          : {
              inAnswer: element.closest('[data-testid="answer"]') !== null,
              href: element.getAttribute("href"),
              top: element.getBoundingClientRect().top,
            };
      });
    await expect.poll(async () => (await target())?.inAnswer, { timeout: 10_000 }).toBe(true);
    const landed = await target();
    expect(landed?.href).toBe(sourceUrl);
    // on screen, below the top bar's margin
    expect(landed?.top ?? -1).toBeGreaterThanOrEqual(0);
    expect(landed?.top ?? Number.POSITIVE_INFINITY).toBeLessThan(LAPTOP.height);
    // marked: the :target rule gives it an outline the answer's other links do not have
    const outline = await page.locator(":target").evaluate((element) => getComputedStyle(element).outlineStyle);
    expect(outline).toBe("solid");
    await shot("03-shown-in-answer");
  });

  it("stacks the answer and the evidence on a phone, without horizontal scroll", async () => {
    const phone = await context.newPage();
    await phone.setViewportSize(PHONE);
    await phone.goto(resultPath);
    const screenshot = phone.getByRole("img", { name: "Screenshot of the answer page as the provider showed it" });
    await expect
      .poll(() => screenshot.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth), { timeout: 15_000 })
      .toBeGreaterThan(0);
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const answerBox = await phone.getByRole("region", { name: "Answer" }).boundingBox();
    const evidenceBox = await phone.getByRole("region", { name: "Evidence" }).boundingBox();
    if (answerBox === null || evidenceBox === null) throw new Error("the answer or the evidence is not laid out");
    expect(evidenceBox.y).toBeGreaterThanOrEqual(answerBox.y + answerBox.height);
    expect(evidenceBox.width).toBeLessThanOrEqual(PHONE.width);
    await shot("04-phone-result", phone);
    await phone.goto("/dashboard");
    expect(await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shot("05-phone-overview", phone);
    await phone.close();
    expect(cspViolations).toEqual([]);
  });

  it("the snippets with evidence chosen run as written and print the evidence's URLs", async () => {
    const apiKey = await createAccountKey(baseUrl, adminToken, "Evidence snippets");
    const response = await page.request.get(
      `/dashboard/playground/snippets?${new URLSearchParams({ scraper: "grok", prompt: PROMPT, run: "sync", evidence_screenshot: "true", evidence_html: "true" })}`,
    );
    expect(response.status()).toBe(200);
    const snippets = (await response.json()) as Record<"curl" | "python" | "javascript", string>;
    const dir = mkdtempSync(join(tmpdir(), "evidence-snippets-"));
    try {
      for (const [language, code] of [
        ["sh", snippets.curl],
        ["python", snippets.python],
        ["js", snippets.javascript],
      ] as const) {
        const output = await runSnippet(language, code, { dir, env: { API_KEY: apiKey, API_URL: baseUrl }, timeoutMs: SCRAPE_TIMEOUT_MS });
        const urls = [...output.matchAll(/"(screenshot|html|stream)_url":\s*("[^"]*"|null)/g)].map((match) => [match[1], match[2]]);
        expect(urls, language).toEqual([
          ["screenshot", expect.stringMatching(new RegExp(`^"${baseUrl}/evidence/[A-Za-z0-9_-]{32}/screenshot\\.png"$`))],
          ["html", expect.stringMatching(new RegExp(`^"${baseUrl}/evidence/[A-Za-z0-9_-]{32}/page\\.html"$`))],
          ["stream", "null"],
        ]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
