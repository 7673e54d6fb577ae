/**
 * The Google AI Mode replica against its own contract (providers/google_ai_mode.md §1, §3, §5, §6 and DESIGN.md §6):
 * the `/search?udm=50` shell and its tokens, the byte-exact `/async/folwr` fragment, every fault, the layouts and the
 * consent interstitial, and the page driven by real Chromium. Runs in Node; the browser part is skipped when Debian's
 * Chromium is missing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { renderFolwrBody, splitIntoPieces } from "../../replicas/google_ai_mode/fragment";
import { AI_MODE_LAYOUTS, aiModeLayout } from "../../replicas/google_ai_mode/layouts";
import { AI_MODE_SCENARIOS, pickAiModeScenario } from "../../replicas/google_ai_mode/scenarios";
import { drawAiModeVariant, NO_VARIANT } from "../../replicas/google_ai_mode/variation";
import { VariationDraw } from "../../replicas/shared/variation";
import { concat, readChunks } from "../support/byte-streams";
import { CHROMIUM_INSTALLED, launchChromium } from "../support/chromium";
import { useReplicaServer } from "../support/replica-control";

const PROVIDER = "google_ai_mode";

const replica = useReplicaServer();
let base: string;

beforeAll(() => {
  base = `${replica.url}/google_ai_mode`;
});

function searchPath(q: string, extra: Record<string, string> = {}): string {
  return `${base}/search?${new URLSearchParams({ udm: "50", q, hl: "en", gl: "us", ...extra }).toString()}`;
}

/** The single-use folwr token of a freshly loaded shell. */
async function shellToken(q: string, init: RequestInit = {}): Promise<string> {
  const html = await (await fetch(searchPath(q), init)).text();
  const token = /data-xsrf-folwr-token="([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error("the shell carries no folwr token");
  return token;
}

function folwrUrl(q: string, token: string, extra = ""): string {
  return `${base}/async/folwr?srtst=1&garc=g&ei=e&q=${encodeURIComponent(q)}&yv=3&hl=en&gl=us&udm=50${extra}&async=_fmt:adl,_xsrf:${token}`;
}

