/**
 * The Gemini parser against StreamGenerate bodies (test/fixtures/gemini/*.txt, the replica's renderer output
 * and hand-written transcripts) and DOM snapshots of the replica page in Chromium (*.snapshot.json). Expected values come
 * from the replica's scenario data by the mapping of providers/gemini.md §4, written here, never from the parser.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GEMINI_SCENARIOS, type GeminiScenario, pickGeminiScenario, splitCitationMarkers } from "../../replicas/gemini/scenarios";
import { GEMINI_PICKER_MODE } from "../../replicas/gemini/layouts";
import { ScraperDriftError, ServiceError } from "../../src/errors";
import type { StreamCapture } from "../../src/browser/page/capture/types";
import { readGeminiCitations, type GeminiCitation, type GeminiPageSnapshot } from "../../src/scrapers/gemini/citations";
import { geminiLanguage } from "../../src/scrapers/gemini/language";
import { cleanAnswerText, type GeminiAnswer, parseGeminiAnswer } from "../../src/scrapers/gemini/parse";
import { verifyStreamRequest } from "../../src/scrapers/gemini/request";
import { normaliseMarkdownUrls, normaliseSourceUrl } from "../../src/scrapers/gemini/source-url";
import { expectedSourceUrl } from "../support/oracles/gemini";
import { everySplit, sampledSplits, utf8 } from "../support/chunk-splits";

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const FIXTURES = new URL("../fixtures/gemini/", import.meta.url);
const DEFAULT_PROMPT = "Who designed the Eiffel Tower?";
const LAYOUTS = ["side-panel", "sources-list", "chip-dialog"] as const;
const PICKER_HTML =
  '<button data-test-id="bard-mode-menu-button" aria-label="Open mode picker, currently Flash"><span>Flash</span><mat-icon>keyboard_arrow_down</mat-icon></button>';
const NO_PAGE: GeminiPageSnapshot = { responseHtml: null, sourceCardsHtml: [], modePickerHtml: null };
const PICKER_ONLY: GeminiPageSnapshot = { ...NO_PAGE, modePickerHtml: PICKER_HTML };

function body(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`${name}.txt`, FIXTURES)));
}

function snapshot(name: string, layout: string): GeminiPageSnapshot {
  const raw: unknown = JSON.parse(readFileSync(new URL(`${name}.${layout}.snapshot.json`, FIXTURES), "utf8"));
  if (typeof raw !== "object" || raw === null) throw new Error("snapshot fixture is not an object");
  const responseHtml: unknown = Reflect.get(raw, "responseHtml");
  const cards: unknown = Reflect.get(raw, "sourceCardsHtml");
  const picker: unknown = Reflect.get(raw, "modePickerHtml");
  return {
    responseHtml: typeof responseHtml === "string" ? responseHtml : null,
    sourceCardsHtml: Array.isArray(cards) ? cards.filter((card): card is string => typeof card === "string") : [],
    modePickerHtml: typeof picker === "string" ? picker : null,
  };
}

function capture(chunks: Uint8Array[] | Uint8Array | string, overrides: Partial<StreamCapture> = {}): StreamCapture {
  const list = typeof chunks === "string" ? [utf8(chunks)] : chunks instanceof Uint8Array ? [chunks] : chunks;
  return {
    url: "https://gemini.google.com/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate?bl=boq_assistant-bard-web-server_20261115.07_p0&f.sid=-1&hl=en&_reqid=1&rt=c",
    status: 200,
    contentType: "application/json; charset=utf-8",
    requestBody: null,
    chunks: list,
    complete: true,
    error: null,
    ...overrides,
  };
}

interface Failure {
  name: string;
  status: number;
  detail: string;
  retryable: boolean;
  code: string | null;
  /** The public error code (errors.ts): each fault its own. */
  publicCode: string;
}

function failure(input: StreamCapture, page: GeminiPageSnapshot = NO_PAGE): Failure {
  try {
    parseGeminiAnswer(input, page);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return {
      name: error.name,
      status: error.status,
      detail: error.detail,
      retryable: error.retryable,
      code: error instanceof ScraperDriftError ? error.driftCode : null,
      publicCode: error.code,
    };
  }
  throw new Error("expected the parse to fail");
}

/** The URL a card links, normalised as DESIGN.md says (the oracle's independent reader). */
const expectedUrl = expectedSourceUrl;

/** gemini.md §4: one citation per distinct source in order of its first chip, with the scenario's highlights. */
function expectedCitations(scenario: GeminiScenario): GeminiCitation[] {
  const order: string[] = [];
  for (const point of splitCitationMarkers(scenario.answer).points) for (const key of point.keys) if (!order.includes(key)) order.push(key);
  return order.map((key) => {
    const source = scenario.sources.find((candidate) => candidate.key === key);
    if (source === undefined) throw new Error(`scenario ${scenario.id} cites unknown source ${key}`);
    return {
      title: source.title,
      url: expectedUrl(source.url),
      snippet: source.snippet,
      website_name: source.site,
      highlights: [...(scenario.highlights[key] ?? [])],
    };
  });
}

