/**
 * The ChatGPT parser against conversation streams (test/fixtures/chatgpt/): the replica's scenarios as the
 * replica sends them, the sheet's own transcript, hand-written edge cases and every failure signature of
 * providers/chatgpt.md §5. Every stream is parsed cut at every byte (sampled for long bodies: still every multi-byte
 * character), so lines, frames and UTF-8 sequences split anywhere.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { expectedChatgptFields } from "../../replicas/chatgpt/expected";
import { CHATGPT_SCENARIOS } from "../../replicas/chatgpt/scenarios";
import { ServiceError } from "../../src/errors";
import type { ChatgptParsedAnswer } from "../../src/scrapers/chatgpt/declaration";
import { CHATGPT_DETAIL } from "../../src/scrapers/chatgpt/failures";
import { parseChatgptCapture } from "../../src/scrapers/chatgpt/parse";
import type { StreamCapture } from "../../src/browser/page/capture/types";
import { everySplit, sampledSplits, utf8 } from "../support/chunk-splits";

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const FIXTURES = new URL("../fixtures/chatgpt/", import.meta.url);

function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name, FIXTURES)));
}

/** The prompt each replica fixture was recorded with (it selects the scenario; the default quotes it). */
function fixturePrompt(trigger: string | null): string {
  return trigger === null ? "What is a replica fixture?" : `${trigger} fixture`;
}

function capture(chunks: Uint8Array[], overrides: Partial<StreamCapture> = {}): StreamCapture {
  return {
    url: "https://chatgpt.com/backend-anon/f/conversation",
    status: 200,
    contentType: "text/event-stream; charset=utf-8",
    requestBody: null,
    chunks,
    complete: true,
    error: null,
    ...overrides,
  };
}

/**
 * Every split of short bodies; for longer ones (a parse renders markdown twice, so thousands of splits are slow),
 * 128 evenly spread cuts plus a cut at every byte of every multi-byte character, the whole body and one byte per chunk.
 */
function splitsOf(body: Uint8Array): Uint8Array[][] {
  return body.length <= 8_192 ? everySplit(body) : sampledSplits(body, 128);
}

/** Long enough for a few thousand parses on a busy machine. */
const SLOW = 60_000;

/** Parses the body at every split and expects the same answer each time (one diff on the first mismatch). */
function expectAnswerAtEverySplit(body: Uint8Array, expected: ChatgptParsedAnswer, overrides: Partial<StreamCapture> = {}): void {
  const wanted = JSON.stringify(expected);
  for (const chunks of splitsOf(body)) {
    const answer = parseChatgptCapture(capture(chunks, overrides));
    if (JSON.stringify(answer) !== wanted) {
      expect(answer, `split into ${chunks.map((chunk) => chunk.length).join("+")} bytes`).toEqual(expected);
    }
  }
}

interface Failure {
  name: string;
  status: number;
  detail: string;
  retryable: boolean;
}

function failureOf(input: StreamCapture): Failure {
  try {
    parseChatgptCapture(input);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { name: error.name, status: error.status, detail: error.detail, retryable: error.retryable };
  }
  throw new Error("expected the parse to fail");
}

function expectFailureAtEverySplit(body: Uint8Array, expected: Failure, overrides: Partial<StreamCapture> = {}): void {
  for (const chunks of splitsOf(body)) expect(failureOf(capture(chunks, overrides))).toEqual(expected);
}

const upstream = (detail: string, retryable: boolean): Failure => ({ name: "UpstreamError", status: 502, detail, retryable });
const EMPTY: Failure = { name: "UnexpectedResultError", status: 500, detail: CHATGPT_DETAIL.empty, retryable: true };

// ---------------------------------------------------------------------------------------------------------------
// Answers

describe("replica scenarios recorded as fixtures: every field, at every split", () => {
  for (const scenario of CHATGPT_SCENARIOS) {
    it(
      scenario.id,
      () => {
        const expected = expectedChatgptFields(scenario, fixturePrompt(scenario.trigger));
        expectAnswerAtEverySplit(fixture(`${scenario.id}.sse`), expected);
      },
      SLOW,
    );
  }

  it("the old cumulative format gives the same answer as the v1 encoding", () => {
    const scenario = CHATGPT_SCENARIOS.find((candidate) => candidate.id === "default");
    if (scenario === undefined) throw new Error("no default scenario");
    const body = fixture("legacy-default.sse");
    expect(new TextDecoder().decode(body)).not.toContain("delta_encoding");
    expectAnswerAtEverySplit(body, expectedChatgptFields(scenario, fixturePrompt(null)));
  });
});

