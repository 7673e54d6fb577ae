/**
 * The Amazon Rufus replica against its own contract (amazon_rufus.md §2, §3, §5, §6 and DESIGN.md §6): marketplaces
 * under `/amazon_rufus/<domain>/`, byte-exact SSE-style framing, the anti-csrftoken-a2z requirement, every fault,
 * every layout, and the page driven by real Chromium. Runs in Node; the browser part is skipped without Debian's Chromium.
 */
import { describe, expect, it } from "vitest";
import { createReplicaApp } from "../../replicas/server";
import { RUFUS_LAYOUTS } from "../../replicas/amazon_rufus/page";
import { allCards, finalProse, pickRufusScenario, pillLabels, RUFUS_SCENARIOS } from "../../replicas/amazon_rufus/scenarios";
import { buildRufusBlocks, renderRufusBody } from "../../replicas/amazon_rufus/stream";
import { splitIntoChunks } from "../../replicas/shared/paced-body";
import { concat, readChunks, readUntilBreak } from "../support/byte-streams";
import { CHROMIUM_INSTALLED, launchChromium } from "../support/chromium";
import { useReplicaServer } from "../support/replica-control";

const PROVIDER = "amazon_rufus";
const STREAMING_QUERY = "?tabId=tab-1&programId=NILE_CLASSIC%3Adesktop-cl";

const replica = useReplicaServer();

const home = (domain: string): string => `${replica.url}/amazon_rufus/${domain}/`;
const streamingUrl = (domain: string): string => `${replica.url}/amazon_rufus/${domain}/rufus/cl/streaming${STREAMING_QUERY}`;

/** Loads a store page and returns the anti-csrftoken-a2z it embeds (this consumes page-level faults like the browser). */
async function pageToken(domain = "amazon.com"): Promise<string> {
  const html = await (await fetch(home(domain))).text();
  const token = /"csrfToken":"([^"]+)"/.exec(html)?.[1];
  if (token === undefined) throw new Error("no token in the page");
  return token;
}

function ask(
  query: string,
  token: string,
  init: { domain?: string; signal?: AbortSignal; redirect?: RequestRedirect } = {},
): Promise<Response> {
  const domain = init.domain ?? "amazon.com";
  return fetch(streamingUrl(domain), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "*/*", "anti-csrftoken-a2z": token },
    body: JSON.stringify({ queryContext: { query }, pageContext: { targetUrl: `https://www.${domain}/`, targetPageMetadata: [] } }),
    signal: init.signal,
    redirect: init.redirect,
  });
}

interface ParsedBlock {
  id: string;
  event: string;
  data: string;
}

/** Splits a body into its blocks, checking the exact framing of the sheet: `id:`, `event: `, `data: ` lines, blank line. */
function parseBlocks(text: string): ParsedBlock[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((block) => {
      const match = /^id:(\S+)\nevent: (\S+)\ndata: (.*)$/.exec(block);
      expect(match, block).not.toBeNull();
      return { id: match?.[1] ?? "", event: match?.[2] ?? "", data: match?.[3] ?? "" };
    });
}

type Json = Record<string, unknown>;