function expectedMarkdown(scenario: GeminiScenario): string {
  return splitCitationMarkers(scenario.answer).text;
}

/** A fixture's name → its scenario (the default one is recorded for DEFAULT_PROMPT). */
function scenarioOf(name: string): GeminiScenario {
  return name === "default" ? pickGeminiScenario(DEFAULT_PROMPT) : pickGeminiScenario(name);
}

const ANSWER_FIXTURES = [
  "default",
  ...GEMINI_SCENARIOS.filter((scenario) => scenario.error === null && scenario.id !== "long-answer").map((scenario) => scenario.id),
];

/** Frame boundaries for hand-built bodies. */
function frames(...jsons: string[]): string {
  return jsons.map((json) => `${json.length + 2}\n${json}\n`).join("");
}

// ---------------------------------------------------------------------------------------------------------------

describe("answers from the wire, the body split at every byte boundary", () => {
  for (const name of ANSWER_FIXTURES) {
    it(`${name}: exact result_markdown, result and llm_model for every split`, () => {
      const scenario = scenarioOf(name);
      const markdown = expectedMarkdown(scenario);
      const expected: GeminiAnswer = {
        result: scenario.plainText,
        result_markdown: markdown,
        citations: [],
        llm_model: scenario.modelName ?? GEMINI_PICKER_MODE,
      };
      const data = body(name);
      const mismatches: string[] = [];
      for (const chunks of everySplit(data)) {
        const answer = parseGeminiAnswer(capture(chunks), PICKER_ONLY);
        if (JSON.stringify(answer) !== JSON.stringify(expected)) mismatches.push(chunks.map((chunk) => chunk.length).join("+"));
      }
      expect(mismatches).toEqual([]);
      expect(parseGeminiAnswer(capture(data), PICKER_ONLY)).toEqual(expected);
    });
  }

  it("long-answer (about 30 kB, cumulative frames): exact fields for sampled splits", () => {
    const scenario = pickGeminiScenario("long-answer");
    const markdown = expectedMarkdown(scenario);
    expect(markdown.length).toBeGreaterThan(30_000);
    const data = body("long-answer");
    const splits = sampledSplits(data, 48);
    // every sampled offset and the one-byte chunking, plus a spread of the cuts inside multi-byte characters
    const chosen = splits.filter((_split, index) => index < 50 || index % 40 === 0);
    for (const chunks of chosen) {
      const answer = parseGeminiAnswer(capture(chunks), NO_PAGE);
      expect(answer.result_markdown).toBe(markdown);
      expect(answer.llm_model).toBe(scenario.modelName);
    }
    expect(parseGeminiAnswer(capture(data), NO_PAGE).result).toBe(scenario.plainText);
  });

  it("default: the exact plain text keeps no markdown and no chip text", () => {
    const answer = parseGeminiAnswer(capture(body("default")), NO_PAGE);
    expect(answer.result).toBe(
      [
        `You asked: "${DEFAULT_PROMPT}".`,
        "",
        "This is the replica's default answer. Paris is the capital and largest city of France. The Eiffel Tower was completed in 1889.",
        "",
        "- It has bold text and a list.",
        "- It cites two sources.",
      ].join("\n"),
    );
  });

  it("table-citations: the table becomes tab-separated rows in result", () => {
    const answer = parseGeminiAnswer(capture(body("table-citations")), NO_PAGE);
    expect(answer.result).toContain("Planet\tDiameter (km)\tNotes\nJupiter\t139,820\tLargest planet\n");
  });

  it("thoughts and draft candidates never leak", () => {
    const thoughts = parseGeminiAnswer(capture(body("with-thoughts")), NO_PAGE);
    expect(JSON.stringify(thoughts)).not.toContain("THOUGHT-SECRET");
    expect(thoughts.result_markdown).toBe(pickGeminiScenario("with-thoughts").answer);
    const drafts = parseGeminiAnswer(capture(body("with-drafts")), NO_PAGE);
    expect(JSON.stringify(drafts)).not.toContain("DRAFT");
  });

  it("card-content: [22][0] replaces the card_content placeholder", () => {
    const answer = parseGeminiAnswer(capture(body("card-content")), NO_PAGE);
    expect(answer.result_markdown).toBe(pickGeminiScenario("card-content").answer);
    expect(answer.result_markdown).not.toContain("googleusercontent");
  });

  it("unicode-astral: UTF-16 lengths differ from byte counts and the text survives exactly", () => {
    const text = new TextDecoder().decode(body("unicode-astral"));
    const lengths = [...text.matchAll(/^(\d+)\n(.*)$/gm)].map((match) => ({ declared: Number(match[1]), json: match[2] ?? "" }));
    expect(lengths.length).toBeGreaterThan(3);
    for (const { declared, json } of lengths) expect(declared).toBe(json.length + 2);
    expect(lengths.some(({ json }) => utf8(json).length + 2 !== json.length + 2)).toBe(true);
    expect(parseGeminiAnswer(capture(body("unicode-astral")), NO_PAGE).result_markdown).toContain("👨‍👩‍👧‍👦");
  });

  it("the sheet's synthetic transcript (gemini.md §3), lengths exact", () => {
    const transcript = [
      ")]}'",
      "",
      "123",
      '[["wrb.fr",null,"[null,[\\"c_ex1\\",\\"r_ex1\\"],null,null,[[\\"rc_ex1\\",[\\"Example\\"],null,null,null,null,null,null,[1]]]]"]]',
      "130",
      '[["wrb.fr",null,"[null,[\\"c_ex1\\",\\"r_ex1\\"],null,null,[[\\"rc_ex1\\",[\\"Example answer\\"],null,null,null,null,null,null,[1]]]]"]]',
      "252",
      '[["wrb.fr",null,"[null,[\\"c_ex1\\",\\"r_ex1\\"],null,null,[[\\"rc_ex1\\",[\\"Example answer 🙂\\"],null,null,null,null,null,null,[2],\\"en\\"]],null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,\\"ctx_ex1\\"]"]]',
      "45",
      '[["di",57],["af.httprm",56,"1234567890",3]]',
      "25",
      '[["e",4,null,null,512]]',
      "",
    ].join("\n");
    for (const chunks of everySplit(utf8(transcript))) {
      expect(parseGeminiAnswer(capture(chunks), NO_PAGE)).toEqual({
        result: "Example answer 🙂",
        result_markdown: "Example answer 🙂",
        citations: [],
        llm_model: null,
      });
    }
  });

  it("builds without a state slot: complete when the body ended with the end trailer, not when it was cut", () => {
    const inner = JSON.stringify([null, ["c_1", "r_1"], null, null, [["rc_1", ["No state here."]]]]);
    const text = `)]}'\n\n${frames(JSON.stringify([["wrb.fr", null, inner]]), '[["e",4,null,null,100]]')}`;
    expect(parseGeminiAnswer(capture(text), NO_PAGE).result_markdown).toBe("No state here.");
    const cut = `)]}'\n\n${frames(JSON.stringify([["wrb.fr", null, inner]]))}`;
    expect(failure(capture(cut, { complete: false, error: "network error" })).detail).toMatch(/ended before the answer was complete/);
  });

  it("the model name is found wherever it sits near the end of the final inner array", () => {
    const inner = Array.from({ length: 40 }, () => null as unknown);
    inner[1] = ["c_1", "r_1"];
    inner[4] = [["rc_1", ["Hi."], null, null, null, null, null, null, [2]]];
    inner[25] = "ctx_1";
    inner[36] = [null, ["2.5 Pro"]];
    const text = `)]}'\n\n${frames(JSON.stringify([["wrb.fr", null, JSON.stringify(inner)]]))}`;
    expect(parseGeminiAnswer(capture(text), NO_PAGE).llm_model).toBe("2.5 Pro");
  });
});

