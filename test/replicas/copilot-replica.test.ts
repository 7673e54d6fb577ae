/**
 * The Copilot replica against its own contract (providers/copilot.md §2, §3, §5, §6 and DESIGN.md §6): the scenario
 * library, the WebSocket event protocol byte-exact (frames as the replica's renderer builds them), every fault
 * variant at its point of the turn, the layouts, and the page driven by real Chromium.
 * Runs in Node (the replica is a Node server); the browser part is skipped when Debian's Chromium is missing.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { fragmentFrames } from "../../replicas/copilot/delivery";
import { answerFrames, HASHCASH_PARAMETER, serializeFrames, turnScript, type SendRequest } from "../../replicas/copilot/events";
import { COPILOT_FAULT_VARIANTS, variantOf } from "../../replicas/copilot/faults";
import { COPILOT_LAYOUTS, LAYOUT_CONFIGS, renderCopilotPage } from "../../replicas/copilot/page";
import { COPILOT_SCENARIOS, COPILOT_WIRE_MODES, codeUnitDeltas, pickCopilotScenario, wordDeltas } from "../../replicas/copilot/scenarios";
import { startReplicaServer } from "../../replicas/server";
import { drawCopilotVariation, NO_WIRE_VARIATION } from "../../replicas/copilot/variation";
import { VARIATION_CLASSES, VariationDraw } from "../../replicas/shared/variation";
import { CHROMIUM_INSTALLED, launchChromium } from "../support/chromium";
import { useReplicaServer } from "../support/replica-control";

const replica = useReplicaServer();

const START_BODY = {
  timeZone: "Europe/Berlin",
  startNewConversation: true,
  teenSupportEnabled: true,
  correctPersonalizationSetting: true,
  performUserMerge: true,
  deferredDataUseCapable: true,
};

function start(): Promise<Response> {
  return fetch(`${replica.url}/copilot/c/api/start`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(START_BODY),
  });
}

type Json = Record<string, unknown>;

/** A page-like client of the chat socket: records every message it receives, in order. */
class ChatClient {
  readonly received: string[] = [];
  private readonly waiters: Array<() => void> = [];
  closeCode: number | null = null;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data: WebSocket.RawData) => {
      this.received.push(data.toString());
      for (const waiter of this.waiters.splice(0)) waiter();
    });
    ws.on("close", (code: number) => {
      this.closeCode = code;
      for (const waiter of this.waiters.splice(0)) waiter();
    });
  }

  static open(query = "api-version=2&clientSessionId=3f0c8a52-1b7e-4f7e-9d7c-2a8e6d1f0b4c"): Promise<ChatClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`${replica.url.replace("http", "ws")}/copilot/c/api/chat?${query}`);
      const client = new ChatClient(ws);
      ws.once("open", () => resolve(client));
      ws.once("unexpected-response", (_request, response) => reject(new Error(`handshake refused: ${response.statusCode}`)));
      ws.once("error", reject);
    });
  }

  send(value: Json): void {
    this.ws.send(JSON.stringify(value));
  }

  /** One event per message; a message that is not one JSON object (a fault, a multi-event frame) is kept raw. */
  events(): Json[] {
    return this.received.map((text): Json => {
      try {
        return JSON.parse(text) as Json;
      } catch {
        return { event: "(not one JSON object)", raw: text };
      }
    });
  }

  /** Waits until `predicate` holds for the received messages (or the socket closed). */
  async until(predicate: (events: Json[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.events())) {
      if (this.closeCode !== null) return;
      if (Date.now() > deadline) throw new Error(`timed out; received ${this.received.length} messages`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  async connect(): Promise<void> {
    this.send({
      event: "setOptions",
      supportedFeatures: ["partial-generated-images"],
      supportedCards: ["weather"],
      ads: { supportedTypes: ["text"] },
    });
    await this.until((events) => events.some((event) => event.event === "connected"));
  }
}

function sendFrame(prompt: string, mode: string, conversationId = "conv-1"): Json {
  return { event: "send", conversationId, content: [{ type: "text", text: prompt }], mode, context: {} };
}

const hasEvent = (name: string) => (events: Json[]) => events.some((event) => event.event === name);

describe("scenario library", () => {
  it("has every scenario copilot.md §6 asks for, with unique triggers", () => {
    const ids = COPILOT_SCENARIOS.map((scenario) => scenario.id);
    for (const id of [
      "many-citations",
      "no-citations",
      "duplicate-citations",
      "markdown-links",
      "replace-text",
      "chain-of-thought",
      "multi-part",
      "unicode-emoji",
      "long-answer",
      "unknown-events",
      "concatenated-frames",
    ]) {
      expect(ids).toContain(id);
    }
    expect(new Set(COPILOT_SCENARIOS.map((scenario) => scenario.trigger)).size).toBe(COPILOT_SCENARIOS.length);
    for (const scenario of COPILOT_SCENARIOS)
      expect(pickCopilotScenario(`Please, ${scenario.trigger?.toUpperCase() ?? ""}!`, "smart").id).toBe(scenario.id);
  });

  it("has a default per mode that quotes the prompt and names the mode", () => {
    for (const mode of COPILOT_WIRE_MODES) {
      const scenario = pickCopilotScenario("What is the capital of France?", mode);
      expect(scenario.id).toBe("default");
      const text = scenario.steps.flatMap((step) => (step.kind === "text" ? step.deltas : [])).join("");
      expect(text).toContain('You asked: "What is the capital of France?"');
    }
    const has = (mode: (typeof COPILOT_WIRE_MODES)[number], kind: string) =>
      pickCopilotScenario("x", mode).steps.some((step) => step.kind === kind);
    expect(has("search", "citation")).toBe(true);
    expect(has("smart", "citation")).toBe(false);
    expect(has("reasoning", "thought")).toBe(true);
  });

  it("splits deltas that join back exactly; code-unit deltas cut surrogate pairs", () => {
    expect(wordDeltas("one two  three four", 5).join("")).toBe("one two  three four");
    const unicode = pickCopilotScenario("unicode-emoji", "chat").steps[0];
    const deltas = unicode?.kind === "text" ? unicode.deltas : [];
    expect(deltas.some((delta) => /[\uD800-\uDBFF]$/.test(delta))).toBe(true);
    expect(codeUnitDeltas("ab👍", 3)).toEqual(["ab\uD83D", "\uDC4D"]);
  });
});

describe("delivery", () => {
  const frames = [
    '{"event":"appendText","text":"Grüße 👩‍👩‍👧 aus Köln","id":"1"}',
    '{"event":"done","id":"2"}',
    `{"event":"appendText","text":"${"x".repeat(3000)}"}`,
  ].map((text) => new TextEncoder().encode(text));

  it("cuts frames into fragments (inside multi-byte characters too) that join back exactly", () => {
    const writes = fragmentFrames(frames);
    const fragments = writes.flat();
    frames.forEach((bytes, index) => {
      const pieces = fragments.filter((fragment) => fragment.frame === index);
      expect(Buffer.concat(pieces.map((piece) => piece.data))).toEqual(Buffer.from(bytes));
      expect(pieces[0]?.first).toBe(true);
      expect(pieces.at(-1)?.fin).toBe(true);
      expect(pieces.slice(0, -1).every((piece) => !piece.fin)).toBe(true);
    });
    const strict = new TextDecoder("utf-8", { fatal: true });
    expect(
      fragments.some((fragment) => {
        try {
          strict.decode(fragment.data);
          return false;
        } catch {
          return true;
        }
      }),
    ).toBe(true);
    // short frames share a write
    expect(writes.some((write) => new Set(write.map((fragment) => fragment.frame)).size > 1)).toBe(true);
  });

  it("leaves the last frame unfinished for a cut connection", () => {
    const fragments = fragmentFrames(frames, { lastFrameIncomplete: true }).flat();
    const last = fragments.filter((fragment) => fragment.frame === 2);
    expect(last.every((fragment) => !fragment.fin)).toBe(true);
    expect(last.reduce((sum, fragment) => sum + fragment.data.length, 0)).toBe(Math.floor((frames[2]?.length ?? 0) / 2));
  });
});

describe("chat socket protocol", () => {
  it("connected on setOptions, hashcash challenge, then the scenario's frames byte-exact, then pong", async () => {
    const client = await ChatClient.open();
    await client.connect();
    expect(client.events()[0]).toMatchObject({ event: "connected", id: "0" });
    const prompt = "What is the tallest mountain in Europe?";
    client.send(sendFrame(prompt, "search"));
    await client.until(hasEvent("challenge"));
    expect(client.events().at(-1)).toEqual({ event: "challenge", method: "hashcash", parameter: HASHCASH_PARAMETER, id: "1" });
    client.send({ event: "challengeResponse", token: "42", method: "hashcash" });
    await client.until(hasEvent("suggestedFollowups"));
    const request: SendRequest = { conversationId: "conv-1", prompt, mode: "search" };
    const expected = serializeFrames(answerFrames(pickCopilotScenario(prompt, "search"), request), 2);
    expect(client.received.slice(2)).toEqual(expected.texts);
    client.send({ event: "ping" });
    await client.until(hasEvent("pong"));
    expect(client.events().at(-1)).toEqual({ event: "pong", id: String(expected.nextId) });

    const state = await replica.control.providerState("copilot");
    expect(state.exchanges).toBe(1);
    expect(state.requests.at(-1)).toMatchObject({ method: "WS", body: sendFrame(prompt, "search") });
    expect(state.requests.at(-1)?.path).toMatch(/^\/copilot\/c\/api\/chat\?api-version=2&clientSessionId=/);
    client.ws.close();
  });

  for (const scenario of COPILOT_SCENARIOS) {
    it(`streams scenario ${scenario.id} byte-exact, also as a second turn on the socket`, async () => {
      const client = await ChatClient.open();
      await client.connect();
      let nextId = 1;
      for (const mode of ["smart", "reasoning"] as const) {
        const before = client.received.length;
        const prompt = `${scenario.trigger ?? ""} please`;
        client.send(sendFrame(prompt, mode));
        if (scenario.hashcash) {
          await client.until((events) => events.length > before);
          expect(client.events()[before]).toMatchObject({ event: "challenge", method: "hashcash", id: String(nextId) });
          nextId += 1;
          client.send({ event: "challengeResponse", token: "0", method: "hashcash" });
        }
        const expected = serializeFrames(answerFrames(scenario, { conversationId: "conv-1", prompt, mode }), nextId);
        const done = before + (scenario.hashcash ? 1 : 0) + expected.texts.length;
        await client.until((events) => events.length >= done);
        expect(client.received.slice(before + (scenario.hashcash ? 1 : 0))).toEqual(expected.texts);
        nextId = expected.nextId;
      }
      client.ws.close();
    });
  }

  it("rejects bad send frames with an error event, and handshakes without api-version=2", async () => {
    const client = await ChatClient.open();
    await client.connect();
    client.send(sendFrame("hello", "turbo"));
    await client.until(hasEvent("error"));
    expect(client.events().at(-1)).toMatchObject({ event: "error", errorCode: "invalid-request" });
    client.send({ event: "send", conversationId: "c", content: [], mode: "smart" });
    await client.until((events) => events.filter((event) => event.event === "error").length === 2);
    client.ws.close();
    await expect(ChatClient.open("clientSessionId=1")).rejects.toThrow("handshake refused: 400");
    const state = await replica.control.providerState("copilot");
    expect(state.rejected).toBe(3);
  });
});

describe("POST /c/api/start and the page routes", () => {
  it("answers the start body of copilot.md §3", async () => {
    const response = await start();
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(Object.keys(body)).toEqual(["currentConversationId", "userId", "isNewUser", "isBlocked", "remainingTurns", "features"]);
    expect(body).toMatchObject({ isBlocked: false, remainingTurns: 30, features: [] });
    const temporary = await fetch(`${replica.url}/copilot/c/api/user/sessions/temporary`, { method: "POST" });
    expect(Object.keys((await temporary.json()) as Json)).toEqual(["sessionKey"]);
  });

  it("serves the chat page at /, /chats/<id>, redirecting the bare mount", async () => {
    const redirect = await fetch(`${replica.url}/copilot?q=hi`, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("/copilot/?q=hi");
    expect((await fetch(`${replica.url}/copilot/chats/abc`)).status).toBe(200);
    expect((await replica.control.providerState("copilot")).page_loads).toBe(1);
  });
});

describe("faults", () => {
  it("rotates each fault through its variants (copilot.md §5)", () => {
    expect(variantOf("login_wall", 0)).toBe("start-unauthorized");
    expect(variantOf("login_wall", 2)).toBe("banned");
    expect(variantOf("login_wall", 3)).toBe("start-unauthorized");
    expect(variantOf("http_error", 1)).toBe("handshake-403");
    for (const variants of Object.values(COPILOT_FAULT_VARIANTS)) expect(variants.length).toBeGreaterThan(0);
  });

  it("start variants: 401, isBlocked, then the third login_wall is a banned event after send", async () => {
    await replica.control.post("faults", { provider: "copilot", fault: "login_wall", count: 3 });
    expect((await start()).status).toBe(401);
    expect(await (await start()).json()).toMatchObject({ isBlocked: true });
    expect((await start()).status).toBe(200);
    const client = await ChatClient.open();
    await client.connect();
    client.send(sendFrame("hello", "smart"));
    await client.until(() => client.closeCode !== null);
    expect(client.events().slice(1)).toEqual([{ event: "banned", id: "1" }]);
    expect(client.closeCode).toBe(1008);
    expect((await replica.control.providerState("copilot")).faults_served).toEqual({ login_wall: 3 });
  });

  it("rate_limited: 429 with Retry-After, then a start without turns left", async () => {
    await replica.control.post("faults", { provider: "copilot", fault: "rate_limited", count: 2 });
    const limited = await start();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(await (await start()).json()).toMatchObject({ remainingTurns: 0, isBlocked: false });
    expect((await start()).status).toBe(200);
  });

  it("http_error: handshake refused with 460, then 403, then an error event, then chatMessageError", async () => {
    await replica.control.post("faults", { provider: "copilot", fault: "http_error", count: 4 });
    expect((await start()).status).toBe(200); // start variants only: this fault waits for the handshake
    await expect(ChatClient.open()).rejects.toThrow("handshake refused: 460");
    await expect(ChatClient.open()).rejects.toThrow("handshake refused: 403");
    for (const expected of ["error", "chatMessageError"]) {
      const client = await ChatClient.open();
      await client.connect();
      client.send(sendFrame("hello", "search"));
      await client.until(hasEvent(expected));
      expect(client.events().at(-1)?.event).toBe(expected);
      expect(client.events().some((event) => event.event === "done")).toBe(false);
      client.ws.close();
    }
    const state = await replica.control.providerState("copilot");
    expect(state.faults_served).toEqual({ http_error: 4 });
    expect(state.exchanges).toBe(4);
  });

  it("challenge: cloudflare, then method null, and nothing after either", async () => {
    await replica.control.post("faults", { provider: "copilot", fault: "challenge", count: 2 });
    for (const method of ["cloudflare", null]) {
      const client = await ChatClient.open();
      await client.connect();
      client.send(sendFrame("hello", "search"));
      await client.until(hasEvent("challenge"));
      expect(client.events().at(-1)).toMatchObject({ event: "challenge", method });
      client.send({ event: "challengeResponse", token: "x", method: "cloudflare" });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(client.received).toHaveLength(2);
      client.ws.close();
    }
  });

  it("malformed_stream: half the answer, a frame that is not JSON, close 1011", async () => {
    await replica.control.post("faults", { provider: "copilot", fault: "malformed_stream" });
    const client = await ChatClient.open();
    await client.connect();
    client.send(sendFrame("hello", "smart"));
    await client.until(() => client.closeCode !== null);
    expect(client.closeCode).toBe(1011);
    expect(client.events().at(-1)?.event).toBe("(not one JSON object)");
    expect(client.received.some((text) => text.includes('"event":"appendText"'))).toBe(true);
  });

  it("disconnect: the connection is torn down mid-answer, without a close frame", async () => {
    await replica.control.post("faults", { provider: "copilot", fault: "disconnect" });
    const client = await ChatClient.open();
    await client.connect();
    client.send(sendFrame("long-answer", "smart"));
    await client.until(() => client.closeCode !== null);
    expect(client.closeCode).toBe(1006);
    expect(client.received.some((text) => text.includes('"event":"appendText"'))).toBe(true);
    expect(client.received.some((text) => text.includes('"event":"done"'))).toBe(false);
  });

  it("hang: nothing after send; empty_answer: done without text parts", async () => {
    await replica.control.post("faults", { provider: "copilot", fault: "hang" });
    await replica.control.post("faults", { provider: "copilot", fault: "empty_answer" });
    const client = await ChatClient.open();
    await client.connect();
    client.send(sendFrame("hello", "smart"));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(client.received).toHaveLength(1);
    client.send(sendFrame("hello", "smart"));
    await client.until(hasEvent("done"));
    const names = client.events().map((event) => event.event);
    expect(names).not.toContain("appendText");
    expect(names.slice(1, 4)).toEqual(["received", "startMessage", "done"]);
    client.ws.close();
  });

  it("slow and pacing: delay_ms before the first answer frame, chunk_ms between writes", async () => {
    await replica.control.post("faults", { provider: "copilot", fault: "slow", delay_ms: 300, chunk_ms: 20 });
    const client = await ChatClient.open();
    await client.connect();
    const started = Date.now();
    client.send(sendFrame("smart answer", "chat"));
    await client.until(hasEvent("received"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await client.until(hasEvent("suggestedFollowups"));
    const script = turnScript(
      pickCopilotScenario("smart answer", "chat"),
      { conversationId: "conv-1", prompt: "smart answer", mode: "chat" },
      null,
    );
    const writes = fragmentFrames(serializeFrames(script.frames, 1).texts.map((text) => new TextEncoder().encode(text))).length;
    expect(Date.now() - started).toBeGreaterThanOrEqual(300 + 20 * (writes - 1) * 0.9);
    client.ws.close();
  });

  it("total_ms: the turn's writes are spread so that the one completing `done` leaves that long after the send frame", async () => {
    await replica.control.post("pacing", { provider: "copilot", total_ms: 400 });
    try {
      const client = await ChatClient.open();
      await client.connect();
      const started = Date.now();
      client.send(sendFrame("smart answer", "chat"));
      await client.until(hasEvent("received"));
      const firstAfter = Date.now() - started;
      await client.until(hasEvent("done"));
      // spread, not all at the end: the first write leaves well before the answer time, `done` not before it
      expect(firstAfter).toBeLessThan(400);
      expect(Date.now() - started).toBeGreaterThanOrEqual(399);
      client.ws.close();
    } finally {
      await replica.control.post("pacing", { provider: "copilot", total_ms: 0 });
    }
  });
});

describe("server", () => {
  it("close() ends open chat sockets, a hanging one included", async () => {
    const other = await startReplicaServer({ port: 0 });
    await fetch(`${other.url}/__control/faults`, { method: "POST", body: JSON.stringify({ provider: "copilot", fault: "hang" }) });
    const ws = new WebSocket(`${other.url.replace("http", "ws")}/copilot/c/api/chat?api-version=2&clientSessionId=1`);
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send(JSON.stringify(sendFrame("hello", "smart")));
    const closed = new Promise((resolve) => ws.once("close", resolve));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await other.close();
    await closed;
  });
});

describe("layouts", () => {
  it("serve only the sheet's anchors, in every layout", () => {
    for (const layout of COPILOT_LAYOUTS) {
      const html = renderCopilotPage(layout);
      expect(html).toContain('data-testid="composer-input"');
      expect(html).toContain('data-testid="submit-button"');
      expect(html).toContain('data-testid="stop-button"');
      expect(html).toMatch(/<button [^>]*data-testid="chat-mode-[a-z-]+"/);
      expect(html).toContain('data-content="conversation"');
      const testIds = [...html.matchAll(/data-testid="([^"]+)"/g)].map((match) => match[1]);
      expect(testIds.every((id) => /^(composer-input|submit-button|stop-button|chat-mode-.+)$/.test(id ?? ""))).toBe(true);
      const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]);
      expect(ids.every((id) => id === "userInput")).toBe(true);
      for (const mode of LAYOUT_CONFIGS[layout].modes) expect(html).toContain(`title="${mode.label}"`);
    }
    expect(renderCopilotPage("default")).toContain('id="userInput"');
    expect(renderCopilotPage("classic")).not.toContain('id="userInput"');
    expect(renderCopilotPage("classic")).toContain('aria-label="Dismiss"');
    expect(renderCopilotPage("localised")).toContain('<html lang="de">');
  });

  it("switch through the control API and reset to the default", async () => {
    expect((await replica.control.post("layout", { provider: "copilot", layout: "classic" })).status).toBe(200);
    expect(await (await fetch(`${replica.url}/copilot/`)).text()).toContain('aria-label="Dismiss"');
    expect((await replica.control.post("layout", { provider: "copilot", layout: "nope" })).status).toBe(400);
    await replica.control.post("reset", { provider: "copilot" });
    expect(await (await fetch(`${replica.url}/copilot/`)).text()).toContain('id="userInput"');
  });
});

describe.skipIf(!CHROMIUM_INSTALLED)("page in Chromium", () => {
  async function withPage(run: (page: import("playwright-core").Page) => Promise<void>): Promise<void> {
    const browser = await launchChromium();
    try {
      await run(await browser.newPage());
    } finally {
      await browser.close();
    }
  }

  it("default layout: picks Think Deeper, sends over the socket, renders the answer and the completion marker", async () => {
    await withPage(async (page) => {
      await page.goto(`${replica.url}/copilot`);
      expect(new URL(page.url()).pathname).toBe("/copilot/");
      expect(await page.textContent('button[data-testid*="chat-mode-"]')).toBe("Smart");
      await page.click('button[data-testid*="chat-mode-"]');
      await page.click('[role="menu"] button[title="Think Deeper"]');
      await page.fill("textarea#userInput", "markdown-links in depth");
      await page.click('button[data-testid="submit-button"]');
      await page.waitForSelector('button[data-testid*="-thumbs-up-"]', { timeout: 20_000 });
      expect(await page.isHidden('[data-testid="stop-button"]')).toBe(true);
      expect(new URL(page.url()).pathname).toMatch(/^\/copilot\/chats\/[\w-]+$/);
      const answer = page.locator('[data-content="ai-message"]').last();
      expect(await answer.locator('a[href="https://doc.rust-lang.org/book/"]').count()).toBeGreaterThan(0);
      expect(await answer.innerText()).toContain("Start with The Rust Book");
      const sent = (await replica.control.providerState("copilot")).requests.at(-1);
      expect(sent?.body).toMatchObject({ event: "send", mode: "reasoning", content: [{ type: "text", text: "markdown-links in depth" }] });
      expect(sent?.path).toMatch(/[?&]temporarySessionKey=/);
    });
  }, 60_000);

  it("classic layout: consent banner dismissed, titled option buttons, default Search, hashcash answered", async () => {
    await replica.control.post("layout", { provider: "copilot", layout: "classic" });
    await withPage(async (page) => {
      await page.goto(`${replica.url}/copilot/`);
      await page.click('[aria-label="Dismiss"]');
      expect(await page.textContent('button[data-testid*="chat-mode-"]')).toBe("Search");
      await page.click('button[data-testid*="chat-mode-"]');
      await page.click('button[title="quick response" i]');
      await page.fill('textarea[data-testid="composer-input"]', "Hello classic");
      await page.keyboard.press("Enter");
      await page.waitForSelector('button[data-testid*="-thumbs-up-"]', { timeout: 20_000 });
      expect(await page.locator('[data-content="ai-message"] .ac-textBlock').innerText()).toContain(
        'You asked: "Hello classic" (mode: Quick response).',
      );
      expect((await replica.control.providerState("copilot")).requests.at(-1)?.body).toMatchObject({ mode: "chat" });
    });
  }, 60_000);

  it("shows Turnstile on a cloudflare challenge and the sign-in prompt on a 401 start", async () => {
    await replica.control.post("faults", { provider: "copilot", fault: "challenge" });
    await withPage(async (page) => {
      await page.goto(`${replica.url}/copilot/`);
      await page.fill("textarea#userInput", "hello");
      await page.click('button[data-testid="submit-button"]');
      await page.waitForSelector("#cf-turnstile", { state: "visible", timeout: 20_000 });
    });
    await replica.control.post("faults", { provider: "copilot", fault: "login_wall" });
    await withPage(async (page) => {
      await page.goto(`${replica.url}/copilot/`);
      await page.fill("textarea#userInput", "hello");
      await page.click('button[data-testid="submit-button"]');
      const dialog = await page.waitForSelector('[role="dialog"][aria-modal="true"] a[href^="https://login.live.com/"]', {
        timeout: 20_000,
      });
      expect(await dialog.isVisible()).toBe(true);
    });
  }, 60_000);
});

describe("page fuzzing (issue 29)", () => {
  /** sha256 of the pages as served before page fuzzing existed: fuzzing off must not change a byte of them. */
  const PAGES_BEFORE_FUZZING: Record<string, string> = {
    default: "59abba035eeadc42ddb5cdfe471ab421eed7a27e7681167fd96fe01103c58d52",
    classic: "61cbbd147bb2aced414bd1a4ef7ba9cf4d0e835e34cc0f332ee775c53259292b",
    localised: "922b025bcbb157ddb10a2896d3b88fff000bfc03e84a4826899d5c8e987369f0",
  };

  async function chatPage(): Promise<{ html: string; cookie: string }> {
    const response = await fetch(`${replica.url}/copilot/`);
    return { html: await response.text(), cookie: response.headers.get("set-cookie") ?? "" };
  }

  it("with fuzzing off every layout's page is byte-identical to the page before fuzzing existed", async () => {
    for (const layout of COPILOT_LAYOUTS) {
      expect(createHash("sha256").update(renderCopilotPage(layout)).digest("hex"), layout).toBe(PAGES_BEFORE_FUZZING[layout]);
    }
    expect((await chatPage()).html).toBe(renderCopilotPage("default"));
    await replica.control.post("variation", { provider: "copilot", seed: 3 });
    await replica.control.post("variation", { provider: "copilot", seed: null });
    const plain = await chatPage();
    expect(plain.html).toBe(renderCopilotPage("default"));
    expect(plain.cookie).not.toContain("replica_copilot_page_load=");
  });

  it("the same seed draws the same pages, page load by page load; another seed draws others", async () => {
    const pages = async (seed: number): Promise<string[]> => {
      await replica.control.post("variation", { provider: "copilot", seed });
      return [(await chatPage()).html, (await chatPage()).html, (await chatPage()).html];
    };
    const first = await pages(21);
    expect(await pages(21)).toEqual(first);
    expect(await pages(22)).not.toEqual(first);
  });

  it("a class that is off changes nothing of that class, and the other classes draw exactly as before", () => {
    const without = (name: string) => new Set(VARIATION_CLASSES.filter((other) => other !== name));
    for (let seed = 0; seed < 40; seed += 1) {
      const all = drawCopilotVariation(new VariationDraw("copilot", seed, 1, new Set(VARIATION_CLASSES)), false);
      const noLists = drawCopilotVariation(new VariationDraw("copilot", seed, 1, without("late_lists")), false);
      expect(noLists.page.lists).toBeNull();
      expect(noLists.wire.citationsAfterText).toBe(false);
      expect({ ...noLists.page, lists: all.page.lists }).toEqual(all.page);
      expect({ ...noLists.wire, citationsAfterText: all.wire.citationsAfterText }).toEqual(all.wire);
      const noAlternatives = drawCopilotVariation(new VariationDraw("copilot", seed, 1, without("sheet_alternatives")), false);
      expect(noAlternatives.page).toEqual({ lists: all.page.lists, consentBanner: false, noTemporarySession: false });
      expect(noAlternatives.wire).toEqual({ ...NO_WIRE_VARIATION, citationsAfterText: all.wire.citationsAfterText });
      expect(drawCopilotVariation(new VariationDraw("copilot", seed, 1, new Set()), false)).toEqual({
        page: { lists: null, consentBanner: false, noTemporarySession: false },
        wire: NO_WIRE_VARIATION,
      });
    }
  });

  it("every wire variant carries the same events of the answer (text in order, citations in order, closing events)", () => {
    const request: SendRequest = { conversationId: "conv-1", prompt: "p", mode: "search" };
    const wires = [
      { citationMessageId: true, sharedFrames: null, lateClosingMs: 0, citationsAfterText: false },
      { citationMessageId: false, sharedFrames: "" as const, lateClosingMs: 500, citationsAfterText: true },
      { citationMessageId: true, sharedFrames: "\u001e" as const, lateClosingMs: 0, citationsAfterText: true },
    ];
    const eventsOf = (frames: ReturnType<typeof answerFrames>) => frames.flatMap((frame) => (frame.kind === "events" ? frame.events : []));
    for (const scenario of COPILOT_SCENARIOS) {
      expect(answerFrames(scenario, request, NO_WIRE_VARIATION)).toEqual(answerFrames(scenario, request));
      const plain = eventsOf(answerFrames(scenario, request));
      for (const wire of wires) {
        const varied = eventsOf(answerFrames(scenario, request, wire));
        const texts = (list: typeof plain) => list.filter((event) => event.event !== "citation").map((event) => JSON.stringify(event));
        const urls = (list: typeof plain) => list.filter((event) => event.event === "citation").map((event) => event.url);
        expect(texts(varied)).toEqual(texts(plain));
        expect(urls(varied)).toEqual(urls(plain));
        expect(varied.at(-1)).toEqual(plain.at(-1));
      }
    }
  });
});
