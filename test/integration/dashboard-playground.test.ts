/**
 * Issue 16 inside the Workers runtime: the playground's form derived from the providers' declarations, runs made with
 * one of the account's keys (charged to that key as any request, refused as the API refuses them, never charged twice
 * on reload), the result viewer (sanitised answer, cards, raw JSON, markdown_url, elapsed time and credits) for
 * playground runs and jobs, and the jobs list linking to it with failed jobs' errors. Answers are seeded in the
 * response cache, so a run is a real, charged cache hit that needs no browser; the same flows in Chromium, with real
 * scrapes, are in test/browser/playground.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { recordSubmittedJob } from "../../src/jobs/jobs-table";
import { responseCacheKey } from "../../src/cache/response-cache";
import { NO_SUCH_KEY_DETAIL } from "../../src/dashboard/playground/key-admission";
import { renderAnswer } from "../../src/dashboard/playground/answer-html";
import { jobStub } from "../../src/jobs/job-record";
import { allProviders } from "../../src/scrapers/registry";
import { adminApi, adminJson, cacheEntryJson, newAccount, newKey } from "../support/workers/account-helpers";
import { holdGrokScrape, ledgerKindsOnce } from "./held-scrape";
import { BASE, api, balanceOf } from "../support/workers/helpers";
import { Visitor, csrfOf } from "../support/workers/dashboard-visitor";

/** Signs in with a fresh one-time link (its token after "#", or, in the older format, as the last path segment). */
async function signIn(accountId: string): Promise<{ visitor: Visitor; csrf: string }> {
  const { login_url: loginUrl } = await adminJson<{ login_url: string }>(
    `/admin/accounts/${accountId}/login-links`,
    { method: "POST" },
    201,
  );
  const url = new URL(loginUrl);
  const token = url.hash.length > 1 ? url.hash.slice(1) : (url.pathname.split("/").pop() ?? "");
  const visitor = new Visitor();
  const page = await visitor.get(url.pathname);
  expect(page.status).toBe(200);
  expect((await visitor.post("/dashboard/login", { token, _csrf: csrfOf(await page.text()) })).status).toBe(303);
  const playground = await visitor.get("/dashboard/playground");
  expect(playground.status).toBe(200);
  return { visitor, csrf: csrfOf(await playground.text()) };
}

/** The form's fields for a grok run that waits, with defaults for everything not given. */
function grokRun(csrf: string, keyId: string, fields: Record<string, string> = {}): Record<string, string> {
  return {
    _csrf: csrf,
    form: "playground",
    scraper: "grok",
    prompt: "What is new?",
    country: "US",
    "grok.mode": "MODEL_MODE_AUTO",
    timeout: "",
    key_id: keyId,
    run: "sync",
    ...fields,
  };
}

const RICH_ANSWER = {
  web_sources: [
    {
      title: "Starship flight test - Wikipedia",
      url: "https://en.wikipedia.org/wiki/Starship_flight_test",
      preview: "The sixth flight test.",
    },
    { title: "Britannica: Starship", url: "https://www.britannica.com/technology/Starship", preview: null },
  ],
  social_results: [
    {
      post_id: "1850000000000000001",
      user_name: "spacefan",
      name: "Space Fan",
      text: "Watching the booster come back to the tower was unreal. <b>not bold</b>",
      view_count: 125000,
      profile_image_url: "https://pbs.twimg.com/profile_images/1/a.jpg",
      create_time: "2026-10-14T12:00:00.000Z",
    },
  ],
  related_questions: ["When is the next flight?", "How big is Starship?"],
  conversation: null,
  llm_model: "grok-4-auto",
  mode: "MODEL_MODE_AUTO",
};

/** Puts a grok answer for `prompt` (default parameters) in the account's response cache: a run of it needs no browser. */
async function seedGrokAnswer(accountId: string, prompt: string, markdown: string): Promise<void> {
  const params = { prompt, country: "US", bypass_cache: false, timeout: 300, mode: "MODEL_MODE_AUTO" };
  const answer = { result: markdown.replace(/[*[\]]/g, ""), result_markdown: markdown, ...RICH_ANSWER };
  await env.CACHE.put(await responseCacheKey("grok", params, accountId), cacheEntryJson(answer), { expirationTtl: 3600 });
}

