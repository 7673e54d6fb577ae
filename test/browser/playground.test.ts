/**
 * Issue 16 in a real headless Chromium (playwright-core driving Debian's Chromium) against the whole Worker under
 * `wrangler dev`, with real scrapes through the provider replicas: the playground's form follows the chosen scraper
 * (its own parameters, its countries), the snippets follow the form with the key masked, a run that waits shows a live
 * timer and lands on its result, where a prompt containing `<script>` is text and never runs; a job is followed until
 * done; products and social posts are cards; the jobs list links to the viewer; errors are shown and cost nothing.
 * A screenshot of every step is kept in test-artifacts/playground/.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adminCaller } from "../support/admin-client";
import { launchChromium } from "../support/chromium";

const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts/playground");
const LAPTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
/** A first scrape launches a browser session; later ones reuse it. */
const SCRAPE_TIMEOUT_MS = 90_000;
const SCRIPT_PROMPT = "<script>window.__pwned = true</script> What is new with Starship?";

const baseUrl = inject("dashboardBaseUrl");
const adminToken = inject("dashboardAdminToken");

let browser: Browser;
let context: BrowserContext;
let page: Page;

const admin = adminCaller(baseUrl, adminToken);

async function shot(name: string, target: Page = page): Promise<void> {
  await target.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function creditsLeft(apiKey: string): Promise<number> {
  const response = await fetch(`${baseUrl}/account`, { headers: { "X-API-Key": apiKey } });
  return ((await response.json()) as { credits_remaining: number }).credits_remaining;
}

function resultIdOf(url: string): string {
  const match = /\/dashboard\/results\/([0-9a-f-]{36})$/.exec(new URL(url).pathname);
  if (match?.[1] === undefined) throw new Error(`not a result page: ${url}`);
  return match[1];
}

/** Seconds shown by a timer ("1.3 s", "1 min 2 s"). */
function shownSeconds(text: string | null): number {
  const match = /^(?:(\d+) min )?(\d+(?:\.\d)?) s$/.exec((text ?? "").trim());
  if (match === null) return Number.NaN;
  return Number(match[1] ?? 0) * 60 + Number(match[2]);
}

async function chooseScraper(id: string): Promise<void> {
  await page.locator("#pg-scraper").selectOption(id);
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

describe("the playground and the result viewer in Chromium", () => {
  let evaluationKey = { key_id: "", api_key: "", display_prefix: "" };
  let spareKey = { key_id: "", api_key: "", display_prefix: "" };
  /** Content-Security-Policy reports: none may appear (the answer's text must never try to run). */
  const cspViolations: string[] = [];

  it("signs in and opens the playground", async () => {
    const account = await admin<{ account_id: string }>("/admin/accounts", "POST", { name: "Playground Labs" });
    evaluationKey = await admin(`/admin/accounts/${account.account_id}/keys`, "POST", { name: "Evaluation" });
    spareKey = await admin(`/admin/accounts/${account.account_id}/keys`, "POST", { name: "Spare" });
    const { login_url: loginUrl } = await admin<{ login_url: string }>(`/admin/accounts/${account.account_id}/login-links`, "POST");
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });

    await page.goto(loginUrl);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${baseUrl}/dashboard`);
    await page.getByRole("link", { name: "Playground", exact: true }).click();
    await page.waitForURL(`${baseUrl}/dashboard/playground`);
    await expect.poll(() => page.getByRole("heading", { name: "Playground" }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.getByTestId("credits-note").textContent()).toMatch(/Each run costs 3 credits of your balance \(1,500 left\)/);
    await shot("01-playground");
  });

  it("shows only the chosen scraper's own parameters and offers only the countries it serves", async () => {
    // ChatGPT first: markdown_json only.
    await expect.poll(() => page.locator("#pg-chatgpt-markdown_json").isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.locator("#pg-grok-mode").isVisible()).toBe(false);
    expect(await page.locator("#pg-perplexity-web_search").isVisible()).toBe(false);

    await chooseScraper("perplexity");
    await expect.poll(() => page.locator("#pg-perplexity-web_search").isVisible()).toBe(true);
    expect(await page.locator("#pg-perplexity-web_search").isChecked()).toBe(true);
    expect(await page.locator("#pg-chatgpt-markdown_json").isVisible()).toBe(false);
    // Perplexity serves Japan; choose it, then switch to Grok, which does not.
    await page.locator("#pg-country").selectOption("JP");

    // Grok does not serve Japan: the choice is kept (never swapped for another country), the page says a run with it
    // is refused, and the other countries Grok refuses are not offered.
    await chooseScraper("grok");
    await expect.poll(() => page.locator("#pg-grok-mode").isVisible()).toBe(true);
    expect(await page.locator("#pg-perplexity-web_search").isVisible()).toBe(false);
    expect(await page.locator("#pg-country").inputValue()).toBe("JP");
    expect(await page.locator("[data-country-hint]").textContent()).toBe(
      "Grok does not serve JP: a run with it is refused (HTTP 400) and costs nothing. Choose another country.",
    );
    expect(await page.locator('#pg-country option[value="TW"]').isDisabled()).toBe(true);
    expect(await page.locator("#pg-grok-mode option").allTextContents()).toEqual([
      "MODEL_MODE_AUTO (default)",
      "MODEL_MODE_FAST",
      "MODEL_MODE_EXPERT",
    ]);
    // Once another country is chosen, Japan is no longer offered for Grok.
    await page.locator("#pg-country").selectOption("US");
    await expect.poll(() => page.locator('#pg-country option[value="JP"]').isDisabled()).toBe(true);
    expect(await page.locator("[data-country-hint]").textContent()).toContain("The list holds the countries this scraper serves.");

    await chooseScraper("amazon_rufus");
    await expect.poll(() => page.locator('#pg-country option[value="CN"]').isDisabled()).toBe(true);
    expect(await page.locator('#pg-country option[value="DE"]').isDisabled()).toBe(false);
    const offered = await page
      .locator("#pg-country option:not([disabled])")
      .evaluateAll((options) => options.map((option) => option.getAttribute("value")));
    // Some of Amazon's marketplaces with Rufus, and a country without one.
    for (const marketplace of ["US", "GB", "DE", "FR", "IT", "ES", "CA", "JP"]) expect(offered).toContain(marketplace);
    expect(offered).not.toContain("CN");
    expect(await page.locator('[data-for-scraper="amazon_rufus"].own-params').textContent()).toContain("no parameters of its own");
    await shot("02-amazon-countries");

    await chooseScraper("grok");
    await page.locator("#pg-grok-mode").selectOption("MODEL_MODE_FAST");
    await shot("03-grok-form");
  });

  it("keeps the curl, Python and JavaScript snippets in step with the form, reading the key from API_KEY", async () => {
    await page.locator("#pg-key").selectOption({ label: `Evaluation (${evaluationKey.display_prefix}…)` });
    await page.locator("#pg-prompt").fill(SCRIPT_PROMPT);
    const curl = page.locator("#snippet-curl");
    await expect.poll(() => curl.textContent(), { timeout: 10_000 }).toContain(`--data-urlencode 'prompt=${SCRIPT_PROMPT}'`);
    const code = (await curl.textContent()) ?? "";
    expect(code).toContain('curl -fsS -G "$API_URL/scrapers/grok"');
    expect(code).toContain(`API_URL='${baseUrl}'`);
    expect(code).toContain("--data-urlencode 'mode=MODEL_MODE_FAST'");
    expect(code).toContain('-H "X-API-Key: $API_KEY"');
    expect(code).toContain(`your full key ${evaluationKey.display_prefix}…`);
    const python = (await page.locator("#snippet-python").textContent()) ?? "";
    expect(python).toContain(`"prompt": ${JSON.stringify(SCRIPT_PROMPT)},`);
    expect(python).toContain("import urllib.request");
    expect(await page.locator("#snippet-javascript").textContent()).toContain(`"mode": "MODEL_MODE_FAST",`);
    expect(await page.content()).not.toContain(evaluationKey.api_key);

    await page.locator('[data-copy-text="snippet-curl"]').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(code);
    await shot("04-snippets");
  });

  it("a run that waits shows a live timer, then its result: the <script> in the prompt is text and never runs", async () => {
    // The run's request is held at the browser until the timer has visibly counted, so the timer is seen whatever the
    // scrape's speed; then it goes to the Worker and the real scrape runs against the Grok replica. While a page's
    // navigation is pending Playwright cannot query it, so the page reports what it shows through its own requests
    // (a probe route answered here), and the screenshot and the second click go through the DevTools protocol.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolveRelease) => {
      release = resolveRelease;
    });
    let posts = 0;
    const hold = async (route: Route) => {
      if (route.request().method() === "POST") {
        posts += 1;
        await released;
      }
      // After a failed step the route may already be gone (unrouted in `finally`); that failure is the one to report.
      await route.continue().catch(() => undefined);
    };
    const reports: Array<{ shown: string; submits: number }> = [];
    const probe = async (route: Route) => {
      const query = new URL(route.request().url()).searchParams;
      reports.push({ shown: query.get("shown") ?? "", submits: Number(query.get("submits")) });
      // A probe still in flight when the page navigates away is cancelled by the browser.
      await route.fulfill({ status: 204 }).catch(() => undefined);
    };
    const lastReport = () => reports.at(-1) ?? { shown: "", submits: 0 };
    const secondsShown = () => shownSeconds(/ (\S+ s|\d+ min \S+ s)$/.exec(lastReport().shown)?.[1] ?? "");
    await page.route(`${baseUrl}/dashboard/playground`, hold);
    await page.route(`${baseUrl}/__probe*`, probe);
    const button = page.getByRole("button", { name: /^Run/ });
    await button.scrollIntoViewIfNeeded();
    const box = await button.boundingBox();
    if (box === null) throw new Error("the Run button is not on screen");
    await page.evaluate(() => {
      let submits = 0;
      document.addEventListener("submit", () => {
        submits += 1;
      });
      setInterval(() => {
        const status = document.querySelector<HTMLElement>("[data-run-status]");
        const shown = status === null || status.hidden ? "hidden" : (status.textContent ?? "").replace(/\s+/g, " ").trim();
        void fetch(`/__probe?${new URLSearchParams({ shown, submits: String(submits) })}`).catch(() => undefined);
      }, 100);
    });
    const cdp = await context.newCDPSession(page);
    try {
      // The click settles once the navigation it starts has ended, which the held request delays: awaited after release.
      const clicked = button.click({ timeout: SCRAPE_TIMEOUT_MS });
      await expect.poll(secondsShown, { timeout: 10_000 }).toBeGreaterThanOrEqual(0.5);
      expect(lastReport().shown).toMatch(/^Waiting for grok… \d+\.\d s$/);
      const { data } = await cdp.send("Page.captureScreenshot", { format: "png" });
      writeFileSync(join(ARTIFACTS, "05-running-timer.png"), Buffer.from(data, "base64"));
      const before = secondsShown();
      await expect.poll(secondsShown, { timeout: 10_000 }).toBeGreaterThan(before);
      // A second click while the run waits submits the form again, and the page sends nothing more.
      const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
      await cdp.send("Input.dispatchMouseEvent", { type: "mousePressed", x, y, button: "left", clickCount: 1 });
      await cdp.send("Input.dispatchMouseEvent", { type: "mouseReleased", x, y, button: "left", clickCount: 1 });
      await expect.poll(() => lastReport().submits, { timeout: 10_000 }).toBe(2);
      release();
      await clicked;
      await page.waitForURL(/\/dashboard\/results\//, { timeout: SCRAPE_TIMEOUT_MS });
    } finally {
      release();
      await cdp.detach().catch(() => undefined);
      await page.unroute(`${baseUrl}/dashboard/playground`, hold);
      await page.unroute(`${baseUrl}/__probe*`, probe);
    }
    expect(posts).toBe(1);
    const id = resultIdOf(page.url());

    expect(await page.getByTestId("result-status").textContent()).toBe("Done");
    expect(await page.getByTestId("prompt").textContent()).toBe(SCRIPT_PROMPT);
    // The replica's default answer quotes the prompt: the tag is in the answer as text, and nothing ran.
    const answer = page.getByTestId("answer");
    expect(await answer.textContent()).toContain(SCRIPT_PROMPT);
    expect(await answer.locator("script").count()).toBe(0);
    expect(await page.evaluate(() => Reflect.get(window, "__pwned"))).toBeUndefined();
    expect(await page.evaluate(() => Array.from(document.scripts, (script) => new URL(script.src).pathname))).toEqual([
      "/dashboard/assets/dashboard.js",
    ]);
    expect(await page.getByTestId("credits").textContent()).toBe("3");
    expect(shownSeconds(await page.getByTestId("elapsed").textContent())).toBeGreaterThan(0);
    // Web sources as cards with links.
    const sources = page.locator('[data-section="web_sources"] .result-card h3 a');
    expect(await sources.count()).toBeGreaterThan(0);
    expect(await sources.first().getAttribute("href")).toMatch(/^https:\/\//);
    await shot("06-result");

    // The raw JSON is one click away, and is the API's 200 body.
    const raw = page.locator("#raw-json-text");
    expect(await raw.isVisible()).toBe(false);
    await page.getByText("Raw JSON", { exact: true }).click();
    await expect.poll(() => raw.isVisible(), { timeout: 10_000 }).toBe(true);
    const body = JSON.parse((await raw.textContent()) ?? "{}") as Record<string, unknown>;
    expect(body).toMatchObject({
      scraper: "grok",
      status: "done",
      job_id: id,
      prompt: SCRIPT_PROMPT,
      mode: "MODEL_MODE_FAST",
      credits_used: 3,
    });
    await shot("07-raw-json");

    // The hosted markdown.
    const markdownUrl = await page.getByTestId("markdown-url").getAttribute("href");
    expect(markdownUrl).toBe(`${baseUrl}/md/${id}.md`);
    expect(await (await fetch(markdownUrl ?? "")).text()).toContain(SCRIPT_PROMPT);
    // Charged to the chosen key, once: a reload runs nothing.
    expect(await creditsLeft(evaluationKey.api_key)).toBe(1497);
    await page.reload();
    expect(await page.getByTestId("prompt").textContent()).toBe(SCRIPT_PROMPT);
    expect(await creditsLeft(evaluationKey.api_key)).toBe(1497);
  });

  it("shows a shopping answer's products as cards", async () => {
    await page.goto("/dashboard/playground?scraper=amazon_rufus&country=DE&prompt=Leichte%20Laufschuhe%20unter%20100%20Euro");
    await page.getByRole("button", { name: /^Run/ }).click({ timeout: SCRAPE_TIMEOUT_MS });
    await page.waitForURL(/\/dashboard\/results\//, { timeout: SCRAPE_TIMEOUT_MS });
    const body = JSON.parse((await page.locator("#raw-json-text").textContent()) ?? "{}") as {
      products?: Array<{ title: string; url: string }>;
    };
    const products = body.products ?? [];
    expect(products.length).toBeGreaterThan(0);
    const cards = page.locator('[data-section="products"] .result-card');
    expect(await cards.count()).toBe(products.length);
    for (const [index, product] of products.entries()) {
      const link = cards.nth(index).locator("h3 a");
      expect(await link.textContent()).toBe(product.title);
      expect(await link.getAttribute("href")).toBe(product.url);
    }
    expect(await page.locator(".fact", { hasText: "Country" }).locator("dd").textContent()).toBe("DE");
    await shot("08-products");
  });

  it("a job is followed on its result page until done; its social posts are cards; the jobs list links to it", async () => {
    await page.goto(
      "/dashboard/playground?scraper=grok&grok.mode=MODEL_MODE_FAST&prompt=What%20are%20people%20saying%3F%20many-posts&run=job",
    );
    await page.getByRole("button", { name: /^Run/ }).click({ timeout: SCRAPE_TIMEOUT_MS });
    await page.waitForURL(/\/dashboard\/results\//);
    const id = resultIdOf(page.url());
    await shot("09-job-submitted");
    // The page script polls GET /jobs/{id} and reloads when the job ends.
    await expect.poll(() => page.getByTestId("result-status").textContent(), { timeout: SCRAPE_TIMEOUT_MS, interval: 500 }).toBe("Done");
    const body = JSON.parse((await page.locator("#raw-json-text").textContent()) ?? "{}") as { result?: { social_results?: unknown[] } };
    const posts = body.result?.social_results ?? [];
    expect(posts.length).toBeGreaterThan(0);
    expect(await page.locator('[data-section="social_results"] .result-card').count()).toBe(posts.length);
    await shot("10-job-done");

    await page.getByRole("link", { name: "All jobs" }).click();
    await page.waitForURL(`${baseUrl}/dashboard/jobs`);
    const row = page.locator(`[data-job-id="${id}"]`);
    await expect.poll(() => row.locator('[data-status="done"]').isVisible(), { timeout: 10_000 }).toBe(true);
    await shot("11-jobs");
    await row.getByRole("link").first().click();
    await page.waitForURL(`${baseUrl}/dashboard/results/${id}`);
    expect(await creditsLeft(evaluationKey.api_key)).toBe(1491);
  });

  it("a refused run says why, keeps the form and charges nothing", async () => {
    // A link naming a country Grok does not serve: the API's refusal at once, and Japan stays chosen after the page
    // script ran; running it anyway is refused the same way.
    const refusal = "invalid_parameter: country: JP is not supported by the grok scraper";
    await page.goto("/dashboard/playground?scraper=grok&prompt=Anything%20new%3F&country=JP");
    expect(await page.getByTestId("run-error").locator("p").first().textContent()).toBe(refusal);
    expect(await page.locator("#pg-country").inputValue()).toBe("JP");
    expect(await page.locator("[data-country-hint]").textContent()).toContain("Grok does not serve JP");
    await shot("12-link-country-refused");
    await page.locator("#pg-key").selectOption({ label: `Evaluation (${evaluationKey.display_prefix}…)` });
    await page.getByRole("button", { name: /^Run/ }).click({ timeout: SCRAPE_TIMEOUT_MS });
    await expect
      .poll(() => page.getByTestId("run-error").locator("h2").textContent(), { timeout: 15_000 })
      .toContain("The run was refused");
    expect(await page.getByTestId("run-error").locator("p").first().textContent()).toBe(refusal);
    expect(await page.locator("#pg-country").inputValue()).toBe("JP");
    expect(await creditsLeft(evaluationKey.api_key)).toBe(1491);

    await page.goto("/dashboard/playground?scraper=grok&prompt=Anything%20new%3F");
    await page.locator("#pg-key").selectOption({ label: `Spare (${spareKey.display_prefix}…)` });
    // The key is revoked while the page is open.
    await admin(`/admin/keys/${spareKey.key_id}`, "DELETE");
    await page.getByRole("button", { name: /^Run/ }).click({ timeout: SCRAPE_TIMEOUT_MS });
    await expect.poll(() => page.getByTestId("run-error").isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await page.getByTestId("run-error").textContent()).toContain("choose one of your active API keys");
    expect(await page.locator("#pg-prompt").inputValue()).toBe("Anything new?");
    expect(await creditsLeft(evaluationKey.api_key)).toBe(1491);
    await shot("13-refused");
  });

  it("the snippets run as written, with only API_KEY and API_URL in the environment", async () => {
    // Another account pays for these runs, so the balances checked above stay as they are.
    const account = await admin<{ account_id: string }>("/admin/accounts", "POST", { name: "Snippet runner" });
    const { api_key: apiKey } = await admin<{ api_key: string }>(`/admin/accounts/${account.account_id}/keys`, "POST", {
      name: "Snippets",
    });
    const workDir = mkdtempSync(join(tmpdir(), "playground-snippets-"));
    const snippetsOf = async (query: Record<string, string>): Promise<Record<"curl" | "python" | "javascript", string>> => {
      const response = await page.request.get(`/dashboard/playground/snippets?${new URLSearchParams(query)}`);
      expect(response.status()).toBe(200);
      return (await response.json()) as Record<"curl" | "python" | "javascript", string>;
    };
    const execute = async (language: "curl" | "python" | "javascript", code: string) => {
      const file = join(workDir, { curl: "snippet.sh", python: "snippet.py", javascript: "snippet.mjs" }[language]);
      writeFileSync(file, `${code}\n`);
      const command = { curl: "bash", python: "python3", javascript: process.execPath }[language];
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", API_KEY: apiKey, API_URL: baseUrl };
      return new Promise<{ code: number; stdout: string; stderr: string }>((resolveRun) => {
        execFile(command, [file], { cwd: workDir, env, timeout: SCRAPE_TIMEOUT_MS }, (error, stdout, stderr) => {
          resolveRun({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
        });
      });
    };
    try {
      const prompt = "What is new with Starship?";
      const sync = await snippetsOf({ scraper: "grok", prompt, run: "sync" });
      const curl = await execute("curl", sync.curl);
      expect(curl.code, curl.stderr).toBe(0);
      expect(JSON.parse(curl.stdout)).toMatchObject({ scraper: "grok", status: "done", prompt });
      for (const language of ["python", "javascript"] as const) {
        const result = await execute(language, sync[language]);
        expect(result.code, `${language}: ${result.stderr}`).toBe(0);
        expect(result.stdout, language).toContain(`You asked: "${prompt}"`);
      }
      const job = await snippetsOf({ scraper: "perplexity", prompt: "Who built the Eiffel Tower?", run: "job" });
      for (const language of ["python", "javascript"] as const) {
        const result = await execute(language, job[language]);
        expect(result.code, `${language}: ${result.stderr}`).toBe(0);
        expect(result.stdout, language).toContain('You asked: "Who built the Eiffel Tower?"');
      }
      // A refused request ends with the API's status and detail, not a stack trace.
      const refused = await snippetsOf({ scraper: "grok", prompt, country: "JP", run: "sync" });
      for (const language of ["python", "javascript"] as const) {
        const result = await execute(language, refused[language]);
        expect(result.code, language).not.toBe(0);
        expect(result.stderr, language).toContain("400: country: JP is not supported by the grok scraper");
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it("reads well on a phone", async () => {
    const phone = await context.newPage();
    await phone.setViewportSize(PHONE);
    await phone.goto("/dashboard/jobs");
    const resultPath = (await phone.locator('[data-job-id] a[href^="/dashboard/results/"]').first().getAttribute("href")) ?? "";
    for (const [path, name] of [
      ["/dashboard/playground", "14-phone-playground"],
      [resultPath, "15-phone-result"],
    ] as const) {
      await phone.goto(path);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
      await shot(name, phone);
    }
    await phone.close();
    expect(cspViolations).toEqual([]);
  });
});