async function ask(q: string, init: RequestInit = {}): Promise<Response> {
  return fetch(folwrUrl(q, await shellToken(q)), init);
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

describe("scenario library", () => {
  it("has the scenarios of google_ai_mode.md §6 and the issue, with unique triggers and a default quoting the prompt", () => {
    const ids = AI_MODE_SCENARIOS.map((scenario) => scenario.id);
    for (const id of [
      "duplicate-citations",
      "table-and-list",
      "no-citations",
      "redirect-urls",
      "deutsch",
      "japanese",
      "html-entities",
      "emoji",
      "long-answer",
      "many-sources",
      "panel-fallback",
      "site-name-missing",
    ]) {
      expect(ids).toContain(id);
    }
    expect(new Set(AI_MODE_SCENARIOS.map((scenario) => scenario.trigger)).size).toBe(AI_MODE_SCENARIOS.length);
    for (const scenario of AI_MODE_SCENARIOS)
      expect(pickAiModeScenario(`Please: ${scenario.trigger?.toUpperCase() ?? ""}!`).id).toBe(scenario.id);
    expect(pickAiModeScenario("桜はいつ咲きますか？日本語で").id).toBe("japanese");
    const fallback = pickAiModeScenario("Who painted the Mona Lisa?");
    expect(fallback.id).toBe("default");
    expect(JSON.stringify(fallback.blocks)).toContain("Who painted the Mona Lisa?");
  });

  it("covers the edge cases inside the scenarios", () => {
    const duplicate = pickAiModeScenario("duplicate-citations");
    expect(duplicate.chips.some((chip) => chip.sources.length > 1)).toBe(true);
    const urls = duplicate.sources.map((source) => source.url);
    expect(new Set(urls).size).toBeLessThan(urls.length);
    const wires = new Set(
      AI_MODE_SCENARIOS.flatMap((scenario) => [...scenario.sources, ...(scenario.panel ?? [])].map((entry) => entry.wire)),
    );
    expect([...wires].sort()).toEqual(["plain", "redirect", "redirect_text_fragment", "relative_redirect", "text_fragment"]);
    const noCitations = pickAiModeScenario("no-citations");
    expect(noCitations.chips).toEqual([]);
    expect(noCitations.panel).toBeNull();
    const many = pickAiModeScenario("many-sources");
    expect((many.panel ?? []).length).toBeGreaterThan(many.chips.length);
    expect(pickAiModeScenario("panel-fallback").comments).toBe(false);
    expect(pickAiModeScenario("site-name-missing").sources.map((source) => source.siteName)).toContain(null);
  });
});

describe("GET /search (the shell)", () => {
  it("honours udm=50, q, hl and gl and carries the session tokens of §3, without the answer", async () => {
    const response = await fetch(searchPath("Wie hoch ist die Zugspitze?", { hl: "de", gl: "de" }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<html lang="de">');
    for (const attribute of ["data-xsrf-folwr-token", "data-garc", "data-stkp", "data-lro-token", "data-lro-signature", "data-ei"]) {
      expect(html).toMatch(new RegExp(`${attribute}="[A-Za-z0-9_-]+"`));
    }
    expect(html).toContain("Wie hoch ist die Zugspitze?");
    expect(html).not.toContain('<div data-subtree="aimc"');
    expect(html).toContain(">Thinking<");
    expect((await replica.control.providerState(PROVIDER)).page_loads).toBe(1);
  });

  it("serves classic results without an AI Mode session when udm is not 50, and sends a blank query to /ai", async () => {
    const classic = await (await fetch(`${base}/search?q=weather&udm=2`)).text();
    expect(classic).not.toContain("data-xsrf-folwr-token");
    const blank = await fetch(`${base}/search?udm=50&q=%20`, { redirect: "manual" });
    expect(blank.status).toBe(302);
    expect(blank.headers.get("location")).toMatch(/\/google_ai_mode\/ai\?/);
    expect(await (await fetch(`${base}/ai`)).text()).toContain('placeholder="Ask anything"');
  });
});

describe("GET /async/folwr", () => {
  for (const layout of ["classic", "rotated"] as const) {
    const prompts = ["What is the capital of France?", ...AI_MODE_SCENARIOS.map((scenario) => `scenario ${scenario.trigger ?? ""}`)];
    for (const prompt of prompts) {
      it(`${layout}: byte-exact text/html fragment for "${prompt}"`, async () => {
        await replica.control.post("layout", { provider: PROVIDER, layout });
        const response = await ask(prompt);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("text/html; charset=UTF-8");
        const body = concat(await readChunks(response));
        expect(body).toEqual(renderFolwrBody(pickAiModeScenario(prompt), aiModeLayout(layout), null).bytes);
      });
    }
  }

  it("has the §3 markup: container, subtree, chips resolved only through Sv6Kpe comments, the panel, disclaimer, feedback", async () => {
    const classic = text(concat(await readChunks(await ask("duplicate-citations"))));
    expect(classic).toContain('<div data-container-id="main-col"');
    expect(classic).toContain('<div data-subtree="aimc"');
    expect(classic).toMatch(/<button [^>]*data-icl-uuid="0f8b2a52-1001-4c2d-9e3f-000000000001" aria-label="NASA Science"><\/button>/);
    expect(classic.match(/<!--Sv6Kpe\[\["0f8b2a52-1001-4c2d-9e3f-000000000001",/g)).toHaveLength(3);
    expect(classic).not.toMatch(/<button[^>]*href=/);
    expect(classic).toMatch(/<div data-target-container-id="13"[^>]*><button [^>]*aria-label="4 sites">4 sites<\/button>/);
    expect(classic).toContain(
      '<a target="_blank" rel="noopener" aria-label="Mars Facts - NASA Science" href="https://science.nasa.gov/mars/facts/#:~:text=Mars%20is%20the"></a>',
    );
    expect(classic).toContain("AI responses may include mistakes.");
    expect(classic).toContain('aria-label="Helpful"');
    const record = /<!--Sv6Kpe(\[\[.*?\]\]\])-->/.exec(classic)?.[1] ?? "";
    const [[uuid, slots]] = JSON.parse(record) as [[string, unknown[]]];
    expect(uuid).toBe("0f8b2a52-1001-4c2d-9e3f-000000000001");
    expect(slots.slice(0, 6)).toEqual([
      "Mars Facts - NASA Science",
      "Mars is the fourth planet from the Sun, a dusty, cold, desert world.",
      "https://encrypted-tbn0.gstatic.com/faviconV2?url=https://science.nasa.gov&client=AIM&size=128&type=FAVICON&fallback_opts=TYPE,SIZE,URL",
      "https://science.nasa.gov",
      ["NASA Science"],
      "https://science.nasa.gov/mars/facts/#:~:text=Mars%20is%20the",
    ]);
    expect(slots[37]).toBe("14 Mar 2025");

    await replica.control.post("layout", { provider: PROVIDER, layout: "rotated" });
    const rotated = text(concat(await readChunks(await ask("duplicate-citations"))));
    expect(rotated).toContain('<div class="mZJni ');
    expect(rotated).toContain('<div data-scope-id="turn"');
    expect(rotated).not.toContain("data-container-id");
    expect(rotated).toContain('<div role="dialog"');
    expect(rotated).toContain("AI can make mistakes, so double-check responses");
    expect(rotated).toContain("<span>Thinking</span>");
    expect(rotated).not.toContain("Y3BBE");
  });

  it("writes /url?q= redirects, relative ones, and text fragments behind a section fragment", async () => {
    const redirects = text(concat(await readChunks(await ask("redirect-urls"))));
    expect(redirects).toContain('"https://www.google.com/url?q=https%3A%2F%2Fdocs.python.org%2F3%2Ftutorial%2Findex.html\\u0026sa=U');
    expect(redirects).toContain('href="https://www.google.com/url?q=https%3A%2F%2Fdocs.python.org%2F3%2F&amp;sa=U');
    expect(redirects).toContain('href="/url?sa=t&amp;source=web&amp;rct=j&amp;opi=89978449&amp;q=https%3A%2F%2Fdocs.python.org');
    expect(redirects).toContain("q=https%3A%2F%2Fdoc.rust-lang.org%2Fbook%2F%23%3A~%3Atext%3DRust%2520is%2520a");
    const sections = text(concat(await readChunks(await ask("site-name-missing"))));
    expect(sections).toContain("https://www.louvre.fr/en/visit/hours#opening:~:text=The%20museum%20is");
    expect(sections).toContain('"https://www.louvre.fr",[],');
    expect(sections).toContain('"https://tickets.example.org",null,');
  });

  it("delivers 2–5 pieces that cut through UTF-8 characters", () => {
    for (const scenario of [pickAiModeScenario("x"), ...AI_MODE_SCENARIOS]) {
      const bytes = renderFolwrBody(scenario, aiModeLayout("classic"), null).bytes;
      const pieces = splitIntoPieces(bytes);
      expect(pieces.length).toBeGreaterThanOrEqual(2);
      expect(pieces.length).toBeLessThanOrEqual(5);
      expect(concat(pieces)).toEqual(bytes);
    }
    const japanese = splitIntoPieces(renderFolwrBody(pickAiModeScenario("japanese"), aiModeLayout("classic"), null).bytes);
    const strict = new TextDecoder("utf-8", { fatal: true });
    expect(
      japanese.some((piece) => {
        try {
          strict.decode(piece);
          return false;
        } catch {
          return true;
        }
      }),
    ).toBe(true);
  });

  it("records the request and refuses replayed, hand-built or incomplete URLs without consuming a fault", async () => {
    const token = await shellToken("Hello there");
    expect((await fetch(folwrUrl("Hello there", token))).status).toBe(200);
    const own = await replica.control.providerState(PROVIDER);
    expect(own.requests.at(-1)?.body).toMatchObject({ q: "Hello there", udm: "50", hl: "en", gl: "us", async: `_fmt:adl,_xsrf:${token}` });
    expect(own.requests.at(-1)?.method).toBe("GET");

    await replica.control.post("faults", { provider: PROVIDER, fault: "http_error" });
    const replayed = await fetch(folwrUrl("Hello there", token));
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain("That’s an error.");
    expect((await fetch(folwrUrl("Hello there", "made-up-token"))).status).toBe(400);
    const fresh = await shellToken("Hello there");
    expect((await fetch(folwrUrl("Hello there", fresh).replace("&udm=50", ""))).status).toBe(400);
    const state = await replica.control.providerState(PROVIDER);
    expect(state.rejected).toBe(3);
    expect(state.faults).toHaveLength(1);
  });
});

describe("faults", () => {
  it("challenge: the page load redirects to /sorry/index, a 429 with #captcha-form and the unusual-traffic text", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "challenge" });
    const redirected = await fetch(searchPath("weather"), { redirect: "manual" });
    expect(redirected.status).toBe(302);
    const location = redirected.headers.get("location") ?? "";
    expect(location).toMatch(/^\/google_ai_mode\/sorry\/index\?continue=http/);
    const sorry = await fetch(`${replica.url}${location}`);
    expect(sorry.status).toBe(429);
    const html = await sorry.text();
    expect(html).toContain('id="captcha-form"');
    expect(html).toContain('class="g-recaptcha"');
    expect(html).toContain("Our systems have detected unusual traffic from your computer network");
    expect((await replica.control.providerState(PROVIDER)).faults_served).toEqual({ challenge: 1 });
  });

  it("challenge on folwr (no page load took it): 429 unusual-traffic page", async () => {
    const token = await shellToken("weather");
    await replica.control.post("faults", { provider: PROVIDER, fault: "challenge" });
    const response = await fetch(folwrUrl("weather", token));
    expect(response.status).toBe(429);
    expect(await response.text()).toContain("unusual traffic");
  });

  it("login_wall: the page load shows a sign-in dialog and no session, so the page never asks for an answer", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "login_wall" });
    const html = await (await fetch(searchPath("weather"))).text();
    expect(html).toMatch(/<div role="dialog" aria-modal="true"[^>]*>[\s\S]*accounts\.google\.com\/ServiceLogin\?continue=/);
    expect(html).not.toContain("data-xsrf-folwr-token");
    expect((await replica.control.providerState(PROVIDER)).faults_served).toEqual({ login_wall: 1 });
  });

  const errorFaults: Array<[string, number]> = [
    ["rate_limited", 429],
    ["http_error", 500],
  ];
  for (const [fault, status] of errorFaults) {
    it(`${fault}: folwr answers ${status} with Google's error page for exactly count exchanges`, async () => {
      await replica.control.post("faults", { provider: PROVIDER, fault, count: 2 });
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const response = await ask("weather");
        expect(response.status).toBe(status);
        expect(await response.text()).toContain("That’s an error.");
      }
      expect((await ask("weather")).status).toBe(200);
      const state = await replica.control.providerState(PROVIDER);
      expect(state.faults_served).toEqual({ [fault]: 2 });
      expect(state.exchanges).toBe(3);
    });
  }

  it("malformed_stream: 200, a fragment cut inside the answer (before disclaimer and feedback), then a normal end", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "malformed_stream" });
    const body = text(concat(await readChunks(await ask("table-and-list"))));
    expect(body).toContain('data-subtree="aimc"');
    expect(body).not.toContain("AI responses may include mistakes");
    expect(body).not.toContain('aria-label="Helpful"');
  });

  it("disconnect: the transfer breaks off inside the answer", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "disconnect" });
    const response = await ask("table-and-list");
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    let received = "";
    const decoder = new TextDecoder();
    await expect(
      (async () => {
        for (;;) {
          const chunk = await reader?.read();
          if (chunk === undefined || chunk.done) return;
          received += decoder.decode(chunk.value, { stream: true });
        }
      })(),
    ).rejects.toThrow();
    expect(received).toContain('data-subtree="aimc"');
    expect(received).not.toContain('aria-label="Helpful"');
  });

  it("hang: no status line until the client gives up", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "hang" });
    const token = await shellToken("weather");
    const started = Date.now();
    await expect(fetch(folwrUrl("weather", token), { signal: AbortSignal.timeout(400) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect((await ask("weather")).status).toBe(200);
  });

  it("empty_answer: the container, disclaimer and feedback without any answer, chips, panel or comments", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "empty_answer" });
    const body = text(concat(await readChunks(await ask("table-and-list"))));
    expect(body).toContain('data-subtree="aimc"');
    expect(body).toContain("AI responses may include mistakes.");
    expect(body).toContain('aria-label="Helpful"');
    expect(body).not.toContain("data-icl-uuid");
    expect(body).not.toContain("Sv6Kpe");
    expect(body).not.toContain("data-target-container-id");
    expect(body).not.toContain("volcanoes");
  });

  it("slow and pacing: delay_ms before the status line, chunk_ms between pieces", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "slow", delay_ms: 300, chunk_ms: 60 });
    const token = await shellToken("long-answer");
    let started = Date.now();
    const slow = await fetch(folwrUrl("long-answer", token));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const chunks = await readChunks(slow);
    const pieces = splitIntoPieces(renderFolwrBody(pickAiModeScenario("long-answer"), aiModeLayout("classic"), null).bytes).length;
    expect(Date.now() - started).toBeGreaterThanOrEqual(300 + 60 * (pieces - 1) * 0.9);
    expect(concat(chunks)).toEqual(renderFolwrBody(pickAiModeScenario("long-answer"), aiModeLayout("classic"), null).bytes);

    expect((await replica.control.post("pacing", { provider: PROVIDER, delay_ms: 200 })).status).toBe(200);
    const again = await shellToken("weather");
    started = Date.now();
    await readChunks(await fetch(folwrUrl("weather", again)));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});

