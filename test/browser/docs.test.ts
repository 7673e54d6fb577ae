/**
 * The API reference at /docs in a real headless Chromium against the whole Worker under `wrangler dev`: Swagger UI comes
 * from the Worker's own static assets (wrangler.toml `[assets]`), so the page works offline — every request it makes
 * stays on 127.0.0.1 — and under its strict Content-Security-Policy (a violation would be a console error). It lists
 * every scrape route with its provider's own example, deep links open an operation, and "Try it out" with a key typed
 * into Authorize gets a real answer from the Grok replica.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pascalCase } from "../../src/util/pascal-case";
import { PROVIDERS } from "../../src/scrapers/provider-list";
import { launchChromium } from "../support/chromium";

const baseUrl = inject("dashboardBaseUrl");
const adminToken = inject("dashboardAdminToken");
const PROMPT = "What is new with Starship?";

let browser: Browser;

/** Swagger UI's element id of an operation: `operations-<tag, spaces as _>-<operationId>`. */
function operationId(tag: string, operation: string): string {
  return `#operations-${tag.replaceAll(" ", "_")}-${operation}`;
}

interface DocsPage {
  page: Page;
  problems: string[];
  /** Every host the page sent a request to. */
  hosts: Set<string>;
  /** The static assets it loaded from /docs/assets/, with their status and X-Content-Type-Options. */
  assets: Map<string, string>;
}

async function openDocs(hash = ""): Promise<DocsPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const hosts = new Set<string>();
  const assets = new Map<string, string>();
  page.on("request", (request) => hosts.add(new URL(request.url()).host));
  page.on("response", (response) => {
    const path = new URL(response.url()).pathname;
    if (path.startsWith("/docs/assets/")) assets.set(path, `${response.status()} ${response.headers()["x-content-type-options"]}`);
  });
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  const response = await page.goto(`${baseUrl}/docs${hash}`);
  expect(response?.status()).toBe(200);
  await page.locator(".opblock-tag-section").first().waitFor();
  return { page, problems, hosts, assets };
}

async function createApiKey(): Promise<string> {
  const headers = { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" };
  const account = (await (
    await fetch(`${baseUrl}/admin/accounts`, { method: "POST", headers, body: '{"name":"Docs reader"}' })
  ).json()) as {
    account_id: string;
  };
  const key = (await (
    await fetch(`${baseUrl}/admin/accounts/${account.account_id}/keys`, { method: "POST", headers, body: '{"name":"Docs"}' })
  ).json()) as { api_key: string };
  return key.api_key;
}

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe("the API reference in Chromium", () => {
  it("renders offline from the Worker's own assets: every scraper first, each route with its own provider's example", async () => {
    const { page, problems, hosts, assets } = await openDocs();
    expect([...assets.keys()]).toEqual(
      expect.arrayContaining([
        "/docs/assets/swagger-ui/swagger-ui.css",
        "/docs/assets/swagger-ui/swagger-ui-bundle.js",
        "/docs/assets/swagger-initializer.js",
        "/docs/assets/docs.css",
      ]),
    );
    // Served by the asset server with public/_headers applied (the favicon too, when Chromium asks for it).
    for (const [path, answer] of assets) expect(answer, path).toBe("200 nosniff");
    const tags = await page.locator(".opblock-tag").evaluateAll((elements) => elements.map((element) => element.getAttribute("data-tag")));
    const providers = PROVIDERS;
    expect(tags.slice(0, providers.length)).toEqual(providers.map((provider) => provider.name));
    for (const provider of providers) {
      const get = page.locator(operationId(provider.name, `scrape${pascalCase(provider.id)}`));
      await expect.poll(() => get.locator(".opblock-summary-path").textContent()).toBe(`/scrapers/${provider.id}`);
      const post = page.locator(operationId(provider.name, `submit${pascalCase(provider.id)}Job`));
      expect(await post.locator(".opblock-summary-path").textContent()).toBe(`/scrapers/${provider.id}/jobs`);
      // Opened, the 200 response shows this provider's own example (its job id is unique to it), then closed again.
      await get.locator(".opblock-summary").click();
      const example = get.locator('.responses-wrapper tr.response[data-code="200"] .example');
      await example.waitFor();
      const shown = await example.textContent();
      expect(shown, provider.id).toContain(`"scraper": "${provider.id}"`);
      expect(shown, provider.id).toContain(String(provider.example?.job_id));
      await get.locator(".opblock-summary").click();
    }
    // Markdown descriptions are rendered, not shown with their backticks.
    const description = await page.locator(".info .description").textContent();
    expect(description).toMatch(/server-side only/i);
    expect(description).not.toContain("`");
    expect([...hosts]).toEqual([new URL(baseUrl).host]);
    expect(problems).toEqual([]);
  });

  it("opens the operation a deep link names, and Try it out with a key from Authorize gets a real answer", async () => {
    const apiKey = await createApiKey();
    const { page, problems, hosts } = await openDocs("#/Grok/scrapeGrok");
    const grok = page.locator(operationId("Grok", "scrapeGrok"));
    await expect.poll(() => grok.getAttribute("class")).toContain("is-open");

    await page.getByRole("button", { name: "Authorize", exact: true }).first().click();
    const dialog = page.locator(".dialog-ux .modal-ux");
    const headerScheme = dialog.locator(".auth-container").filter({ hasText: "ApiKeyHeader" });
    await headerScheme.locator("input").fill(apiKey);
    await headerScheme.getByRole("button", { name: "Apply credentials" }).click();
    await headerScheme.getByRole("button", { name: "Remove authorization" }).waitFor();
    await dialog.locator("button.btn-done").first().click();

    await grok.getByRole("button", { name: "Try it out" }).click();
    await grok.locator('tr[data-param-name="prompt"] input').fill(PROMPT);
    await grok.locator('tr[data-param-name="mode"] select').selectOption("MODEL_MODE_FAST");
    await grok.getByRole("button", { name: "Execute" }).click();
    const live = grok.locator(".live-responses-table");
    // The table's header row carries the same class: the status is in the body's cell.
    await expect.poll(() => live.locator("td.response-col_status:not(.col_header)").textContent(), { timeout: 60_000 }).toMatch(/^\s*200/);
    const body = await live.locator(".response-col_description .highlight-code .microlight").textContent();
    const answer: unknown = JSON.parse(body ?? "");
    expect(answer).toMatchObject({ scraper: "grok", status: "done", prompt: PROMPT, mode: "MODEL_MODE_FAST", credits_used: 3 });
    expect(JSON.stringify(answer)).toContain(`You asked: \\"${PROMPT}\\"`);
    // The request went out with the key in its header, as the curl snippet Swagger UI shows next to it says.
    expect(await grok.locator(".curl-command").textContent()).toContain("X-API-Key: sk_");
    expect([...hosts]).toEqual([new URL(baseUrl).host]);
    expect(problems).toEqual([]);
  });
});
