/**
 * The ChatGPT replica against its own contract (providers/chatgpt.md §1–§6, DESIGN.md §6): byte-exact v1 and old-format
 * framing, the recorded fixtures still equal to what it sends, deterministic scenarios covering the sheet's fixture
 * list, every fault, the sentinel stubs, the layouts, and the page driven by real Chromium.
 * Runs in Node (the replica is a Node server); the browser part is skipped when Debian's Chromium is missing.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CHATGPT_BUILDS, CHATGPT_LAYOUTS, renderChatgptHomePage } from "../../replicas/chatgpt/page";
import { drawChatgptVariation } from "../../replicas/chatgpt/variation";
import { VARIATION_CLASSES, VariationDraw } from "../../replicas/shared/variation";
import { CHATGPT_SCENARIOS, pickChatgptScenario } from "../../replicas/chatgpt/scenarios";
import { buildFrames, buildRawAnswer, type ChatgptRequestEcho, renderChatgptBody, STREAM_ERROR_DATA } from "../../replicas/chatgpt/stream";
import { splitIntoChunks } from "../../replicas/shared/paced-body";
import { createReplicaApp } from "../../replicas/server";
import { concat, readChunks, readUntilBreak } from "../support/byte-streams";
import { CHROMIUM_INSTALLED, launchChromium } from "../support/chromium";
import { useReplicaServer } from "../support/replica-control";

const CONVERSATION = "/chatgpt/backend-anon/f/conversation";
const USER_MESSAGE_ID = "aaaaaaaa-0000-4000-8000-000000000001";
const HEADERS = {
  accept: "text/event-stream",
  "content-type": "application/json",
  "openai-sentinel-chat-requirements-token": "gAAAAABtest",
  "openai-sentinel-proof-token": "gAAAAABproof",
  "oai-language": "en-US",
};

const replica = useReplicaServer();

function requestBody(prompt: string, options: { v1?: boolean } = {}): Record<string, unknown> {
  return {
    action: "next",
    messages: [{ id: USER_MESSAGE_ID, author: { role: "user" }, content: { content_type: "text", parts: [prompt] }, metadata: {} }],
    parent_message_id: "client-created-root",
    model: "auto",
    timezone_offset_min: 0,
    timezone: "UTC",
    conversation_mode: { kind: "primary_assistant" },
    system_hints: ["search"],
    supports_buffering: true,
    ...(options.v1 === false ? {} : { supported_encodings: ["v1"] }),
  };
}

function ask(
  prompt: string,
  init: { headers?: Record<string, string>; signal?: AbortSignal; body?: unknown; path?: string; v1?: boolean } = {},
): Promise<Response> {
  return fetch(replica.url + (init.path ?? CONVERSATION), {
    method: "POST",
    headers: init.headers ?? HEADERS,
    body: JSON.stringify(init.body ?? requestBody(prompt, { v1: init.v1 })),
    signal: init.signal,
  });
}

const echo = (prompt: string, supportsV1 = true): ChatgptRequestEcho => ({ prompt, userMessageId: USER_MESSAGE_ID, supportsV1 });

type Json = Record<string, unknown>;
interface Event {
  event: string | undefined;
  data: string;
}

/** The body as SSE events: every event is `[event: …\n]data: …\n` closed by a blank line. */
function events(text: string): Event[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines[0]?.startsWith("event: ") ? lines.shift()?.slice(7) : undefined;
      expect(lines).toHaveLength(1);
      expect(lines[0]?.startsWith("data: ")).toBe(true);
      return { event, data: (lines[0] ?? "").slice(6) };
    });
}

function json(event: Event): Json {
  return JSON.parse(event.data) as Json;
}

// ---------------------------------------------------------------------------------------------------------------

