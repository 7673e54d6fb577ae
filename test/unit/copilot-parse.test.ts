/**
 * The Copilot parser (src/scrapers/copilot/parse.ts) against chat exchanges (test/fixtures/copilot/): the
 * replica's scenarios and faults, recorded frame by frame from its WebSocket, plus hand-written stand-in variants.
 * Expected fields of replica scenarios come from the scenario data through an independent mapping
 * (test/support/oracles/copilot.ts); the key ones are also written out literally below.
 *
 * WebSocket messages are never cut by the network (the browser reassembles fragments), but a server may put several
 * events into one frame. So besides the recorded framing, every answer is re-framed: all events in one frame
 * (concatenated, or `\x1e`-separated), and that byte sequence cut into two frames at every byte boundary, which must
 * either give exactly the expected answer or fail as unreadable — never a different answer.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CopilotWireMode } from "../../replicas/copilot/scenarios";
import { ServiceError, UnexpectedResultError, UpstreamError } from "../../src/errors";
import type { CapturedFrame } from "../../src/browser/page/capture/types";
import { decodeFrame } from "../../src/scrapers/copilot/frames";
import {
  COPILOT_DETAIL,
  chatSettled,
  parseCopilotChat,
  parseCopilotStart,
  readChat,
  type ChatCapture,
} from "../../src/scrapers/copilot/parse";
import { isInternalUrl, markdownLinkTargets, normaliseAnswerUrl, normaliseMarkdownLinks } from "../../src/scrapers/copilot/urls";
import { everySplit, sampledSplits, utf8 } from "../support/chunk-splits";
import { copilotExpectation } from "../support/oracles/copilot";

const FIXTURES = new URL("../fixtures/copilot/", import.meta.url);
const ORIGIN = "https://copilot.microsoft.com";

interface ChatFixture {
  description: string;
  prompt: string;
  mode: CopilotWireMode;
  exchange: ChatCapture & { url: string };
}
interface StartFixture {
  description: string;
  start: { status: number; body: string };
}

function load(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), "utf8"));
}
function chatFixture(name: string): ChatFixture {
  return load(name) as ChatFixture;
}
function startFixture(name: string): StartFixture {
  return load(name) as StartFixture;
}

const frame = (direction: CapturedFrame["direction"], data: string): CapturedFrame => ({ direction, data, binary: false, atMs: 0 });

/** The index after the last `send` frame: frames from there on are the answer's. */
function answerStart(frames: readonly CapturedFrame[]): number {
  const last = frames.map((f) => f.direction === "sent" && f.data.includes('"event":"send"')).lastIndexOf(true);
  return last + 1;
}

/** The same exchange with the received answer frames replaced by `frames` (the page's own frames kept). */
function reframed(exchange: ChatCapture, received: readonly string[]): ChatCapture {
  const cut = answerStart(exchange.frames);
  return { ...exchange, frames: [...exchange.frames.slice(0, cut), ...received.map((data) => frame("received", data))] };
}

function receivedTexts(exchange: ChatCapture): string[] {
  return exchange.frames
    .slice(answerStart(exchange.frames))
    .filter((f) => f.direction === "received")
    .map((f) => f.data);
}

function outcome(run: () => unknown): unknown {
  try {
    return { ok: run() };
  } catch (error) {
    if (error instanceof ServiceError) return { status: error.status, detail: error.detail, retryable: error.retryable };
    throw error;
  }
}

const decoder = new TextDecoder();

/**
 * Parses the answer re-framed into two frames at every byte boundary of the concatenated events: each outcome is the
 * expected answer or an "unreadable" failure, and every cut between two events gives the expected answer.
 */