describe("the sheet's transcript (chatgpt.md §3)", () => {
  const expected: ChatgptParsedAnswer = {
    result: "Example answer with a source (Example).",
    result_markdown: "Example answer with a source ([Example](https://example.com/a)).",
    links: [{ text: "Example", url: "https://example.com/a" }],
    search_queries: ["example query"],
    llm_model: "gpt-5-example",
  };

  it(
    "as printed: escaped markers, `event: delta` lines, a value-only frame, a patch mixing references and status",
    () => {
      expectAnswerAtEverySplit(fixture("sheet-example.sse"), expected);
    },
    SLOW,
  );

  it(
    "read leniently: CRLF, no `event:` lines, raw UTF-8 markers, a comment, a frame whose data spans two lines",
    () => {
      expectAnswerAtEverySplit(fixture("sheet-example-lenient.sse"), expected);
    },
    SLOW,
  );
});

describe("one URL rule in every field (DESIGN.md: one normalisation per value)", () => {
  it(
    "a citation, a link with `&amp;`, a reference definition and an autolink lose utm_source=chatgpt.com in the markdown and the links alike; code keeps it",
    () => {
      // written by hand from test/fixtures/chatgpt/tracking-every-form.sse
      expectAnswerAtEverySplit(fixture("tracking-every-form.sse"), {
        result:
          "Cited (Ex), written with an entity, as a reference and as https://ex.com/d.\n\nhttps://ex.com/code?utm_source=chatgpt.com stays.",
        result_markdown:
          "Cited ([Ex](https://ex.com/a)), written [with an entity](https://ex.com/b?x=1), as a [reference][r] and as <https://ex.com/d>.\n\n" +
          "`https://ex.com/code?utm_source=chatgpt.com` stays.\n\n[r]: https://ex.com/c",
        links: [
          { text: "Ex", url: "https://ex.com/a" },
          { text: "with an entity", url: "https://ex.com/b?x=1" },
          { text: "reference", url: "https://ex.com/c" },
          { text: "https://ex.com/d", url: "https://ex.com/d" },
        ],
        search_queries: ["tracking forms"],
        llm_model: "gpt-5",
      });
    },
    SLOW,
  );
});