describe("the model label as the site shows it", () => {
  /**
   * The shape of the final frame of the March 2026 capture (real-captures/gemini, zh-CN): a 48-slot inner array with the
   * country at [8], the language at [19], a hash at [39], the label "Fast" at [42] followed by `false`, the localised
   * follow-up actions at [44] and two numbers; the candidate in state 2. Reproduced, not copied: texts are our own.
   */
  function fastLabelBody(): string {
    const inner: unknown[] = Array.from({ length: 48 }, () => null);
    inner[1] = ["c_d6dbca301acebf01", "r_d6f91f19c9255d26"];
    const candidate: unknown[] = Array.from({ length: 44 }, () => null);
    candidate[0] = "rc_c2258d83f72dc3f6";
    candidate[1] = ["看样子你在测试我？😄\n\n需要我帮你做点什么吗？"];
    candidate[8] = [2];
    candidate[9] = "zh";
    inner[4] = [candidate];
    inner[5] = ["中国四川省", "SWML_DESCRIPTION_FROM_YOUR_DEVICE", true, null, "//www.google.com/maps/vt/data=abc"];
    inner[8] = "JP";
    inner[19] = "zh";
    inner[39] = "fbb127bbb056c959";
    inner[42] = "Fast";
    inner[43] = false;
    inner[44] = [
      [
        [
          [1004, "详尽一点", 5],
          [1005, "简短一点", 6],
        ],
      ],
    ];
    inner[46] = 1;
    inner[47] = 2;
    const first = JSON.stringify([
      ["wrb.fr", null, JSON.stringify([null, [null, "r_d6f91f19c9255d26"], { "18": "r_d6f91f19c9255d26", "44": false }])],
    ]);
    const final = JSON.stringify([["wrb.fr", null, JSON.stringify(inner)]]);
    const context = JSON.stringify([
      [
        "wrb.fr",
        null,
        JSON.stringify([null, ["c_d6dbca301acebf01", "r_d6f91f19c9255d26"], { "26": "AwAAAAAAAAAQANM7mBjXKZQ55XBf0Rk", "44": false }]),
      ],
    ]);
    return `)]}'\n\n${frames(first, final, context, '[["di",2992],["af.httprm",2992,"-4146049163487242749",1]]', '[["e",18,null,null,31189]]')}`;
  }

  it('"Fast" in the label slot of the final frame is llm_model, for every split (the real capture\'s shape)', () => {
    const data = utf8(fastLabelBody());
    const wrong: string[] = [];
    for (const chunks of everySplit(data)) {
      const answer = parseGeminiAnswer(capture(chunks), NO_PAGE);
      if (answer.llm_model !== "Fast" || answer.result_markdown !== "看样子你在测试我？😄\n\n需要我帮你做点什么吗？")
        wrong.push(chunks.map((chunk) => chunk.length).join("+"));
    }
    expect(wrong).toEqual([]);
  });

  it("a label on the wire wins over the picker; ids, hashes, tokens, URLs and locale codes are never labels", () => {
    const inner: unknown[] = Array.from({ length: 40 }, () => null);
    inner[1] = ["c_1", "r_1"];
    inner[4] = [["rc_1", ["Hi."], null, null, null, null, null, null, [2]]];
    inner[25] = "ctx_not_a_label";
    inner[30] = "en";
    inner[33] = "a1b2c3d4e5f6a7b8";
    inner[35] = "https://example.com/x";
    inner[37] = "US";
    inner[39] = "AwAAAAAAAAAQANM7mBjXKZQ55XBf0Rk";
    const body = (slots: unknown[]): string => `)]}'\n\n${frames(JSON.stringify([["wrb.fr", null, JSON.stringify(slots)]]))}`;
    expect(parseGeminiAnswer(capture(body(inner)), PICKER_ONLY).llm_model).toBe(GEMINI_PICKER_MODE);
    expect(parseGeminiAnswer(capture(body(inner)), NO_PAGE).llm_model).toBeNull();
    const labelled = [...inner];
    labelled[31] = "Thinking";
    expect(parseGeminiAnswer(capture(body(labelled)), PICKER_ONLY).llm_model).toBe("Thinking");
  });

  it("the picker's visible label as shown; its aria-label (any case, padded) only when the button has no text", () => {
    const decorated =
      '<button data-test-id="bard-mode-menu-button" aria-label="\u00a0 OPEN MODE PICKER, CURRENTLY FLASH\u00a0 "><span class="css-1x">Flash</span><mat-icon>keyboard_arrow_down</mat-icon></button>';
    expect(parseGeminiAnswer(capture(body("no-model-name")), { ...NO_PAGE, modePickerHtml: decorated }).llm_model).toBe("Flash");
    const iconOnly =
      '<button data-test-id="bard-mode-menu-button" aria-label="Open mode picker, currently Fast"><mat-icon>arrow</mat-icon></button>';
    expect(parseGeminiAnswer(capture(body("no-model-name")), { ...NO_PAGE, modePickerHtml: iconOnly }).llm_model).toBe("Fast");
  });
});