function expectEveryCut(exchange: ChatCapture, expected: unknown, long = false): void {
  const texts = receivedTexts(exchange);
  const joined = utf8(texts.join(""));
  const boundaries = new Set<number>();
  let offset = 0;
  for (const text of texts) {
    offset += utf8(text).length;
    boundaries.add(offset);
  }
  const splits = long ? sampledSplits(joined, 48) : everySplit(joined);
  let boundaryHits = 0;
  for (const pieces of splits) {
    const received = pieces.map((piece) => decoder.decode(piece)).filter((text) => text !== "");
    const result = outcome(() => parseCopilotChat(reframed(exchange, received), { origin: ORIGIN }));
    const atBoundary = pieces.length === 2 && boundaries.has(pieces[0]?.length ?? -1);
    if (atBoundary) boundaryHits += 1;
    if (atBoundary || pieces.length === 1) expect(result).toEqual({ ok: expected });
    else expect([{ ok: expected }, { status: 502, detail: COPILOT_DETAIL.malformed, retryable: true }]).toContainEqual(result);
  }
  expect(boundaryHits).toBeGreaterThan(0);
}

// ---------------------------------------------------------------------------------------------------------------

const SCENARIO_FIXTURES = [
  "search-default",
  "smart-default",
  "chat-default",
  "reasoning-default",
  "study-default",
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
];

describe("replica scenarios, recorded", () => {
  it("has a fixture for every scenario and every mode (copilot.md §6)", () => {
    const names = readdirSync(FIXTURES).filter((name) => name.endsWith(".json"));
    for (const name of SCENARIO_FIXTURES) expect(names).toContain(`${name}.json`);
    const modes = SCENARIO_FIXTURES.filter((name) => name.endsWith("-default")).map((name) => chatFixture(name).mode);
    expect(new Set(modes)).toEqual(new Set(["search", "smart", "chat", "reasoning", "study"]));
  });

  for (const name of SCENARIO_FIXTURES) {
    describe(name, () => {
      const fixture = chatFixture(name);
      // the oracle's fields (written from the scenario by hand) without `mode`, which the provider adds
      const { mode: _mode, ...expected } = copilotExpectation(fixture.prompt, fixture.mode);

      it("parses to exactly the scenario's fields", () => {
        expect(parseCopilotChat(fixture.exchange, { origin: ORIGIN })).toEqual(expected);
        expect(chatSettled(readChat(fixture.exchange))).toBe(true);
      });

      it("gives the same answer with all events in one frame, concatenated or \\x1e-separated", () => {
        const texts = receivedTexts(fixture.exchange);
        expect(parseCopilotChat(reframed(fixture.exchange, [texts.join("")]), { origin: ORIGIN })).toEqual(expected);
        expect(parseCopilotChat(reframed(fixture.exchange, [texts.join("\u001e")]), { origin: ORIGIN })).toEqual(expected);
        expect(parseCopilotChat(reframed(fixture.exchange, [`${texts.join("\u001e")}\u001e`]), { origin: ORIGIN })).toEqual(expected);
      });

      it("never gives a different answer when the events are cut into two frames anywhere", () => {
        expectEveryCut(fixture.exchange, expected, name === "long-answer" || name === "unicode-emoji" || name === "many-citations");
      });
    });
  }
});