describe("layouts", () => {
  it("declares three sheet-legal layouts, switches them through the control API and refuses unknown ones", async () => {
    expect((await replica.control.providerState(PROVIDER)).layouts).toEqual([...AI_MODE_LAYOUTS]);
    expect((await replica.control.providerState(PROVIDER)).layout).toBe("classic");
    expect((await replica.control.post("layout", { provider: PROVIDER, layout: "rotated" })).status).toBe(200);
    expect((await replica.control.providerState(PROVIDER)).layout).toBe("rotated");
    expect(await (await fetch(searchPath("weather"))).text()).toContain('const TRANSPORT = "xhr"');
    expect((await replica.control.post("layout", { provider: PROVIDER, layout: "nope" })).status).toBe(400);
    await replica.control.post("reset", { provider: PROVIDER });
    expect((await replica.control.providerState(PROVIDER)).layout).toBe("classic");
  });

  it("consent: the first visit gets 'Before you continue to Google'; accepting sets SOCS and returns to the search", async () => {
    await replica.control.post("layout", { provider: PROVIDER, layout: "consent" });
    const first = await (await fetch(searchPath("weather"))).text();
    expect(first).toContain("Before you continue to Google");
    expect(first).toMatch(/<button type="submit" id="L2AGLb" jsname="b3VHJd"[^>]*>Accept all<\/button>/);
    expect(first).not.toContain("data-xsrf-folwr-token");
    const continueUrl = /name="continue" value="([^"]+)"/.exec(first)?.[1]?.replaceAll("&amp;", "&") ?? "";
    const saved = await fetch(`${base}/consent/save`, {
      method: "POST",
      body: new URLSearchParams({ continue: continueUrl, set_eom: "false" }),
      redirect: "manual",
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(continueUrl);
    const cookie = (saved.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).toMatch(/^SOCS=/);
    expect(await (await fetch(`${replica.url}${continueUrl}`, { headers: { cookie } })).text()).toContain("data-xsrf-folwr-token");
  });
});

