/**
 * The Gemini replica against its own contract (providers/gemini.md §2, §3, §5, §6 and DESIGN.md §6): the request it
 * requires, byte-exact length-prefixed framing with UTF-16 lengths, deterministic scenarios, every fault, both layouts,
 * and the page driven by real Chromium. Runs in Node; the browser part is skipped when Debian's Chromium is missing.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GEMINI_LAYOUTS } from "../../replicas/gemini/layouts";
import { GEMINI_ERROR_CODES, GEMINI_SCENARIOS, pickGeminiScenario, splitCitationMarkers } from "../../replicas/gemini/scenarios";
import {
  BARD_ERROR_INFO_TYPE,
  buildGeminiFrames,
  cumulativePrefixes,
  midNumberCuts,
  renderGeminiBody,
  splitChunksAt,
  XSSI_PREFIX,
} from "../../replicas/gemini/stream";
import { renderGeminiAppPage } from "../../replicas/gemini/page";
import { drawGeminiVariation, NO_GEMINI_WIRE_VARIATION } from "../../replicas/gemini/variation";
import { splitIntoChunks } from "../../replicas/shared/paced-body";
import { VARIATION_CLASSES, type VariationClass, VariationDraw } from "../../replicas/shared/variation";
import { createReplicaApp } from "../../replicas/server";
import { concat, readChunks } from "../support/byte-streams";
import { CHROMIUM_INSTALLED, launchChromium } from "../support/chromium";
import { useReplicaServer } from "../support/replica-control";

const STREAM_PATH = "/gemini/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate";
const BUILD_LABEL = "boq_assistant-bard-web-server_20261115.07_p0";

const replica = useReplicaServer();

/** Loads /app like the page does and returns what its script posts back: the `at` token and `f.sid`. */
async function openApp(
  query = "",
): Promise<{ html: string; at: string; sid: string; cookie: string; status: number; location: string | null }> {
  const response = await fetch(`${replica.url}/gemini/app${query}`, { redirect: "manual" });
  const html = await response.text();
  const wiz = /window\.WIZ_global_data = (\{.*?\});/.exec(html)?.[1];
  const data: unknown = wiz === undefined ? {} : JSON.parse(wiz);
  const field = (name: string): string => {
    const value: unknown = typeof data === "object" && data !== null ? Reflect.get(data, name) : undefined;
    return typeof value === "string" ? value : "";
  };
  return {
    html,
    at: field("SNlM0e"),
    sid: field("FdrFJe"),
    cookie: (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "",
    status: response.status,
    location: response.headers.get("location"),
  };
}

interface AskOptions {
  at?: string;
  sid?: string;
  hl?: string;
  headers?: Record<string, string>;
  cookie?: string;
  signal?: AbortSignal;
  fReq?: string;
  redirect?: RequestRedirect;
}

function formBody(prompt: string, language: string, at: string, fReq?: string): string {
  const inner = Array.from({ length: 69 }, () => null as unknown);
  inner[0] = [prompt, 0, null, null, null, null, 0];
  inner[1] = [language];
  inner[7] = 1;
  const req = fReq ?? JSON.stringify([null, JSON.stringify(inner)]);
  return `at=${encodeURIComponent(at)}&f.req=${encodeURIComponent(req)}&`;
}

async function ask(prompt: string, options: AskOptions = {}): Promise<Response> {
  const app = options.at === undefined ? await openApp() : { at: options.at, sid: options.sid ?? "-1" };
  const hl = options.hl ?? "en";
  const url = `${replica.url}${STREAM_PATH}?bl=${BUILD_LABEL}&f.sid=${app.sid}&hl=${hl}&_reqid=100001&rt=c`;
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded;charset=utf-8",
      "x-same-domain": "1",
      ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
      ...options.headers,
    },
    body: formBody(prompt, hl, app.at, options.fReq),
    signal: options.signal,
    redirect: options.redirect ?? "follow",
  });
}

/** Reads a body strictly by its declared lengths (UTF-16 units from the "\n" after the digits through the closing "\n"). */
function framesByLength(text: string): { frames: unknown[]; rest: string } {
  expect(text.startsWith(XSSI_PREFIX)).toBe(true);
  let position = XSSI_PREFIX.length;
  const frames: unknown[] = [];
  for (;;) {
    const header = /^(\d+)\n/.exec(text.slice(position));
    if (header === null) return { frames, rest: text.slice(position) };
    const digits = header[1] ?? "";
    const spanStart = position + digits.length;
    const spanEnd = spanStart + Number(digits);
    expect(text[spanStart]).toBe("\n");
    expect(text[spanEnd - 1]).toBe("\n");
    frames.push(JSON.parse(text.slice(spanStart + 1, spanEnd - 1)));
    position = spanEnd;
  }
}