describe("scenario library", () => {
  it("covers the fixtures of amazon_rufus.md §6 and the issue, with unique triggers", () => {
    const ids = RUFUS_SCENARIOS.map((scenario) => scenario.id);
    for (const id of [
      "text-only",
      "one-product",
      "many-products",
      "duplicate-asin",
      "alt-title",
      "no-rating",
      "no-footer",
      "deals",
      "german",
      "japanese",
      "html-entities",
      "table",
      "emoji",
      "rewrite",
      "no-pills",
      "long-answer",
    ]) {
      expect(ids).toContain(id);
    }
    expect(new Set(RUFUS_SCENARIOS.map((scenario) => scenario.trigger)).size).toBe(RUFUS_SCENARIOS.length);
    for (const scenario of RUFUS_SCENARIOS)
      expect(pickRufusScenario(`Please ${scenario.trigger?.toUpperCase() ?? ""}!`).id).toBe(scenario.id);
    const fallback = pickRufusScenario("best desk lamp for reading");
    expect(fallback.id).toBe("default");
    expect(finalProse(fallback)[0]?.text).toContain('"best desk lamp for reading"');
  });

  it("has the edge cases inside the scenarios", () => {
    expect(allCards(pickRufusScenario("text-only"))).toEqual([]);
    expect(allCards(pickRufusScenario("one-product"))).toHaveLength(1);
    expect(allCards(pickRufusScenario("many-products")).length).toBeGreaterThanOrEqual(10);
    const duplicates = allCards(pickRufusScenario("duplicate-asin")).map((card) => card.asin);
    expect(new Set(duplicates).size).toBeLessThan(duplicates.length);
    expect(allCards(pickRufusScenario("alt-title")).some((card) => card.title === null)).toBe(true);
    expect(allCards(pickRufusScenario("no-rating")).some((card) => card.rating === null)).toBe(true);
    expect(allCards(pickRufusScenario("no-footer")).every((card) => card.footer === null)).toBe(true);
    const deals = allCards(pickRufusScenario("deals"));
    expect(deals.some((card) => card.prices.some((price) => price.strikethrough))).toBe(true);
    expect(deals.some((card) => card.badges.length > 0)).toBe(true);
    expect(allCards(pickRufusScenario("kaffeemaschine")).some((card) => card.prices.some((price) => price.currencySymbol === "€"))).toBe(
      true,
    );
    expect(allCards(pickRufusScenario("炊飯器")).some((card) => card.prices.some((price) => price.currencySymbol === "¥"))).toBe(true);
    expect(pillLabels(pickRufusScenario("no-pills"))).toEqual([]);
    expect(pickRufusScenario("rewrite").steps.some((step) => step.kind === "prose" && step.op === "replace")).toBe(true);
    expect(new TextEncoder().encode(finalProse(pickRufusScenario("long-answer"))[0]?.text ?? "").length).toBeGreaterThan(30_000);
  });

  it("cuts bodies inside blocks and inside multi-byte characters, including astral emoji", () => {
    const body = renderRufusBody(pickRufusScenario("emoji"), "emoji", null).bytes;
    const chunks = splitIntoChunks(body);
    expect(concat(chunks)).toEqual(body);
    const strict = new TextDecoder("utf-8", { fatal: true });
    const broken = chunks.filter((chunk) => {
      try {
        strict.decode(chunk);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken.length).toBeGreaterThan(3);
    expect(chunks.some((chunk) => chunk.length >= 2 && (chunk[chunk.length - 2] ?? 0) >= 0xf0)).toBe(true);
  });
});

describe("POST /rufus/cl/streaming", () => {
  const prompts = ["What desk lamp should I buy?", ...RUFUS_SCENARIOS.map((scenario) => `scenario ${scenario.trigger ?? ""}`)];
  for (const prompt of prompts) {
    it(`streams byte-exact blocks for "${prompt}"`, async () => {
      const token = await pageToken();
      const response = await ask(prompt, token);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/event-stream;charset=UTF-8");
      const body = concat(await readChunks(response));
      const scenario = pickRufusScenario(prompt);
      expect(body).toEqual(renderRufusBody(scenario, prompt, null).bytes);

      const blocks = parseBlocks(new TextDecoder().decode(body));
      expect(blocks.map((block) => block.id)).toEqual(buildRufusBlocks(scenario, prompt).map((block) => block.id));
      // the first block echoes the question inside rufus-customer-text-wrap
      expect(blocks[0]?.event).toBe("affordance");
      const echo = JSON.parse(blocks[0]?.data ?? "{}") as { sections: Array<{ content: { data: string } }> };
      expect(echo.sections[0]?.content.data).toMatch(
        /^<div class="rufus-customer-text-wrap"><span class="rufus-q"><span>.*<\/span><\/span><\/div>$/,
      );
      for (const block of blocks.filter((b) => b.event === "inference")) {
        const data = JSON.parse(block.data) as { patches: Json[] };
        for (const patch of data.patches) {
          expect(typeof patch.groupId).toBe("string");
          expect(["add", "replace", "remove"]).toContain(patch.op);
          expect(typeof patch.path).toBe("string");
        }
      }
      const pills = blocks.filter((block) => block.event === "affordance" && block.data.includes("rufus-pill"));
      expect(pills.length > 0).toBe(pillLabels(scenario).length > 0);
    });
  }

  it("rejects a missing or unknown anti-csrftoken-a2z (403), a missing programId and a body without a query (400)", async () => {
    const body = JSON.stringify({ queryContext: { query: "lamp" } });
    const noToken = await fetch(streamingUrl("amazon.com"), { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(noToken.status).toBe(403);
    expect((await ask("lamp", "not-a-token")).status).toBe(403);
    const token = await pageToken();
    const noProgram = await fetch(`${replica.url}/amazon_rufus/amazon.com/rufus/cl/streaming?tabId=tab-1`, {
      method: "POST",
      headers: { "content-type": "application/json", "anti-csrftoken-a2z": token },
      body,
    });
    expect(noProgram.status).toBe(400);
    const blank = await fetch(streamingUrl("amazon.com"), {
      method: "POST",
      headers: { "content-type": "application/json", "anti-csrftoken-a2z": token },
      body: JSON.stringify({ queryContext: { query: "  " } }),
    });
    expect(blank.status).toBe(400);
    const rufus = await replica.control.providerState(PROVIDER);
    expect(rufus.exchanges).toBe(4);
    expect(rufus.rejected).toBe(4);
    expect(rufus.requests.at(-1)?.path).toBe("/amazon_rufus/amazon.com/rufus/cl/streaming?tabId=tab-1&programId=NILE_CLASSIC%3Adesktop-cl");
  });
});

describe("store pages", () => {
  it("serves every marketplace under its domain segment; unknown domains are 404", async () => {
    for (const domain of ["amazon.com", "amazon.de", "amazon.co.jp", "amazon.co.uk", "amazon.com.br"]) {
      const response = await fetch(home(domain));
      expect(response.status, domain).toBe(200);
      const html = await response.text();
      expect(html).toContain('id="rufus-text-area"');
    }
    expect((await fetch(`${replica.url}/amazon_rufus/amazon.xyz/`)).status).toBe(404);
    const redirect = await fetch(`${replica.url}/amazon_rufus/amazon.de`, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("/amazon_rufus/amazon.de/");
    expect(await (await fetch(home("amazon.de"))).text()).toContain('lang="de"');
  });

  for (const layout of RUFUS_LAYOUTS) {
    it(`layout ${layout}: the sheet's anchors, and nothing the sheet does not name as a hint`, async () => {
      expect((await replica.control.post("layout", { provider: PROVIDER, layout })).status).toBe(200);
      const html = await (await fetch(home("amazon.com"))).text();
      for (const anchor of [
        'id="rufus-container"',
        'id="rufus-container-main-view"',
        'id="rufus-conversation-container"',
        'id="rufus-react-renderer"',
        'id="rufus-text-area" placeholder="Ask Rufus a question"',
        'id="rufus-text-area-inner-1" placeholder="Add your feedback…"',
        'class="rufus-papyrus-turn"',
        'class="rufus-pill"',
        'id="nav-link-accountList"',
      ]) {
        expect(html, anchor).toContain(anchor);
      }
      expect(html).not.toMatch(/\sdata-[\w-]+=/);
      const navButton = /<(\w+)[^>]*(?:id="nav-rufus-disco"|class="[^"]*\bnav-rufus-disco\b[^"]*")[^>]*>/.exec(html)?.[0] ?? "";
      expect(navButton).not.toBe("");
      if (layout === "classic") {
        expect(html).toContain('id="nav-flyout-rufus"');
        expect(navButton).toMatch(/id="nav-rufus-disco"/);
      }
      if (layout === "alexa") {
        expect(html).toContain('id="nav-rufus-content"');
        expect(html).toContain('id="nav-alexa"');
        expect(html).toContain('id="alexa-shopping-container"');
        expect(navButton).not.toMatch(/id="nav-rufus-disco"/);
      }
      if (layout === "wrapped") {
        expect(html.indexOf('id="rufus-text-area-inner-1"')).toBeLessThan(html.indexOf('id="rufus-text-area"'));
        expect(navButton).toMatch(/aria-label="Rufus"/);
      }
    });
  }

  it("product pages carry the Ask Rufus pills", async () => {
    const html = await (await fetch(`${replica.url}/amazon_rufus/amazon.com/dp/B0EXAMPLE1`)).text();
    expect(html).toContain('id="dpx-nice-widget-container"');
    expect(html).toMatch(/class="ask-pill"/);
    expect(html).toContain("Example Lamp, White");
    expect((await fetch(`${replica.url}/amazon_rufus/amazon.com/Example-Lamp/dp/B0EXAMPLE1/ref=x`)).status).toBe(200);
  });
});

describe("faults", () => {
  it("challenge: the robot check replaces the page load; at the endpoint it is a 503 page", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "challenge" });
    const page = await fetch(home("amazon.com"));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('action="/amazon_rufus/amazon.com/errors/validateCaptcha"');
    expect(html).toContain("Enter the characters you see below");
    expect(html).toContain("Type the characters you see in this image");
    expect(html).toContain("api-services-support@amazon.com");
    expect(html).not.toContain("rufus-text-area");
    // a challenge queued after the page loaded is consumed by the streaming request
    const token = await pageToken();
    await replica.control.post("faults", { provider: PROVIDER, fault: "challenge" });
    const challenged = await ask("lamp", token);
    expect(challenged.status).toBe(503);
    expect(await challenged.text()).toContain("/errors/validateCaptcha");
    expect((await replica.control.providerState(PROVIDER)).faults_served).toEqual({ challenge: 2 });
  });

  it("login_wall: the page load redirects to /ap/signin; at the endpoint too", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "login_wall" });
    const redirect = await fetch(home("amazon.de"), { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toMatch(
      /^\/amazon_rufus\/amazon\.de\/ap\/signin\?openid\.return_to=https%3A%2F%2Fwww\.amazon\.de%2F/,
    );
    const signIn = await fetch(`${replica.url}${redirect.headers.get("location") ?? ""}`);
    expect(await signIn.text()).toMatch(/<form name="signIn"/);
    const token = await pageToken();
    await replica.control.post("faults", { provider: PROVIDER, fault: "login_wall" });
    const walled = await ask("lamp", token, { redirect: "manual" });
    expect(walled.status).toBe(302);
    expect(walled.headers.get("location")).toContain("/ap/signin");
  });

  it("rate_limited: the 503 dogs page", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "rate_limited" });
    const page = await fetch(home("amazon.com"));
    expect(page.status).toBe(503);
    const html = await page.text();
    expect(html).toContain("<title>503 - Service Unavailable Error</title>");
    expect(html).toContain("Sorry! Something went wrong!");
  });

  it("page-level faults wait for a page load; the endpoint's faults do not touch pages", async () => {
    await replica.control.post("faults", { provider: PROVIDER, fault: "http_error" });
    const token = await pageToken();
    expect((await ask("lamp", token)).status).toBe(401);
    expect((await ask("lamp", token)).status).toBe(200);
    expect((await replica.control.providerState(PROVIDER)).faults_served).toEqual({ http_error: 1 });
  });

  it("malformed_stream: an inference block whose data is cut JSON, then EOF", async () => {
    const token = await pageToken();
    await replica.control.post("faults", { provider: PROVIDER, fault: "malformed_stream" });
    const response = await ask("deals", token);
    expect(response.status).toBe(200);
    const blocks = parseBlocks(new TextDecoder().decode(concat(await readChunks(response))));
    expect(blocks.length).toBeGreaterThan(2);
    const last = blocks.at(-1);
    expect(last?.event).toBe("inference");
    expect(() => JSON.parse(last?.data ?? "")).toThrow();
    for (const block of blocks.slice(0, -1)) expect(() => JSON.parse(block.data)).not.toThrow();
  });

  it("disconnect: the transfer breaks off inside a block", async () => {
    const token = await pageToken();
    await replica.control.post("faults", { provider: PROVIDER, fault: "disconnect" });
    const response = await ask("deals", token);
    expect(response.status).toBe(200);
    const { text, broke } = await readUntilBreak(response);
    expect(broke).toBe(true);
    expect(text).toContain("event: inference");
    expect(text.endsWith("\n\n")).toBe(false);
  });

  it("hang: no status line until the client gives up", async () => {
    const token = await pageToken();
    await replica.control.post("faults", { provider: PROVIDER, fault: "hang" });
    const started = Date.now();
    await expect(ask("lamp", token, { signal: AbortSignal.timeout(400) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect((await ask("lamp", token)).status).toBe(200);
  });

  it("empty_answer: the echo and an empty prose group, no cards, no pills", async () => {
    const token = await pageToken();
    await replica.control.post("faults", { provider: PROVIDER, fault: "empty_answer" });
    const blocks = parseBlocks(new TextDecoder().decode(concat(await readChunks(await ask("one-product", token)))));
    expect(blocks.map((block) => block.event)).toEqual(["affordance", "inference"]);
    expect(JSON.parse(blocks[1]?.data ?? "{}")).toEqual({
      patches: [{ groupId: "markdown_processor_0", op: "add", path: "/", value: { type: "text", children: [] } }],
    });
  });

  it("slow and pacing: delay_ms before the first byte, chunk_ms between chunks", async () => {
    const token = await pageToken();
    await replica.control.post("faults", { provider: PROVIDER, fault: "slow", delay_ms: 300, chunk_ms: 20 });
    let started = Date.now();
    const slow = await ask("one-product", token);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const chunks = await readChunks(slow);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300 + 20 * (chunks.length - 1) * 0.9);
    expect(concat(chunks)).toEqual(renderRufusBody(pickRufusScenario("one-product"), "one-product", null).bytes);
    expect((await replica.control.post("pacing", { provider: PROVIDER, delay_ms: 200 })).status).toBe(200);
    started = Date.now();
    await readChunks(await ask("one-product", token));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it("works in-process through app.request, ending a disconnect with a stream error", async () => {
    const app = createReplicaApp();
    const page = await app.request("/amazon_rufus/amazon.com/");
    const token = /"csrfToken":"([^"]+)"/.exec(await page.text())?.[1] ?? "";
    await app.request("/__control/faults", { method: "POST", body: JSON.stringify({ provider: PROVIDER, fault: "disconnect" }) });
    const response = await app.request(`/amazon_rufus/amazon.com/rufus/cl/streaming${STREAMING_QUERY}`, {
      method: "POST",
      headers: { "content-type": "application/json", "anti-csrftoken-a2z": token },
      body: JSON.stringify({ queryContext: { query: "deals" } }),
    });
    await expect(readChunks(response)).rejects.toThrow();
  });
});