describe("the mapping, written out", () => {
  it("search default: markdown of the deltas, citations in order, links = citation urls", () => {
    const answer = parseCopilotChat(chatFixture("search-default").exchange, { origin: ORIGIN });
    expect(answer.result_markdown).toBe(
      [
        'You asked: "What is the tallest mountain in Europe?" (mode: Search).',
        "",
        "This is the replica's grounded answer. It draws on an encyclopedia and on a second reference work.",
        "",
        "- It has **bold** text and a list.",
        "- Its sources arrive as citation events.",
      ].join("\n"),
    );
    expect(answer.result).toBe(
      [
        'You asked: "What is the tallest mountain in Europe?" (mode: Search).',
        "",
        "This is the replica's grounded answer. It draws on an encyclopedia and on a second reference work.",
        "",
        "- It has bold text and a list.",
        "- Its sources arrive as citation events.",
      ].join("\n"),
    );
    expect(answer.citations).toEqual([
      { title: "Wikipedia search", url: "https://en.wikipedia.org/wiki/Special:Search" },
      { title: "Britannica", url: "https://www.britannica.com/search" },
    ]);
    expect(answer.links).toEqual(["https://en.wikipedia.org/wiki/Special:Search", "https://www.britannica.com/search"]);
  });

  it("an answer without citations is complete: citations and links are empty", () => {
    const answer = parseCopilotChat(chatFixture("no-citations").exchange);
    expect(answer.citations).toEqual([]);
    expect(answer.links).toEqual([]);
    expect(answer.result).toBe("Water boils at 100 degrees Celsius at sea level. At higher altitudes it boils at lower temperatures.");
  });

  it("many citations: hostname for a missing or blank title, text fragments removed", () => {
    const { citations } = parseCopilotChat(chatFixture("many-citations").exchange);
    expect(citations).toHaveLength(9);
    expect(citations[3]).toEqual({ title: "www.iea.org", url: "https://www.iea.org/energy-system/renewables/solar-pv" });
    expect(citations[4]).toEqual({ title: "www.seia.org", url: "https://www.seia.org/solar-industry-research-data" });
    expect(citations[5]).toEqual({
      title: "Why did renewables become so cheap so fast?",
      url: "https://ourworldindata.org/cheap-renewables-growth",
    });
  });

  it("duplicate citation urls keep the first title; a text-fragment variant is the same url", () => {
    expect(parseCopilotChat(chatFixture("duplicate-citations").exchange).citations).toEqual([
      { title: "Key figures | Eiffel Tower", url: "https://www.toureiffel.paris/en/the-monument/key-figures" },
      { title: "Eiffel Tower - Wikipedia", url: "https://en.wikipedia.org/wiki/Eiffel_Tower" },
    ]);
  });

  it("links: markdown link targets first, then citations; internal, mailto and repeated urls left out", () => {
    const answer = parseCopilotChat(chatFixture("markdown-links").exchange, { origin: ORIGIN });
    expect(answer.links).toEqual([
      "https://doc.rust-lang.org/book/",
      "https://www.rust-lang.org/",
      "https://en.wikipedia.org/wiki/Rust_(programming_language)",
      "https://doc.rust-lang.org/rust-by-example/",
      "https://blog.rust-lang.org/",
    ]);
    expect(answer.result).toContain("- Background: Rust (programming language)");
    expect(answer.result).not.toContain("](");
  });

  it("replaceText replaces the part; later deltas append to the replacement", () => {
    expect(parseCopilotChat(chatFixture("replace-text").exchange).result_markdown).toBe(
      "The capital of Australia is Canberra. It became the capital in 1913.",
    );
  });

  it("chainOfThought never leaks", () => {
    for (const name of ["chain-of-thought", "reasoning-default"]) {
      const answer = parseCopilotChat(chatFixture(name).exchange);
      expect(answer.result_markdown).not.toMatch(/SECRET-REASONING|step by step before answering/);
      expect(answer.result).not.toMatch(/SECRET-REASONING|step by step before answering/);
    }
    expect(parseCopilotChat(chatFixture("chain-of-thought").exchange).result_markdown).toBe(
      "The first five prime numbers are 2, 3, 5, 7 and 11.\n\nNote that 1 is not a prime number.",
    );
  });

  it("multi-part messages: text parts in order, separated by a blank line; cards left out", () => {
    expect(parseCopilotChat(chatFixture("multi-part").exchange).result_markdown).toBe(
      [
        "Here is today's weather in Seattle.",
        "",
        "Expect light rain in the afternoon, so take an umbrella.",
        "",
        "**Tip:** temperatures drop after sunset.",
      ].join("\n"),
    );
  });

  it("unicode: surrogate pairs split across frames are joined", () => {
    const markdown = parseCopilotChat(chatFixture("unicode-emoji").exchange).result_markdown ?? "";
    expect(markdown).toContain("👩‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 🇩🇪 🇯🇵, 🚀✨ and 👍🏽.");
    expect(markdown).toContain("東京タワーは333メートルです。");
    expect(markdown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/);
  });

  it("long answer arrives whole", () => {
    const answer = parseCopilotChat(chatFixture("long-answer").exchange);
    expect(utf8(answer.result_markdown ?? "").length).toBeGreaterThan(30_000);
    expect(answer.links).toHaveLength(60);
    expect(answer.links[59]).toBe("https://example.org/topics/60");
  });

  it("frames with concatenated objects and \\x1e-separated records", () => {
    const answer = parseCopilotChat(chatFixture("concatenated-frames").exchange);
    expect(answer.result_markdown).toBe(
      "Frames may carry more than one event. This sentence arrived in a frame with two objects. Records can also be separated by U+001E.",
    );
    expect(answer.citations).toEqual([
      { title: "WebSocket - Web APIs | MDN", url: "https://developer.mozilla.org/en-US/docs/Web/API/WebSocket" },
    ]);
  });
});