describe("scenario library", () => {
  it("has a scenario for every case of chatgpt.md §6 and the issue, with unique triggers", () => {
    const ids = CHATGPT_SCENARIOS.map((scenario) => scenario.id);
    for (const id of [
      "no-search",
      "uncited-search",
      "several-queries",
      "many-references",
      "table-citations",
      "widget-markers",
      "code-blocks",
      "unicode-rtl",
      "long-answer",
      "thinking-commentary",
      "tiny-frames",
      "max-tokens",
      "legacy-format",
      "default",
    ]) {
      expect(ids).toContain(id);
    }
    expect(new Set(CHATGPT_SCENARIOS.map((scenario) => scenario.trigger)).size).toBe(CHATGPT_SCENARIOS.length);
    for (const scenario of CHATGPT_SCENARIOS) {
      expect(pickChatgptScenario(`Please, ${scenario.trigger?.toUpperCase() ?? "anything"}!`).id).toBe(scenario.id);
    }
    const fallback = pickChatgptScenario("What is the capital of France?");
    expect(fallback.id).toBe("default");
    expect(JSON.stringify(fallback.answer("What is the capital of France?"))).toContain("What is the capital of France?");
  });

  it("covers the sheet's edge cases inside the scenarios", () => {
    const raw = (id: string): string => new TextDecoder().decode(renderChatgptBody(pickChatgptScenario(id), echo(id), null).bytes);
    const answer = (id: string): string => buildRawAnswer(pickChatgptScenario(id), id).text;
    expect(answer("many-references")).toContain("\ue200cite\ue202turn0search0\ue202turn0search3\ue201");
    expect(raw("many-references")).toContain("#:~:text=");
    expect(raw("many-references")).toContain("https://www.google.com/url?q=");
    expect(answer("table-citations")).toContain("| Python | 3.14 | \ue200cite\ue202turn0search0\ue201 |");
    expect(answer("widget-markers")).toContain("\ue200navlist\ue202");
    expect(answer("widget-markers")).toContain("\ue200products\ue202");
    expect(answer("widget-markers")).toMatch(/[\ue203\ue204\ue206]/);
    expect(answer("code-blocks")).toContain('row.split("|")');
    expect(answer("code-blocks")).toContain("[x](y)");
    // raw UTF-8 markers (3 bytes each) in this one; JSON escapes elsewhere
    expect(raw("unicode-rtl")).toContain("\ue200cite\ue202");
    expect(raw("default")).toContain("\\ue200cite\\ue202");
    expect(raw("unicode-rtl")).toContain("שלום");
    expect(raw("thinking-commentary")).toContain('"channel":"commentary"');
    expect(raw("thinking-commentary")).toContain('"content_type":"thoughts"');
    expect(raw("max-tokens")).toContain('"finish_details":{"type":"max_tokens"}');
    expect(raw("legacy-format")).not.toContain("delta_encoding");
    expect(raw("tiny-frames")).not.toContain('"c":');
    expect(raw("default")).toContain('"type":"a_future_frame_type"');
    const long = pickChatgptScenario("long-answer").answer("long-answer");
    expect(new TextEncoder().encode(long.map((segment) => (segment.kind === "text" ? segment.text : "")).join("")).length).toBeGreaterThan(
      30 * 1024,
    );
  });

  it("the recorded fixtures are exactly what the replica sends", () => {
    for (const scenario of CHATGPT_SCENARIOS) {
      const prompt = scenario.trigger === null ? "What is a replica fixture?" : `${scenario.trigger} fixture`;
      const recorded = new Uint8Array(readFileSync(new URL(`../fixtures/chatgpt/${scenario.id}.sse`, import.meta.url)));
      expect(renderChatgptBody(scenario, echo(prompt), null).bytes, scenario.id).toEqual(recorded);
    }
  });
});

