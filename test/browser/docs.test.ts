/**
 * The API reference at /docs in a real headless Chromium against the whole Worker under `wrangler dev`: Swagger UI comes
 * from the Worker's own static assets (wrangler.toml `[assets]`), so the page works offline — every request it makes
 * stays on 127.0.0.1 — and under its strict Content-Security-Policy (a violation would be a console error). It lists
 * every scrape route with its provider's own example and no operator endpoint, shows each operation's code samples in
 * three languages, deep links open an operation, and "Try it out" with a key typed into Authorize gets a real answer
 * from the Grok replica. The guides it links are served pages whose links work; the operator's /admin/docs shows
 * nothing of the operator API until it is given the admin token.
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

/** Console errors and page errors of `page` (a CSP violation is a console error). */
function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  return problems;
}

async function openDocs(hash = ""): Promise<DocsPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems = problemsOf(page);
  const hosts = new Set<string>();
  const assets = new Map<string, string>();
  page.on("request", (request) => hosts.add(new URL(request.url()).host));
  page.on("response", (response) => {
    const path = new URL(response.url()).pathname;
    if (path.startsWith("/docs/assets/")) assets.set(path, `${response.status()} ${response.headers()["x-content-type-options"]}`);
  });
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

describe("what /docs shows customers", () => {
  it("shows no operator endpoint: no Operator section, no /admin path, no admin token in Authorize", async () => {
    const { page, problems } = await openDocs();
    const tags = await page.locator(".opblock-tag").evaluateAll((elements) => elements.map((element) => element.getAttribute("data-tag")));
    expect(tags).toEqual(expect.arrayContaining(["Jobs", "Batches", "Account", "Status"]));
    expect(tags).not.toContain("Operator");
    const paths = await page.locator(".opblock-summary-path").allTextContents();
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((path) => path.startsWith("/admin"))).toEqual([]);
    await page.getByRole("button", { name: "Authorize", exact: true }).first().click();
    const schemes = await page.locator(".dialog-ux .modal-ux .auth-container h4").allTextContents();
    expect(schemes.join(" ")).toContain("ApiKeyHeader");
    expect(schemes.join(" ")).not.toMatch(/AdminToken|bearer/i);
    expect(problems).toEqual([]);
  });

  it("shows an operation's code samples in curl, Python and JavaScript, one language at a time", async () => {
    const { page, problems } = await openDocs("#/Grok/submitGrokJob");
    const job = page.locator(operationId("Grok", "submitGrokJob"));
    await expect.poll(() => job.getAttribute("class")).toContain("is-open");
    const samples = job.locator(".code-samples");
    await samples.waitFor();
    expect(await samples.getByRole("tab").allTextContents()).toEqual(["curl", "Python", "JavaScript"]);
    const shown = () => samples.locator(".code-samples-body").textContent();
    expect(await shown()).toContain('curl -sS --fail-with-body -X POST "$API_URL/scrapers/grok/jobs?prompt=');
    expect(await shown()).toContain('-H "X-API-Key: $API_KEY"');
    await samples.getByRole("tab", { name: "Python" }).click();
    await expect.poll(shown).toContain("urllib.request.Request(");
    expect(await shown()).toContain('API_KEY = os.environ["API_KEY"]');
    await samples.getByRole("tab", { name: "JavaScript" }).click();
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample is JavaScript source with template literals
    await expect.poll(shown).toContain("await fetch(`${API_URL}/scrapers/grok/jobs?${query}`");
    expect(await samples.getByRole("tab", { name: "JavaScript" }).getAttribute("aria-selected")).toBe("true");
    expect(problems).toEqual([]);
  });

  it("links served guides that render under a script-free CSP, with links between them that work", async () => {
    const { page } = await openDocs();
    const headerLinks = await page.locator(".docs-header nav a").evaluateAll((links) => links.map((link) => link.getAttribute("href")));
    expect(headerLinks).toEqual([
      "/docs/guides/examples",
      "/docs/guides/errors",
      "/docs/guides/async-jobs",
      "/docs/guides/limits",
      "/docs/guides/evidence",
    ]);
    await page.locator(".docs-header nav a", { hasText: "Examples" }).click();
    await page.waitForURL(`${baseUrl}/docs/guides/examples`);
    const problems = problemsOf(page);
    const guide = await page.request.get(`${baseUrl}/docs/guides/examples`);
    expect(guide.status()).toBe(200);
    expect(guide.headers()["content-security-policy"]).toMatch(/default-src 'none'/);
    expect(guide.headers()["content-security-policy"]).not.toMatch(/script-src|unsafe/);
    expect(await page.locator("main h1").textContent()).toMatch(/Examples/);
    expect(await page.locator("main pre code").count()).toBeGreaterThan(3);
    // The examples test's markers are not shown.
    expect(await page.locator("main").textContent()).not.toContain("<!--");
    // The guide's own link to another guide (written `async-jobs.md` in the repository) opens that served guide.
    await page.locator('main a[href="async-jobs"]').first().click();
    await page.waitForURL(`${baseUrl}/docs/guides/async-jobs`);
    expect(await page.locator("main h1").textContent()).toMatch(/jobs/i);
    // Every link of every guide that stays on this deployment answers 200, and every in-page anchor has its target.
    for (const slug of ["examples", "errors", "async-jobs", "limits"]) {
      await page.goto(`${baseUrl}/docs/guides/${slug}`);
      const hrefs = await page.locator("a[href]").evaluateAll((links) => links.map((link) => link.getAttribute("href") ?? ""));
      for (const href of hrefs) {
        const target = new URL(href, page.url());
        if (target.origin !== baseUrl) continue;
        if (target.hash !== "") {
          await page.goto(target.href.replace(target.hash, ""));
          expect(await page.locator(`[id="${decodeURIComponent(target.hash.slice(1))}"]`).count(), `${slug}: ${href}`).toBe(1);
          await page.goto(`${baseUrl}/docs/guides/${slug}`);
        }
        const response = await page.request.get(target.href);
        expect(response.status(), `${slug}: ${href}`).toBe(200);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("the operator reference at /admin/docs", () => {
  it("shows nothing of the operator API before the token, refuses a wrong one, and the reference once given the right one", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    const response = await page.goto(`${baseUrl}/admin/docs`);
    expect(response?.status()).toBe(200);
    const token = page.getByLabel(/Admin token/);
    await token.waitFor();
    expect(await token.getAttribute("type")).toBe("password");
    expect(await page.locator(".opblock").count()).toBe(0);
    expect(await page.locator("body").textContent()).not.toMatch(/\/admin\/|accounts|pools/i);

    await token.fill("not-the-admin-token-but-long-enough-to-count");
    await page.getByRole("button", { name: "Show the operator reference" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/admin token/i);
    expect(await page.locator(".opblock").count()).toBe(0);

    await token.fill(adminToken);
    await page.getByRole("button", { name: "Show the operator reference" }).click();
    await page.locator(".opblock-tag").first().waitFor();
    const paths = await page.locator(".opblock-summary-path").allTextContents();
    expect(paths).toEqual(expect.arrayContaining(["/admin/accounts", "/admin/pools"]));
    expect(paths.filter((path) => !path.startsWith("/admin/"))).toEqual([]);
    expect(await page.locator("#operator-token-form").isHidden()).toBe(true);
    // Try it out sends the token it was given: the providers' overview answers 200.
    const providers = page.locator(operationId("Operator", "listAdminProviders"));
    await providers.locator(".opblock-summary").click();
    await providers.getByRole("button", { name: "Try it out" }).click();
    await providers.getByRole("button", { name: "Execute" }).click();
    await expect
      .poll(() => providers.locator(".live-responses-table td.response-col_status:not(.col_header)").textContent(), { timeout: 30_000 })
      .toMatch(/^\s*200/);
    // The token was kept in memory only: nothing in the tab's storage.
    expect(await page.evaluate(() => window.sessionStorage.length + window.localStorage.length)).toBe(0);
    // The wrong token's 401 is the only console error (Chromium logs every failed fetch).
    expect(problems.filter((problem) => !/401/.test(problem))).toEqual([]);
    await context.close();
  });
});