describe("stand-in variants (hand-written)", () => {
  it("reads only the turn of the last send frame, leniently", () => {
    const answer = parseCopilotChat(chatFixture("stand-in-variants").exchange, { origin: ORIGIN });
    expect(answer).toEqual({
      result: "Rust 2024 stabilises async closures and more.",
      result_markdown: "Rust 2024 stabilises **async closures** and [more](https://doc.rust-lang.org/edition-guide/rust-2024/index.html).",
      citations: [{ title: "Announcing Rust 1.85.0 and Rust 2024", url: "https://blog.rust-lang.org/2025/02/20/Rust-1.85.0.html" }],
      links: ["https://doc.rust-lang.org/edition-guide/rust-2024/index.html", "https://blog.rust-lang.org/2025/02/20/Rust-1.85.0.html"],
    });
  });

  it("unwraps redirect wrappers, drops text fragments and non-http urls, keeps internal citations out of links", () => {
    const answer = parseCopilotChat(chatFixture("wrapped-urls").exchange, { origin: ORIGIN });
    expect(answer.citations).toEqual([
      { title: "Article", url: "https://example.net/article?id=7" },
      { title: "example.org", url: "https://example.org/page" },
      { title: "Bing search", url: "https://www.bing.com/search?q=wrapped+urls" },
    ]);
    expect(answer.links).toEqual([
      "https://example.com/guide?a=1",
      "https://example.org/page#intro",
      "https://example.net/article?id=7",
      "https://example.org/page",
    ]);
    expect(answer.result).toBe("See the guide and a page. Also local and Copilot.");
    // one URL, one form (issue 29): the markdown's link targets are normalised exactly as links[] returns them
    expect(answer.result_markdown).toBe(
      "See [the guide](https://example.com/guide?a=1) and [a page](https://example.org/page#intro). Also [local](/chats/abc) and [Copilot](https://copilot.microsoft.com/).",
    );
  });

  it("wrapped urls: the markdown's outbound link targets are exactly the ones links[] returns, however the events are framed", () => {
    const fixture = chatFixture("wrapped-urls");
    const expected = parseCopilotChat(fixture.exchange, { origin: ORIGIN });
    const targets = ((expected.result_markdown ?? "").match(/\]\((https?:[^)]+)\)/g) ?? []).map((link) => link.slice(2, -1));
    expect(targets.filter((url) => !url.includes("copilot.microsoft.com"))).toEqual([
      "https://example.com/guide?a=1",
      "https://example.org/page#intro",
    ]);
    for (const url of targets.filter((target) => !target.includes("copilot.microsoft.com"))) expect(expected.links).toContain(url);
    expectEveryCut(fixture.exchange, expected, false);
  });

  it("markdown link forms: inline, angle-bracketed, autolink and reference definitions are normalised alike", () => {
    const wrapped = "https://www.google.com/url?q=https://example.com/a&sa=D";
    const fragment = "https://example.org/b#:~:text=x";
    expect(normaliseMarkdownLinks(`[a](${wrapped}) [b](<${fragment}>) <${fragment}>\n\n[r]: ${wrapped}\n`)).toBe(
      "[a](https://example.com/a) [b](<https://example.org/b>) <https://example.org/b>\n\n[r]: https://example.com/a\n",
    );
    // a mailto link and a plain link stay as written
    expect(normaliseMarkdownLinks("[m](mailto:x@example.org) [p](https://example.net/p)")).toBe(
      "[m](mailto:x@example.org) [p](https://example.net/p)",
    );
  });

  it("an unreadable frame after done does not matter", () => {
    expect(parseCopilotChat(chatFixture("garbage-after-done").exchange).result).toBe("Hi there!");
  });

  it("an unreadable frame before done fails the exchange rather than leave a hole in the answer", () => {
    expect(outcome(() => parseCopilotChat(chatFixture("malformed-before-done").exchange))).toEqual({
      status: 502,
      detail: COPILOT_DETAIL.malformed,
      retryable: true,
    });
  });

  it("a done that names another message still ends the answer: the turn's only text", () => {
    expect(parseCopilotChat(chatFixture("done-names-other-message").exchange).result).toBe("Only this message has text.");
  });

  it("a challenge the page answered is followed by a normal answer", () => {
    expect(parseCopilotChat(chatFixture("copilot-challenge-answered").exchange).result).toBe("Hello! How can I help?");
  });
});