const decoder = new TextDecoder();

describe("scenario library", () => {
  it("has every scenario gemini.md §6 and the issue ask for, with unique triggers", () => {
    const ids = GEMINI_SCENARIOS.map((scenario) => scenario.id);
    for (const id of [
      "many-citations",
      "table-citations",
      "no-citations",
      "card-content",
      "with-thoughts",
      "unicode-astral",
      "late-citations",
      "long-answer",
      "text-artifacts",
      "no-model-name",
      "trailing-error",
      "wrong-lengths",
      ...GEMINI_ERROR_CODES.map((code) => `error-${code}`),
      "invalid-response",
      "trailers-only",
    ]) {
      expect(ids).toContain(id);
    }
    expect(new Set(GEMINI_SCENARIOS.map((scenario) => scenario.trigger)).size).toBe(GEMINI_SCENARIOS.length);
    for (const scenario of GEMINI_SCENARIOS)
      expect(pickGeminiScenario(`Please, ${scenario.trigger?.toUpperCase() ?? ""}!`).id).toBe(scenario.id);
    const fallback = pickGeminiScenario("What is the capital of France?");
    expect(fallback.id).toBe("default");
    expect(fallback.answer).toContain('You asked: "What is the capital of France?".');
  });

  it("covers the hard cases inside the scenarios", () => {
    const many = pickGeminiScenario("many-citations");
    const points = splitCitationMarkers(many.answer).points;
    expect(points.some((point) => point.keys.length > 1)).toBe(true); // several chips in one carousel
    expect(points.filter((point) => point.keys.includes("iea")).length).toBeGreaterThan(1); // same source twice
    expect(new Set(points.map((point) => point.offset)).size).toBeLessThan(points.length); // adjacent carousels
    expect(pickGeminiScenario("table-citations").answer).toMatch(/\| .*⟦nasa,esa⟧ \|/);
    expect(pickGeminiScenario("late-citations").citationDelayMs).toBe(2000);
    expect(splitCitationMarkers(pickGeminiScenario("long-answer").answer).text.length).toBeGreaterThan(30_000);
    expect(pickGeminiScenario("with-thoughts").thoughts).toContain("THOUGHT-SECRET");
    expect(pickGeminiScenario("text-artifacts").wireText).toMatch(/googleusercontent\.com\/image_generation_content\/0[\s\S]*\n```$/);
    for (const scenario of GEMINI_SCENARIOS) {
      const keys = new Set(scenario.sources.map((source) => source.key));
      for (const point of splitCitationMarkers(scenario.answer).points)
        for (const key of point.keys) expect(keys.has(key), `${scenario.id}: ${key}`).toBe(true);
      for (const key of Object.keys(scenario.highlights)) expect(keys.has(key)).toBe(true);
    }
  });

  it("cumulative prefixes grow at whitespace and never split a surrogate pair", () => {
    const text = "one two 🚀🚀 three 👨‍👩‍👧 four five six";
    const prefixes = cumulativePrefixes(text, 5);
    expect(prefixes.length).toBeGreaterThan(2);
    for (const [index, prefix] of prefixes.entries()) {
      expect(text.startsWith(prefix)).toBe(true);
      expect(prefix.length).toBeGreaterThan(prefixes[index - 1]?.length ?? 0);
      expect(/[\uD800-\uDBFF]$/.test(prefix)).toBe(false);
    }
  });
});

describe("POST …/StreamGenerate framing", () => {
  for (const prompt of [
    "What is the capital of France?",
    "many-citations",
    "unicode-astral",
    "card-content",
    "with-thoughts",
    "long-answer",
  ]) {
    it(`streams byte-exact length-prefixed frames for "${prompt}"`, async () => {
      const response = await ask(prompt);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const chunks = await readChunks(response);
      expect(chunks.length).toBeGreaterThan(3);
      const bytes = concat(chunks);
      const scenario = pickGeminiScenario(prompt);
      expect(bytes).toEqual(renderGeminiBody(scenario, { language: "en" }, null).bytes);
      const { frames, rest } = framesByLength(decoder.decode(bytes));
      expect(rest).toBe("");
      expect(frames.at(-1)).toEqual([["e", 4, null, null, expect.any(Number)]]);
      // the final data frame: state 2, the context string at [25], the text or card text of the scenario
      const finalFrame = buildGeminiFrames(scenario, { language: "en" }).find((frame) => frame.kind === "final");
      const inner: unknown = JSON.parse(JSON.parse(finalFrame?.json ?? "[]")[0][2]);
      expect(Array.isArray(inner)).toBe(true);
      if (!Array.isArray(inner)) return;
      expect(inner[25]).toBe(scenario.contextId);
      const candidate: unknown[] = inner[4][0];
      expect(candidate[8]).toEqual([2]);
      const text = splitCitationMarkers(scenario.answer).text;
      if (scenario.cardContent) {
        expect(candidate[1]).toEqual(["http://googleusercontent.com/card_content/0"]);
        expect(candidate[22]).toEqual([text]);
      } else {
        expect(candidate[1]).toEqual([text]);
      }
    });
  }

  it("lengths count UTF-16 units: astral characters make them differ from byte counts", () => {
    const text = decoder.decode(renderGeminiBody(pickGeminiScenario("unicode-astral"), { language: "en" }, null).bytes);
    const declared = [...text.matchAll(/^(\d+)\n(.*)$/gm)];
    expect(declared.every((match) => Number(match[1]) === (match[2] ?? "").length + 2)).toBe(true);
    expect(declared.some((match) => new TextEncoder().encode(match[2] ?? "").length !== (match[2] ?? "").length)).toBe(true);
  });

  it("wrong-lengths: two frames carry a length that is off, the rest are exact", () => {
    const text = decoder.decode(renderGeminiBody(pickGeminiScenario("wrong-lengths"), { language: "en" }, null).bytes);
    const declared = [...text.matchAll(/^(\d+)\n(\[\[.*)$/gm)].map((match) => Number(match[1]) - ((match[2] ?? "").length + 2));
    expect(declared.filter((skew) => skew !== 0).sort()).toEqual([-2, 3]);
  });

  it("cumulative text: every progress frame's text is a prefix of the final text; in progress [1], complete [2]", () => {
    const scenario = pickGeminiScenario("many-citations");
    const frames = buildGeminiFrames(scenario, { language: "en" });
    const texts = frames
      .filter((frame) => frame.kind === "progress" || frame.kind === "final")
      .map((frame) => JSON.parse(JSON.parse(frame.json)[0][2])[4][0]);
    const finalText: string = texts.at(-1)[1][0];
    for (const candidate of texts.slice(0, -1)) {
      expect(finalText.startsWith(candidate[1][0])).toBe(true);
      expect(candidate[8]).toEqual([1]);
    }
    expect(texts.at(-1)[8]).toEqual([2]);
  });

  it("error scenarios: the BardErrorInfo envelope with the code at [5][2][0][1][0], then the trailers", () => {
    for (const code of GEMINI_ERROR_CODES) {
      const { frames } = framesByLength(
        decoder.decode(renderGeminiBody(pickGeminiScenario(`error-${code}`), { language: "en" }, null).bytes),
      );
      expect(frames[0]).toEqual([["wrb.fr", null, null, null, null, [3, null, [[BARD_ERROR_INFO_TYPE, [code]]]]]]);
      expect(frames).toHaveLength(3);
    }
    const invalid = framesByLength(
      decoder.decode(renderGeminiBody(pickGeminiScenario("invalid-response"), { language: "en" }, null).bytes),
    );
    expect(invalid.frames[0]).toEqual([["wrb.fr", null, null, null, null, [8]]]);
    const trailers = framesByLength(decoder.decode(renderGeminiBody(pickGeminiScenario("trailers-only"), { language: "en" }, null).bytes));
    expect(trailers.frames.map((frame) => (Array.isArray(frame) && Array.isArray(frame[0]) ? frame[0][0] : null))).toEqual(["di", "e"]);
  });

  it("chunks cut inside length numbers and inside 4-byte characters", () => {
    const bytes = renderGeminiBody(pickGeminiScenario("unicode-astral"), { language: "en" }, null).bytes;
    const chunks = splitChunksAt(splitIntoChunks(bytes), midNumberCuts(bytes));
    expect(concat(chunks)).toEqual(bytes);
    let offset = 0;
    let midNumber = 0;
    let midAstral = 0;
    for (const chunk of chunks.slice(0, -1)) {
      offset += chunk.length;
      const before = bytes[offset - 1] ?? 0;
      const after = bytes[offset] ?? 0;
      if (before >= 0x30 && before <= 0x39 && after >= 0x30 && after <= 0x39) midNumber += 1;
      if ((after & 0xc0) === 0x80 && bytes.subarray(Math.max(0, offset - 3), offset).some((byte) => byte >= 0xf0)) midAstral += 1;
    }
    expect(midNumber).toBeGreaterThan(3);
    expect(midAstral).toBeGreaterThan(0);
  });

  it("the language of the request (hl, body) is echoed in the final candidate and recorded", async () => {
    const response = await ask("many-citations", { hl: "de" });
    const { frames } = framesByLength(decoder.decode(concat(await readChunks(response))));
    const finals = frames.flatMap((frame) => {
      if (!Array.isArray(frame) || !Array.isArray(frame[0]) || typeof frame[0][2] !== "string") return [];
      const inner: unknown = JSON.parse(frame[0][2]);
      return Array.isArray(inner) && Array.isArray(inner[4]) ? [inner[4][0]] : [];
    });
    expect(finals.at(-1)[9]).toBe("de");
    const recorded = (await replica.control.providerState("gemini")).requests.at(-1);
    expect(recorded?.body).toMatchObject({ prompt: "many-citations", language: "de", hl: "de", bodyLanguage: "de", bl: BUILD_LABEL });
    expect(recorded?.path).toMatch(/\?bl=.*&f\.sid=.*&hl=de&_reqid=\d+&rt=c$/);
  });

  it("rejects requests the real endpoint would: no X-Same-Domain, unknown at, bad f.req, bad bl (400, no fault consumed)", async () => {
    const { at, sid } = await openApp();
    await replica.control.post("faults", { provider: "gemini", fault: "http_error" });
    expect((await ask("hi", { at, sid, headers: { "x-same-domain": "0" } })).status).toBe(400);
    expect((await ask("hi", { at: "AJvLN6forged:1", sid })).status).toBe(400);
    expect((await ask("hi", { at, sid, fReq: "[null,5]" })).status).toBe(400);
    expect((await ask("   ", { at, sid })).status).toBe(400);
    const badBl = await fetch(`${replica.url}${STREAM_PATH}?bl=nope&f.sid=1&hl=en&_reqid=1&rt=c`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded;charset=utf-8", "x-same-domain": "1" },
      body: formBody("hi", "en", at),
    });
    expect(badBl.status).toBe(400);
    const after = await replica.control.providerState("gemini");
    expect(after.rejected).toBe(5);
    expect(after.faults).toHaveLength(1);
    expect((await ask("hi", { at, sid })).status).toBe(500);
  });
});

describe("faults", () => {
  it("challenge on the page load: a redirect to /sorry/index, which answers 429 'unusual traffic'", async () => {
    await replica.control.post("faults", { provider: "gemini", fault: "challenge" });
    const walled = await openApp();
    expect(walled.status).toBe(302);
    expect(walled.location).toMatch(/^\/gemini\/sorry\/index\?continue=/);
    const sorry = await fetch(`${replica.url}${walled.location ?? ""}`);
    expect(sorry.status).toBe(429);
    expect(await sorry.text()).toContain("Our systems have detected unusual traffic from your computer network.");
    expect((await openApp()).status).toBe(200);
  });

  it("challenge taken by StreamGenerate: a redirect to the sorry page", async () => {
    const { at, sid } = await openApp();
    await replica.control.post("faults", { provider: "gemini", fault: "challenge" });
    const response = await ask("hi", { at, sid, redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/\/gemini\/sorry\/index\?continue=/);
  });

  it("login_wall: the signed-out page without a composer, whose StreamGenerate calls answer 401", async () => {
    await replica.control.post("faults", { provider: "gemini", fault: "login_wall" });
    const walled = await openApp();
    expect(walled.status).toBe(200);
    expect(walled.html).toContain('aria-label="Sign in"');
    expect(walled.html).toContain("ServiceLogin");
    expect(walled.html).not.toContain('contenteditable="true"');
    const { at, sid } = await openApp();
    expect((await ask("hi", { at, sid, cookie: walled.cookie })).status).toBe(401);
    // a later normal page load clears the signed-out state
    expect((await ask("hi", { at, sid })).status).toBe(200);
  });

  it("rate_limited: a 200 whose only data is the error 1037 envelope", async () => {
    await replica.control.post("faults", { provider: "gemini", fault: "rate_limited" });
    const { frames } = framesByLength(decoder.decode(concat(await readChunks(await ask("many-citations")))));
    expect(frames[0]).toEqual([["wrb.fr", null, null, null, null, [3, null, [[BARD_ERROR_INFO_TYPE, [1037]]]]]]);
  });

  it("http_error: 500 with Google's error page", async () => {
    await replica.control.post("faults", { provider: "gemini", fault: "http_error" });
    const response = await ask("hi");
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("Error 500 (Server Error)!!1");
  });

  it("empty_answer: the 'Invalid response' envelope and the trailers", async () => {
    await replica.control.post("faults", { provider: "gemini", fault: "empty_answer" });
    const { frames } = framesByLength(decoder.decode(concat(await readChunks(await ask("many-citations")))));
    expect(frames[0]).toEqual([["wrb.fr", null, null, null, null, [8]]]);
    expect(frames).toHaveLength(3);
  });

  it("malformed_stream: half the frames, then one whose JSON does not parse, then EOF without trailers", async () => {
    await replica.control.post("faults", { provider: "gemini", fault: "malformed_stream" });
    const text = decoder.decode(concat(await readChunks(await ask("many-citations"))));
    const lines = text.trimEnd().split("\n");
    const last = lines.at(-1) ?? "";
    expect(Number(lines.at(-2))).toBe(last.length + 2);
    expect(() => JSON.parse(last)).toThrow();
    expect(text).not.toContain('[["e",');
    expect(text).not.toContain("[2]");
  });

  it("disconnect: the transfer breaks off before the complete candidate", async () => {
    await replica.control.post("faults", { provider: "gemini", fault: "disconnect" });
    const response = await ask("many-citations");
    expect(response.status).toBe(200);
    const received: Uint8Array[] = [];
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error("no body");
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          received.push(value);
        }
      })(),
    ).rejects.toThrow();
    const text = decoder.decode(concat(received));
    expect(text.startsWith(XSSI_PREFIX)).toBe(true);
    expect(text).not.toContain('[["e",');
  });

  it("hang: no status line until the client gives up", async () => {
    await replica.control.post("faults", { provider: "gemini", fault: "hang" });
    const { at, sid } = await openApp();
    await expect(ask("hi", { at, sid, signal: AbortSignal.timeout(400) })).rejects.toThrow();
  });

  it("slow: delay before the first byte", async () => {
    await replica.control.post("faults", { provider: "gemini", fault: "slow", delay_ms: 600, chunk_ms: 1 });
    const { at, sid } = await openApp();
    const startedAt = Date.now();
    const response = await ask("hi", { at, sid });
    await readChunks(response);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(550);
    expect((await replica.control.providerState("gemini")).faults_served.slow).toBe(1);
  });
});

describe("pages and layouts", () => {
  it("/ redirects to /app, keeping the query; /app/<id> serves the app too", async () => {
    const root = await fetch(`${replica.url}/gemini/?hl=de`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/gemini/app?hl=de");
    expect((await fetch(`${replica.url}/gemini/app/4f2c9a1b7e3d`)).status).toBe(200);
  });

  it("every layout carries the sheet's anchors, and they differ where the sheet allows", async () => {
    const pages: Record<string, string> = {};
    for (const layout of GEMINI_LAYOUTS) {
      expect((await replica.control.post("layout", { provider: "gemini", layout })).status).toBe(200);
      pages[layout] = (await openApp("?hl=en")).html;
    }
    const sidePanel = pages["side-panel"] ?? "";
    const sourcesList = pages["sources-list"] ?? "";
    const chipDialog = pages["chip-dialog"] ?? "";
    for (const html of [sidePanel, sourcesList, chipDialog]) {
      expect(html).toContain('class="ql-editor ql-blank textarea new-input-ui" contenteditable="true" role="textbox"');
      expect(html).toContain('data-test-id="bard-mode-menu-button"');
      expect(html).toContain('aria-label="Open mode picker, currently Flash"');
      expect(html).toContain('aria-label="Stop response"');
      expect(html).toContain("<input-area-v2>");
    }
    expect(sidePanel).toContain("<rich-textarea");
    expect(sidePanel).toContain('aria-label="Send message"');
    expect(sidePanel).toContain("<context-sidebar");
    expect(sourcesList).not.toContain("<rich-textarea");
    expect(sourcesList).not.toContain('aria-label="Send message"');
    expect(sourcesList).toContain("ServiceLogin");
    expect(chipDialog).toContain('aria-label="Send message"');
    expect(chipDialog).not.toContain("<context-sidebar");
    expect((await replica.control.post("layout", { provider: "gemini", layout: "nope" })).status).toBe(400);
    await replica.control.post("reset", { provider: "gemini" });
    expect((await replica.control.providerState("gemini")).layout).toBe("side-panel");
  });

  it("the German UI labels its controls in German", async () => {
    const { html } = await openApp("?hl=de");
    expect(html).toContain('lang="de"');
    expect(html).toContain('aria-label="Nachricht senden"');
  });

  it("works in-process through app.request, ending a disconnect with a stream error", async () => {
    const app = createReplicaApp();
    const page = await app.request("/gemini/app");
    expect(page.status).toBe(200);
    const at = /"SNlM0e":"([^"]+)"/.exec(await page.text())?.[1] ?? "";
    await app.request("/__control/faults", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider: "gemini", fault: "disconnect" }),
    });
    const response = await app.request(`${STREAM_PATH}?bl=${BUILD_LABEL}&f.sid=-1&hl=en&_reqid=1&rt=c`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded;charset=utf-8", "x-same-domain": "1" },
      body: formBody("hi", "en", at),
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });
});

describe("page fuzzing (issue 29)", () => {
  /** sha256 of /app as rendered before page fuzzing existed, per layout and language (fixed token and f.sid). */
  const UNFUZZED_PAGES: Record<string, string> = {
    "side-panel en": "e60d2f5288a2bc8c18f5c5f114536ae83b66f6edb92adceee89a5264df2ae729",
    "side-panel de": "86406f73ff3e7eee50df258fd1be830597962cf9a37c770206c4f452d4fe8b90",
    "sources-list en": "e125227c72fe5f85417ca99a8deee3aa8f6eab878872c6dbdc46672c2f38b3dd",
    "sources-list de": "968dc598b46b35ac46b79eb3f3a9ce4bfa172ba0eab0b63bf4167289205655f3",
    "chip-dialog en": "f6683d9478ccdab99a269aa1e47a397b154616b8f197f466d80575bfcf0385cf",
    "chip-dialog de": "aa937ec9a1ffb60f2fe678f1de2d2654a816f126976114e22b89b6ce27d8e02e",
  };

  /** The page without what differs per load by design (the `at` token and `f.sid`). */
  const stable = (html: string): string => html.replace(/"SNlM0e":"[^"]*"/, '"SNlM0e":""').replace(/"FdrFJe":"[^"]*"/, '"FdrFJe":""');

  it("with fuzzing off, /app is byte-identical to the page before fuzzing existed", async () => {
    for (const layout of GEMINI_LAYOUTS) {
      for (const language of ["en", "de"]) {
        const html = renderGeminiAppPage({ layout, language, token: "AJvLN6token:1", sessionId: "-123", basePath: "/gemini" });
        expect(createHash("sha256").update(html).digest("hex"), `${layout} ${language}`).toBe(UNFUZZED_PAGES[`${layout} ${language}`]);
      }
    }
    const served = await openApp("?hl=en");
    expect(served.html).not.toContain("applyPageVariation");
    expect(served.html).not.toContain("applyGeminiVariation");
    expect((await replica.control.providerState("gemini")).variation).toBeNull();
  });

  it("the same seed draws the same pages, page load by page load; the draws are recorded per class", async () => {
    const loads = async (seed: number): Promise<string[]> => {
      await replica.control.post("variation", { provider: "gemini", seed });
      const pages: string[] = [];
      for (let index = 0; index < 4; index += 1) pages.push(stable((await openApp("?hl=en")).html));
      return pages;
    };
    const first = await loads(11);
    const again = await loads(11);
    expect(again).toEqual(first);
    expect(first.every((html) => html.includes("applyPageVariation") && html.includes("applyGeminiVariation"))).toBe(true);
    const other = await loads(12);
    expect(other).not.toEqual(first);
    const variation = (await replica.control.providerState("gemini")).variation;
    expect(variation?.seed).toBe(12);
    expect(variation?.draws.length).toBe(4);
    expect(variation?.draws.some((draw) => Object.keys(draw.applied).length > 0)).toBe(true);
    await replica.control.post("variation", { provider: "gemini", seed: null });
    expect(stable((await openApp("?hl=en")).html)).not.toContain("applyGeminiVariation");
  });

  it("a class that is off changes nothing of that class, and nothing of the others", () => {
    const drawn = (classes: readonly VariationClass[], seed: number) =>
      drawGeminiVariation(new VariationDraw("gemini", seed, 1, new Set(classes)), "side-panel");
    for (let seed = 0; seed < 40; seed += 1) {
      const all = drawn(VARIATION_CLASSES, seed);
      const withoutLists = drawn(
        VARIATION_CLASSES.filter((name) => name !== "late_lists"),
        seed,
      );
      expect(withoutLists.page.chips).toEqual({ arrival: "immediate", delayMs: 0, batches: 1, gapMs: 0 });
      expect(withoutLists.page.cards).toEqual({ arrival: "immediate", delayMs: 0, batches: 1, gapMs: 0, firstDialogDelayMs: 0 });
      expect({ ...withoutLists.page, chips: all.page.chips, cards: all.page.cards }).toEqual(all.page);
      expect(withoutLists.wire).toEqual(all.wire);
      expect(withoutLists.layout).toBe(all.layout);

      const withoutAlternatives = drawn(
        VARIATION_CLASSES.filter((name) => name !== "sheet_alternatives"),
        seed,
      );
      expect(withoutAlternatives.layout).toBe("side-panel");
      expect(withoutAlternatives.wire).toEqual(NO_GEMINI_WIRE_VARIATION);
      expect(withoutAlternatives.page).toMatchObject({
        chipSuffix: null,
        otherCardStyle: false,
        uncitedSource: false,
        pickerWording: 0,
        placeholder: 0,
      });
      expect(withoutAlternatives.page.chips).toEqual(all.page.chips);
      expect(withoutAlternatives.page.cards).toEqual(all.page.cards);
    }
    // a chosen layout is kept: only the default one is redrawn
    for (let seed = 0; seed < 40; seed += 1)
      expect(drawGeminiVariation(new VariationDraw("gemini", seed, 1, new Set(VARIATION_CLASSES)), "chip-dialog").layout).toBe(
        "chip-dialog",
      );
  });

  it("the wire of a fuzzed page: the model name at the drawn index, a trailing 1096 envelope after the complete answer", () => {
    const scenario = pickGeminiScenario("many-citations");
    const frames = buildGeminiFrames(scenario, { language: "en" }, { modelNameIndex: 42, trailingError1096: true });
    const final = frames.find((frame) => frame.kind === "final");
    const inner: unknown = JSON.parse(JSON.parse(final?.json ?? "[[]]")[0][2]);
    expect(Array.isArray(inner) ? inner[42] : null).toBe(scenario.modelName);
    expect(Array.isArray(inner) ? inner[31] : "x").toBeNull();
    expect(frames.map((frame) => frame.kind)).toEqual([
      "metadata",
      "progress",
      "progress",
      "progress",
      "progress",
      "final",
      "trailing-error",
      "trailer",
      "end",
    ]);
    expect(frames.find((frame) => frame.kind === "trailing-error")?.json).toContain("[1096]");
  });
});

describe.skipIf(!CHROMIUM_INSTALLED)("page in Chromium", () => {
  for (const layout of GEMINI_LAYOUTS) {
    it(`${layout}: sends the real request, streams, toggles aria-busy, renders chips and source cards`, async () => {
      const browser = await launchChromium();
      try {
        await replica.control.post("layout", { provider: "gemini", layout });
        const page = await browser.newPage();
        // record which transport the page's script uses
        await page.addInitScript(() => {
          const used: string[] = [];
          Reflect.set(window, "__transports", used);
          const open = XMLHttpRequest.prototype.open;
          XMLHttpRequest.prototype.open = function (this: XMLHttpRequest, ...args: Parameters<XMLHttpRequest["open"]>) {
            used.push("xhr");
            return open.apply(this, args);
          } as XMLHttpRequest["open"];
          const originalFetch = window.fetch;
          window.fetch = (...args: Parameters<typeof fetch>) => {
            used.push("fetch");
            return originalFetch(...args);
          };
        });
        await page.goto(`${replica.url}/gemini/app?hl=en`);
        await page.click('.ql-editor[contenteditable="true"]');
        await page.keyboard.type("late-citations in Chromium");
        // (in the sources-list layout the button only appears once there is text)
        await page.click('button[aria-label="Send message"]', { timeout: 2_000 });
        await page.waitForSelector('model-response[aria-busy="true"]', { state: "attached", timeout: 5_000 });
        await page.waitForSelector('model-response:not([aria-busy]) button[aria-label="Good response"]', { timeout: 20_000 });
        // the chips come 2 s after the text settled
        expect(await page.$$("source-inline-chip")).toHaveLength(0);
        await page.waitForSelector("source-inline-chip", { timeout: 5_000 });
        const labels = await page.$$eval("source-inline-chip button", (buttons) =>
          buttons.map((button) => button.getAttribute("aria-label")),
        );
        const suffix = layout === "side-panel" ? "Opens side panel." : "Press Enter to open sources dialog.";
        expect(labels).toEqual([
          `View source details for citation from UNESCO World Heritage Centre. ${suffix}`,
          `View source details for citation from HISTORY. ${suffix}`,
        ]);
        const panelText = await page.$eval(
          ".model-response-text message-content .markdown.markdown-main-panel",
          (panel) => panel.textContent,
        );
        expect(panelText).toContain("The Great Wall of China is about 21,196 km long.");
        const hrefs = async (): Promise<(string | null)[]> =>
          page.$$eval("inline-source-card a[href]", (links) => links.map((link) => link.getAttribute("href")));
        const sources = ["https://whc.unesco.org/en/list/438/", "https://www.history.com/articles/great-wall-of-china"];
        if (layout === "side-panel") {
          expect(await page.$$("inline-source-card")).toHaveLength(0);
          await page.click("button.legacy-sources-sidebar-button");
          await page.waitForSelector("context-sidebar inline-source-card");
          expect(await hrefs()).toEqual(sources);
        } else if (layout === "sources-list") {
          expect(await page.$$("model-response sources-list inline-source-card")).toHaveLength(2);
          expect(await hrefs()).toEqual(sources);
        } else {
          // no panel and no list: each chip opens a dialog with its own card, Escape closes it
          expect(await page.$$("inline-source-card, button.legacy-sources-sidebar-button, sources-list")).toHaveLength(0);
          await page.click("source-inline-chip >> nth=1 >> button");
          await page.waitForSelector('[role="dialog"] inline-source-card');
          expect(await hrefs()).toEqual([sources[1]]);
          await page.keyboard.press("Escape");
          expect(await page.$$("inline-source-card")).toHaveLength(0);
        }
        expect(await page.evaluate(() => Reflect.get(window, "__transports"))).toEqual([layout === "sources-list" ? "fetch" : "xhr"]);

        const sent = (await replica.control.providerState("gemini")).requests.at(-1);
        expect(sent?.body).toMatchObject({ prompt: "late-citations in Chromium", hl: "en", bodyLanguage: "en", bl: BUILD_LABEL });
        // XMLHttpRequest upper-cases the charset, fetch keeps it as written
        expect(sent?.headers["content-type"]).toMatch(/^application\/x-www-form-urlencoded;charset=utf-8$/i);
        expect(sent?.headers["x-same-domain"]).toBe("1");
        expect(sent?.headers["x-goog-ext-525001261-jspb"]).toMatch(/^\[1,null,null,null,"[0-9a-f]+",null,null,0,\[4\],null,null,1\]$/);
        expect(sent?.path).toMatch(/^\/gemini\/_\/BardChatUi\/data\/assistant\.lamda\.BardFrontendService\/StreamGenerate\?bl=/);

        // an error envelope renders an error and no feedback buttons
        await page.click('.ql-editor[contenteditable="true"]');
        await page.keyboard.type("error-1037 now");
        await page.keyboard.press("Enter");
        await page.waitForSelector("model-response >> nth=1 >> .response-error", { timeout: 10_000 });
        expect(await page.$$("model-response >> nth=1 >> button[aria-label='Good response']")).toHaveLength(0);
      } finally {
        await browser.close();
      }
    }, 60_000);
  }

  it("thoughts stay collapsed, outside the answer panel", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${replica.url}/gemini/app`);
      await page.click('.ql-editor[contenteditable="true"]');
      await page.keyboard.type("with-thoughts");
      await page.keyboard.press("Enter");
      await page.waitForSelector("model-response:not([aria-busy])", { timeout: 20_000 });
      expect(await page.$eval(".markdown-main-panel", (panel) => panel.textContent)).not.toContain("THOUGHT-SECRET");
      expect(await page.isVisible("model-thoughts .thoughts-body")).toBe(false);
      expect(await page.$eval("model-thoughts", (thoughts) => thoughts.textContent)).toContain("THOUGHT-SECRET");
    } finally {
      await browser.close();
    }
  }, 60_000);
});
