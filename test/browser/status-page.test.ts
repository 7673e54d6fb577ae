/**
 * The public status page in a real headless Chromium (playwright-core driving Debian's Chromium) against the whole
 * Worker under `wrangler dev`: the Cron Trigger is fired through wrangler's local scheduled endpoint, the canaries run
 * in local Browser Rendering against the replicas, whose faults make Perplexity down and Grok degraded. The page is
 * checked as a visitor sees it (no key, no cookie, no script), on a laptop and a phone; screenshots are kept in
 * test-artifacts/status/.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ServiceStatusSchema } from "../../src/status/status-schema";
import { launchChromium } from "../support/chromium";

const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts/status");
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const ROUND_TIMEOUT_MS = 240_000;
const NAMES = ["ChatGPT", "Perplexity", "Grok", "Microsoft Copilot", "Gemini", "Google AI Mode", "Amazon Rufus"];

const baseUrl = inject("dashboardBaseUrl");
const replicaUrl = inject("replicaUrl");

let browser: Browser;

async function replicaFault(provider: string, fault: string): Promise<void> {
  const response = await fetch(`${replicaUrl}/__control/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ provider, fault, count: 1 }),
  });
  expect(response.status).toBe(200);
}

/** Fires the Cron Trigger as wrangler dev offers it locally; it answers once the handler (the canary round) is done. */
async function fireCron(): Promise<void> {
  const response = await fetch(`${baseUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("*/10 * * * *")}`);
  expect([response.status, await response.text()]).toEqual([200, "ok"]);
}

function card(page: Page, name: string): Locator {
  return page.getByRole("article", { name, exact: true });
}

async function openStatus(viewport: { width: number; height: number }): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, baseURL: baseUrl });
  const page = await context.newPage();
  // CSP violations, a missing stylesheet or a script error would show up here.
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("requestfailed", (request) => problems.push(`${request.url()} ${request.failure()?.errorText ?? ""}`));
  const response = await page.goto("/status");
  expect(response?.status()).toBe(200);
  return { page, problems };
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await fetch(`${replicaUrl}/__control/reset`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
});

describe("the status page in Chromium", () => {
  it(
    "two canary rounds: Perplexity behind a login wall twice is down, Grok challenged once is degraded, the rest up",
    async () => {
      await replicaFault("perplexity", "login_wall");
      await fireCron();
      await replicaFault("perplexity", "login_wall");
      await replicaFault("grok", "challenge");
      await fireCron();

      const { page, problems } = await openStatus(LAPTOP);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Some providers are degraded or down");
      // the counts beside it: Perplexity down, Grok degraded, the five others up
      expect(await page.getByText("Of 7 providers: 1 down, 1 degraded, 5 up.", { exact: true }).isVisible()).toBe(true);
      for (const name of NAMES) await expect.poll(() => card(page, name).isVisible(), { message: name }).toBe(true);

      const perplexity = card(page, "Perplexity");
      expect(await perplexity.getByText("Down", { exact: true }).isVisible()).toBe(true);
      expect(await perplexity.getByText("Login wall", { exact: true }).isVisible()).toBe(true);
      // two canaries in the last hour, none succeeded
      expect(await perplexity.getByRole("row", { name: /^Canaries/ }).textContent()).toContain("0 % of 2 scrapes");

      const grok = card(page, "Grok");
      expect(await grok.getByText("Degraded", { exact: true }).isVisible()).toBe(true);
      expect(await grok.getByText("Anti-bot challenge", { exact: true }).isVisible()).toBe(true);

      for (const name of ["ChatGPT", "Microsoft Copilot", "Gemini", "Google AI Mode", "Amazon Rufus"]) {
        const healthy = card(page, name);
        expect(await healthy.getByText("Up", { exact: true }).isVisible(), name).toBe(true);
        const canaries = (await healthy.getByRole("row", { name: /^Canaries/ }).textContent()) ?? "";
        expect(canaries, name).toMatch(/100 % of 2 scrapes/);
        expect(canaries, name).toMatch(/p50 \d+(\.\d)? m?s · p95 \d+(\.\d)? m?s/);
        // no failure over the history that exists: since the first canary of this fresh stack, not "in 8 days"
        expect(await healthy.getByText(/^none since \d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC$/).isVisible(), name).toBe(true);
      }

      // the stylesheet applied under the page's CSP: the down pill is red on pink
      const pill = perplexity.locator(".pill");
      expect(await pill.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe("rgb(253, 236, 234)");
      expect(problems).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, "01-status-laptop.png"), fullPage: true });

      // the JSON the page was rendered from says the same
      const json = ServiceStatusSchema.parse(await (await fetch(`${baseUrl}/status.json`)).json());
      writeFileSync(join(ARTIFACTS, "status.json"), `${JSON.stringify(json, null, 2)}\n`);
      expect(Object.fromEntries(json.providers.map((provider) => [provider.provider, provider.status]))).toMatchObject({
        perplexity: "down",
        grok: "degraded",
        chatgpt: "up",
      });
      await page.context().close();
    },
    ROUND_TIMEOUT_MS,
  );

  it("reads on a phone: nothing wider than the screen, every provider in one column", async () => {
    const { page, problems } = await openStatus(PHONE);
    for (const name of NAMES) expect(await card(page, name).isVisible(), name).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const lefts = await page
      .getByRole("article")
      .evaluateAll((articles) => articles.map((article) => article.getBoundingClientRect().left));
    expect(new Set(lefts).size).toBe(1);
    expect(problems).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "02-status-phone.png"), fullPage: true });
    await page.context().close();
  });

  it("is public and static: no cookie set, no script, JSON on request", async () => {
    const response = await fetch(`${baseUrl}/status`);
    expect(response.headers.get("set-cookie")).toBeNull();
    const html = await response.text();
    expect(html).not.toMatch(/<script/i);
    const json = await fetch(`${baseUrl}/status`, { headers: { Accept: "application/json" } });
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
  });
});