describe("failures (copilot.md §5)", () => {
  const cases: Array<[string, number, string, boolean]> = [
    ["fault-cloudflare-challenge", 502, COPILOT_DETAIL.challenge, true],
    ["fault-null-challenge", 502, COPILOT_DETAIL.challenge, true],
    ["fault-banned", 502, COPILOT_DETAIL.banned, false],
    ["fault-error-event", 502, COPILOT_DETAIL.streamError, true],
    ["fault-chat-message-error", 502, COPILOT_DETAIL.streamError, true],
    ["rate-limit-error", 502, COPILOT_DETAIL.rateLimit, true],
    ["fault-non-json-frame", 502, COPILOT_DETAIL.malformed, true],
    ["fault-socket-cut", 502, COPILOT_DETAIL.disconnected, true],
    ["fault-handshake-refused", 502, COPILOT_DETAIL.refused, true],
    ["fault-handshake-forbidden", 502, COPILOT_DETAIL.refused, true],
    ["fault-silent", 502, COPILOT_DETAIL.incomplete, true],
    ["fault-no-text-parts", 500, COPILOT_DETAIL.empty, true],
  ];
  for (const [name, status, detail, retryable] of cases) {
    it(`${name}: ${status} ${retryable ? "retryable" : "permanent"}`, () => {
      const fixture = chatFixture(name);
      expect(outcome(() => parseCopilotChat(fixture.exchange))).toEqual({ status, detail, retryable });
      // the same with every event in one frame (when there are frames)
      const texts = receivedTexts(fixture.exchange);
      if (texts.length > 0 && !texts.some((text) => !text.startsWith("{"))) {
        expect(outcome(() => parseCopilotChat(reframed(fixture.exchange, [texts.join("")])))).toEqual({ status, detail, retryable });
      }
    });
  }

  it("errors are typed and their detail never carries provider text", () => {
    const error = (() => {
      try {
        parseCopilotChat(chatFixture("rate-limit-error").exchange);
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(UpstreamError);
    expect(String((error as UpstreamError).detail)).not.toMatch(/too many messages/i);
    expect(String((error as UpstreamError).cause)).toMatch(/throttled/);
    expect(() => parseCopilotChat(chatFixture("fault-no-text-parts").exchange)).toThrow(UnexpectedResultError);
  });

  it("each failure carries its own public code (challenge, login wall, rate limit, other), however it is framed", () => {
    const codes: Array<[string, string]> = [
      ["fault-cloudflare-challenge", "provider_challenge"],
      ["fault-null-challenge", "provider_challenge"],
      ["fault-banned", "provider_login_required"],
      ["rate-limit-error", "provider_rate_limited"],
      ["fault-error-event", "upstream_error"],
      ["fault-socket-cut", "upstream_error"],
    ];
    const codeOf = (run: () => unknown): string | null => {
      try {
        run();
        return null;
      } catch (error) {
        return error instanceof ServiceError ? error.code : null;
      }
    };
    for (const [name, code] of codes) {
      const fixture = chatFixture(name);
      expect(
        codeOf(() => parseCopilotChat(fixture.exchange)),
        name,
      ).toBe(code);
      const texts = receivedTexts(fixture.exchange);
      if (texts.length > 0)
        expect(
          codeOf(() => parseCopilotChat(reframed(fixture.exchange, [texts.join("\u001e")]))),
          name,
        ).toBe(code);
    }
    for (const [name, code] of [
      ["start-unauthorized", "provider_login_required"],
      ["start-blocked", "provider_login_required"],
      ["start-too-many-requests", "provider_rate_limited"],
      ["start-no-turns-left", "provider_rate_limited"],
    ] as const) {
      const { start } = startFixture(name);
      for (const chunks of everySplit(utf8(start.body))) {
        expect(parseCopilotStart({ status: start.status, chunks, complete: true, error: null })?.code, name).toBe(code);
      }
    }
  });

  it("settles only on done or a failure event", () => {
    expect(chatSettled(readChat(chatFixture("fault-silent").exchange))).toBe(false);
    expect(chatSettled(readChat(chatFixture("fault-cloudflare-challenge").exchange))).toBe(false);
    expect(readChat(chatFixture("fault-cloudflare-challenge").exchange).unsolvedChallenge).toMatchObject({ method: "cloudflare" });
    expect(chatSettled(readChat(chatFixture("fault-banned").exchange))).toBe(true);
    expect(chatSettled(readChat(chatFixture("fault-chat-message-error").exchange))).toBe(true);
    expect(readChat(chatFixture("search-default").exchange).send).toMatchObject({ event: "send", mode: "search" });
  });
});

describe("POST /c/api/start", () => {
  const cases: Array<[string, { detail: string; retryable: boolean } | null]> = [
    ["start-ok", null],
    ["start-unauthorized", { detail: COPILOT_DETAIL.login, retryable: false }],
    ["start-blocked", { detail: COPILOT_DETAIL.login, retryable: false }],
    ["start-too-many-requests", { detail: COPILOT_DETAIL.rateLimit, retryable: true }],
    ["start-no-turns-left", { detail: COPILOT_DETAIL.rateLimit, retryable: true }],
  ];
  for (const [name, expected] of cases) {
    it(`${name} at every split of the body`, () => {
      const { start } = startFixture(name);
      for (const chunks of everySplit(utf8(start.body))) {
        const failure = parseCopilotStart({ status: start.status, chunks, complete: true, error: null });
        expect(failure === null ? null : { detail: failure.detail, retryable: failure.retryable, status: failure.status }).toEqual(
          expected === null ? null : { ...expected, status: 502 },
        );
      }
    });
  }

  it("a start still running or answered with something else says nothing", () => {
    expect(parseCopilotStart({ status: 0, chunks: [], complete: false, error: null })).toBeNull();
    expect(parseCopilotStart({ status: 200, chunks: [utf8('{"isBlocked":')], complete: false, error: null })).toBeNull();
    expect(parseCopilotStart({ status: 200, chunks: [utf8("<html>")], complete: true, error: null })).toBeNull();
    expect(parseCopilotStart({ status: 503, chunks: [], complete: true, error: null })?.detail).toBe(COPILOT_DETAIL.startFailed);
  });
});

describe("frames", () => {
  it("splits concatenated objects and \\x1e records, with strings holding braces, quotes and separators", () => {
    expect(decodeFrame('{"a":"}{"}{"b":"\\"}"}')).toEqual({ values: [{ a: "}{" }, { b: '"}' }], malformed: false });
    expect(decodeFrame('{"a":1}\u001e{"b":[1,{"c":2}]}\u001e')).toEqual({ values: [{ a: 1 }, { b: [1, { c: 2 }] }], malformed: false });
    expect(decodeFrame(' {"a":1}\n {"b":2} ')).toEqual({ values: [{ a: 1 }, { b: 2 }], malformed: false });
    expect(decodeFrame('{"a":"x\u001ey"}')).toEqual({ values: [], malformed: true });
    expect(decodeFrame("")).toEqual({ values: [], malformed: false });
  });

  it("keeps the values before damage and flags the frame", () => {
    expect(decodeFrame('{"a":1}{"b":')).toEqual({ values: [{ a: 1 }], malformed: true });
    expect(decodeFrame('{"a":1} trailing')).toEqual({ values: [{ a: 1 }], malformed: true });
    expect(decodeFrame("not json")).toEqual({ values: [], malformed: true });
    expect(decodeFrame('"a"1')).toEqual({ values: ["a", 1], malformed: false });
  });
});

describe("urls", () => {
  it("normalises only text fragments and redirect wrappers", () => {
    expect(normaliseAnswerUrl(" https://example.com ")).toBe("https://example.com");
    expect(normaliseAnswerUrl("https://example.com/a?utm_source=x#top")).toBe("https://example.com/a?utm_source=x#top");
    expect(normaliseAnswerUrl("https://example.com/a#:~:text=foo")).toBe("https://example.com/a");
    expect(normaliseAnswerUrl("https://example.com/a#top:~:text=foo")).toBe("https://example.com/a#top");
    expect(normaliseAnswerUrl("https://www.google.com/url?q=https%3A%2F%2Fexample.com%2Fx%23%3A~%3Atext%3Dy&sa=U")).toBe(
      "https://example.com/x",
    );
    expect(normaliseAnswerUrl("https://www.google.com/url?q=javascript:alert(1)")).toBe("https://www.google.com/url?q=javascript:alert(1)");
    expect(normaliseAnswerUrl("https://www.bing.com/ck/a?u=a1aHR0cHM6Ly9leGFtcGxlLmNvbS9i&ntb=1")).toBe("https://example.com/b");
    expect(normaliseAnswerUrl("https://www.bing.com/ck/a?u=xx")).toBe("https://www.bing.com/ck/a?u=xx");
    expect(normaliseAnswerUrl("mailto:a@example.com")).toBeNull();
    expect(normaliseAnswerUrl("/relative")).toBeNull();
  });

  it("knows Copilot's and Microsoft's own hosts, and the origin scraped", () => {
    expect(isInternalUrl("https://copilot.microsoft.com/chats/1", null)).toBe(true);
    expect(isInternalUrl("https://th.bing.com/th/id/x", null)).toBe(true);
    expect(isInternalUrl("https://login.live.com/", null)).toBe(true);
    expect(isInternalUrl("https://learn.microsoft.com/en-us/", null)).toBe(false);
    expect(isInternalUrl("http://127.0.0.1:8788/copilot/chats/1", "http://127.0.0.1:8788/copilot")).toBe(true);
    expect(isInternalUrl("http://127.0.0.1:8788/grok/", "http://127.0.0.1:8788/copilot")).toBe(false);
  });

  it("finds markdown link targets as written, not images", () => {
    expect(
      markdownLinkTargets(
        "[a](https://x.org/K%C3%B6ln) [b](https://x.org/Köln) ![i](https://x.org/i.png) <https://x.org/auto> [c][r]\n\n[r]: https://x.org/ref",
      ),
    ).toEqual(["https://x.org/K%C3%B6ln", "https://x.org/Köln", "https://x.org/auto", "https://x.org/ref"]);
  });
});