describe("POST /backend-anon/f/conversation: v1 framing", () => {
  for (const prompt of ["What is the capital of France?", "unicode-rtl please", "many-references now", "tiny-frames test"]) {
    it(`streams byte-exact text/event-stream for "${prompt}"`, async () => {
      const response = await ask(prompt);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      const chunks = await readChunks(response);
      const expected = renderChatgptBody(pickChatgptScenario(prompt), echo(prompt), null).bytes;
      expect(concat(chunks)).toEqual(expected);
      expect(chunks.length).toBeGreaterThan(3);
    });
  }

  it("cuts the body inside lines and inside multi-byte characters", () => {
    const body = renderChatgptBody(pickChatgptScenario("unicode-rtl"), echo("unicode-rtl"), null).bytes;
    const chunks = splitIntoChunks(body);
    const strict = new TextDecoder("utf-8", { fatal: true });
    const broken = chunks.filter((chunk) => {
      try {
        strict.decode(chunk);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken.length).toBeGreaterThan(0);
    expect(chunks.some((chunk) => !new TextDecoder().decode(chunk).endsWith("\n\n"))).toBe(true);
  });

  it("follows the sheet's order: encoding, input message, tool messages, answer deltas, typed frames, [DONE]", () => {
    const prompt = "several-queries please";
    const list = events(new TextDecoder().decode(renderChatgptBody(pickChatgptScenario(prompt), echo(prompt), null).bytes));
    expect(list[0]).toEqual({ event: "delta_encoding", data: '"v1"' });
    expect(list.at(-1)).toEqual({ event: undefined, data: "[DONE]" });
    const typed = list.filter((event) => event.event === undefined && event.data !== "[DONE]").map((event) => json(event).type);
    expect(typed).toContain("input_message");
    expect(typed.indexOf("title_generation")).toBeLessThan(typed.indexOf("message_stream_complete"));
    const deltas = list.filter((event) => event.event === "delta").map(json);
    const adds = deltas.filter((delta) => delta.o === "add");
    const roles = adds.map((delta) => Reflect.get(Object(Reflect.get(Object(Reflect.get(Object(delta.v), "message")), "author")), "role"));
    expect(roles).toEqual(["assistant", "tool", "assistant", "tool", "assistant"]);
    expect(adds.map((delta) => delta.c)).toEqual([0, 1, 2, 3, 4]);
    // value-only frames continue the previous frame's path and op; after a patch, text names its path again
    expect(deltas.some((delta) => Object.keys(delta).join() === "v")).toBe(true);
    deltas.forEach((delta, index) => {
      if (Object.keys(delta).join() === "v") expect(deltas[index - 1]?.o).not.toBe("patch");
    });
    const mixed = deltas.find(
      (delta) =>
        delta.o === "patch" &&
        JSON.stringify(delta.v).includes("/message/content/parts/0") &&
        JSON.stringify(delta.v).includes("content_references"),
    );
    expect(mixed).toBeDefined();
    const last = deltas.at(-1);
    expect(JSON.stringify(last)).toContain('"finished_successfully"');
    expect(JSON.stringify(last)).toContain('"finish_details":{"type":"stop"');
  });

  it("a page that offers no v1 encoding gets the old cumulative format", async () => {
    const prompt = "What is old?";
    const response = await ask(prompt, { v1: false });
    const text = new TextDecoder().decode(concat(await readChunks(response)));
    expect(concat([new TextEncoder().encode(text)])).toEqual(
      renderChatgptBody(pickChatgptScenario(prompt), echo(prompt, false), null).bytes,
    );
    const list = events(text);
    expect(list.every((event) => event.event === undefined)).toBe(true);
    const parts = list
      .filter((event) => event.data !== "[DONE]")
      .map(json)
      .filter((frame) => Reflect.get(Object(Reflect.get(Object(frame.message), "author")), "role") === "assistant")
      .map((frame) => String(Reflect.get(Object(Reflect.get(Object(frame.message), "content")), "parts")));
    // cumulative: each snapshot extends the one before
    parts.slice(1).forEach((part, index) => {
      expect(part.startsWith(parts[index] ?? "")).toBe(true);
    });
  });

  it("serves every conversation path of the sheet, logged in and out, current and older", async () => {
    for (const path of ["/backend-api/f/conversation", "/backend-anon/conversation", "/backend-api/conversation"]) {
      const response = await ask("hello", { path: `/chatgpt${path}` });
      expect(response.status, path).toBe(200);
      await readChunks(response);
    }
    expect((await replica.control.providerState("chatgpt")).requests.map((request) => request.path)).toEqual([
      "/chatgpt/backend-api/f/conversation",
      "/chatgpt/backend-anon/conversation",
      "/chatgpt/backend-api/conversation",
    ]);
  });

  it("refuses, without consuming a fault, a request without the requirements token (403) or with an invalid body (422)", async () => {
    await replica.control.post("faults", { provider: "chatgpt", fault: "http_error" });
    const { "openai-sentinel-chat-requirements-token": _token, ...withoutToken } = HEADERS;
    const unusual = await ask("hello", { headers: withoutToken });
    expect(unusual.status).toBe(403);
    expect(await unusual.json()).toEqual({ detail: "Unusual activity has been detected from your device. Try again later." });
    const invalid = await ask("hello", { body: { action: "next", messages: [] } });
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toMatchObject({ detail: [{ loc: ["body", "messages"] }] });
    const blank = await ask("hello", { body: requestBody("   ") });
    expect(blank.status).toBe(422);
    expect((await ask("hello")).status).toBe(500);
    const chatgpt = await replica.control.providerState("chatgpt");
    expect(chatgpt.rejected).toBe(3);
    expect(chatgpt.exchanges).toBe(4);
  });
});

describe("sentinel and conduit stubs", () => {
  it("answer as the sheet shows, under both roots", async () => {
    for (const root of ["backend-anon", "backend-api"]) {
      const post = (path: string) => fetch(`${replica.url}/chatgpt/${root}/${path}`, { method: "POST", headers: HEADERS, body: "{}" });
      const requirements = (await (await post("sentinel/chat-requirements")).json()) as Json;
      expect(requirements).toMatchObject({ proofofwork: { required: false }, turnstile: { required: false } });
      expect(requirements.token).toMatch(/^gAAAAAB/);
      expect(await (await post("sentinel/chat-requirements/prepare")).json()).toMatchObject({ turnstile: { required: false } });
      expect(await (await post("sentinel/chat-requirements/finalize")).json()).toMatchObject({ token: expect.stringMatching(/^gAAAAAB/) });
      expect(await (await post("f/conversation/prepare")).json()).toMatchObject({ status: "ok", conduit_token: expect.any(String) });
    }
    expect((await replica.control.providerState("chatgpt")).exchanges).toBe(0);
  });
});

describe("faults", () => {
  const errorFaults: Array<[string, number, unknown]> = [
    ["login_wall", 401, { detail: "Unauthorized" }],
    ["rate_limited", 429, { detail: "Too many requests in 1 hour. Try again later." }],
    [
      "http_error",
      500,
      { detail: "An error occurred. Either the engine you requested does not exist or there was another issue processing your request." },
    ],
  ];
  for (const [fault, status, body] of errorFaults) {
    it(`${fault} answers ${status} for exactly count exchanges`, async () => {
      expect((await replica.control.post("faults", { provider: "chatgpt", fault, count: 2 })).status).toBe(200);
      for (let i = 0; i < 2; i += 1) {
        const response = await ask("hello");
        expect(response.status).toBe(status);
        expect(await response.json()).toEqual(body);
      }
      const healthy = await ask("hello");
      expect(healthy.status).toBe(200);
      await readChunks(healthy);
      const chatgpt = await replica.control.providerState("chatgpt");
      expect(chatgpt.faults_served).toEqual({ [fault]: 2 });
      expect(chatgpt.exchanges).toBe(3);
    });
  }

  it("challenge on the endpoint: Cloudflare's 403 interstitial", async () => {
    await replica.control.post("faults", { provider: "chatgpt", fault: "challenge" });
    const response = await ask("hello");
    expect(response.status).toBe(403);
    expect(response.headers.get("cf-mitigated")).toBe("challenge");
    const html = await response.text();
    expect(html).toContain("<title>Just a moment...</title>");
    expect(html).toContain("/cdn-cgi/challenge-platform/");
  });

  it("challenge and login_wall are consumed by the page load when they head the queue", async () => {
    await replica.control.post("faults", { provider: "chatgpt", fault: "challenge" });
    const challenged = await fetch(`${replica.url}/chatgpt/?q=hi&hints=search`);
    expect(challenged.status).toBe(403);
    expect(await challenged.text()).toContain("Just a moment...");

    await replica.control.post("faults", { provider: "chatgpt", fault: "login_wall" });
    const walled = await fetch(`${replica.url}/chatgpt/?q=hi&hints=search`);
    const html = await walled.text();
    // once in the <template> the script clones on a 401, once rendered over the page
    expect(html.split('role="dialog" aria-modal="true"').length - 1).toBe(2);
    expect(html).toContain('"loginWall":true');
    const cookie = (walled.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).toMatch(/^replica_chatgpt_login_wall=1$/);
    const rejected = await ask("hello", { headers: { ...HEADERS, cookie } });
    expect(rejected.status).toBe(401);
    const healthy = await fetch(`${replica.url}/chatgpt/`, { headers: { cookie } });
    expect(await healthy.text()).toContain('"loginWall":false');
    expect(healthy.headers.get("set-cookie")).toMatch(/replica_chatgpt_login_wall=;/);
    expect((await replica.control.providerState("chatgpt")).faults_served).toEqual({ challenge: 1, login_wall: 1 });
  });

  it("login_wall on the signed-in layout redirects the page to auth.openai.com", async () => {
    await replica.control.post("layout", { provider: "chatgpt", layout: "signed-in" });
    await replica.control.post("faults", { provider: "chatgpt", fault: "login_wall" });
    const redirected = await fetch(`${replica.url}/chatgpt/?q=hi&hints=search`, { redirect: "manual" });
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get("location")).toBe(`https://auth.openai.com/log-in?next=%2Fchatgpt%2F%3Fq%3Dhi%26hints%3Dsearch`);
  });

  it("malformed_stream: a cut-off frame mid-answer, then the {error} frame, and no [DONE]", async () => {
    await replica.control.post("faults", { provider: "chatgpt", fault: "malformed_stream" });
    const text = new TextDecoder().decode(concat(await readChunks(await ask("hello"))));
    expect(text.endsWith(`data: ${STREAM_ERROR_DATA}\n\n`)).toBe(true);
    expect(text).toContain('"o":"append","v":"cut sho\n\n');
    expect(text).not.toContain("[DONE]");
    expect(text).not.toContain('finished_successfully"},{"p":"/message/end_turn');
  });

  it("disconnect: the transfer breaks off mid-answer, before the finishing patch", async () => {
    await replica.control.post("faults", { provider: "chatgpt", fault: "disconnect" });
    const response = await ask("hello");
    expect(response.status).toBe(200);
    const { text, broke } = await readUntilBreak(response);
    expect(broke).toBe(true);
    expect(text).toContain('"o":"append"');
    expect(text).not.toContain("[DONE]");
    expect(text.endsWith("\n\n")).toBe(false);
  });

  it("hang: no status line until the client gives up", async () => {
    await replica.control.post("faults", { provider: "chatgpt", fault: "hang" });
    const started = Date.now();
    await expect(ask("hello", { signal: AbortSignal.timeout(400) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    const healthy = await ask("hello");
    expect(healthy.status).toBe(200);
    await readChunks(healthy);
  });

  it("empty_answer: tool messages only, then the normal end", async () => {
    await replica.control.post("faults", { provider: "chatgpt", fault: "empty_answer" });
    const list = events(new TextDecoder().decode(concat(await readChunks(await ask("several-queries")))));
    expect(list.at(-1)?.data).toBe("[DONE]");
    const added = list
      .filter((event) => event.event === "delta")
      .map(json)
      .filter((delta) => delta.o === "add");
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((delta) => Reflect.get(Object(Reflect.get(Object(delta.v), "message")), "channel") !== "final")).toBe(true);
    expect(list.some((event) => event.data.includes("message_stream_complete"))).toBe(true);
  });

  it("slow and pacing: delay_ms before the first byte, chunk_ms between chunks", async () => {
    await replica.control.post("faults", { provider: "chatgpt", fault: "slow", delay_ms: 300, chunk_ms: 20 });
    let started = Date.now();
    const slow = await ask("hello");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const chunks = await readChunks(slow);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300 + 20 * (chunks.length - 1) * 0.9);
    expect(concat(chunks)).toEqual(renderChatgptBody(pickChatgptScenario("hello"), echo("hello"), null).bytes);

    expect((await replica.control.post("pacing", { provider: "chatgpt", delay_ms: 200 })).status).toBe(200);
    started = Date.now();
    await readChunks(await ask("hello"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});

describe("pages and layouts", () => {
  it("declares at least two layouts and switches them through the control API", async () => {
    expect(CHATGPT_LAYOUTS.length).toBeGreaterThanOrEqual(2);
    expect((await replica.control.providerState("chatgpt")).layouts).toEqual([...CHATGPT_LAYOUTS]);
    expect((await replica.control.post("layout", { provider: "chatgpt", layout: "nope" })).status).toBe(400);
    for (const layout of CHATGPT_LAYOUTS) {
      expect((await replica.control.post("layout", { provider: "chatgpt", layout })).status).toBe(200);
      const html = await (await fetch(`${replica.url}/chatgpt/`)).text();
      expect(html).toContain(JSON.stringify(CHATGPT_BUILDS[layout]));
      expect(html).toContain('data-testid="send-button"');
      expect(html).toContain('placeholder="Ask anything"');
      expect(html.includes('id="prompt-textarea"')).toBe(layout !== "legacy-build");
    }
  });

  it("redirects /chatgpt to /chatgpt/ keeping the query, and serves the page at /c/<id>", async () => {
    const response = await fetch(`${replica.url}/chatgpt?q=x&hints=search`, { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/chatgpt/?q=x&hints=search");
    expect((await fetch(`${replica.url}/chatgpt/c/abc`)).status).toBe(200);
  });

  it("works in-process through app.request", async () => {
    const app = createReplicaApp();
    const response = await app.request(CONVERSATION, { method: "POST", headers: HEADERS, body: JSON.stringify(requestBody("hello")) });
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(
      renderChatgptBody(pickChatgptScenario("hello"), echo("hello"), null).bytes,
    );
  });

  it("the frames of every scenario parse as JSON (except the end marker)", () => {
    for (const scenario of CHATGPT_SCENARIOS) {
      for (const frame of buildFrames(scenario, echo("x"))) if (frame.data !== "[DONE]") expect(() => JSON.parse(frame.data)).not.toThrow();
    }
  });
});

describe.skipIf(!CHROMIUM_INSTALLED)("page in Chromium", () => {
  it("the deep link fills and sends with search on every layout; the DOM anchors of §2 appear, markers become links", async () => {
    const browser = await launchChromium();
    try {
      for (const layout of CHATGPT_LAYOUTS) {
        await replica.control.post("layout", { provider: "chatgpt", layout });
        await replica.control.post("pacing", { provider: "chatgpt", chunk_ms: 15 });
        const page = await browser.newPage();
        const prompt = `table-citations on ${layout}`;
        await page.goto(`${replica.url}/chatgpt/?${new URLSearchParams({ q: prompt, hints: "search" })}`);
        // while streaming, the send button is the stop button
        await page.waitForSelector('button[data-testid="stop-button"]', { state: "visible", timeout: 10_000 });
        await page.waitForFunction(() => document.querySelectorAll('button[data-testid="copy-turn-action-button"]').length > 1, null, {
          timeout: 20_000,
        });
        expect(await page.isVisible('button[data-testid="stop-button"]')).toBe(false);
        const message = page.locator(
          'section[data-testid^="conversation-turn-"][data-turn="assistant"] div[data-message-author-role="assistant"]',
        );
        expect(await message.getAttribute("data-message-model-slug")).toBe("gpt-5-2026-10-14");
        expect(await message.getAttribute("data-message-id")).toMatch(/^[0-9a-f-]{36}$/);
        const links = await message
          .locator(".markdown a")
          .evaluateAll((anchors) => anchors.map((anchor) => [anchor.textContent, anchor.getAttribute("href")]));
        expect(links).toEqual([
          ["Python.org", "https://www.python.org/downloads/?utm_source=chatgpt.com"],
          ["Node.js", "https://nodejs.org/en/about/previous-releases?utm_source=chatgpt.com"],
          ["Go", "https://go.dev/doc/devel/release?utm_source=chatgpt.com"],
          ["releases", "https://blog.rust-lang.org/releases/?utm_source=chatgpt.com"],
        ]);
        expect(await message.locator(".markdown").innerText()).not.toMatch(/[\ue200-\ue206]/);
        expect(new URL(page.url()).pathname).toMatch(/^\/chatgpt\/c\/[0-9a-f-]{36}$/);
        // the footnote pill opens the sources panel
        await page.click("button.group\\/footnote");
        expect(await page.locator('section[screen-anchor="top"] div[slot="content"] a').count()).toBe(3);

        const sent = (await replica.control.providerState("chatgpt")).requests.at(-1);
        expect(sent?.body).toMatchObject({ action: "next", system_hints: ["search"], messages: [{ content: { parts: [prompt] } }] });
        expect(sent?.path).toBe(`/chatgpt/${CHATGPT_BUILDS[layout].apiRoot}/${CHATGPT_BUILDS[layout].conversationPath}`);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 90_000);

  it("typing into the composer and sending works without the deep link (no search hint then)", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${replica.url}/chatgpt/`);
      await page.click("#prompt-textarea");
      await page.keyboard.type("no-search typed by hand");
      await page.click('button[data-testid="send-button"]');
      await page.waitForFunction(() => document.querySelectorAll('button[data-testid="copy-turn-action-button"]').length > 1, null, {
        timeout: 20_000,
      });
      expect(await page.locator(".markdown").innerText()).toContain("Boiling an egg");
      const sent = (await replica.control.providerState("chatgpt")).requests.at(-1);
      expect(sent?.body).toMatchObject({ system_hints: [], messages: [{ content: { parts: ["no-search typed by hand"] } }] });
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("a login wall shows the modal instead of sending; a rate limit shows the site's message", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await replica.control.post("faults", { provider: "chatgpt", fault: "login_wall" });
      await page.goto(`${replica.url}/chatgpt/?q=hello&hints=search`);
      expect(await page.isVisible('[role="dialog"][aria-modal="true"]')).toBe(true);
      expect(await page.getByRole("dialog").getByRole("button", { name: "Log in" }).count()).toBe(1);
      await page.waitForTimeout(300);
      expect((await replica.control.providerState("chatgpt")).exchanges).toBe(0);

      await replica.control.post("faults", { provider: "chatgpt", fault: "rate_limited" });
      await page.goto(`${replica.url}/chatgpt/?q=hello&hints=search`);
      await page.waitForSelector("text=You've reached our limit of messages per hour", { timeout: 10_000 });
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe("page fuzzing (issue 29): seeded, per class, off = the page as built", () => {
  const variationOn = (seed: number | null, classes?: string[]) =>
    replica.control.post("variation", classes === undefined ? { provider: "chatgpt", seed } : { provider: "chatgpt", seed, classes });
  const home = async (): Promise<string> => (await fetch(`${replica.url}/chatgpt/?q=hello&hints=search`)).text();

  it("fuzzing off serves exactly the page renderChatgptHomePage builds without a variant: no variant, no runtime", async () => {
    const html = await home();
    expect(html).toBe(renderChatgptHomePage({ layout: "anonymous", loginWall: false }));
    expect(html).not.toContain('"variant"');
    expect(html).not.toContain("applyPageVariation");
    expect((await replica.control.providerState("chatgpt")).variation).toBeNull();
  });

  it("the same seed draws the same pages, load after load; another seed another page", async () => {
    await variationOn(7);
    const first = [await home(), await home()];
    await variationOn(7);
    const again = [await home(), await home()];
    expect(again).toEqual(first);
    expect(first[0]).toContain("applyPageVariation");
    expect(first[0]).toContain('"variant"');
    await variationOn(8);
    expect(await home()).not.toBe(first[0]);
  });

  it("every draw is noted; the generic runtime runs after the page's module script", async () => {
    await variationOn(3);
    const html = await home();
    // a classic script would run before the (deferred) module script built the page
    expect(html).toMatch(/<script type="module">\(\/\/ The generic page variation/);
    const draws = (await replica.control.providerState("chatgpt")).variation?.draws ?? [];
    expect(draws).toHaveLength(1);
    expect(Object.keys(draws[0]?.applied ?? {})).toContain("sheet_alternatives");
  });

  it("a class that is off changes nothing of that class, and the other classes draw the same", () => {
    for (let seed = 0; seed < 40; seed += 1) {
      const all = new VariationDraw("chatgpt", seed, 1, new Set(VARIATION_CLASSES));
      const withoutLists = new VariationDraw("chatgpt", seed, 1, new Set(VARIATION_CLASSES.filter((name) => name !== "late_lists")));
      const withoutAlternatives = new VariationDraw(
        "chatgpt",
        seed,
        1,
        new Set(VARIATION_CLASSES.filter((name) => name !== "sheet_alternatives")),
      );
      const full = drawChatgptVariation(all);
      const noLists = drawChatgptVariation(withoutLists);
      const noAlternatives = drawChatgptVariation(withoutAlternatives);
      expect(noLists.page).toMatchObject({ pillsLateMs: null, sourcesLateMs: null, panelBatches: 1 });
      expect(withoutLists.record().applied.late_lists).toBeUndefined();
      expect(noLists.wire).toEqual(full.wire);
      expect({ ...noLists.page, pillsLateMs: 0, sourcesLateMs: 0, panelBatches: 0 }).toEqual({
        ...full.page,
        pillsLateMs: 0,
        sourcesLateMs: 0,
        panelBatches: 0,
      });
      expect(noAlternatives.wire).toEqual({
        eventLines: true,
        messageIndex: "as_scenario",
        toolName: "as_scenario",
        nonAscii: "as_scenario",
      });
      expect(noAlternatives.page).toMatchObject({
        model: "auto",
        hintsWithoutSearch: "empty",
        historyField: false,
        userCopyButton: true,
        copyLabel: null,
      });
      expect(withoutAlternatives.record().applied.sheet_alternatives).toBeUndefined();
      expect(withoutAlternatives.record().applied.late_lists).toEqual(all.record().applied.late_lists);
    }
  });

  it("with every class off but one, the page carries only that class's variant", async () => {
    await variationOn(11, ["late_lists"]);
    const html = await home();
    const draws = (await replica.control.providerState("chatgpt")).variation?.draws ?? [];
    expect(Object.keys(draws[0]?.applied ?? {}).filter((name) => name !== "late_lists")).toEqual([]);
    expect(html).toContain('"model":"auto"');
  });

  it("the stream follows the framing its page load drew (event lines left out, tool name swapped), and says the same answer", async () => {
    // find a seed whose page leaves the `event:` lines out
    let seed = 0;
    for (; seed < 200; seed += 1) {
      if (!drawChatgptVariation(new VariationDraw("chatgpt", seed, 1, new Set(VARIATION_CLASSES))).wire.eventLines) break;
    }
    await variationOn(seed);
    await home();
    const plain = await fetch(`${replica.url}${CONVERSATION}`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify(requestBody("several-queries")),
    });
    expect(await plain.text()).toContain("event: delta\n");
    const fuzzed = await fetch(`${replica.url}${CONVERSATION}`, {
      method: "POST",
      headers: { ...HEADERS, "oai-client-build-number": "1" },
      body: JSON.stringify(requestBody("several-queries")),
    });
    const text = await fuzzed.text();
    expect(text).not.toContain("event: delta\n");
    expect(text).toContain("event: delta_encoding\n");
    expect(text).toContain("data: [DONE]");
  });
});