async function chargesOf(accountId: string): Promise<Array<{ operation_id: string; key_id: string | null; delta: number; kind: string }>> {
  const { results } = await env.DB.prepare(
    "SELECT operation_id, key_id, delta, kind FROM credit_ledger WHERE account_id = ? AND kind != 'grant' ORDER BY id",
  )
    .bind(accountId)
    .all<{ operation_id: string; key_id: string | null; delta: number; kind: string }>();
  return results;
}

function resultIdOf(response: Response): string {
  expect(response.status).toBe(303);
  const location = response.headers.get("Location") ?? "";
  const match = /^\/dashboard\/results\/([0-9a-f-]{36})$/.exec(location);
  if (match?.[1] === undefined) throw new Error(`not a result location: ${location}`);
  return match[1];
}

function decodeEntities(html: string): string {
  return html.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

describe("the playground form", () => {
  it("is derived from the declarations: each scraper's own parameters, countries and defaults", async () => {
    const account = await newAccount({ name: "Form Co" });
    await newKey(account.account_id, "Form key");
    const { visitor } = await signIn(account.account_id);
    const html = await (await visitor.get("/dashboard/playground")).text();

    for (const provider of allProviders()) {
      expect(html, provider.id).toContain(`<option value="${provider.id}"`);
      expect(html, provider.id).toContain(`data-for-scraper="${provider.id}"`);
      for (const name of Object.keys(provider.params)) expect(html, `${provider.id}.${name}`).toContain(`name="${provider.id}.${name}"`);
      const refused = provider.countries?.refused;
      if (refused !== undefined) expect(html).toMatch(new RegExp(`value="${provider.id}"[^>]*data-refused="${refused.join(" ")}"`));
      const allowed = provider.countries?.allowed;
      if (allowed !== undefined) expect(html).toMatch(new RegExp(`value="${provider.id}"[^>]*data-allowed="${allowed.join(" ")}"`));
    }
    // Each scraper's own parameters appear only in its own fieldset, with the declared choices and defaults.
    const grokFieldset = /<fieldset[^>]*data-for-scraper="grok"[\s\S]*?<\/fieldset>/.exec(html)?.[0] ?? "";
    expect(grokFieldset).toContain('value="MODEL_MODE_EXPERT"');
    expect(grokFieldset).toMatch(/value="MODEL_MODE_AUTO" selected="">MODEL_MODE_AUTO \(default\)/);
    expect(grokFieldset).not.toContain("web_search");
    const perplexityFieldset = /<fieldset[^>]*data-for-scraper="perplexity"[\s\S]*?<\/fieldset>/.exec(html)?.[0] ?? "";
    expect(perplexityFieldset).toMatch(/name="perplexity\.web_search" value="true" checked=""/);
    const chatgptFieldset = /<fieldset[^>]*data-for-scraper="chatgpt"[\s\S]*?<\/fieldset>/.exec(html)?.[0] ?? "";
    expect(chatgptFieldset).toMatch(/name="chatgpt\.markdown_json" value="true"\s*\/?>/);
    expect(html).toMatch(/<fieldset[^>]*data-for-scraper="gemini"[\s\S]*?no parameters of its own/);
    // The first scraper is chosen; every other scraper's fieldset is hidden and disabled (not sent).
    expect(html).toMatch(/<fieldset class="own-params" data-for-scraper="perplexity" hidden="" disabled="">/);
    // Credits are charged as for any request, and the page says so.
    expect(html).toMatch(/data-testid="credits-note"[^>]*>Each run costs 3 credits of your balance \(<strong>1,500<\/strong> left\)/);
    expect(html).toContain("Form key (");
    expect(html).toContain('href="/dashboard/playground" aria-current="page"');
  });

  it("a link prefills it, and an account without keys is told to create one", async () => {
    const account = await newAccount();
    const { visitor } = await signIn(account.account_id);
    const html = await (
      await visitor.get("/dashboard/playground?scraper=copilot&prompt=Plan%20a%20trip&country=de&copilot.mode=smart&run=job")
    ).text();
    expect(html).toMatch(/<option value="copilot" selected=""/);
    expect(html).toMatch(/<option value="smart" selected="">smart<\/option>/);
    expect(html).toMatch(/<option value="DE" selected="">/);
    expect(html).toContain(">Plan a trip</textarea>");
    expect(html).toMatch(/name="run" value="job" checked=""/);
    // No key: the run button is disabled and the page says how to get one.
    expect(html).toContain('data-testid="no-keys"');
    expect(html).toMatch(/<button class="btn btn-primary" type="submit" disabled=""/);
    // Copilot refuses JP: the list does not offer it.
    expect(html).toMatch(/<option value="JP" hidden="" disabled="">/);
  });

  it("a link or a form naming a country the scraper does not serve is refused as the API refuses it, and nothing is charged", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id, "Mine");
    // What the API itself answers for Grok in Japan.
    const fromApi = await api("/scrapers/grok?prompt=What%20is%20new%3F&country=JP", { apiKey: key.api_key });
    expect(fromApi.status).toBe(400);
    const apiError = (await fromApi.json()) as { detail: string; code: string };
    expect(apiError).toMatchObject({ detail: "country: JP is not supported by the grok scraper", code: "invalid_parameter" });
    const shownError = `<code data-testid="run-error-code">${apiError.code}</code>: <span data-testid="run-error-detail">${apiError.detail}</span>`;
    const { visitor, csrf } = await signIn(account.account_id);

    // A link asking for it: refused before anything runs, and Japan stays chosen (never swapped for the US).
    const linked = await visitor.get("/dashboard/playground?scraper=grok&prompt=What%20is%20new%3F&country=jp&run=job");
    expect(linked.status).toBe(400);
    const html = decodeEntities(await linked.text());
    expect(html).toContain("The API refuses this link's request (HTTP 400)");
    expect(html).toContain(shownError);
    expect(html).toMatch(/<option value="JP" selected="">/);
    expect(html).toContain("Grok does not serve JP: a run with it is refused (HTTP 400) and costs nothing.");
    // Besides the chosen one, the list offers only Grok's countries.
    expect(html).toMatch(/<option value="TW" hidden="" disabled="">/);
    expect(html).toMatch(/<option value="US">/);

    // Running the form as the link filled it: the API's refusal again, as a job and as a run that waits.
    for (const run of ["job", "sync"]) {
      const refused = await visitor.post("/dashboard/playground", grokRun(csrf, key.key_id, { country: "JP", run }));
      expect(refused.status, run).toBe(400);
      expect(decodeEntities(await refused.text()), run).toContain(shownError);
    }

    // A code that is no country at all is kept as typed and refused as the API refuses it.
    const typo = decodeEntities(await (await visitor.get("/dashboard/playground?scraper=grok&prompt=Hi&country=XX")).text());
    expect(typo).toContain("country: XX is not an assigned ISO 3166-1 alpha-2 country code");
    expect(typo).toMatch(/<option value="XX" selected="" data-unassigned="">XX<\/option>/);

    // Amazon offers its marketplaces only; a link with one of them is not refused.
    const amazon = await visitor.get("/dashboard/playground?scraper=amazon_rufus&country=DE");
    expect(amazon.status).toBe(200);
    const amazonHtml = await amazon.text();
    expect(amazonHtml).not.toContain('data-testid="run-error"');
    expect(amazonHtml).toMatch(/<option value="DE" selected="">/);
    expect(amazonHtml).toMatch(/<option value="JP">/);
    expect(amazonHtml).toMatch(/<option value="CN" hidden="" disabled="">/);

    expect(await balanceOf(account.account_id)).toBe(1500);
    expect(await chargesOf(account.account_id)).toEqual([]);
  });
});