describe.skipIf(!CHROMIUM_INSTALLED)("pages in Chromium", () => {
  for (const layout of RUFUS_LAYOUTS) {
    it(`${layout}: opens the panel, asks with Enter, streams and renders the answer turn`, async () => {
      await replica.control.post("layout", { provider: PROVIDER, layout });
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(home("amazon.de"));
        expect(await page.isVisible("#rufus-text-area")).toBe(false);
        await page.click("#nav-rufus-disco, .nav-rufus-disco");
        await page.waitForSelector("#rufus-text-area", { state: "visible" });
        expect(await page.isVisible("#rufus-text-area-inner-1")).toBe(false);
        await page.fill("#rufus-text-area", "Beste Kaffeemaschine");
        await page.press("#rufus-text-area", "Enter");
        await page.waitForSelector(
          ".rufus-papyrus-turn:not(.rufus-papyrus-active-turn) button.rufus-pill >> text=Welche ist am leisesten?",
          {
            timeout: 15_000,
          },
        );
        expect(await page.locator(".rufus-papyrus-active-turn").count()).toBe(0);
        expect(await page.textContent(".rufus-dialog-customer")).toBe("Beste Kaffeemaschine");
        const turn = page.locator(".rufus-papyrus-turn").last();
        const text = await turn.innerText();
        expect(text).toContain("Für eine kleine Küche eignen sich diese beiden Kaffeemaschinen besonders gut.");
        expect(text).toContain("29,99 €");
        expect(text).toContain("429,99 €");
        expect(text).toContain("Kompakt und leise");
        expect(await page.locator('textarea[id^="rufus-text-area-inner-"]').count()).toBe(2);

        const sent = (await replica.control.providerState(PROVIDER)).requests.at(-1);
        expect(sent?.path).toBe(`/amazon_rufus/amazon.de/rufus/cl/streaming${STREAMING_QUERY}`);
        expect(sent?.body).toEqual({
          queryContext: { query: "Beste Kaffeemaschine" },
          pageContext: { targetUrl: "https://www.amazon.de/", targetPageMetadata: [] },
        });
        expect(sent?.headers["content-type"]).toBe("application/json");
        expect(sent?.headers.accept).toBe("*/*");
        expect(sent?.headers["anti-csrftoken-a2z"]).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
      } finally {
        await browser.close();
      }
    }, 60_000);
  }

  it("product page: an ask pill (once hydrated) asks about that product; a 401 shows an error in the turn", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${replica.url}/amazon_rufus/amazon.com/dp/B0EXAMPLE1`);
      await page.waitForTimeout(600);
      await page.click("#dpx-nice-widget-container .ask-pill >> text=What do customers say?");
      await page.waitForSelector(
        ".rufus-papyrus-turn:not(.rufus-papyrus-active-turn) button.rufus-pill >> text=Compare with similar lamps",
      );
      const sent = (await replica.control.providerState(PROVIDER)).requests.at(-1);
      expect(sent?.body).toEqual({
        queryContext: { query: "What do customers say?" },
        pageContext: { targetUrl: "https://www.amazon.com/dp/B0EXAMPLE1", targetPageMetadata: [{ type: "ASIN", value: "B0EXAMPLE1" }] },
      });
      await replica.control.post("faults", { provider: PROVIDER, fault: "http_error" });
      await page.fill("#rufus-text-area", "again");
      await page.press("#rufus-text-area", "Enter");
      await page.waitForSelector(".rufus-papyrus-turn .rufus-error");
    } finally {
      await browser.close();
    }
  }, 60_000);
});
