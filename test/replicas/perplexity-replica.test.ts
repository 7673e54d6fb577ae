/**
 * The Perplexity replica against its own contract (providers/perplexity.md §2, §3, §5, §6 and DESIGN.md §6):
 * byte-exact SSE framing, the snapshot rules (diff vs materialized, terminal frame), deterministic scenarios, every
 * fault, the layouts, and the page driven by real Chromium. Runs in Node; the browser part is skipped when Debian's
 * Chromium is missing.
 */
import { describe, expect, it } from "vitest";
import { PERPLEXITY_LAYOUTS, renderPerplexityPage } from "../../replicas/perplexity/page";
import { PERPLEXITY_SCENARIOS, pickPerplexityScenario, resolvePerplexityRun } from "../../replicas/perplexity/scenarios";
import { DEFAULT_ECHO, renderPerplexityBody } from "../../replicas/perplexity/stream";
import { createReplicaApp } from "../../replicas/server";
import { splitIntoChunks } from "../../replicas/shared/paced-body";
import { attributeOf, parseHtml, queryAll, queryOne, textOf } from "../../src/scrapers/shared/decode/html";
import { concat, readChunks, readUntilBreak } from "../support/byte-streams";
import { CHROMIUM_INSTALLED, launchChromium } from "../support/chromium";
import { useReplicaServer } from "../support/replica-control";

const ASK = "/perplexity/rest/sse/perplexity_ask";
const HEADERS = {
  accept: "text/event-stream",
  "content-type": "application/json",
  "x-perplexity-request-reason": "perplexity-query-state-provider",
  "x-request-id": "00000000-0000-4000-8000-000000000001",
};

const replica = useReplicaServer();

interface AskOptions {
  sources?: string[];
  diff?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The page's request body, as perplexity.md §3 lists it (only the fields the replica reads change). */
function askBody(prompt: string, options: AskOptions = {}): Record<string, unknown> {
  const sources = options.sources ?? ["web"];
  return {
    query_str: prompt,
    params: {
      attachments: [],
      language: "en-US",
      timezone: "Europe/Berlin",
      search_focus: "internet",
      sources,
      search_recency_filter: null,
      frontend_uuid: "00000000-0000-4000-8000-0000000000aa",
      frontend_context_uuid: DEFAULT_ECHO.frontendContextUuid,
      mode: "copilot",
      model_preference: "turbo",
      is_related_query: false,
      prompt_source: "user",
      query_source: "home",
      is_incognito: false,
      local_search_enabled: false,
      use_schematized_api: true,
      send_back_text_in_streaming_api: false,
      supported_block_use_cases: options.diff === false ? ["answer_modes", "media_items"] : ["answer_modes", "media_items", "diff_blocks"],
      skip_search_enabled: !sources.includes("web"),
      dsl_query: prompt,
      version: "2.18",
    },
  };
}

function ask(prompt: string, options: AskOptions = {}): Promise<Response> {
  return fetch(replica.url + ASK, {
    method: "POST",
    headers: options.headers ?? HEADERS,
    body: JSON.stringify(askBody(prompt, options)),
    signal: options.signal,
  });
}

type Json = Record<string, unknown>;

/** Narrows a JSON value to an object (failing the test when it is not one). */
function record(value: unknown): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`not a JSON object: ${JSON.stringify(value)}`);
  return Object.fromEntries(Object.entries(value));
}

function list(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new Error(`not a JSON array: ${JSON.stringify(value)}`);
  return value;
}

interface Frame {
  event: string;
  data: Json;
}

/** Strict reading of the replica's framing: `event:` then one `data:` line, a blank line, the given line ending. */
function framesOf(text: string, lineEnding = "\n"): Frame[] {
  expect(text.endsWith(`${lineEnding}${lineEnding}`)).toBe(true);
  return text
    .slice(0, -2 * lineEnding.length)
    .split(`${lineEnding}${lineEnding}`)
    .map((block) => {
      const [eventLine, dataLine, ...rest] = block.split(lineEnding);
      expect(rest).toEqual([]);
      expect(eventLine).toMatch(/^event: (message|end_of_stream)$/);
      expect(dataLine?.startsWith("data: ")).toBe(true);
      return { event: (eventLine ?? "").slice(7), data: record(JSON.parse((dataLine ?? "").slice(6))) };
    });
}