describe("a playground run that waits", () => {
  it("whose visitor closes the tab mid-scrape is refunded, after the request is gone", async () => {
    const account = await newAccount({ name: "Leaves early" });
    const key = await newKey(account.account_id, "Tab");
    const before = await balanceOf(account.account_id);
    const prompt = "A run whose tab is closed before the answer";
    const held = await holdGrokScrape(account.account_id, { prompt, timeout: 600 });
    try {
      const { visitor, csrf } = await signIn(account.account_id);
      const tab = new AbortController();
      const run = visitor.post("/dashboard/playground", grokRun(csrf, key.key_id, { prompt, timeout: "600" }), { signal: tab.signal });
      run.catch(() => undefined);
      // Charged, and waiting for the held scrape's answer.
      expect(await ledgerKindsOnce(account.account_id, 1)).toEqual(["charge"]);
      tab.abort(new Error("the tab was closed"));
      await expect(run).rejects.toThrow();
      expect(await ledgerKindsOnce(account.account_id, 2)).toEqual(["charge", "refund"]);
      expect(await balanceOf(account.account_id)).toBe(before);
    } finally {
      held.release();
    }
  });

  it("is charged to the chosen key, redirects to its result, and a reload charges nothing more", async () => {
    const account = await newAccount({ name: "Runner" });
    await newKey(account.account_id, "First");
    const chosen = await newKey(account.account_id, "Chosen");
    const prompt = 'Show me <script>window.pwned = 1</script> & "quotes"';
    await seedGrokAnswer(
      account.account_id,
      prompt,
      "An answer with **bold**, a [source](https://en.wikipedia.org/wiki/Starship), <img src=x onerror=alert(1)> and [bad](javascript:alert(1)).",
    );
    const { visitor, csrf } = await signIn(account.account_id);

    const id = resultIdOf(await visitor.post("/dashboard/playground", grokRun(csrf, chosen.key_id, { prompt })));
    expect(await balanceOf(account.account_id)).toBe(1497);
    expect(await chargesOf(account.account_id)).toEqual([{ operation_id: id, key_id: chosen.key_id, delta: -3, kind: "charge" }]);

    const page = await visitor.get(`/dashboard/results/${id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
    const html = await page.text();
    // Provider and prompt text are text, never markup: the only script is the dashboard's own file.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain("&lt;script&gt;window.pwned = 1&lt;/script&gt;");
    const answer = /data-testid="answer">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? "";
    expect(answer).toContain("<strong>bold</strong>");
    expect(answer).toContain(
      // the answer's first link carries the id a source card's "Show in answer" points at
      '<a href="https://en.wikipedia.org/wiki/Starship" target="_blank" rel="noopener noreferrer nofollow" id="answer-link-1">source</a>',
    );
    expect(answer).toContain("&lt;img src=x onerror=alert(1)&gt;");
    // Facts: credits, cached, the key it was charged to, elapsed time.
    expect(html).toMatch(/data-testid="credits">3</);
    expect(html).toMatch(/<dt>Cached<\/dt><dd>Yes<\/dd>/);
    expect(html).toMatch(/<dt>Key<\/dt><dd>Chosen<\/dd>/);
    expect(html).toMatch(/data-testid="elapsed">\d+\.\d s</);
    // Cards with links, chips, details.
    expect(html).toMatch(
      /data-section="web_sources"[\s\S]*?href="https:\/\/en.wikipedia.org\/wiki\/Starship_flight_test"[^>]*>Starship flight test - Wikipedia</,
    );
    expect(html).toMatch(
      /data-section="social_results"[\s\S]*?Space Fan[\s\S]*?Watching the booster come back to the tower was unreal\. &lt;b&gt;not bold&lt;\/b&gt;/,
    );
    // The author's picture is not loaded (the raw JSON has its URL).
    expect(html).not.toMatch(/(src|href)="https:\/\/pbs\.twimg\.com/);
    expect(html).toMatch(/data-section="social_results"[\s\S]*?@spacefan[\s\S]*?125,000 views/);
    expect(html).toContain("<h1>Grok result</h1>");
    expect(html).toMatch(/data-section="related_questions"[\s\S]*?<li>When is the next flight\?<\/li>/);
    expect(html).toMatch(/data-detail="llm_model"><dt>Model<\/dt><dd>grok-4-auto<\/dd>/);
    // The markdown_url link works and the raw JSON is the API's 200 body.
    const markdownUrl = /data-testid="markdown-url" href="([^"]+)"|href="([^"]+)"[^>]*data-testid="markdown-url"/.exec(html);
    const link = markdownUrl?.[1] ?? markdownUrl?.[2] ?? "";
    expect(link).toBe(`${BASE}/md/${id}.md`);
    const markdown = await api(new URL(link).pathname);
    expect(markdown.status).toBe(200);
    expect(await markdown.text()).toContain("**bold**");
    const raw = /<pre class="snippet code" id="raw-json-text">([\s\S]*?)<\/pre>/.exec(html)?.[1] ?? "";
    const body = JSON.parse(decodeEntities(raw)) as Record<string, unknown>;
    expect(body).toMatchObject({ scraper: "grok", status: "done", job_id: id, prompt, credits_used: 3, cached: true });

    // A reload shows the same run; nothing more is charged.
    expect((await visitor.get(`/dashboard/results/${id}`)).status).toBe(200);
    expect(await balanceOf(account.account_id)).toBe(1497);
    // The playground lists it, and "Open in the playground" refills the form.
    const playground = await (await visitor.get("/dashboard/playground")).text();
    expect(playground).toContain(`href="/dashboard/results/${id}"`);
    const reopen = /href="(\/dashboard\/playground\?[^"]+)"/.exec(html)?.[1] ?? "";
    const refilled = await (await visitor.get(decodeEntities(reopen))).text();
    expect(refilled).toContain("Show me &lt;script&gt;window.pwned = 1&lt;/script&gt; &amp; &quot;quotes&quot;</textarea>");
  });

  it("is refused as the API refuses it, and nothing is charged", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id, "Mine");
    const revoked = await newKey(account.account_id, "Old");
    expect((await adminApi(`/admin/keys/${revoked.key_id}`, { method: "DELETE" })).status).toBe(200);
    const stranger = await newAccount();
    const strangersKey = await newKey(stranger.account_id);
    const { visitor, csrf } = await signIn(account.account_id);

    const cases: Array<{ fields: Record<string, string>; status: number; detail: string }> = [
      { fields: grokRun(csrf, key.key_id, { country: "JP" }), status: 400, detail: "country: JP is not supported by the grok scraper" },
      {
        fields: { ...grokRun(csrf, key.key_id), scraper: "amazon_rufus", country: "CN" },
        status: 400,
        detail: "country: CN has no Amazon marketplace with Rufus",
      },
      { fields: grokRun(csrf, key.key_id, { prompt: "   " }), status: 400, detail: "prompt: must be 1 to 4000 characters and not blank" },
      { fields: grokRun(csrf, key.key_id, { "grok.mode": "TURBO" }), status: 400, detail: "mode: must be one of MODEL_MODE_AUTO" },
      { fields: grokRun(csrf, key.key_id, { timeout: "5" }), status: 400, detail: "timeout: must be a number of seconds from 10 to 600" },
      { fields: grokRun(csrf, strangersKey.key_id), status: 400, detail: NO_SUCH_KEY_DETAIL },
      { fields: grokRun(csrf, revoked.key_id), status: 400, detail: NO_SUCH_KEY_DETAIL },
      {
        fields: grokRun(csrf, key.key_id, { run: "job", country: "TW" }),
        status: 400,
        detail: "country: TW is not supported by the grok scraper",
      },
    ];
    for (const { fields, status, detail } of cases) {
      const response = await visitor.post("/dashboard/playground", fields);
      expect(response.status, detail).toBe(status);
      const html = decodeEntities(await response.text());
      expect(html, detail).toContain(detail);
      expect(html).toContain('data-testid="run-error"');
      // The form keeps what was typed.
      expect(html).toContain(`<option value="${fields.scraper}" selected=""`);
    }
    // Without the session's CSRF token: the expired-form page.
    expect((await visitor.post("/dashboard/playground", grokRun("forged", key.key_id))).status).toBe(403);
    expect(await balanceOf(account.account_id)).toBe(1500);
    expect(await chargesOf(account.account_id)).toEqual([]);
  });

  it("an account short of credits gets the API's 429", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id);
    await adminJson(`/admin/accounts/${account.account_id}/credits`, {
      method: "POST",
      body: { delta: -1499, reason: "test: almost empty" },
    });
    await seedGrokAnswer(account.account_id, "What is new?", "Cached.");
    const { visitor, csrf } = await signIn(account.account_id);
    const response = await visitor.post("/dashboard/playground", grokRun(csrf, key.key_id));
    expect(response.status).toBe(429);
    expect(await response.text()).toContain("Credit limit reached: this request needs 3 credits and the account has 1.");
    expect(await balanceOf(account.account_id)).toBe(1);
  });
});

describe("a playground run as a job", () => {
  it("is submitted with the chosen key and followed on its result page until done", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id, "Jobs key");
    const prompt = "Summarise the launch as a job";
    await seedGrokAnswer(account.account_id, prompt, "The job's **answer**.");
    const { visitor, csrf } = await signIn(account.account_id);

    const id = resultIdOf(await visitor.post("/dashboard/playground", grokRun(csrf, key.key_id, { prompt, run: "job" })));
    expect(await balanceOf(account.account_id)).toBe(1497);
    expect(await chargesOf(account.account_id)).toEqual([{ operation_id: id, key_id: key.key_id, delta: -3, kind: "charge" }]);

    const first = await (await visitor.get(`/dashboard/results/${id}`)).text();
    expect(first).toContain(prompt);
    expect(first).toMatch(/data-status="(pending|done)"/);
    await expect
      .poll(async () => /data-testid="result-status">Done</.test(await (await visitor.get(`/dashboard/results/${id}`)).text()), {
        timeout: 60_000,
      })
      .toBe(true);
    const done = await (await visitor.get(`/dashboard/results/${id}`)).text();
    expect(done).toContain("The job's <strong>answer</strong>.");
    expect(done).toMatch(/<dt>Key<\/dt><dd>Jobs key<\/dd>/);
    expect(done).toContain(`href="/jobs/${id}"`);

    // The jobs list links to the viewer.
    const jobs = await (await visitor.get("/dashboard/jobs")).text();
    expect(jobs).toContain(`href="/dashboard/results/${id}"`);
  });
});

describe("the result viewer and the jobs list", () => {
  it("a failed job shows its error and its prompt, in the list and in the viewer", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id, "Nightly");
    const jobId = crypto.randomUUID();
    const createdAt = Date.now();
    const prompt = "Which <em>laptops</em> are best?";
    await recordSubmittedJob(env.DB, {
      jobId,
      accountId: account.account_id,
      keyId: key.key_id,
      scraper: "gemini",
      createdAt: new Date(createdAt).toISOString(),
    });
    const stub = jobStub(env, jobId);
    await stub.create({
      jobId,
      scraper: "gemini",
      params: { prompt, country: "DE", bypass_cache: false, timeout: 300 },
      accountId: account.account_id,
      keyId: key.key_id,
      baseUrl: BASE,
      createdAt,
    });
    await stub.fail("The gemini page did not look as expected (its layout may have changed). Safe to retry; the operators are alerted.");
    const { visitor } = await signIn(account.account_id);

    const jobs = await (await visitor.get("/dashboard/jobs")).text();
    const row = new RegExp(`<tr data-job-id="${jobId}">[\\s\\S]*?</tr>`).exec(jobs)?.[0] ?? "";
    expect(row).toContain(`href="/dashboard/results/${jobId}"`);
    expect(row).toContain("Which &lt;em&gt;laptops&lt;/em&gt; are best?");
    expect(row).toMatch(/data-testid="job-error">The gemini page did not look as expected/);

    const viewer = await (await visitor.get(`/dashboard/results/${jobId}`)).text();
    expect(viewer).toMatch(/data-testid="job-error">[\s\S]*?The gemini page did not look as expected/);
    expect(viewer).toMatch(/data-testid="prompt">Which &lt;em&gt;laptops&lt;\/em&gt; are best\?</);
    expect(viewer).toMatch(/data-testid="credits">0 \(3 refunded\)</);
    expect(viewer).toMatch(/<dt>Country<\/dt><dd>DE<\/dd>/);
    expect(viewer).toContain('data-testid="raw-json"');
    expect(viewer).not.toContain('data-testid="answer"');
  });

  it("shows only the account's own results", async () => {
    const owner = await newAccount();
    const ownerKey = await newKey(owner.account_id);
    await seedGrokAnswer(owner.account_id, "What is new?", "Mine.");
    const { visitor: ownerVisitor, csrf } = await signIn(owner.account_id);
    const runId = resultIdOf(await ownerVisitor.post("/dashboard/playground", grokRun(csrf, ownerKey.key_id)));
    const jobId = crypto.randomUUID();
    await recordSubmittedJob(env.DB, {
      jobId,
      accountId: owner.account_id,
      keyId: ownerKey.key_id,
      scraper: "grok",
      createdAt: new Date().toISOString(),
    });

    const other = await newAccount();
    const { visitor } = await signIn(other.account_id);
    for (const path of [
      `/dashboard/results/${runId}`,
      `/dashboard/results/${jobId}`,
      `/dashboard/results/${crypto.randomUUID()}`,
      "/dashboard/results/not-a-uuid",
    ]) {
      const response = await visitor.get(path);
      expect(response.status, path).toBe(404);
      expect(await response.text()).toContain("Result not found");
    }
    // Signed out: to the sign-in page.
    const signedOut = await new Visitor().get(`/dashboard/results/${runId}`);
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get("Location")).toBe("/dashboard/sign-in");
  });
});

describe("snippets", () => {
  it("write the form as curl, Python (urllib.request) and JavaScript (fetch) with API_KEY and API_URL, every value quoted for its language", async () => {
    const account = await newAccount();
    const key = await newKey(account.account_id, "Snippets");
    const { visitor } = await signIn(account.account_id);
    const prompt = `It's "quoted", costs $5 \\ and\nspans lines`;
    const query = new URLSearchParams({
      form: "playground",
      scraper: "perplexity",
      prompt,
      country: "FR",
      timeout: "120",
      key_id: key.key_id,
      run: "sync",
    });
    const response = await visitor.get(`/dashboard/playground/snippets?${query}`);
    expect(response.status).toBe(200);
    const snippets = (await response.json()) as { curl: string; python: string; javascript: string };
    // The key comes from API_KEY; the chosen key is only named by its first characters, so the reader knows which.
    const masked = `${key.display_prefix}…`;
    for (const code of Object.values(snippets)) {
      expect(code).toContain(`your full key ${masked}`);
      expect(code).not.toContain(key.api_key);
      expect(code).not.toMatch(/\bBASE_URL\b|\bKEY=|\$KEY\b|\$API\b/);
    }
    // web_search is a checkbox the form did not send: off, which is not the default, so it is written out.
    expect(snippets.curl).toContain(`#   export API_KEY='…' API_URL='${BASE}'`);
    expect(snippets.curl).toContain(`curl -fsS -G "$API_URL/scrapers/perplexity" \\\n  -H "X-API-Key: $API_KEY"`);
    expect(snippets.curl).toContain(`--data-urlencode 'prompt=It'\\''s "quoted", costs $5 \\ and\nspans lines'`);
    expect(snippets.curl).toContain("--data-urlencode 'country=FR'");
    expect(snippets.curl).toContain("--data-urlencode 'web_search=false'");
    expect(snippets.curl).toContain("--data-urlencode 'timeout=120'");
    // Python: the standard library only.
    expect(snippets.python).toContain('API_KEY = os.environ["API_KEY"]');
    expect(snippets.python).toContain(`API_URL = os.environ.get("API_URL", "${BASE}")`);
    expect(snippets.python).toContain(`"prompt": ${JSON.stringify(prompt)},`);
    expect(snippets.python).toContain('urllib.request.Request(f"{API_URL}/scrapers/perplexity?{params}", headers={"X-API-Key": API_KEY})');
    expect(snippets.python).not.toMatch(/\brequests\.|import requests/);
    expect(snippets.javascript).toContain("const API_KEY = process.env.API_KEY;");
    expect(snippets.javascript).toContain(`const API_URL = process.env.API_URL ?? "${BASE}";`);
    expect(snippets.javascript).toContain(`"prompt": ${JSON.stringify(prompt)},`);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet's own JavaScript template literal
    expect(snippets.javascript).toContain("await fetch(`${API_URL}/scrapers/perplexity?${params}`");

    // As a job: the jobs endpoint and polling; defaults are left out.
    const job = new URLSearchParams({ scraper: "grok", prompt: "hi", run: "job" });
    const jobSnippets = (await (await visitor.get(`/dashboard/playground/snippets?${job}`)).json()) as {
      curl: string;
      python: string;
      javascript: string;
    };
    expect(jobSnippets.curl).toContain('curl -fsS -G -X POST "$API_URL/scrapers/grok/jobs"');
    expect(jobSnippets.curl).toContain('curl -fsS "$API_URL/jobs/JOB_ID"');
    expect(jobSnippets.curl).not.toContain("mode=");
    expect(jobSnippets.python).toContain('method="POST"');
    expect(jobSnippets.python).toContain('urllib.request.urlopen(f"{API_URL}/jobs/{job_id}", timeout=30)');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet's own JavaScript template literal
    expect(jobSnippets.javascript).toContain("/scrapers/grok/jobs?${params}");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the snippet's own JavaScript template literal
    expect(jobSnippets.javascript).toContain("fetch(`${API_URL}/jobs/${jobId}`)");
    // No key chosen: the snippets still read API_KEY, and say any key will do.
    for (const code of Object.values(jobSnippets)) expect(code).toContain("your API key (shown once, when it was created)");

    expect((await new Visitor().get(`/dashboard/playground/snippets?${query}`)).status).toBe(401);
  });

  it("the overview's quick start uses the same variables", async () => {
    const account = await newAccount();
    const { visitor } = await signIn(account.account_id);
    const overview = decodeEntities(await (await visitor.get("/dashboard")).text());
    const quickStart = /data-testid="quick-start"><code>([\s\S]*?)<\/code>/.exec(overview)?.[1] ?? "";
    expect(quickStart).toContain(`#   export API_KEY='…' API_URL='${BASE}'`);
    expect(quickStart).toContain('curl -fsS -G "$API_URL/scrapers/grok" \\\n  -H "X-API-Key: $API_KEY"');
  });
});

describe("the answer's HTML", () => {
  it("keeps provider HTML as text, refuses script URLs and never loads images", () => {
    const rendered = renderAnswer(
      [
        "<script>alert(1)</script>",
        "",
        '<img src="x" onerror="alert(2)"> <iframe src="https://evil.example"></iframe>',
        "",
        "[click](javascript:alert(3)) [data](data:text/html;base64,PHNjcmlwdD4=) [ok](https://example.com/a?b=1&c=2)",
        "",
        "![chart](https://tracker.example/pixel.png) ![bad](javascript:alert(4))",
      ].join("\n"),
    );
    const { html } = rendered;
    expect(html).not.toMatch(/<(script|img|iframe)/);
    expect(html).not.toMatch(/href="(javascript|data):/i);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    // the second link of the answer (the iframe's URL, linkified as text, is the first): its id is ours, numbered
    expect(html).toContain(
      '<a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer nofollow" id="answer-link-2">ok</a>',
    );
    expect(rendered.anchorOf("https://example.com/a?b=1&c=2")).toBe("answer-link-2");
    expect(rendered.anchorOf("https://example.com/elsewhere")).toBeNull();
    expect(html).toContain(
      '<a href="https://tracker.example/pixel.png" target="_blank" rel="noopener noreferrer nofollow">Image: chart</a>',
    );
  });
});