describe("one URL normalisation in every field", () => {
  it("inline-links: the markdown's links read as citation URLs do (Google redirect unwrapped, text fragment removed), every split", () => {
    const scenario = pickGeminiScenario("inline-links");
    const data = body("inline-links");
    const wrong: string[] = [];
    for (const chunks of everySplit(data)) {
      const answer = parseGeminiAnswer(capture(chunks), NO_PAGE);
      if (answer.result_markdown !== expectedMarkdown(scenario) || answer.result !== scenario.plainText)
        wrong.push(chunks.map((chunk) => chunk.length).join("+"));
    }
    expect(wrong).toEqual([]);
    expect(new TextDecoder().decode(data)).toContain("#:~:text=");
  });

  it("link destinations only: titles, autolinks, code blocks and other URLs as written", () => {
    expect(normaliseMarkdownUrls('[a](https://x.example/p#:~:text=b "T") and <https://www.google.com/url?q=https://y.example/&sa=D>')).toBe(
      '[a](https://x.example/p "T") and <https://y.example/>',
    );
    expect(normaliseMarkdownUrls("[keep](https://x.example/p?utm_source=gemini#top)")).toBe(
      "[keep](https://x.example/p?utm_source=gemini#top)",
    );
    expect(normaliseMarkdownUrls("```\n[code](https://x.example/#:~:text=a)\n```")).toBe("```\n[code](https://x.example/#:~:text=a)\n```");
    expect(normaliseMarkdownUrls("[rel](/local#:~:text=a)")).toBe("[rel](/local#:~:text=a)");
  });
});