describe("delta operations and completion", () => {
  it("append, truncate, replace, add, remove, created parents, nested patch paths; an unknown op is skipped", () => {
    expectAnswerAtEverySplit(fixture("ops.sse"), {
      result: "Final text cites (Docs).",
      result_markdown: "Final text cites ([Docs](https://docs.example.org/x)).",
      links: [{ text: "Docs", url: "https://docs.example.org/x" }],
      search_queries: ["ops query"],
      llm_model: "gpt-5-ops",
    });
  });

  it("an answer never marked finished counts once the stream says it is complete", () => {
    expectAnswerAtEverySplit(fixture("done-without-status.sse"), {
      result: "An answer whose status never changed.",
      result_markdown: "An answer whose status never changed.",
      links: [],
      search_queries: [],
      llm_model: "gpt-5",
    });
  });

  it("a finished answer stands when the connection breaks before [DONE]", () => {
    expectAnswerAtEverySplit(
      fixture("finished-then-cut.sse"),
      { result: "A finished answer.", result_markdown: "A finished answer.", links: [], search_queries: [], llm_model: "gpt-5" },
      { complete: false, error: "network error" },
    );
  });

  it("a message document without path and op starts a message, like `add` at the root", () => {
    expectAnswerAtEverySplit(fixture("add-without-path.sse"), {
      result: "Bare adds work too.",
      result_markdown: "Bare adds work too.",
      links: [],
      search_queries: ["bare add"],
      llm_model: "gpt-5-bare",
    });
  });

  it("the old format skips a broken snapshot: the next one supersedes it", () => {
    expectAnswerAtEverySplit(fixture("legacy-broken-snapshot.sse"), {
      result: "Old format, whole.",
      result_markdown: "Old format, whole.",
      links: [],
      search_queries: [],
      llm_model: "gpt-4o",
    });
  });

  it("hidden messages never leak: thoughts, the reasoning recap and commentary are not the answer", () => {
    const answer = parseChatgptCapture(capture([fixture("thinking-commentary.sse")]));
    expect(JSON.stringify(answer)).not.toMatch(/SECRET|Thought for/);
  });

  it("a tool call addressed to web.run in text content is not the answer", () => {
    const answer = parseChatgptCapture(capture([fixture("several-queries.sse")]));
    expect(answer.result_markdown).not.toContain("search_query");
  });

  it("a max_tokens finish returns the answer as far as it went", () => {
    const answer = parseChatgptCapture(capture([fixture("max-tokens.sse")]));
    expect(answer.result_markdown).toMatch(/And the third reason is$/);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Failures

describe("failures (chatgpt.md §5)", () => {
  it("malformed_stream: a broken frame and an in-stream error → 502, retryable", () => {
    expectFailureAtEverySplit(fixture("fault-malformed-stream.sse"), upstream(CHATGPT_DETAIL.streamError, true));
  });

  it("a v1 delta that cannot be read loses text: 502 even though the stream ended normally", () => {
    expectFailureAtEverySplit(fixture("unreadable-delta.sse"), upstream(CHATGPT_DETAIL.unreadable, true));
  });

  it("an error in the answer's add frame → 502, retryable", () => {
    expectFailureAtEverySplit(fixture("error-in-add.sse"), upstream(CHATGPT_DETAIL.streamError, true));
  });

  it("an in-stream message-limit error → rate limit, retryable", () => {
    expectFailureAtEverySplit(fixture("error-frame-limit.sse"), upstream(CHATGPT_DETAIL.rateLimit, true));
  });

  it("disconnect: the stream breaks off mid-answer → 502 truncated, retryable", () => {
    expectFailureAtEverySplit(fixture("fault-disconnect.sse"), upstream(CHATGPT_DETAIL.truncated, true), {
      complete: false,
      error: "network error",
    });
  });

  it("a stream cut after the tool message, before any answer → 502 truncated", () => {
    expectFailureAtEverySplit(fixture("cut-before-answer.sse"), upstream(CHATGPT_DETAIL.truncated, true));
  });

  it("a body cut before its first frame → 502 truncated", () => {
    expect(failureOf(capture([], { complete: false, error: "network error" }))).toEqual(upstream(CHATGPT_DETAIL.truncated, true));
  });

  it("empty_answer: tool messages only, properly ended → 500", () => {
    expectFailureAtEverySplit(fixture("fault-empty-answer.sse"), EMPTY);
  });

  it("a finished answer that is blank, or only markers that resolve to nothing → 500", () => {
    expectFailureAtEverySplit(fixture("blank-answer.sse"), EMPTY);
    expectFailureAtEverySplit(fixture("markers-only.sse"), EMPTY);
  });

  const httpCases: Array<[string, string, number, Failure]> = [
    ["Cloudflare interstitial", "challenge.html", 403, upstream(CHATGPT_DETAIL.challenge, true)],
    ["Cloudflare interstitial answered 200", "challenge.html", 200, upstream(CHATGPT_DETAIL.challenge, true)],
    ["unusual activity", "unusual-activity.json", 403, upstream(CHATGPT_DETAIL.challenge, true)],
    ["rate limit", "rate-limited.json", 429, upstream(CHATGPT_DETAIL.rateLimit, true)],
    ["login needed", "unauthorized.json", 401, upstream(CHATGPT_DETAIL.login, false)],
    ["request rejected", "rejected.json", 422, upstream(CHATGPT_DETAIL.rejected, false)],
    ["server error", "server-error.json", 500, upstream(CHATGPT_DETAIL.serverError, true)],
    ["unsupported country", "unsupported-country.json", 403, upstream(CHATGPT_DETAIL.region, false)],
  ];
  for (const [label, name, status, expected] of httpCases) {
    it(`${label}: HTTP ${status} → ${expected.status}${expected.retryable ? ", retryable" : ", not retryable"}`, () => {
      expectFailureAtEverySplit(fixture(name), expected, {
        status,
        contentType: name.endsWith(".html") ? "text/html" : "application/json",
      });
    });
  }

  it("a request that never got a response → 502 unreachable", () => {
    expect(failureOf(capture([], { status: 0, complete: false, error: "Failed to fetch" }))).toEqual(
      upstream(CHATGPT_DETAIL.unreachable, true),
    );
  });

  it("details never echo provider text; the provider text is kept in the cause", () => {
    const body = fixture("error-frame-limit.sse");
    try {
      parseChatgptCapture(capture([body]));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      expect(Object.values(CHATGPT_DETAIL)).toContain(error.detail);
      expect(String(error.cause)).toContain("reached our limit");
      return;
    }
    throw new Error("expected a failure");
  });

  it("a prompt that mentions a challenge or a rate limit does not turn a cut stream into one", () => {
    const prompt = "Just a moment: too many requests? unusual activity has been detected";
    const cut = `event: delta_encoding\ndata: "v1"\n\ndata: {"type":"input_message","input_message":{"content":{"parts":[${JSON.stringify(prompt)}]}}}\n\n`;
    expect(failureOf(capture([utf8(cut)], { complete: false }))).toEqual(upstream(CHATGPT_DETAIL.truncated, true));
  });
});
