/**
 * Issue 5's "done when", in a real headless Chromium (playwright-core driving Debian's Chromium) against the whole
 * Worker under `wrangler dev`: the operator creates a customer and a sign-in link; the customer signs in, creates a
 * key (copy button), uses it against the API (a real Grok scrape through the replica and an async job), watches the
 * balance fall, revokes the key and sees it refused. A screenshot of every page is kept in test-artifacts/dashboard/.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adminCaller } from "../support/admin-client";
import { launchChromium } from "../support/chromium";

const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts/dashboard");
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const baseUrl = inject("dashboardBaseUrl");
const adminToken = inject("dashboardAdminToken");

let browser: Browser;
let context: BrowserContext;
let page: Page;

const admin = adminCaller(baseUrl, adminToken);

async function shot(name: string, target: Page = page): Promise<void> {
  await target.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function creditsShown(): Promise<string> {
  return (await page.getByTestId("credits-remaining").textContent())?.trim() ?? "";
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: LAPTOP, baseURL: baseUrl });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

describe("the dashboard in Chromium", () => {
  let accountId = "";
  let loginUrl = "";
  let apiKey = "";

  it("the operator creates the customer and a one-time sign-in link", async () => {
    const account = await admin<{ account_id: string; credits: number }>("/admin/accounts", "POST", {
      name: "Northwind Analytics",
      email: "dev@northwind.example",
    });
    expect(account.credits).toBe(1500);
    accountId = account.account_id;
    loginUrl = (await admin<{ login_url: string }>(`/admin/accounts/${accountId}/login-links`, "POST")).login_url;
    // The one-time token is the fragment: the browser never sends it, so no request log holds it.
    expect(loginUrl.startsWith(`${baseUrl}/dashboard/login#`)).toBe(true);
  });

  it("a signed-out visitor is shown how to sign in", async () => {
    await page.goto("/dashboard");
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    await expect.poll(() => page.getByRole("heading", { name: "Sign in to your dashboard" }).isVisible()).toBe(true);
    await shot("01-sign-in-help");
  });

  it("signs in with the link: a Secure, HttpOnly, SameSite session cookie", async () => {
    await page.goto(loginUrl);
    await expect.poll(() => page.getByRole("heading", { name: "Welcome back" }).isVisible()).toBe(true);
    // The page took the token from the fragment and dropped it from the address bar.
    await expect.poll(() => new URL(page.url()).hash).toBe("");
    await shot("02-sign-in-confirm");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${baseUrl}/dashboard`);
    const session = (await context.cookies()).find((cookie) => cookie.name === "__Host-session");
    expect(session).toMatchObject({ httpOnly: true, secure: true, sameSite: "Lax", path: "/" });
    expect(await creditsShown()).toBe("1,500");
    await shot("03-overview-new-account");

    // The link was used up: signing in with it again is refused, and this local stack names the command for a new one.
    const reused = await context.newPage();
    await reused.goto(loginUrl);
    await reused.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => reused.getByRole("heading", { name: "This sign-in link was already used" }).isVisible()).toBe(true);
    expect(await reused.getByTestId("new-link-advice").textContent()).toContain("npm run sign-in-link");
    await reused.close();
  });

  it("creates a key, shown once with a working copy button", async () => {
    await page.getByRole("link", { name: "API keys", exact: true }).first().click();
    await page.waitForURL(`${baseUrl}/dashboard/keys`);
    await shot("04-keys-empty");
    await page.getByLabel("Name").fill("Production server");
    await page.getByRole("button", { name: "Create key" }).click();
    const input = page.locator("#new-api-key");
    apiKey = await input.inputValue();
    expect(apiKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => page.getByRole("button", { name: "Copied" }).isVisible()).toBe(true);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    await shot("05-key-created");

    // Post-redirect-get: the key is shown by a GET, so reloading it neither resends the form nor shows the key again.
    expect(page.url()).toBe(`${baseUrl}/dashboard/keys`);
    await page.reload();
    expect(await page.locator("#new-api-key").count()).toBe(0);
    expect(await page.locator("[data-key-id]").count()).toBe(1);

    // Shown once: the list shows only the prefix afterwards.
    await page.goto("/dashboard/keys");
    expect(await page.content()).not.toContain(apiKey);
    await expect.poll(() => page.getByText(`${apiKey.slice(0, 10)}…`).isVisible()).toBe(true);
  });

  it("the key works against the API, and the balance falls", async () => {
    const account = await fetch(`${baseUrl}/account`, { headers: { "X-API-Key": apiKey } });
    expect(account.status).toBe(200);
    expect(((await account.json()) as { credits_remaining: number }).credits_remaining).toBe(1500);

    // A real scrape: the Worker drives Chromium against the Grok replica.
    const scrape = await fetch(
      `${baseUrl}/scrapers/grok?prompt=${encodeURIComponent("What are people saying about the dashboard launch?")}`,
      {
        headers: { "X-API-Key": apiKey },
      },
    );
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get("X-Credits-Remaining")).toBe("1497");

    // And an asynchronous job, followed to completion.
    const submitted = await fetch(`${baseUrl}/scrapers/grok/jobs?prompt=${encodeURIComponent("Summarise the week in rockets")}`, {
      method: "POST",
      headers: { "X-API-Key": apiKey },
    });
    expect(submitted.status).toBe(202);
    expect(submitted.headers.get("X-Credits-Remaining")).toBe("1494");
    const { job_id: jobId } = (await submitted.json()) as { job_id: string };
    await expect
      .poll(async () => ((await (await fetch(`${baseUrl}/jobs/${jobId}`)).json()) as { status: string }).status, {
        timeout: 45_000,
        interval: 1_000,
      })
      .toBe("done");

    await page.goto("/dashboard");
    expect(await creditsShown()).toBe("1,494");
    await expect.poll(() => page.getByText("grok job").first().isVisible()).toBe(true);
    await shot("06-overview-after-use");

    await page.getByRole("link", { name: "Jobs", exact: true }).click();
    await page.waitForURL(`${baseUrl}/dashboard/jobs`);
    await expect.poll(() => page.locator(`[data-job-id="${jobId}"] [data-status="done"]`).isVisible()).toBe(true);
    await shot("07-jobs");
  });

  it("revokes the key after a confirmation; the next request with it is refused", async () => {
    await page.goto("/dashboard/keys");
    await page.getByRole("link", { name: "Revoke Production server" }).click();
    await expect.poll(() => page.getByRole("heading", { name: "Revoke “Production server”?" }).isVisible()).toBe(true);
    await shot("08-revoke-confirm");
    // The confirmation page alone changes nothing.
    expect((await fetch(`${baseUrl}/account`, { headers: { "X-API-Key": apiKey } })).status).toBe(200);

    await page.getByRole("button", { name: "Revoke key" }).click();
    await page.waitForURL(/\/dashboard\/keys\?revoked=/);
    await expect.poll(() => page.getByText("was revoked").isVisible()).toBe(true);
    await shot("09-key-revoked");

    const refused = await fetch(`${baseUrl}/scrapers/gemini?prompt=hello`, { headers: { "X-API-Key": apiKey } });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { detail: string }).detail).toContain("Invalid API key");
    expect((await fetch(`${baseUrl}/account`, { headers: { "X-API-Key": apiKey } })).status).toBe(401);
  });

  it("reads well on a phone", async () => {
    const phone = await context.newPage();
    await phone.setViewportSize(PHONE);
    for (const [path, name] of [
      ["/dashboard", "10-phone-overview"],
      ["/dashboard/keys", "11-phone-keys"],
      ["/dashboard/jobs", "12-phone-jobs"],
    ] as const) {
      await phone.goto(path);
      // Nothing wider than the screen: no sideways scrolling of the page.
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
      await shot(name, phone);
    }
    await phone.close();
  });

  it("signs out", async () => {
    await page.goto("/dashboard");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${baseUrl}/dashboard/sign-in?signed_out=1`);
    await expect.poll(() => page.getByText("You have signed out.").isVisible()).toBe(true);
    expect((await context.cookies()).some((cookie) => cookie.name === "__Host-session")).toBe(false);
    await page.goto("/dashboard");
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
  });
});