describe("failures", () => {
  it("error frames map to the sheet's signatures, without provider text in the detail", () => {
    const cases: Array<[string, Partial<Failure>, RegExp]> = [
      // gemini.md §5: 1037 → rate_limited, 1152 → rate_limited, 1013 → http_error, 1060 → challenge, 1050 → fix scraper
      ["error-1037", { status: 502, retryable: true, publicCode: "provider_rate_limited" }, /usage limit/i],
      ["error-1152", { status: 502, retryable: true, publicCode: "provider_rate_limited" }, /rate limit or CAPTCHA/i],
      ["error-1013", { status: 502, retryable: true, publicCode: "upstream_error" }, /temporary/i],
      ["error-1060", { status: 502, retryable: true, publicCode: "provider_challenge" }, /region/i],
      [
        "error-1050",
        { status: 502, name: "ScraperDriftError", code: "gemini.model_header_rejected", publicCode: "provider_changed" },
        /layout/i,
      ],
      ["invalid-response", { status: 500, name: "UnexpectedResultError", retryable: true, publicCode: "unexpected_result" }, /empty/i],
      ["trailers-only", { status: 500, name: "UnexpectedResultError" }, /empty/i],
      ["fault-rate-limited", { status: 502, retryable: true, publicCode: "provider_rate_limited" }, /usage limit/i],
      ["fault-empty-answer", { status: 500 }, /empty/i],
    ];
    for (const [name, expected, detail] of cases) {
      for (const chunks of everySplit(body(name))) {
        const result = failure(capture(chunks));
        expect(result, name).toMatchObject(expected);
        expect(result.detail, name).toMatch(detail);
        expect(result.detail).not.toMatch(/BardErrorInfo|wrb\.fr|\d{4}/);
      }
    }
  });

  it("an error envelope after the complete candidate (1096) is not a failure", () => {
    const text = new TextDecoder().decode(body("trailing-error"));
    expect(text).toContain("BardErrorInfo");
    expect(parseGeminiAnswer(capture(body("trailing-error")), NO_PAGE).result_markdown).toBe("Mount Everest is 8,849 m high.");
  });

  it("malformed_stream: a frame that does not parse and no complete candidate → 502 malformed", () => {
    for (const chunks of everySplit(body("fault-malformed-stream"))) {
      expect(failure(capture(chunks))).toMatchObject({ status: 502, retryable: true, detail: expect.stringMatching(/malformed/) });
    }
  });

  it("disconnect: a body cut before the complete candidate → 502 truncated", () => {
    for (const chunks of everySplit(body("fault-disconnect"))) {
      expect(failure(capture(chunks, { complete: false, error: "network error" }))).toMatchObject({
        status: 502,
        retryable: true,
        detail: expect.stringMatching(/ended before the answer was complete/),
      });
    }
  });

  it("a body cut anywhere fails until the complete candidate arrived, and answers from then on", () => {
    const data = body("default");
    const text = new TextDecoder().decode(data);
    const finalFrame = text.indexOf("[2]");
    const finalFrameEnd = utf8(text.slice(0, text.indexOf("\n", finalFrame) + 1)).length;
    for (let at = 0; at <= data.length; at += 1) {
      const input = capture([data.subarray(0, at)], { complete: false, error: "network error" });
      if (at < finalFrameEnd - 1) {
        expect(failure(input).status, `cut at ${at}`).toBe(502);
      } else {
        expect(parseGeminiAnswer(input, NO_PAGE).result_markdown, `cut at ${at}`).toBe(
          expectedMarkdown(pickGeminiScenario(DEFAULT_PROMPT)),
        );
      }
    }
  });

  it("HTTP failures: challenge, expired session, bad request, server error, unreachable", () => {
    const sorry = "<html><body>Our systems have detected unusual traffic from your computer network.</body></html>";
    expect(failure(capture(sorry, { status: 429, contentType: "text/html" }))).toMatchObject({ status: 502, retryable: true });
    expect(failure(capture(sorry, { status: 429 })).detail).toMatch(/anti-bot/);
    expect(failure(capture("Too many requests", { status: 429 })).detail).toMatch(/rate limit/);
    expect(failure(capture(sorry, { status: 200, contentType: "text/html" })).detail).toMatch(/anti-bot/);
    expect(failure(capture("<title>Error 401 (Unauthorized)!!1</title>", { status: 401 }))).toMatchObject({
      status: 502,
      retryable: false,
      detail: expect.stringMatching(/signed-in/),
    });
    expect(failure(capture("", { status: 403 })).retryable).toBe(false);
    const signIn = '<a href="https://accounts.google.com/ServiceLogin?continue=https://gemini.google.com/app">Sign in</a>';
    expect(failure(capture(signIn, { status: 200 })).detail).toMatch(/signed-in/);
    expect(failure(capture("<title>Error 400 (Bad Request)!!1</title>", { status: 400 }))).toMatchObject({ status: 502, retryable: true });
    expect(failure(capture("<title>Error 500 (Server Error)!!1</title>", { status: 500 }))).toMatchObject({ status: 502, retryable: true });
    expect(failure(capture([], { status: 0, complete: false, error: "network error" })).detail).toMatch(/could not be reached/);
  });

  it("an answer whose text is only placeholders is an empty answer (500)", () => {
    const inner = JSON.stringify([
      null,
      ["c_1", "r_1"],
      null,
      null,
      [["rc_1", ["http://googleusercontent.com/image_generation_content/0"], null, null, null, null, null, null, [2]]],
    ]);
    const text = `)]}'\n\n${frames(JSON.stringify([["wrb.fr", null, inner]]), '[["e",4,null,null,1]]')}`;
    expect(failure(capture(text))).toMatchObject({ status: 500, name: "UnexpectedResultError" });
  });
});