function blocksOf(frame: Frame | undefined): Json[] {
  return frame === undefined || frame.event !== "message" ? [] : list(frame.data.blocks).map(record);
}

// ---------------------------------------------------------------------------------------------------------------

describe("scenario library", () => {
  it("has every scenario perplexity.md §6 asks for, with unique triggers, and a default that quotes the prompt", () => {
    const ids = PERPLEXITY_SCENARIOS.map((s) => s.id);
    for (const id of [
      "diffs-only",
      "materialized-only",
      "renumbered",
      "many-sources",
      "no-sources",
      "no-snippet",
      "unicode",
      "table-markers",
      "code-fence",
      "plan-progress",
      "unknown-blocks",
      "media-items",
      "long-answer",
      "crlf",
      "final-no-answer",
      "default",
    ]) {
      expect(ids).toContain(id);
    }
    const triggers = PERPLEXITY_SCENARIOS.map((s) => s.trigger).filter((t) => t !== null);
    expect(new Set(triggers).size).toBe(triggers.length);
    for (const scenario of PERPLEXITY_SCENARIOS) {
      if (scenario.trigger !== null) expect(pickPerplexityScenario(`Please, ${scenario.trigger.toUpperCase()}!`).id).toBe(scenario.id);
    }
    const fallback = resolvePerplexityRun("What is the capital of France?", { searchEnabled: true });
    expect(fallback.scenarioId).toBe("default");
    expect(fallback.terminalAnswer).toContain('You asked: "What is the capital of France?"');
  });

  it("covers the edge cases inside the scenarios", () => {
    const run = (prompt: string) => resolvePerplexityRun(prompt, { searchEnabled: true });
    for (const scenario of PERPLEXITY_SCENARIOS) {
      const r = run(scenario.trigger ?? "default question");
      if (r.scenarioId === "renumbered" || r.terminalAnswer === null) continue;
      expect(r.chunks.join(""), r.scenarioId).toBe(r.terminalAnswer);
    }
    const renumbered = run("renumbered");
    expect(renumbered.chunks.join("")).not.toBe(renumbered.terminalAnswer);
    expect(renumbered.chunks.join("").match(/\[\d\]/g)).toEqual(["[3]", "[1]", "[2]"]);
    expect(run("diffs-only").terminalAnswer).toBeNull();
    expect(run("many-sources").webResults?.length).toBeGreaterThanOrEqual(20);
    expect(run("no-sources").webResults).toEqual([]);
    const snippets = run("no-snippet").webResults ?? [];
    expect(snippets.some((r) => r.snippet === undefined)).toBe(true);
    expect(snippets.some((r) => r.snippet === "")).toBe(true);
    expect(new TextEncoder().encode(run("long-answer").terminalAnswer ?? "").length).toBeGreaterThan(40_000);
    expect(run("crlf").shape.lineEnding).toBe("\r\n");
    // chunk boundaries inside a ZWJ sequence, a flag and before a combining mark
    const unicode = run("unicode").chunks;
    expect(unicode.some((chunk) => chunk.startsWith("\u200d"))).toBe(true);
    expect(unicode.some((chunk) => chunk.startsWith("\u0301"))).toBe(true);
    expect(unicode.some((chunk) => chunk.endsWith("🇯"))).toBe(true);
    expect(run("final-no-answer").terminalAnswer).toBe("");
    const offline = resolvePerplexityRun("table-markers", { searchEnabled: false });
    expect(offline.webResults).toBeNull();
    expect(offline.terminalAnswer).not.toMatch(/\[\d+\]/);
  });

  it("cuts bodies inside lines and inside multi-byte characters, including astral ones", () => {
    const body = renderPerplexityBody(resolvePerplexityRun("unicode", { searchEnabled: true }), DEFAULT_ECHO, null).bytes;
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

describe("POST /rest/sse/perplexity_ask", () => {
  for (const scenario of PERPLEXITY_SCENARIOS) {
    const prompt = scenario.trigger === null ? "Who designed the Eiffel Tower?" : `scenario ${scenario.trigger}`;
    it(`streams byte-exact SSE snapshots for ${scenario.id}`, async () => {
      const run = resolvePerplexityRun(prompt, { searchEnabled: true });
      const response = await ask(prompt);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      const chunks = await readChunks(response);
      const body = concat(chunks);
      expect(body).toEqual(renderPerplexityBody(run, DEFAULT_ECHO, null).bytes);
      expect(chunks.length).toBeGreaterThan(1);

      const frames = framesOf(new TextDecoder().decode(body), run.shape.lineEnding);
      const messages = frames.filter((f) => f.event === "message");
      expect(frames.at(-1)?.event).toBe(run.shape.endOfStream ? "end_of_stream" : "message");
      if (run.shape.endOfStream) expect(frames.at(-1)?.data).toEqual({});
      // the envelope is repeated on every snapshot; thread fields are absent on the first
      for (const frame of messages) {
        expect(frame.data).toMatchObject({ backend_uuid: run.ids.backendUuid, context_uuid: run.ids.contextUuid, uuid: run.ids.uuid });
        expect(Array.isArray(frame.data.blocks)).toBe(true);
      }
      expect(messages[0]?.data).toMatchObject({ status: "PENDING", frontend_context_uuid: DEFAULT_ECHO.frontendContextUuid });
      expect(messages[0]?.data).not.toHaveProperty("thread_url_slug");
      // completion only on the last message; text_completed comes earlier
      const terminal = messages.at(-1);
      expect(messages.filter((f) => f.data.final_sse_message === true)).toEqual([terminal]);
      expect(terminal?.data).toMatchObject({
        status: "COMPLETED",
        text_completed: true,
        thread_url_slug: run.slug,
        thread_title: run.threadTitle,
      });
      expect(messages.at(-2)?.data).toMatchObject({ text_completed: true, final_sse_message: false });
      expect(terminal?.data.related_queries).toEqual(run.relatedQuestions);
      if (run.shape.relatedItems)
        expect(terminal?.data.related_query_items).toEqual(run.relatedQuestions.map((text) => ({ text, type: "default" })));
      else expect(terminal?.data).not.toHaveProperty("related_query_items");

      const diff = run.shape.framing === "diff";
      const earlier = messages.slice(0, -1).flatMap(blocksOf);
      expect(earlier.some((block) => "diff_block" in block)).toBe(diff && earlier.length > 0);
      expect(earlier.some((block) => "markdown_block" in block)).toBe(!diff);
      const terminalBlocks = blocksOf(terminal);
      const answer = terminalBlocks.find((block) => block.intended_usage === "ask_text");
      if (run.shape.terminal === "materialized" || !diff) {
        expect(answer?.markdown_block).toMatchObject({ progress: "DONE", chunks: run.chunks, chunk_starting_offset: 0 });
        if (run.terminalAnswer !== null) expect(record(answer?.markdown_block).answer).toBe(run.terminalAnswer);
        const web = terminalBlocks.find((block) => block.intended_usage === "web_results");
        if (run.webResults === null) expect(web).toBeUndefined();
        else expect(web?.web_result_block).toEqual({ progress: "DONE", web_results: run.webResults });
      } else {
        expect(answer).toEqual({
          intended_usage: "ask_text",
          diff_block: { field: "markdown_block", patches: [{ op: "replace", path: "/progress", value: "DONE" }] },
        });
      }
    });
  }

  it("materializes every block when the page does not list diff_blocks", async () => {
    const frames = framesOf(new TextDecoder().decode(concat(await readChunks(await ask("Who?", { diff: false })))));
    const blocks = frames.flatMap(blocksOf);
    expect(blocks.some((block) => "diff_block" in block)).toBe(false);
    const offsets = blocks
      .filter((b) => b.intended_usage === "ask_text")
      .map((b) => Number(record(b.markdown_block).chunk_starting_offset));
    expect(offsets.at(-1)).toBe(0);
    expect(offsets.slice(0, -1)).toEqual([...offsets.slice(0, -1)].sort((a, b) => a - b));
  });

  it("answers without searching when the Web source is off (sources [] and skip_search_enabled)", async () => {
    const frames = framesOf(new TextDecoder().decode(concat(await readChunks(await ask("table-markers", { sources: [] })))));
    const blocks = frames.flatMap(blocksOf);
    expect(blocks.some((block) => block.intended_usage === "web_results")).toBe(false);
    const terminal = frames.filter((f) => f.event === "message").at(-1);
    const answer = record(blocksOf(terminal)[0]?.markdown_block).answer;
    expect(answer).toContain("the web was not searched");
    expect(answer).not.toMatch(/\[\d+\]/);
    const recorded = record((await replica.control.providerState("perplexity")).requests.at(-1)?.body);
    expect(recorded.params).toMatchObject({ sources: [], skip_search_enabled: true });
  });

  it("rejects unusable bodies with 400 {detail}, counted as rejected exchanges", async () => {
    const post = (body: string) => fetch(replica.url + ASK, { method: "POST", headers: HEADERS, body });
    const blank = await post(JSON.stringify({ query_str: "  ", params: {} }));
    expect(blank.status).toBe(400);
    expect(await blank.json()).toEqual({ detail: "query_str: must be a non-blank string" });
    expect((await post("not json")).status).toBe(400);
    expect((await post(JSON.stringify({ query_str: "hi", params: [] }))).status).toBe(400);
    const state = await replica.control.providerState("perplexity");
    expect(state.exchanges).toBe(3);
    expect(state.rejected).toBe(3);
  });

  it("reconnect answers the terminal snapshot of a known run, 403 {} for a gone thread", async () => {
    const run = resolvePerplexityRun("renumbered", { searchEnabled: true });
    await readChunks(await ask("renumbered"));
    const known = await fetch(`${replica.url}${ASK}/reconnect/${run.ids.backendUuid}`, { method: "POST", headers: HEADERS, body: "{}" });
    expect(known.status).toBe(200);
    const [frame] = framesOf(await known.text());
    expect(frame?.data).toMatchObject({ final_sse_message: true, status: "COMPLETED" });
    expect(blocksOf(frame).some((block) => "diff_block" in block)).toBe(false);
    const gone = await fetch(`${replica.url}${ASK}/reconnect/00000000-0000-4000-8000-000000000000`, { method: "POST", body: "{}" });
    expect(gone.status).toBe(403);
    expect(await gone.json()).toEqual({});
    expect((await fetch(`${replica.url}/perplexity/rest/sse/perplexity_terminate`, { method: "POST", body: "{}" })).status).toBe(200);
  });
});

describe("faults", () => {
  const errorFaults: Array<[string, number, unknown]> = [
    ["login_wall", 401, { detail: "Not authenticated" }],
    ["rate_limited", 429, { detail: "Too many requests. You have reached the limit of searches for now." }],
    ["http_error", 500, { error_code: "INTERNAL_SERVER_ERROR", error_message: "An internal error occurred." }],
  ];
  for (const [fault, status, body] of errorFaults) {
    it(`${fault} answers ${status} for exactly count exchanges`, async () => {
      expect((await replica.control.post("faults", { provider: "perplexity", fault, count: 2 })).status).toBe(200);
      for (let i = 0; i < 2; i += 1) {
        const response = await ask("hello");
        expect(response.status).toBe(status);
        expect(await response.json()).toEqual(body);
      }
      expect((await ask("hello")).status).toBe(200);
      const state = await replica.control.providerState("perplexity");
      expect(state.faults_served).toEqual({ [fault]: 2 });
      expect(state.exchanges).toBe(3);
    });
  }

  it("challenge: Cloudflare's 403 interstitial with cf-mitigated, on perplexity_ask and on a page load", async () => {
    await replica.control.post("faults", { provider: "perplexity", fault: "challenge", count: 2 });
    const onAsk = await ask("hello");
    expect(onAsk.status).toBe(403);
    expect(onAsk.headers.get("cf-mitigated")).toBe("challenge");
    expect(await onAsk.text()).toContain("<title>Just a moment...</title>");
    const onPage = await fetch(`${replica.url}/perplexity/`);
    expect(onPage.status).toBe(403);
    expect(onPage.headers.get("cf-mitigated")).toBe("challenge");
    expect(await onPage.text()).not.toContain("ask-input");
    expect((await fetch(`${replica.url}/perplexity/`)).status).toBe(200);
  });

  it("login_wall on a page load: the sign-in modal over the page, and that page's POSTs answer 401", async () => {
    await replica.control.post("faults", { provider: "perplexity", fault: "login_wall" });
    const walled = await fetch(`${replica.url}/perplexity/`);
    const html = await walled.text();
    const document = parseHtml(html);
    const dialogs = queryAll(document, 'body > [role="dialog"][aria-modal="true"]');
    expect(dialogs).toHaveLength(1);
    expect(textOf(dialogs[0] ?? document)).toContain("Sign in or create an account");
    const cookie = (walled.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).not.toBe("");
    expect((await ask("hello", { headers: { ...HEADERS, cookie } })).status).toBe(401);
    const normal = await fetch(`${replica.url}/perplexity/`, { headers: { cookie } });
    expect(queryAll(parseHtml(await normal.text()), 'body > [role="dialog"]')).toHaveLength(0);
    expect(normal.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    const state = await replica.control.providerState("perplexity");
    expect(state.faults_served).toEqual({ login_wall: 1 });
    expect(state.page_loads).toBe(2);
  });

  it("malformed_stream: half the snapshots, unparsable JSON, a final frame whose blocks is not a list", async () => {
    await replica.control.post("faults", { provider: "perplexity", fault: "malformed_stream" });
    const text = new TextDecoder().decode(concat(await readChunks(await ask("hello"))));
    const events = text.slice(0, -2).split("\n\n");
    const last = record(JSON.parse((events.at(-1) ?? "").replace(/^event: message\ndata: /, "")));
    expect(last).toMatchObject({ final_sse_message: true, status: "COMPLETED" });
    expect(Array.isArray(last.blocks)).toBe(false);
    expect(() => JSON.parse((events.at(-2) ?? "").replace(/^event: message\ndata: /, ""))).toThrow();
    expect(text).not.toContain("end_of_stream");
  });

  it("disconnect: the transfer breaks off mid-event, before the final frame", async () => {
    await replica.control.post("faults", { provider: "perplexity", fault: "disconnect" });
    const response = await ask("hello");
    expect(response.status).toBe(200);
    const { text, broke } = await readUntilBreak(response);
    expect(broke).toBe(true);
    expect(text).toContain('"ask_text"');
    expect(text).not.toContain('"final_sse_message":true');
    expect(text.endsWith("\n\n")).toBe(false);
  });

  it("hang: no status line until the client gives up", async () => {
    await replica.control.post("faults", { provider: "perplexity", fault: "hang" });
    const started = Date.now();
    await expect(ask("hello", { signal: AbortSignal.timeout(400) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect((await ask("hello")).status).toBe(200);
  });

  it("empty_answer: COMPLETED with an empty answer while web results exist", async () => {
    await replica.control.post("faults", { provider: "perplexity", fault: "empty_answer" });
    const frames = framesOf(new TextDecoder().decode(concat(await readChunks(await ask("hello")))));
    const terminal = frames.filter((f) => f.event === "message").at(-1);
    expect(terminal?.data).toMatchObject({ final_sse_message: true, status: "COMPLETED" });
    const blocks = blocksOf(terminal);
    expect(blocks.find((b) => b.intended_usage === "ask_text")?.markdown_block).toEqual({
      progress: "DONE",
      chunks: [],
      chunk_starting_offset: 0,
      answer: "",
    });
    expect(list(record(blocks.find((b) => b.intended_usage === "web_results")?.web_result_block).web_results)).toHaveLength(2);
  });

  it("slow and pacing: delay_ms before the first byte, chunk_ms between chunks", async () => {
    await replica.control.post("faults", { provider: "perplexity", fault: "slow", delay_ms: 300, chunk_ms: 20 });
    let started = Date.now();
    const slow = await ask("hello");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const chunks = await readChunks(slow);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300 + 20 * (chunks.length - 1) * 0.9);
    expect(concat(chunks)).toEqual(renderPerplexityBody(resolvePerplexityRun("hello", { searchEnabled: true }), DEFAULT_ECHO, null).bytes);
    expect((await replica.control.post("pacing", { provider: "perplexity", delay_ms: 200 })).status).toBe(200);
    started = Date.now();
    await readChunks(await ask("hello"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});

describe("pages and layouts", () => {
  const anchorsOf = (html: string) => {
    const document = parseHtml(html);
    const trigger = queryOne(document, 'button[aria-haspopup="menu"]');
    return {
      lexical: queryOne(document, '#ask-input[data-lexical-editor="true"][role="textbox"][contenteditable="true"]') !== null,
      textarea: queryOne(document, 'textarea[placeholder*="Ask"]') !== null,
      submit: queryOne(document, 'button[aria-label="Submit"]') !== null,
      sources: trigger === null ? null : attributeOf(trigger, "aria-label"),
      items: queryAll(document, '[role="menu"] [role="menuitemcheckbox"]').map((item) => textOf(item)),
    };
  };

  it("serves each layout with the sheet's anchors", () => {
    expect(anchorsOf(renderPerplexityPage({ layout: "lexical-prose", signInWall: false }))).toEqual({
      lexical: true,
      textarea: false,
      submit: true,
      sources: "Sources",
      items: ["Web", "Academic", "Social"],
    });
    expect(anchorsOf(renderPerplexityPage({ layout: "textarea-markdown-content", signInWall: false }))).toEqual({
      lexical: false,
      textarea: true,
      submit: true,
      sources: "Set sources for search",
      items: ["WebSearch across the entire internet", "AcademicSearch academic papers", "SocialDiscussions and opinions"],
    });
    expect(anchorsOf(renderPerplexityPage({ layout: "lexical-split-prose", signInWall: false }))).toMatchObject({
      lexical: true,
      sources: "Connectors and sources",
      items: ["web", "academic", "social"],
    });
  });

  it("switches layouts through the control API; home, thread and deep-link paths serve the page", async () => {
    expect((await replica.control.providerState("perplexity")).layouts).toEqual([...PERPLEXITY_LAYOUTS]);
    expect((await replica.control.post("layout", { provider: "perplexity", layout: "textarea-markdown-content" })).status).toBe(200);
    for (const path of ["/perplexity/", "/perplexity/search/some-thread-AbCd1234", "/perplexity/search?q=hello"]) {
      const response = await fetch(replica.url + path);
      expect(response.status, path).toBe(200);
      expect(anchorsOf(await response.text()).textarea, path).toBe(true);
    }
    expect((await replica.control.post("layout", { provider: "perplexity", layout: "nope" })).status).toBe(400);
    await replica.control.post("reset", {});
    expect(anchorsOf(await (await fetch(`${replica.url}/perplexity/`)).text()).lexical).toBe(true);
    const redirect = await fetch(`${replica.url}/perplexity?x=1`, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("/perplexity/?x=1");
    expect(await (await fetch(`${replica.url}/perplexity/api/auth/session`)).json()).toEqual({});
  });

  it("works in-process through app.request, ending a disconnect with a stream error", async () => {
    const app = createReplicaApp();
    await app.request("/__control/faults", { method: "POST", body: JSON.stringify({ provider: "perplexity", fault: "disconnect" }) });
    const response = await app.request(ASK, { method: "POST", headers: HEADERS, body: JSON.stringify(askBody("hi")) });
    await expect(readChunks(response)).rejects.toThrow();
  });
});

describe.skipIf(!CHROMIUM_INSTALLED)("page in Chromium", () => {
  it("every layout: types, sends, streams, renders pills and Related, moves to /search/<slug>; the sources menu turns Web off", async () => {
    const browser = await launchChromium();
    try {
      for (const layout of PERPLEXITY_LAYOUTS) {
        await replica.control.post("layout", { provider: "perplexity", layout });
        const page = await browser.newPage();
        await page.goto(`${replica.url}/perplexity/`);
        const composer = layout === "textarea-markdown-content" ? 'textarea[placeholder*="Ask"]' : "#ask-input";
        expect(await page.isDisabled('button[aria-label="Submit"]')).toBe(true);
        await page.click(composer);
        await page.keyboard.type("table-markers please");
        await page.click('button[aria-label="Submit"]');
        await page.waitForSelector('button[data-testid="stop-generating-response-button"]', { timeout: 10_000 });
        await page.waitForSelector('button[data-testid="stop-generating-response-button"]', { state: "detached", timeout: 20_000 });
        await page.waitForSelector("text=Related", { timeout: 5_000 });

        const run = resolvePerplexityRun("table-markers please", { searchEnabled: true });
        expect(new URL(page.url()).pathname, layout).toBe(`/perplexity/search/${run.slug}`);
        const answerSelector = layout === "textarea-markdown-content" ? 'div[id^="markdown-content-"] > .prose' : ".prose";
        const proseCount = await page.locator(answerSelector).count();
        expect(proseCount, layout).toBeGreaterThanOrEqual(layout === "lexical-split-prose" ? 2 : 1);
        const pills = page.locator("span.citation[data-pplx-citation][data-pplx-citation-url]");
        expect(await pills.first().getAttribute("data-pplx-citation-url")).toBe(run.webResults?.[0]?.url);
        expect(await pills.first().locator("[aria-label]").getAttribute("aria-label")).toBe(run.webResults?.[0]?.name);
        expect(await page.locator("table td").first().textContent()).toBe("Earth");

        const sent = (await replica.control.providerState("perplexity")).requests.at(-1);
        expect(sent?.body).toMatchObject({
          query_str: "table-markers please",
          params: {
            sources: ["web"],
            skip_search_enabled: false,
            use_schematized_api: true,
            version: "2.18",
            dsl_query: "table-markers please",
          },
        });
        expect(sent?.headers.accept).toBe("text/event-stream");
        expect(sent?.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
        expect(sent?.headers["x-perplexity-request-reason"]).toBe("perplexity-query-state-provider");

        // second question from the thread page, with the Web source switched off in the sources menu
        await page.click('button[aria-haspopup="menu"]');
        await page.getByRole("menuitemcheckbox", { name: /^web/i }).click();
        expect(await page.getByRole("menuitemcheckbox", { name: /^web/i }).getAttribute("aria-checked")).toBe("false");
        await page.keyboard.press("Escape");
        await page.click(composer);
        await page.keyboard.type("offline question");
        await page.keyboard.press("Enter");
        await page.waitForFunction(
          () =>
            document.querySelectorAll('[data-testid="stop-generating-response-button"]').length === 0 &&
            document.body.innerText.includes("the web was not searched"),
        );
        expect((await replica.control.providerState("perplexity")).requests.at(-1)?.body).toMatchObject({
          query_str: "offline question",
          params: { sources: [], skip_search_enabled: true },
        });
        await page.close();
      }

      await replica.control.post("reset", {});
      await replica.control.post("faults", { provider: "perplexity", fault: "rate_limited" });
      const page = await browser.newPage();
      await page.goto(`${replica.url}/perplexity/`);
      await page.click("#ask-input");
      await page.keyboard.type("again");
      await page.keyboard.press("Enter");
      const toast = await page.waitForSelector('[role="alert"]', { timeout: 10_000 });
      expect(await toast.textContent()).toMatch(/limit/);
    } finally {
      await browser.close();
    }
  }, 90_000);
});

describe("page fuzzing (replicas/perplexity/variation.ts)", () => {
  const pageOf = async (): Promise<string> => (await fetch(`${replica.url}/perplexity/`)).text();
  const fuzz = async (seed: number | null, classes?: string[]): Promise<void> => {
    const response = await replica.control.post("variation", {
      provider: "perplexity",
      seed,
      ...(classes === undefined ? {} : { classes }),
    });
    expect(response.status).toBe(200);
  };
  const variationOf = (html: string): Record<string, unknown> | null => {
    const data = /<script id="__NEXT_DATA__" type="application\/json">([^<]*)<\/script>/.exec(html)?.[1] ?? "{}";
    const parsed = JSON.parse(data) as { props?: { pageProps?: { variation?: Record<string, unknown> } } };
    return parsed.props?.pageProps?.variation ?? null;
  };
  const ALL = ["hydration", "late_lists", "rollout_siblings", "decoration", "interruptions", "controlled_inputs", "sheet_alternatives"];

  it("the same seed draws the same page; another seed another one", async () => {
    await fuzz(7);
    const first = await pageOf();
    await fuzz(7);
    expect(await pageOf()).toBe(first);
    await fuzz(8);
    expect(await pageOf()).not.toBe(first);
    expect(variationOf(first)).not.toBeNull();
  });

  it("a class that is off changes nothing of that class, and the others draw what they drew", async () => {
    for (const seed of [3, 11, 29]) {
      await fuzz(seed);
      const all = variationOf(await pageOf());
      await fuzz(
        seed,
        ALL.filter((name) => name !== "late_lists"),
      );
      const noLists = variationOf(await pageOf());
      expect(noLists).toMatchObject({ pills: null, related: null });
      expect({ ...noLists, pills: null, related: null }).toEqual({ ...all, pills: null, related: null });
      await fuzz(
        seed,
        ALL.filter((name) => name !== "sheet_alternatives"),
      );
      const noAlternatives = variationOf(await pageOf());
      expect(noAlternatives).toMatchObject({
        request: null,
        answerWrapper: null,
        sourcesLabel: null,
        pills: all?.pills,
        related: all?.related,
      });
      // the generic classes are the runtime's: with all of them off, the runtime is told to change nothing
      const nothing = '{"variation":{"hydration":null,"interruption":null,"controlledInput":null,"decoration":null,"sibling":null}';
      await fuzz(seed, ["late_lists", "sheet_alternatives"]);
      expect(await pageOf()).toContain(nothing);
      await fuzz(seed);
      expect(await pageOf()).not.toContain(nothing);
    }
  });

  it("every draw is noted in the control state, per class", async () => {
    await fuzz(31);
    await pageOf();
    const state = await replica.control.providerState("perplexity");
    const applied = state.variation?.draws[0]?.applied ?? {};
    expect(Object.keys(applied).length).toBeGreaterThan(0);
    for (const notes of Object.values(applied)) expect(notes?.length).toBeGreaterThan(0);
  });

  it("fuzzing off: the page is the one the layouts served before fuzzing existed (byte for byte outside the page's script)", async () => {
    // sha256 of the page of each layout at the commit before fuzzing, with the inlined module script's body emptied
    const before: Record<string, string> = {
      "lexical-prose": "22e1b48fedbcc76a3c5c360a409368d56f11bc7ba136c86cd0edb7e43724ba0c",
      "textarea-markdown-content": "cda2f3e63bfadb5a10a3f290effb2dcefdf61167ab8cf87d9610ea3e2bfb75e6",
      "lexical-split-prose": "4e932555dc7177121b06be1a717a0dfb79a498beaf5421571a694e65916b8362",
    };
    const { createHash } = await import("node:crypto");
    await fuzz(null);
    for (const layout of PERPLEXITY_LAYOUTS) {
      await replica.control.post("layout", { provider: "perplexity", layout });
      const html = await pageOf();
      expect(html).toBe(renderPerplexityPage({ layout, signInWall: false }));
      const stripped = html.replace(/<script type="module">[\s\S]*?<\/script>/, '<script type="module"></script>');
      expect(createHash("sha256").update(stripped).digest("hex"), layout).toBe(before[layout]);
    }
  });

  it("the stream of a fuzzed page's request follows that page's draw (end_of_stream, related_query_items)", async () => {
    // find a seed whose draw leaves both out, and one that sends both
    const seen: Record<string, number> = {};
    for (let seed = 1; seed < 60 && Object.keys(seen).length < 2; seed += 1) {
      await fuzz(seed);
      await pageOf();
      const notes = (await replica.control.providerState("perplexity")).variation?.draws[0]?.applied.sheet_alternatives?.[0] ?? "";
      if (notes.includes("end_of_stream not sent; related_query_items not sent")) seen.none ??= seed;
      if (notes.includes("end_of_stream sent; related_query_items sent")) seen.both ??= seed;
    }
    for (const [kind, seed] of Object.entries(seen)) {
      await fuzz(seed);
      const variation = variationOf(await pageOf());
      const body = askBody("Who built it?");
      Reflect.set(body.params as object, "frontend_context_uuid", variation?.frontendContextUuid);
      const text = await (await fetch(`${replica.url}${ASK}`, { method: "POST", headers: HEADERS, body: JSON.stringify(body) })).text();
      expect(text.includes("event: end_of_stream"), kind).toBe(kind === "both");
      expect(text.includes('"related_query_items"'), kind).toBe(kind === "both");
    }
    expect(Object.keys(seen).sort()).toEqual(["both", "none"]);
  });
});