describe.skipIf(!CHROMIUM_INSTALLED)("the page in Chromium", () => {
  it("classic (fetch), rotated (XHR) and consent: the shell fetches folwr, renders it and marks the response complete", async () => {
    const browser = await launchChromium();
    try {
      for (const layout of ["classic", "rotated", "consent"] as const) {
        await replica.control.post("layout", { provider: PROVIDER, layout });
        const context = await browser.newContext();
        const page = await context.newPage();
        const prompt = `table-and-list in ${layout}`;
        await page.goto(searchPath(prompt, { hl: "de", gl: "de" }));
        if (layout === "consent") {
          await Promise.all([page.waitForURL(/\/search\?/), page.click("#L2AGLb")]);
        }
        await page.waitForSelector('[data-subtree="aimc"][data-complete="true"]', { timeout: 20_000 });
        const body = await page.innerText("body");
        expect(body, layout).toContain("Here are three well-known volcanoes");
        expect(body).not.toMatch(/\bThinking\b/);
        expect(await page.locator("button[data-icl-uuid]").count()).toBe(5);
        // a German page (hl=de) names the sources button in German
        const sites = page.locator('button[aria-label="4 Websites"]');
        await sites.click();
        expect(await sites.getAttribute("aria-expanded")).toBe("true");
        const sent = (await replica.control.providerState(PROVIDER)).requests.at(-1);
        expect(sent?.path).toMatch(/^\/google_ai_mode\/async\/folwr\?srtst=\d+&garc=/);
        expect(sent?.body).toMatchObject({ q: prompt, udm: "50", hl: "de", gl: "de", yv: "3" });
        await context.close();
      }
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("a failed folwr leaves an error instead of a response", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await replica.control.post("faults", { provider: PROVIDER, fault: "http_error" });
      await page.goto(searchPath("weather"));
      await page.waitForFunction(() => document.body.innerText.includes("Something went wrong"), undefined, { timeout: 10_000 });
      expect(await page.locator('[data-complete="true"]').count()).toBe(0);
    } finally {
      await browser.close();
    }
  }, 30_000);
});

describe("page fuzzing (issue 29)", () => {
  /** The shell with its per-load random tokens (and the query's timestamp) masked, so two loads can be compared. */
  const masked = (html: string): string =>
    html.replace(/data-(xsrf-folwr-token|garc|stkp|lro-token|lro-signature|ei)="[^"]*"/g, 'data-$1=""');

  async function loadShell(q: string, extra: Record<string, string> = {}): Promise<string> {
    return masked(await (await fetch(searchPath(q, extra))).text());
  }

  it("the same seed draws the same pages, another seed other pages", async () => {
    await replica.control.post("variation", { provider: PROVIDER, seed: 7 });
    const first = [await loadShell("many-sources"), await loadShell("many-sources")];
    await replica.control.post("variation", { provider: PROVIDER, seed: 7 });
    const again = [await loadShell("many-sources"), await loadShell("many-sources")];
    expect(again).toEqual(first);
    await replica.control.post("variation", { provider: PROVIDER, seed: 8 });
    expect(await loadShell("many-sources")).not.toBe(first[0]);
    const draws = (await replica.control.providerState(PROVIDER)).variation?.draws ?? [];
    expect(draws.map((draw) => draw.page_load)).toEqual([1]);
  });

  it("fuzzing off: no variation script, the variant left null, the fragment byte-identical to the recorded fixtures", async () => {
    const shell = await loadShell("emoji");
    expect(shell).not.toContain("applyPageVariation");
    expect(shell).toContain("const VARIANT = null;");
    await replica.control.post("variation", { provider: PROVIDER, seed: 3 });
    const fuzzed = await loadShell("emoji");
    expect(fuzzed).toContain("applyPageVariation");
    await replica.control.post("variation", { provider: PROVIDER, seed: null });
    expect(await loadShell("emoji")).toBe(shell);
    const scenario = pickAiModeScenario("emoji");
    const token = await shellToken("emoji");
    const body = await (await fetch(folwrUrl("emoji", token))).text();
    expect(body).toBe(new TextDecoder().decode(renderFolwrBody(scenario, aiModeLayout("classic"), null).bytes));
  });

  it("a class switched off changes nothing of that class; the other classes draw the same", () => {
    const classes = [
      "hydration",
      "late_lists",
      "rollout_siblings",
      "decoration",
      "interruptions",
      "controlled_inputs",
      "sheet_alternatives",
    ] as const;
    for (let seed = 0; seed < 40; seed += 1) {
      const all = drawAiModeVariant(new VariationDraw(PROVIDER, seed, 1, new Set(classes)));
      const noLists = drawAiModeVariant(new VariationDraw(PROVIDER, seed, 1, new Set(classes.filter((name) => name !== "late_lists"))));
      const noAlternatives = drawAiModeVariant(
        new VariationDraw(PROVIDER, seed, 1, new Set(classes.filter((name) => name !== "sheet_alternatives"))),
      );
      expect(noLists.panel).toEqual(NO_VARIANT.panel);
      expect(noLists.lateChipsMs).toBe(0);
      expect({ ...noLists, panel: all.panel, lateChipsMs: all.lateChipsMs }).toEqual(all);
      const { panel, lateChipsMs, ...alternatives } = noAlternatives;
      const { panel: _panel, lateChipsMs: _late, ...defaults } = NO_VARIANT;
      expect(alternatives).toEqual(defaults);
      expect({ panel, lateChipsMs }).toEqual({ panel: all.panel, lateChipsMs: all.lateChipsMs });
    }
  });

  it("every draw is noted, per class", async () => {
    await replica.control.post("variation", { provider: PROVIDER, seed: 11, classes: ["late_lists", "sheet_alternatives"] });
    for (let load = 0; load < 6; load += 1) await loadShell("table-and-list");
    const draws = (await replica.control.providerState(PROVIDER)).variation?.draws ?? [];
    expect(draws).toHaveLength(6);
    for (const draw of draws) {
      expect(Object.keys(draw.applied).every((name) => name === "late_lists" || name === "sheet_alternatives")).toBe(true);
      expect(draw.applied.sheet_alternatives?.length).toBe(1);
    }
  });

  it("an on-click list: the fragment carries only the button, the page loads the entries when it opens", async () => {
    // a seed whose first page load draws the on_click delivery
    let seed = 0;
    for (; seed < 200; seed += 1) {
      const draw = drawAiModeVariant(new VariationDraw(PROVIDER, seed, 1, new Set(["late_lists"])));
      if (draw.panel.delivery === "on_click") break;
    }
    await replica.control.post("variation", { provider: PROVIDER, seed, classes: ["late_lists"] });
    const html = await (await fetch(searchPath("many-sources"))).text();
    const token = /data-xsrf-folwr-token="([^"]+)"/.exec(html)?.[1] ?? "";
    // folwrUrl sends ei=e: the list is kept under the ei the request carried
    const ei = "e";
    const body = await (await fetch(folwrUrl("many-sources", token))).text();
    expect(body).toMatch(/aria-label="12 sites"/);
    expect(body).not.toMatch(/<a target="_blank" rel="noopener" aria-label=/);
    const list = (await (await fetch(`${base}/async/folsrc?ei=${encodeURIComponent(ei)}`)).json()) as { entries: string[] };
    expect(list.entries).toHaveLength(12);
  });

  it("a German page says 'N Websites'", async () => {
    const token = await shellToken("deutsch");
    const url = `${base}/async/folwr?ei=e&q=deutsch&hl=de&gl=de&udm=50&async=_fmt:adl,_xsrf:${token}`;
    const body = await (await fetch(url)).text();
    expect(body).toMatch(/aria-label="2 Websites">2 Websites</);
  });
});