describe("citations from the DOM snapshot", () => {
  const cited = ["default", "many-citations", "table-citations", "unicode-astral", "late-citations", "no-model-name", "long-answer"];
  for (const name of cited) {
    for (const layout of LAYOUTS) {
      it(`${name} in the ${layout} layout: every citation field exact`, () => {
        const citations = readGeminiCitations(snapshot(name, layout));
        expect(citations).toEqual(expectedCitations(scenarioOf(name)));
      });
    }
  }

  for (const layout of LAYOUTS) {
    it(`no-citations in the ${layout} layout: none`, () => {
      expect(readGeminiCitations(snapshot("no-citations", layout))).toEqual([]);
    });

    it(`the whole answer in the ${layout} layout: wire fields and DOM citations together`, () => {
      const scenario = scenarioOf("many-citations");
      const answer = parseGeminiAnswer(capture(body("many-citations")), snapshot("many-citations", layout));
      expect(answer.result_markdown).toBe(expectedMarkdown(scenario));
      expect(answer.citations).toEqual(expectedCitations(scenario));
      expect(answer.result).not.toContain("Department of Energy");
    });
  }

  it("no-model-name: llm_model is the mode picker's label in both layouts", () => {
    for (const layout of LAYOUTS) {
      expect(parseGeminiAnswer(capture(body("no-model-name")), snapshot("no-model-name", layout)).llm_model).toBe(GEMINI_PICKER_MODE);
    }
    const localised =
      '<button data-test-id="bard-mode-menu-button" aria-label="Modusauswahl öffnen, aktuell Flash">Flash<mat-icon>keyboard_arrow_down</mat-icon></button>';
    expect(parseGeminiAnswer(capture(body("no-model-name")), { ...NO_PAGE, modePickerHtml: localised }).llm_model).toBe("Flash");
    expect(parseGeminiAnswer(capture(body("no-model-name")), NO_PAGE).llm_model).toBeNull();
  });

  const card = (url: string, site: string, title: string, snippet = ""): string =>
    `<inline-source-card><a href="${url}"><div><span class="source-card-site">${site}</span></div><div class="source-card-title">${title}</div>${snippet === "" ? "" : `<div class="source-card-snippet">${snippet}</div>`}</a></inline-source-card>`;
  const response = (answer: string, extra = ""): string =>
    `<model-response><div class="model-response-text"><message-content><div class="markdown markdown-main-panel">${answer}</div></message-content></div>${extra}</model-response>`;
  const chip = (site: string, withTitle = true): string =>
    `<source-inline-chip><button aria-label="View source details for citation from ${site}. Opens side panel.">${withTitle ? `<span class="source-title">${site}</span>` : ""}</button></source-inline-chip>`;

  it("site names from the aria-label when the chip has no title span, site names with dots, the dialog variant", () => {
    const html = response(
      `<p>Energy use grew.<sources-carousel-inline>${chip("U.S. Energy Information Administration (EIA)", false)}</sources-carousel-inline> Prices fell.<sources-carousel-inline><source-inline-chip><button aria-label="View source details for citation from Amazon.com. Press Enter to open sources dialog."></button></source-inline-chip></sources-carousel-inline></p>`,
    );
    const citations = readGeminiCitations({
      responseHtml: html,
      sourceCardsHtml: [
        card("https://www.eia.gov/", "U.S. Energy Information Administration (EIA)", "EIA home"),
        card("https://www.amazon.com/", "Amazon.com", "Amazon"),
      ],
      modePickerHtml: null,
    });
    expect(citations.map((citation) => [citation.website_name, citation.highlights])).toEqual([
      ["U.S. Energy Information Administration (EIA)", ["Energy use grew."]],
      ["Amazon.com", ["Prices fell."]],
    ]);
  });

  it("highlights: chip-carrying sentences in list items and table cells, also inside wrappers and after a closed block", () => {
    const html = response(
      [
        "<p>Intro without chips.</p>",
        `<ul><li><p>First item fact.</p><sources-carousel-inline>${chip("Alpha")}</sources-carousel-inline></li>`,
        `<li><span>Second item. Its cited clause</span><div style="display:contents"><sources-carousel-inline>${chip("Beta")}</sources-carousel-inline></div> trailing words.</li></ul>`,
        `<table><tbody><tr><td><div class="cell">Cell fact</div><span><sources-carousel-inline>${chip("Alpha")}</sources-carousel-inline></span></td>`,
        `<td>Other cell.<sources-carousel-inline>${chip("Gamma")}</sources-carousel-inline></td></tr></tbody></table>`,
        // a wrapper an HTML parser closes the paragraph for: the chip ends up after the paragraph, alone in its wrapper
        `<p>Closing sentence one. Closing sentence two.<div><sources-carousel-inline>${chip("Gamma")}</sources-carousel-inline></div></p>`,
      ].join(""),
    );
    const citations = readGeminiCitations({
      responseHtml: html,
      sourceCardsHtml: [
        card("https://alpha.example/", "Alpha", "Alpha page"),
        card("https://beta.example/", "Beta", "Beta page"),
        card("https://gamma.example/", "Gamma", "Gamma page"),
        card("https://uncited.example/", "Uncited", "Nobody cites this"),
      ],
      modePickerHtml: null,
    });
    expect(citations.map((citation) => [citation.website_name, citation.highlights])).toEqual([
      ["Alpha", ["First item fact.", "Cell fact"]],
      ["Beta", ["Its cited clause"]],
      ["Gamma", ["Other cell.", "Closing sentence two."]],
    ]);
  });

  it("numbered footnotes (sup.superscript, source-footnote) point at cards by number", () => {
    const html = response('<p>First claim.<sup class="superscript">2</sup> Second claim.<source-footnote>1</source-footnote></p>');
    const citations = readGeminiCitations({
      responseHtml: html,
      sourceCardsHtml: [card("https://one.example/", "One", "First source"), card("https://two.example/", "Two", "Second source")],
      modePickerHtml: null,
    });
    expect(citations).toEqual([
      { title: "Second source", url: "https://two.example/", snippet: "", website_name: "Two", highlights: ["First claim."] },
      { title: "First source", url: "https://one.example/", snippet: "", website_name: "One", highlights: ["Second claim."] },
    ]);
  });

  it("cards matched by host when their site text differs; a chip without a card is left out; uncited cards are no citations", () => {
    const html = response(
      `<ul><li>Wiki fact.<sources-carousel-inline>${chip("Wikipedia")}</sources-carousel-inline></li><li>Orphan fact.<sources-carousel-inline>${chip("Nowhere")}</sources-carousel-inline></li></ul>`,
      `<sources-list>${card("https://en.wikipedia.org/wiki/X", "en.wikipedia.org", "X - Wikipedia", "About X")}${card("https://extra.example/page", "Extra", "Extra page")}</sources-list>`,
    );
    expect(readGeminiCitations({ responseHtml: html, sourceCardsHtml: [], modePickerHtml: null })).toEqual([
      {
        title: "X - Wikipedia",
        url: "https://en.wikipedia.org/wiki/X",
        snippet: "About X",
        website_name: "Wikipedia",
        highlights: ["Wiki fact."],
      },
    ]);
  });

  it("cards without class hints: the link text is the title, the chip's site name is the site, the rest the snippet", () => {
    const html = response(`<p>Claim.<sources-carousel-inline>${chip("Example News")}</sources-carousel-inline></p>`);
    const bare =
      '<inline-source-card><div><a href="https://news.example/a"><span>A headline</span></a><div><span>Example News</span></div><p>The snippet text.</p></div></inline-source-card>';
    expect(readGeminiCitations({ responseHtml: html, sourceCardsHtml: [bare, bare], modePickerHtml: null })).toEqual([
      {
        title: "A headline",
        url: "https://news.example/a",
        snippet: "The snippet text.",
        website_name: "Example News",
        highlights: ["Claim."],
      },
    ]);
  });

  it("a sources-list of plain links when no cards render", () => {
    const html = response(
      `<p>Claim.<sources-carousel-inline>${chip("Plain")}</sources-carousel-inline></p>`,
      '<sources-list><a href="https://plain.example/x">Plain source title</a></sources-list>',
    );
    expect(readGeminiCitations({ responseHtml: html, sourceCardsHtml: [], modePickerHtml: null })).toEqual([
      { title: "Plain source title", url: "https://plain.example/x", snippet: "", website_name: "Plain", highlights: ["Claim."] },
    ]);
  });

  it("chip titles with a '+ N' count keep only the site name", () => {
    const html = response(
      '<p>Claim.<sources-carousel-inline><source-inline-chip><button><span class="source-title">Clutch + 2</span></button></source-inline-chip></sources-carousel-inline></p>',
    );
    const citations = readGeminiCitations({
      responseHtml: html,
      sourceCardsHtml: [card("https://clutch.co/x", "Clutch", "Clutch")],
      modePickerHtml: null,
    });
    expect(citations.map((citation) => citation.website_name)).toEqual(["Clutch"]);
  });
});

