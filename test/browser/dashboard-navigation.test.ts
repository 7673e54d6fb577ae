/**
 * Issue 36 part 5: every section of the dashboard is reachable from its navigation on a phone (390 × 844) as on a
 * laptop (1280 × 800), in a real headless Chromium against the whole Worker under `wrangler dev`. At 390 px the bar
 * used to scroll "Webhooks" and "API docs" off-screen and break "API keys" over two lines. Each link must be visible,
 * inside the viewport, on one line and the element a tap at its centre lands on; so must "Sign out", and the status
 * page's own top-bar link. Screenshots in test-artifacts/navigation/.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adminCaller } from "../support/admin-client";
import { launchChromium } from "../support/chromium";

const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts/navigation");
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };

/** The dashboard's sections as a visitor reads them in the bar, in order (src/dashboard/layout.tsx). */
const NAV_LINKS = ["Overview", "Playground", "API keys", "Requests", "Jobs", "Webhooks", "API docs"];
/** Every signed-in page that carries the bar. */
const PAGES = [
  { path: "/dashboard", heading: "Overview" },
  { path: "/dashboard/playground", heading: "Playground" },
  { path: "/dashboard/keys", heading: "API keys" },
  { path: "/dashboard/requests", heading: "Requests" },
  { path: "/dashboard/jobs", heading: "Jobs" },
  { path: "/dashboard/webhooks", heading: "Webhooks" },
];

const baseUrl = inject("dashboardBaseUrl");
const adminToken = inject("dashboardAdminToken");

let browser: Browser;
let context: BrowserContext;

const admin = adminCaller(baseUrl, adminToken);

/**
 * Where a control is, and whether it can be reached there: visible, wholly inside the viewport's width, on a single
 * line (its text in one line box), and on top (a tap at its centre lands on it, not on something over it).
 */
async function placement(control: Locator): Promise<{ visible: boolean; inside: boolean; oneLine: boolean; onTop: boolean }> {
  const visible = await control.isVisible();
  const box = await control.boundingBox();
  const width = control.page().viewportSize()?.width ?? 0;
  const facts = await control.evaluate((element) => {
    // The text's own line boxes: one rectangle per line (the element's box may be stretched by its neighbours).
    const text = document.createRange();
    text.selectNodeContents(element);
    const lineTops = new Set([...text.getClientRects()].map((rect) => Math.round(rect.top)));
    const rect = element.getBoundingClientRect();
    const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
    return { oneLine: lineTops.size === 1, onTop: hit !== null && (hit === element || element.contains(hit)) };
  });
  return { visible, inside: box !== null && box.x >= 0 && box.x + box.width <= width, ...facts };
}

async function expectNavigationReachable(page: Page, where: string): Promise<void> {
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  expect(await nav.getByRole("link").allTextContents(), where).toEqual(NAV_LINKS);
  for (const name of NAV_LINKS) {
    expect(await placement(nav.getByRole("link", { name, exact: true })), `${where}: ${name}`).toEqual({
      visible: true,
      inside: true,
      oneLine: true,
      onTop: true,
    });
  }
  expect(await placement(page.getByRole("button", { name: "Sign out" })), `${where}: Sign out`).toEqual({
    visible: true,
    inside: true,
    oneLine: true,
    onTop: true,
  });
  // and the page itself does not scroll sideways
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), where).toBe(true);
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: PHONE, baseURL: baseUrl });
  const account = await admin<{ account_id: string }>("/admin/accounts", "POST", {
    name: "Pocket Navigation",
    email: "nav@pocket.example",
  });
  const { login_url: loginUrl } = await admin<{ login_url: string }>(`/admin/accounts/${account.account_id}/login-links`, "POST");
  const page = await context.newPage();
  await page.goto(loginUrl);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${baseUrl}/dashboard`);
  await page.close();
});

afterAll(async () => {
  await browser?.close();
});

describe("the dashboard's navigation reaches every section", () => {
  it("on a phone (390 × 844): every link visible, inside the screen, on one line, on every page", async () => {
    const page = await context.newPage();
    await page.setViewportSize(PHONE);
    for (const { path, heading } of PAGES) {
      await page.goto(path);
      await expect.poll(() => page.getByRole("heading", { level: 1, name: heading }).isVisible(), { message: path }).toBe(true);
      await expectNavigationReachable(page, `${path} at 390 px`);
      await page.screenshot({ path: join(ARTIFACTS, `phone${path.replaceAll("/", "-")}.png`) });
    }
    // and a tap on the last link, once out of sight, opens its section
    await page.goto("/dashboard");
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Webhooks", exact: true }).click();
    await page.waitForURL(`${baseUrl}/dashboard/webhooks`);
    await page.close();
  });

  it("on a laptop (1280 × 800): every link visible in one row without opening anything", async () => {
    const page = await context.newPage();
    await page.setViewportSize(LAPTOP);
    for (const { path } of PAGES) {
      await page.goto(path);
      await expectNavigationReachable(page, `${path} at 1280 px`);
      const rows = await page
        .getByRole("navigation", { name: "Dashboard" })
        .getByRole("link")
        .evaluateAll((links) => new Set(links.map((link) => Math.round(link.getBoundingClientRect().top))).size);
      expect(rows, path).toBe(1);
    }
    await page.screenshot({ path: join(ARTIFACTS, "laptop-dashboard.png") });
    await page.close();
  });

  it("the status page's top bar: its JSON link is inside a phone's screen", async () => {
    const page = await browser.newPage({ viewport: PHONE });
    await page.goto(`${baseUrl}/status`);
    expect(await placement(page.getByRole("link", { name: "JSON", exact: true }))).toEqual({
      visible: true,
      inside: true,
      oneLine: true,
      onTop: true,
    });
    await page.close();
  });
});
