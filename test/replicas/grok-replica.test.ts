/**
 * The Grok replica against its own contract (providers/grok.md §3, §5, §6 and DESIGN.md §6): byte-exact NDJSON
 * framing, deterministic scenarios, every fault, the control API, and the page driven by real Chromium.
 * Runs in Node (the replica is a Node server); the browser part is skipped when Debian's Chromium is missing.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createReplicaApp, startReplicaServer } from "../../replicas/server";
import { GROK_SCENARIOS, pickGrokScenario, type GrokScenario } from "../../replicas/grok/scenarios";
import { buildGrokLines, renderGrokBody, splitAnswerTokens, type GrokLineKind } from "../../replicas/grok/stream";
import { splitIntoChunks } from "../../replicas/shared/paced-body";
import { concat, readChunks, readUntilBreak } from "../support/byte-streams";
import { GROK_LAYOUTS, renderGrokHomePage } from "../../replicas/grok/page";
import { drawGrokVariation, NO_PAGE_VARIATION, NO_WIRE_VARIATION } from "../../replicas/grok/variation";
import { VARIATION_CLASSES, VariationDraw } from "../../replicas/shared/variation";
import { CHROMIUM_INSTALLED, launchChromium } from "../support/chromium";
import { useReplicaServer } from "../support/replica-control";

const ENDPOINT = "/grok/rest/app-chat/conversations/new";
const HEADERS = {
  "content-type": "application/json",
  "x-statsig-id": "test-token",
  "x-xai-request-id": "00000000-0000-4000-8000-000000000000",
};

const replica = useReplicaServer();

function ask(message: string, modeId = "auto", init: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
  return fetch(replica.url + ENDPOINT, {
    method: "POST",
    headers: init.headers ?? HEADERS,
    body: JSON.stringify({ temporary: false, modeId, message }),
    signal: init.signal,
  });
}

type Json = Record<string, unknown>;
function parseLines(text: string): Json[] {
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as Json);
}
function responseOf(line: Json): Json {
  const result = line.result as Json;
  return (result.response as Json | undefined) ?? result;
}

describe("scenario library", () => {
  it("has every scenario grok.md §6 asks for, with unique triggers", () => {
    const ids = GROK_SCENARIOS.map((s) => s.id);
    for (const id of [
      "no-posts",
      "many-posts",
      "web-sources-only",
      "unicode-emoji",
      "citation-tags",
      "thinking-tokens",
      "key-citations",
      "null-optional-fields",
      "no-conversation-line",
      "long-answer",
      "xai-artifact",
    ]) {
      expect(ids).toContain(id);
    }
    expect(new Set(GROK_SCENARIOS.map((s) => s.trigger)).size).toBe(GROK_SCENARIOS.length);
    for (const scenario of GROK_SCENARIOS)
      expect(pickGrokScenario(`Please, ${scenario.trigger?.toUpperCase() ?? ""}!`).id).toBe(scenario.id);
    const fallback = pickGrokScenario("What is the capital of France?");
    expect(fallback.id).toBe("default");
    expect(fallback.message).toContain("What is the capital of France?");
    expect(fallback.xposts).toEqual([]);
  });

  it("covers the edge cases inside the scenarios", () => {
    const posts = pickGrokScenario("many-posts").xposts ?? [];
    expect(posts).toHaveLength(12);
    expect(posts.some((p) => p.username.startsWith("@"))).toBe(true);
    expect(posts.some((p) => !p.username.startsWith("@"))).toBe(true);
    expect(posts.some((p) => typeof p.viewCount === "number")).toBe(true);
    expect(posts.some((p) => typeof p.viewCount === "string")).toBe(true);
    expect(posts.some((p) => p.viewCount === undefined)).toBe(true);
    expect(posts.some((p) => p.profileImageUrl === undefined)).toBe(true);
    expect(posts.some((p) => p.profileImageUrl === "")).toBe(true);
    expect(posts.some((p) => p.createTime === "")).toBe(true);
    expect(new TextEncoder().encode(pickGrokScenario("long-answer").message).length).toBeGreaterThan(30 * 1024);
    const tags = pickGrokScenario("citation-tags");
    expect(tags.message).toMatch(/<grok:render[^>]*>\n\s+<argument/);
    expect(tags.message).toContain('card_type="image_card" type="render_searched_image"');
    expect(tags.cards.map((c) => c.id)).not.toContain("dead00");
    expect(GROK_SCENARIOS.some((s) => !s.includeModel)).toBe(true);
  });

  it("splits answers into deltas that join back exactly", () => {
    for (const scenario of GROK_SCENARIOS) {
      expect(splitAnswerTokens(scenario.message, scenario.tokenChars).join("")).toBe(scenario.message);
    }
  });

  it("cuts bodies inside lines and inside multi-byte characters, including astral ones", () => {
    const body = renderGrokBody(pickGrokScenario("unicode-emoji"), { message: "unicode-emoji", modeId: "auto" }, null).bytes;
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
    expect(broken.length).toBeGreaterThan(5);
    // Some chunk ends right after the first two bytes of a 4-byte character (an emoji split in half).
    expect(chunks.some((chunk) => chunk.length >= 2 && (chunk[chunk.length - 2] ?? 0) >= 0xf0)).toBe(true);
    expect(chunks.filter((chunk) => !chunk.includes(0x0a)).length).toBeGreaterThan(0);
  });
});

describe("POST /rest/app-chat/conversations/new", () => {
  const cases: Array<[string, "auto" | "fast" | "expert"]> = [
    ["What is the tallest mountain in Europe?", "auto"],
    ...GROK_SCENARIOS.map((s): [string, "auto" | "fast" | "expert"] => [`scenario ${s.trigger ?? ""}`, "expert"]),
  ];
  for (const [prompt, modeId] of cases) {
    it(`streams byte-exact NDJSON for "${prompt}"`, async () => {
      const scenario: GrokScenario = pickGrokScenario(prompt);
      const response = await ask(prompt, modeId);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/json");
      const body = concat(await readChunks(response));
      expect(body).toEqual(renderGrokBody(scenario, { message: prompt, modeId }, null).bytes);

      const lines = parseLines(new TextDecoder().decode(body).replace(/^.*" brok\n/m, ""));
      if (scenario.conversation === null) expect(lines[0]?.result).not.toHaveProperty("conversation");
      else expect(lines[0]).toEqual({ result: { conversation: scenario.conversation } });
      for (const line of lines) expect(Object.keys(line)).toEqual(["result"]);
      const model = lines.map(responseOf).find((r) => r.modelResponse !== undefined)?.modelResponse as Json;
      expect(model.message).toBe(scenario.message);
      expect(model.query).toBe(prompt);
      expect(model.webSearchResults).toEqual(scenario.webSearchResults);
      if (scenario.xposts === null) expect(model).not.toHaveProperty("xposts");
      else expect(model.xposts).toEqual(scenario.xposts);
      expect(model.cardAttachmentsJson).toEqual(scenario.cards.map((c) => JSON.stringify(c)));
      if (scenario.includeModel) expect(model.model).toBe(`grok-4-${modeId}`);
      else expect(model).not.toHaveProperty("model");
      const finalTokens = lines.map(responseOf).filter((r) => typeof r.token === "string" && r.messageTag === "final");
      expect(finalTokens.map((r) => r.token).join("")).toBe(scenario.message);
      const last = lines.at(-1)?.result as Json;
      if (scenario.newTitle === null) expect(last).not.toHaveProperty("title");
      else expect(last).toEqual({ title: { newTitle: scenario.newTitle } });
    });
  }

  it("keeps the exact line order of grok.md §3 for the thinking scenario", () => {
    const kinds = buildGrokLines(pickGrokScenario("thinking-tokens"), { message: "thinking-tokens", modeId: "auto" }).map((l) => l.kind);
    const order: GrokLineKind[] = [
      "conversation",
      "userResponse",
      "llmInfo",
      "thinking",
      "webSearchResults",
      "cardAttachment",
      "token",
      "finalMetadata",
      "modelResponse",
      "title",
    ];
    const firsts = order.map((kind) => kinds.indexOf(kind));
    expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    expect(kinds.lastIndexOf("thinking")).toBeLessThan(kinds.indexOf("token"));
  });

  it("rejects bodies without a message or with an unknown modeId, and requests without x-statsig-id", async () => {
    expect((await ask("hello", "heavy")).status).toBe(400);
    const noMessage = await fetch(replica.url + ENDPOINT, { method: "POST", headers: HEADERS, body: JSON.stringify({ modeId: "auto" }) });
    expect(noMessage.status).toBe(400);
    expect(await noMessage.json()).toEqual({ error: { code: 3, message: "message: must be a non-blank string" } });
    const { "x-statsig-id": _dropped, ...withoutToken } = HEADERS;
    const challenged = await ask("hello", "auto", { headers: withoutToken });
    expect(challenged.status).toBe(403);
    const grok = (await replica.control.state()).providers.grok;
    expect(grok?.exchanges).toBe(3);
    expect(grok?.rejected).toBe(3);
  });
});

describe("faults", () => {
  const errorFaults: Array<[string, number, unknown]> = [
    ["challenge", 403, { error: { code: 7, message: "Request rejected by anti-bot rules." } }],
    ["login_wall", 401, { error: { code: 16, message: "Unauthenticated: please sign in to continue." } }],
    [
      "rate_limited",
      429,
      { error: { code: 8, message: "Too many requests. You have reached the usage limit for this mode; try again later." } },
    ],
    ["http_error", 500, { error: { code: 13, message: "Internal server error." } }],
  ];
  for (const [fault, status, body] of errorFaults) {
    it(`${fault} answers ${status} for exactly count exchanges`, async () => {
      expect((await replica.control.post("faults", { provider: "grok", fault, count: 2 })).status).toBe(200);
      for (let i = 0; i < 2; i += 1) {
        const response = await ask("hello");
        expect(response.status).toBe(status);
        expect(await response.json()).toEqual(body);
      }
      expect((await ask("hello")).status).toBe(200);
      const grok = (await replica.control.state()).providers.grok;
      expect(grok?.faults_served).toEqual({ [fault]: 2 });
      expect(grok?.exchanges).toBe(3);
    });
  }

  it("malformed_stream: an in-stream error line mid-answer, then EOF", async () => {
    await replica.control.post("faults", { provider: "grok", fault: "malformed_stream" });
    const response = await ask("hello");
    expect(response.status).toBe(200);
    const lines = parseLines(new TextDecoder().decode(concat(await readChunks(response))));
    expect(lines.at(-1)).toEqual({ error: { code: 13, message: "Stream interrupted: the model backend returned an error." } });
    expect(lines.some((l) => responseOf(l).token !== undefined)).toBe(true);
    expect(lines.some((l) => l.result !== undefined && responseOf(l).modelResponse !== undefined)).toBe(false);
  });

  it("disconnect: the transfer breaks off before modelResponse", async () => {
    await replica.control.post("faults", { provider: "grok", fault: "disconnect" });
    const response = await ask("hello");
    expect(response.status).toBe(200);
    const { text, broke } = await readUntilBreak(response);
    expect(broke).toBe(true);
    expect(text).toContain('"token"');
    expect(text).not.toContain("modelResponse");
    expect(text.endsWith("\n")).toBe(false);
  });

  it("hang: no status line until the client gives up", async () => {
    await replica.control.post("faults", { provider: "grok", fault: "hang" });
    const started = Date.now();
    await expect(ask("hello", "auto", { headers: HEADERS, signal: AbortSignal.timeout(400) })).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect((await ask("hello")).status).toBe(200);
  });

  it("empty_answer: conversation line and an empty modelResponse, no final tokens", async () => {
    await replica.control.post("faults", { provider: "grok", fault: "empty_answer" });
    const lines = parseLines(new TextDecoder().decode(concat(await readChunks(await ask("hello")))));
    expect(lines[0]?.result).toHaveProperty("conversation");
    expect(lines.some((l) => responseOf(l).token !== undefined)).toBe(false);
    const model = lines.map(responseOf).find((r) => r.modelResponse !== undefined)?.modelResponse as Json;
    expect(model.message).toBe("");
  });

  it("slow and pacing: delay_ms before the first byte, chunk_ms between chunks", async () => {
    await replica.control.post("faults", { provider: "grok", fault: "slow", delay_ms: 300, chunk_ms: 30 });
    let started = Date.now();
    const slow = await ask("hello");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    const chunks = await readChunks(slow);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300 + 30 * (chunks.length - 1) * 0.9);
    expect(concat(chunks)).toEqual(renderGrokBody(pickGrokScenario("hello"), { message: "hello", modeId: "auto" }, null).bytes);

    expect((await replica.control.post("pacing", { provider: "grok", delay_ms: 200 })).status).toBe(200);
    started = Date.now();
    await readChunks(await ask("hello"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect((await replica.control.state()).providers.grok?.pacing).toEqual({ delay_ms: 200, chunk_ms: 2 });
  });

  it("login_wall is consumed by the page load, whose POSTs then answer 401", async () => {
    await replica.control.post("faults", { provider: "grok", fault: "login_wall" });
    const walled = await fetch(`${replica.url}/grok/`);
    const html = await walled.text();
    // Once in the <template> the script clones on a 401, once rendered.
    const dialogs = (page: string): number => page.split('aria-modal="true"').length - 1;
    expect(dialogs(html)).toBe(2);
    expect(html).toMatch(/>Sign in</);
    expect(html).toMatch(/>Sign up</);
    const cookie = (walled.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(cookie).not.toBe("");
    const rejected = await ask("hello", "auto", { headers: { ...HEADERS, cookie } });
    expect(rejected.status).toBe(401);
    const normal = await fetch(`${replica.url}/grok/`, { headers: { cookie } });
    expect(dialogs(await normal.text())).toBe(1);
    expect(normal.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    const grok = (await replica.control.state()).providers.grok;
    expect(grok?.faults_served).toEqual({ login_wall: 1 });
    expect(grok?.page_loads).toBe(2);
  });

  it("validates control bodies with 400 {detail}", async () => {
    for (const body of [
      { provider: "grok", fault: "nope" },
      { provider: "nobody", fault: "hang" },
      { provider: "grok", fault: "hang", count: 0 },
      { provider: "grok", fault: "hang", extra: true },
      { fault: "hang" },
    ]) {
      const response = await replica.control.post("faults", body);
      expect(response.status).toBe(400);
      expect(Object.keys((await response.json()) as Json)).toEqual(["detail"]);
    }
    expect((await replica.control.post("pacing", {})).status).toBe(400);
    expect((await replica.control.post("pacing", { delay_ms: -1 })).status).toBe(400);
  });
});

describe("server", () => {
  it("redirects /grok to /grok/ keeping the query, and answers /__health", async () => {
    const redirect = await fetch(`${replica.url}/grok?q=hi%20there`, { redirect: "manual" });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("location")).toBe("/grok/?q=hi%20there");
    expect((await fetch(`${replica.url}/__health`)).status).toBe(200);
  });

  it("works in-process through app.request, ending a disconnect with a stream error", async () => {
    const app = createReplicaApp();
    await app.request("/__control/faults", { method: "POST", body: JSON.stringify({ provider: "grok", fault: "disconnect" }) });
    const response = await app.request(ENDPOINT, { method: "POST", headers: HEADERS, body: JSON.stringify({ message: "hi" }) });
    await expect(readChunks(response)).rejects.toThrow();
  });

  it("close() ends hanging exchanges", async () => {
    const other = await startReplicaServer({ port: 0 });
    await fetch(`${other.url}/__control/faults`, { method: "POST", body: JSON.stringify({ provider: "grok", fault: "hang" }) });
    const pending = fetch(other.url + ENDPOINT, { method: "POST", headers: HEADERS, body: JSON.stringify({ message: "hi" }) });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await other.close();
    await expect(pending).rejects.toThrow();
  });
});

describe.skipIf(!CHROMIUM_INSTALLED)("page in Chromium", () => {
  it("types a prompt, picks Expert, sends, renders the answer and the completion marker", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${replica.url}/grok`);
      expect(new URL(page.url()).pathname).toBe("/grok/");
      await page.click('.tiptap.ProseMirror[contenteditable="true"]');
      await page.keyboard.type("citation-tags in expert mode");
      await page.click('button[aria-label="Model select"]');
      await page.getByRole("menuitem", { name: "Expert" }).click();
      expect(await page.textContent('button[aria-label="Model select"]')).toBe("Expert");
      await page.click('button[type="submit"]');
      await page.waitForSelector(".items-start .action-buttons", { timeout: 20_000 });

      expect(await page.textContent(".items-end .message-bubble")).toBe("citation-tags in expert mode");
      const answer = page.locator(".items-start .message-bubble div.response-content-markdown").last();
      const html = await answer.innerHTML();
      expect(html).toContain('href="https://www.spacex.com/vehicles/falcon-9/"');
      expect(html).toContain('href="https://en.wikipedia.org/wiki/Falcon_9"');
      expect(html).not.toContain("grok:render");
      expect(await answer.innerText()).toContain("Some figures could not be confirmed.");
      expect(await page.isEnabled('button[type="submit"]')).toBe(true);

      const sent = (await replica.control.state()).providers.grok?.requests.at(-1);
      expect(sent?.body).toMatchObject({
        modeId: "expert",
        message: "citation-tags in expert mode",
        temporary: false,
        sendFinalMetadata: true,
      });
      expect(sent?.headers["x-xai-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(sent?.headers["x-statsig-id"]).not.toBe("");

      await replica.control.post("faults", { provider: "grok", fault: "challenge" });
      await page.click(".tiptap.ProseMirror");
      await page.keyboard.type("again");
      await page.keyboard.press("Enter");
      const toast = await page.waitForSelector('#toaster [role="alert"]', { timeout: 10_000 });
      expect(await toast.textContent()).toBe("Request rejected by anti-bot rules.");
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe("page fuzzing (issue 29)", () => {
  /** sha256 of the pages as served before page fuzzing existed: fuzzing off must not change a byte of them. */
  const PAGES_BEFORE_FUZZING: Record<string, string> = {
    "classic false": "e12db2ab0f349c7d9462fc473cbf378b5c9092635ac65b06dd963d005f6a2621",
    "classic true": "ff2b707e45695a30d64c4225c71169e714f30ef1e05439470579329f4011f4a5",
    "described false": "a69bcfe235b573cf1bf324ca84375978a1c505ff39a246970d593c450a1572f9",
    "described true": "9a1743c71a8b5eaa1d78ded6a2c6e79ce5a9a49a0d87071dd5be6cdc6838e0e8",
    "legacy false": "d662dc821e383de8dc1b349a36de6df62cf91dadf09b77d84d568c395f9915b4",
    "legacy true": "3c349facdd049a03dc09a99e6e70222d4e40c04a69ee0e73ba7e48296bbed962",
  };

  async function homePage(): Promise<string> {
    return (await fetch(`${replica.url}/grok/`)).text();
  }

  it("with fuzzing off every layout's page is byte-identical to the page before fuzzing existed", async () => {
    for (const layout of GROK_LAYOUTS) {
      for (const loginWall of [false, true]) {
        const html = renderGrokHomePage({ layout, loginWall });
        expect(createHash("sha256").update(html).digest("hex"), `${layout} ${loginWall}`).toBe(
          PAGES_BEFORE_FUZZING[`${layout} ${loginWall}`],
        );
      }
    }
    expect(await homePage()).toBe(renderGrokHomePage({ layout: "classic", loginWall: false }));
    await replica.control.post("variation", { provider: "grok", seed: 5 });
    await replica.control.post("variation", { provider: "grok", seed: null });
    expect(await homePage()).toBe(renderGrokHomePage({ layout: "classic", loginWall: false }));
  });

  it("the same seed draws the same pages, page load by page load; another seed draws others", async () => {
    const pages = async (seed: number): Promise<string[]> => {
      await replica.control.post("variation", { provider: "grok", seed });
      return [await homePage(), await homePage(), await homePage()];
    };
    const first = await pages(11);
    expect(await pages(11)).toEqual(first);
    expect(await pages(12)).not.toEqual(first);
    const drawn = (await replica.control.state()).providers.grok?.variation?.draws ?? [];
    expect(drawn.map((draw) => draw.page_load)).toEqual([1, 2, 3]);
  });

  it("a class that is off changes nothing of that class, and the other classes draw exactly as before", () => {
    for (let seed = 0; seed < 40; seed += 1) {
      const all = drawGrokVariation(new VariationDraw("grok", seed, 1, new Set(VARIATION_CLASSES)));
      const noLists = drawGrokVariation(
        new VariationDraw("grok", seed, 1, new Set(VARIATION_CLASSES.filter((name) => name !== "late_lists"))),
      );
      expect(noLists.page.lists).toBeNull();
      expect(noLists.wire.extrasInBatches).toBe(false);
      expect({ ...noLists.page, lists: all.page.lists }).toEqual(all.page);
      expect({ ...noLists.wire, extrasInBatches: all.wire.extrasInBatches }).toEqual(all.wire);
      const noAlternatives = drawGrokVariation(
        new VariationDraw("grok", seed, 1, new Set(VARIATION_CLASSES.filter((name) => name !== "sheet_alternatives"))),
      );
      expect({ ...noAlternatives.page, lists: null }).toEqual(NO_PAGE_VARIATION);
      expect({ ...noAlternatives.wire, extrasInBatches: false }).toEqual(NO_WIRE_VARIATION);
      expect(noAlternatives.page.lists).toEqual(all.page.lists);
      const none = drawGrokVariation(new VariationDraw("grok", seed, 1, new Set()));
      expect(none).toEqual({ page: NO_PAGE_VARIATION, wire: NO_WIRE_VARIATION });
    }
  });

  it("every wire variant streams the same answer fields: batches keep each list's order, omitted final lists equal the streamed union", () => {
    const wires = [
      { extrasInBatches: true, streamedFollowUps: false, finalListsOmitted: false },
      { extrasInBatches: false, streamedFollowUps: true, finalListsOmitted: false },
      { extrasInBatches: true, streamedFollowUps: true, finalListsOmitted: true },
    ];
    for (const scenario of GROK_SCENARIOS) {
      const request = { message: scenario.id, modeId: "auto" as const };
      const plain = buildGrokLines(scenario, request);
      expect(buildGrokLines(scenario, request, NO_WIRE_VARIATION)).toEqual(plain);
      // lines as a reader takes them: an unparsable line (the skip-malformed-line scenario) is skipped
      const read = (list: typeof plain): Json[] =>
        list.flatMap((line) => {
          try {
            return [JSON.parse(line.text) as Json];
          } catch {
            return [];
          }
        });
      const tokens = (list: Json[]) =>
        list.filter((line) => line.result !== undefined && responseOf(line).token !== undefined).map((line) => JSON.stringify(line));
      for (const wire of wires) {
        const lines = read(buildGrokLines(scenario, request, wire));
        const responses = lines.map((line) => (line.result === undefined ? {} : responseOf(line)));
        const streamedPosts = responses.flatMap(
          (response) => ((response.xSearchResults as Json | undefined)?.results as unknown[] | undefined) ?? [],
        );
        expect([...new Map(streamedPosts.map((post) => [(post as Json).postId, post])).values()]).toEqual([
          ...new Map(scenario.streamedXSearchResults.flat().map((post) => [post.postId, post])).values(),
        ]);
        const labels = responses.flatMap((response) => {
          const streamed = (response.followUpSuggestions as Json | undefined)?.suggestions as Json[] | undefined;
          const final = (response.finalMetadata as Json | undefined)?.followUpSuggestions as Json[] | undefined;
          return [...(streamed ?? []), ...(final ?? [])].map((suggestion) => suggestion.label);
        });
        expect(labels).toEqual(scenario.followUpSuggestions ?? []);
        expect(tokens(lines)).toEqual(tokens(read(plain)));
      }
    }
  });
});