describe("helpers", () => {
  it("source URLs: Google redirects unwrapped, text fragments removed, nothing else changed", () => {
    expect(normaliseSourceUrl("https://www.google.com/url?q=https://example.com/a%3Fb%3D1&sa=D&source=gemini")).toBe(
      "https://example.com/a?b=1",
    );
    expect(normaliseSourceUrl("/url?q=https://example.com/x&sa=U")).toBe("https://example.com/x");
    expect(normaliseSourceUrl("https://example.com/p#:~:text=hello%20world")).toBe("https://example.com/p");
    expect(normaliseSourceUrl("https://example.com/p#section:~:text=hello")).toBe("https://example.com/p#section");
    expect(normaliseSourceUrl("https://Example.com/a b?utm_source=x")).toBe("https://Example.com/a b?utm_source=x");
    expect(normaliseSourceUrl("javascript:void(0)")).toBeNull();
  });

  it("answer text clean-up: placeholders and a trailing unfinished fence, complete fences kept", () => {
    expect(cleanAnswerText("A\n\nhttp://googleusercontent.com/image_generation_content/0\n\nB")).toBe("A\n\nB");
    expect(cleanAnswerText("See this.http://googleusercontent.com/youtube_content/1\n\nNext")).toBe("See this.\n\nNext");
    expect(cleanAnswerText("Code:\n\n```\nx\n```\n```")).toBe("Code:\n\n```\nx\n```");
    expect(cleanAnswerText("Code:\n\n```\nx\n```")).toBe("Code:\n\n```\nx\n```");
  });

  it("hl per country", () => {
    expect(geminiLanguage("US")).toBe("en");
    expect(geminiLanguage("DE")).toBe("de");
    expect(geminiLanguage("FR")).toBe("fr");
    expect(geminiLanguage("BR")).toBe("pt-BR");
    expect(geminiLanguage("HK")).toBe("zh-HK");
  });

  it("the request on the wire must carry the prompt and the language", () => {
    const inner = Array.from({ length: 69 }, () => null as unknown);
    inner[0] = ["Hello  Gemini\nsecond line", 0, null, null, null, null, 0];
    inner[1] = ["de"];
    const requestBody = `at=AJvLN6x%3A1&f.req=${encodeURIComponent(JSON.stringify([null, JSON.stringify(inner)]))}&`;
    const url =
      "https://gemini.google.com/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate?bl=b&f.sid=1&hl=de&_reqid=1&rt=c";
    expect(() => verifyStreamRequest({ url, requestBody }, "Hello Gemini second line", "de")).not.toThrow();
    const code = (run: () => void): string | null => {
      try {
        run();
        return null;
      } catch (error) {
        return error instanceof ScraperDriftError ? error.driftCode : "other";
      }
    };
    expect(code(() => verifyStreamRequest({ url, requestBody }, "Another prompt", "de"))).toBe("gemini.prompt_mismatch");
    expect(code(() => verifyStreamRequest({ url, requestBody }, "Hello Gemini second line", "fr"))).toBe("gemini.language_mismatch");
    expect(code(() => verifyStreamRequest({ url, requestBody: null }, "x", "de"))).toBe("gemini.request_body_unreadable");
    expect(code(() => verifyStreamRequest({ url, requestBody: "at=x" }, "x", "de"))).toBe("gemini.request_body_unexpected");
  });
});
