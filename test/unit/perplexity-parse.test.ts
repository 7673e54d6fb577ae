/**
 * The Perplexity parser against replica-rendered and hand-written `perplexity_ask` bodies (test/fixtures/perplexity/): every fixture split at
 * every byte boundary (sampled for the larger ones), exact expected fields, and every failure signature of
 * providers/perplexity.md §5. Expected values of the replica-rendered fixtures are derived here from the scenario data
 * by the sheet's §4 mapping (not by the parser); the hand-written fixtures have literal expectations.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { type PerplexityRun, resolvePerplexityRun } from "../../replicas/perplexity/scenarios";
import { ServiceError } from "../../src/errors";
import type { PerplexityAnswer } from "../../src/scrapers/perplexity/declaration";
import { normaliseMarkdownLinks } from "../../src/scrapers/perplexity/markdown-links";
import { citationMarkerNumbers, mapCitationMarkers } from "../../src/scrapers/perplexity/markers";
import { parsePerplexityCapture } from "../../src/scrapers/perplexity/parse";
import { normaliseSourceUrl } from "../../src/scrapers/perplexity/urls";
import type { StreamCapture } from "../../src/browser/page/capture/types";
import { everySplit, sampledSplits, utf8 } from "../support/chunk-splits";
import { FIXTURES } from "../fixtures/perplexity/generate";
import { expectedPerplexityFields } from "../support/oracles/perplexity";

// Parsing thousands of splits is CPU-bound, and the machine running the suite may be shared.
vi.setConfig({ testTimeout: 60_000 });

// ---------------------------------------------------------------------------------------------------------------
// Helpers

const FIXTURE_DIR = new URL("../fixtures/perplexity/", import.meta.url);
/** Bodies up to this size are cut at every byte boundary; larger ones at sampled and multi-byte boundaries. */
const EVERY_SPLIT_LIMIT = 10_000;

function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name.includes(".") ? name : `${name}.sse`, FIXTURE_DIR)));
}

function capture(chunks: Uint8Array[] | Uint8Array | string, overrides: Partial<StreamCapture> = {}): StreamCapture {
  const list = typeof chunks === "string" ? [utf8(chunks)] : chunks instanceof Uint8Array ? [chunks] : chunks;
  return {
    url: "https://www.perplexity.ai/rest/sse/perplexity_ask",
    status: 200,
    contentType: "text/event-stream; charset=utf-8",
    requestBody: '{"query_str":"q","params":{"sources":["web"]}}',
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
}
type Outcome = { answer: PerplexityAnswer } | { failure: Failure };

function outcome(input: StreamCapture, answerHtml: string | null = null): Outcome {
  try {
    return { answer: parsePerplexityCapture(input, answerHtml) };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { failure: { name: error.name, status: error.status, detail: error.detail, retryable: error.retryable } };
  }
}

function answerOf(input: StreamCapture, answerHtml: string | null = null): PerplexityAnswer {
  const result = outcome(input, answerHtml);
  if ("failure" in result) throw new Error(`expected an answer, got ${JSON.stringify(result.failure)}`);
  return result.answer;
}

function failureOf(input: StreamCapture): Failure {
  const result = outcome(input);
  if (!("failure" in result)) throw new Error(`expected a failure, got ${JSON.stringify(result.answer).slice(0, 200)}`);
  return result.failure;
}

function splitsOf(body: Uint8Array): Uint8Array[][] {
  return body.length <= EVERY_SPLIT_LIMIT ? everySplit(body) : sampledSplits(body, 32);
}

/** Parses every split of the body and checks that each gives the same outcome as the whole body. */
function expectSameOutcomeForEverySplit(body: Uint8Array, overrides: Partial<StreamCapture> = {}): Outcome {
  const whole = outcome(capture([body], overrides));
  for (const chunks of splitsOf(body)) {
    const split = outcome(capture(chunks, overrides));
    if (JSON.stringify(split) !== JSON.stringify(whole)) {
      expect(split, `split into ${chunks.map((chunk) => chunk.length).join("+")} bytes`).toEqual(whole);
    }
  }
  return whole;
}

/** The sheet's §4 mapping applied to scenario data: the oracle's, written by hand (test/support/oracles/perplexity.ts). */
function expectedFromRun(run: PerplexityRun): PerplexityAnswer {
  return expectedPerplexityFields(run);
}

// ---------------------------------------------------------------------------------------------------------------
// Replica-rendered fixtures

describe("replica-rendered fixtures", () => {
  const answered = Object.entries(FIXTURES).filter(([name, spec]) => spec.fault === null && name !== "final-no-answer");
  for (const [name, spec] of answered) {
    it(`${name}: exact fields, whatever the chunking`, () => {
      const expected = expectedFromRun(resolvePerplexityRun(spec.prompt, { searchEnabled: spec.searchEnabled }));
      const result = expectSameOutcomeForEverySplit(fixture(name));
      expect(result).toEqual({ answer: expected });
    });
  }

  it("the fixtures are what the replica renders today (regenerate with generate.ts when scenarios change)", async () => {
    const { DEFAULT_ECHO, renderPerplexityBody } = await import("../../replicas/perplexity/stream");
    for (const [name, spec] of Object.entries(FIXTURES)) {
      const run = resolvePerplexityRun(spec.prompt, { searchEnabled: spec.searchEnabled });
      expect(renderPerplexityBody(run, DEFAULT_ECHO, spec.fault).bytes, name).toEqual(fixture(name));
    }
  });
});

describe("edge cases of the mapping", () => {
  it("the sheet's own transcript (perplexity.md §3)", () => {
    expect(expectSameOutcomeForEverySplit(fixture("sheet-transcript"))).toEqual({
      answer: {
        result: "Example answer [1].",
        result_markdown: "Example answer [1].",
        sources: [{ title: "Example page", url: "https://example.com/a", snippet: "Example snippet" }],
        related_questions: ["Example follow-up?"],
      },
    });
  });

  it("the terminal answer wins over the chunk join when it renumbers the markers", () => {
    const answer = answerOf(capture(fixture("renumbered")));
    expect(answer.result_markdown).toBe(
      "Rust guarantees memory safety without a garbage collector [1]. Its ownership model is checked at compile time [2], and the borrow checker enforces it [3].",
    );
    expect(answer.sources.map((source) => source.url)).toEqual([
      "https://en.wikipedia.org/wiki/Rust_(programming_language)",
      "https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html",
      "https://doc.rust-lang.org/book/ch04-02-references-and-borrowing.html",
    ]);
  });

  it("diff mode without a materialized terminal: patches (add, remove, replace) and the chunk join", () => {
    const answer = answerOf(capture(fixture("diffs-only")));
    expect(answer.sources.map((source) => source.url)).not.toContain("https://example.org/withdrawn");
    expect(answer.sources[1]?.snippet).toBe("Light-dependent reactions and the Calvin cycle.");
    expect(answer.result).toBe(answer.result_markdown);
  });

  it("keeps citation markers as [n] in plain text, in tables and next to each other; code stays verbatim", () => {
    const table = answerOf(capture(fixture("table-markers")));
    expect(table.result).toContain("Mars\t2\t[2][3]");
    expect(table.result).not.toContain("|");
    const code = answerOf(capture(fixture("code-fence")));
    expect(code.result).toContain("print(values[1])  # prints 20");
    expect(code.result).toContain("so arr[2] is the third element");
    expect(code.result_markdown).toContain("```python");
  });

  it("unicode split across chunks and bytes survives exactly", () => {
    const answer = answerOf(capture(fixture("unicode")));
    expect(answer.result_markdown).toContain("👨‍👩‍👧‍👦");
    expect(answer.result_markdown).toContain("🇯🇵 🇰🇷");
    expect(answer.result_markdown).toContain("cafe\u0301");
    expect(answer.sources[0]?.url).toBe("https://ja.wikipedia.org/wiki/東京");
  });

  it("normalises source URLs: text fragments, Google redirects, Perplexity's utm_source; snippets default to ''", () => {
    const answer = answerOf(capture(fixture("no-snippet")));
    expect(answer.sources).toEqual([
      { title: "Honey | National Honey Board", url: "https://honey.com/about-honey", snippet: "" },
      { title: "Ancient honey", url: "https://www.smithsonianmag.com/science-nature/honey", snippet: "" },
      { title: "Why honey lasts", url: "https://www.example.edu/honey-chemistry?lang=en", snippet: "Low water content and acidity." },
      {
        title: "How bees make honey",
        url: "https://www.beekeeping.example.com/how-bees-make-honey?ref=guide#steps",
        snippet: "Nectar is evaporated in the hive.",
      },
    ]);
  });

  it("web_search=false: no sources and no markers", () => {
    const answer = answerOf(capture(fixture("web-search-off")));
    expect(answer.sources).toEqual([]);
    expect(answer.result_markdown).not.toMatch(/\[\d+\]/);
  });

  it("drops results without a usable URL and renumbers the markers (outside code) to stay indexes into sources", () => {
    expect(expectSameOutcomeForEverySplit(fixture("dropped-results"))).toEqual({
      answer: {
        result_markdown: "First[1], attachment, third[2], file, fifth[3], beyond[9].\n\n`list[3]` stays, and so does\n\n```\nx = y[2]\n```",
        result: "First[1], attachment, third[2], file, fifth[3], beyond[9].\n\nlist[3] stays, and so does\n\nx = y[2]",
        sources: [
          { title: "First", url: "https://first.example/a", snippet: "one" },
          { title: "Third", url: "https://third.example/c", snippet: "three" },
          { title: "fifth.example", url: "https://fifth.example/e", snippet: "" },
        ],
        related_questions: ["Next?"],
      },
    });
  });

  it("newer variant: the answer in a workflow_block text payload", () => {
    expect(expectSameOutcomeForEverySplit(fixture("workflow-block"))).toEqual({
      answer: {
        result_markdown: "Anglerfish use a glowing lure to hunt [1].",
        result: "Anglerfish use a glowing lure to hunt [1].",
        sources: [
          {
            title: "Anglerfish - Wikipedia",
            url: "https://en.wikipedia.org/wiki/Anglerfish",
            snippet: "Anglerfish are fish of the order Lophiiformes.",
          },
        ],
        related_questions: ["How deep do anglerfish live?"],
      },
    });
  });

  it("older variant: the FINAL step of the `text` field (its answer a JSON string with web_results)", () => {
    expect(expectSameOutcomeForEverySplit(fixture("text-final"))).toEqual({
      answer: {
        result_markdown: "Saturn has the most confirmed moons [1].",
        result: "Saturn has the most confirmed moons [1].",
        sources: [{ title: "Saturn's moons | NASA", url: "https://science.nasa.gov/saturn/moons/", snippet: "Saturn has 274 moons." }],
        related_questions: ["How many moons does Jupiter have?"],
      },
    });
  });

  it("tolerates SSE noise: a BOM, comments, retry/id fields, unknown events, multi-line data", () => {
    expect(expectSameOutcomeForEverySplit(fixture("sse-noise"))).toEqual({
      answer: { result_markdown: "Noise tolerated.", result: "Noise tolerated.", sources: [], related_questions: ["Why?"] },
    });
  });

  it("a terminal frame followed by more bytes or a broken connection still answers", () => {
    const body = fixture("sheet-transcript");
    const withTrailingGarbage = new Uint8Array([...body, ...utf8('event: message\ndata: {"final_sse_message":')]);
    expect(answerOf(capture(withTrailingGarbage, { complete: false, error: "network error" })).result_markdown).toBe("Example answer [1].");
  });
});

describe("DOM fallback for sources", () => {
  const noResults = [
    'event: message\ndata: {"status":"COMPLETED","final_sse_message":true,"blocks":[{"intended_usage":"ask_text","markdown_block":{"progress":"DONE","chunks":[],"answer":"Paris [1][2] and Lyon [3]."}}]}\n\n',
  ].join("");
  const html = `<div class="prose">Paris <span class="citation inline" data-pplx-citation="" data-pplx-citation-url="https://en.wikipedia.org/wiki/Paris#:~:text=capital"><a href="https://en.wikipedia.org/wiki/Paris" aria-label="Paris - Wikipedia"><span>wikipedia +1</span></a></span> and Lyon <span class="citation" data-pplx-citation data-pplx-citation-url="https://www.lyon.fr/"><a aria-label="Ville de Lyon &amp; métropole">lyon</a></span> <span class="citation" data-pplx-citation data-pplx-citation-url="https://en.wikipedia.org/wiki/Paris"><a aria-label="dup">wikipedia</a></span></div>`;

  it("reads the citation pills in order of first appearance when the stream has no web results", () => {
    expect(answerOf(capture(noResults), html).sources).toEqual([
      { title: "Paris - Wikipedia", url: "https://en.wikipedia.org/wiki/Paris", snippet: "" },
      { title: "Ville de Lyon & métropole", url: "https://www.lyon.fr/", snippet: "" },
    ]);
    expect(answerOf(capture(noResults)).sources).toEqual([]);
  });

  it("is not used when the stream has web results", () => {
    expect(answerOf(capture(fixture("sheet-transcript")), html).sources).toEqual([
      { title: "Example page", url: "https://example.com/a", snippet: "Example snippet" },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Failures (perplexity.md §5)

describe("failure signatures", () => {
  const expectClientSafe = (failure: Failure): void => {
    expect(failure.detail).not.toMatch(/[{}<>]|secret|overloaded|Just a moment/i);
    expect(failure.detail.length).toBeGreaterThan(10);
  };

  it("Cloudflare challenge page on perplexity_ask (403, or even 200 HTML) → 502 retryable", () => {
    for (const status of [403, 200, 503]) {
      const failure = failureOf(capture(fixture("challenge.html"), { status, contentType: "text/html" }));
      expect(failure).toMatchObject({ name: "UpstreamError", status: 502, retryable: true });
      expect(failure.detail).toMatch(/anti-bot challenge/);
      expectClientSafe(failure);
    }
  });

  it("HTTP statuses: 401 login wall (permanent), 403 {} refused, 429 rate limit, 5xx, other 4xx, no response", () => {
    const cases: Array<[number, string, boolean, RegExp]> = [
      [401, '{"detail":"Not authenticated"}', false, /login/],
      [403, "{}", true, /refused/],
      [429, '{"detail":"Too many requests"}', true, /rate limit/],
      [500, '{"error_code":"INTERNAL_SERVER_ERROR","error_message":"boom"}', true, /HTTP 500.*retry/],
      [502, "", true, /HTTP 502/],
      [400, '{"detail":"query_str: must be a non-blank string"}', false, /HTTP 400/],
      [0, "", true, /could not be reached/],
    ];
    for (const [status, body, retryable, detail] of cases) {
      const failure = failureOf(capture(body, { status, contentType: "application/json", error: status === 0 ? "net::ERR_FAILED" : null }));
      expect(failure, String(status)).toMatchObject({ name: "UpstreamError", status: 502, retryable });
      expect(failure.detail, String(status)).toMatch(detail);
      expectClientSafe(failure);
    }
  });

  it("disconnect: the stream closes without final_sse_message → 502 retryable, at every split", () => {
    const result = expectSameOutcomeForEverySplit(fixture("disconnect"), { complete: false, error: "network error" });
    expect(result).toEqual({
      failure: {
        name: "UpstreamError",
        status: 502,
        retryable: true,
        detail: "Perplexity's stream ended before the answer was complete. Safe to retry.",
      },
    });
  });

  it("text_completed:true alone is not the end", () => {
    expect(failureOf(capture(fixture("text-completed-only")))).toMatchObject({
      status: 502,
      retryable: true,
      detail: expect.stringMatching(/ended before/),
    });
  });

  it("malformed stream: unparsable JSON and a final frame whose blocks is not a list → 502 retryable", () => {
    const result = expectSameOutcomeForEverySplit(fixture("malformed-stream"));
    expect(result).toEqual({
      failure: {
        name: "UpstreamError",
        status: 502,
        retryable: true,
        detail: "Perplexity's answer stream could not be read. Safe to retry.",
      },
    });
  });

  it("in-stream error_code / error_message → 502 retryable without echoing the provider's words", () => {
    const failure = failureOf(capture(fixture("error-event")));
    expect(failure).toMatchObject({ name: "UpstreamError", status: 502, retryable: true });
    expect(failure.detail).toBe("Perplexity reported an error while answering. Safe to retry.");
    expectClientSafe(failure);
  });

  it("COMPLETED with no text in any answer block (web results present) → 500", () => {
    for (const name of ["final-no-answer", "empty-answer"]) {
      expect(expectSameOutcomeForEverySplit(fixture(name)), name).toEqual({
        failure: {
          name: "UnexpectedResultError",
          status: 500,
          retryable: true,
          detail: "Perplexity returned an empty answer. Safe to retry.",
        },
      });
    }
  });

  it("an empty body, or a body of no events → 502 retryable", () => {
    expect(failureOf(capture([]))).toMatchObject({ status: 502, retryable: true });
    expect(failureOf(capture(": just a comment\n\n"))).toMatchObject({ status: 502, retryable: true });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Helpers of the module

describe("source URL normalisation", () => {
  it("changes only what DESIGN.md §4 allows", () => {
    const cases: Array<[string, string | null]> = [
      ["https://example.com", "https://example.com"],
      ["https://example.com/a b?x=1&y=%20", "https://example.com/a b?x=1&y=%20"],
      ["https://example.com/p#:~:text=hello", "https://example.com/p"],
      ["https://example.com/p#intro:~:text=hello", "https://example.com/p#intro"],
      ["https://example.com/p#intro", "https://example.com/p#intro"],
      ["https://www.google.co.uk/url?q=https%3A%2F%2Fa.example%2Fx&sa=D", "https://a.example/x"],
      ["https://www.google.com/url?url=https://b.example/y", "https://b.example/y"],
      ["https://www.google.com/search?q=https://c.example", "https://www.google.com/search?q=https://c.example"],
      ["https://a.example/?utm_source=perplexity", "https://a.example/"],
      ["https://a.example/?utm_source=perplexity.ai&utm_medium=x", "https://a.example/?utm_medium=x"],
      ["https://a.example/?utm_source=newsletter", "https://a.example/?utm_source=newsletter"],
      ["  https://a.example/x  ", "https://a.example/x"],
      ["ftp://a.example/x", null],
      ["not a url", null],
    ];
    for (const [input, expected] of cases) expect(normaliseSourceUrl(input), input).toBe(expected);
  });
});

describe("citation markers", () => {
  it("are found and rewritten only in prose", () => {
    const markdown = "A[1] b[2](https://x.example) `c[3]`\n```\nd[4]\n```\ne[5][6]";
    expect(citationMarkerNumbers(markdown)).toEqual([1, 5, 6]);
    expect(mapCitationMarkers(markdown, (n) => (n === 5 ? null : n * 10))).toBe(
      "A[10] b[2](https://x.example) `c[3]`\n```\nd[4]\n```\ne[60]",
    );
  });
});

describe("link URLs in the markdown (one normalisation per value, DESIGN.md §4)", () => {
  it("follow the sources' rule in inline links, titles, autolinks and reference definitions; code is left alone", () => {
    const markdown = [
      'See [a](https://a.example/p?utm_source=perplexity&x=1 "A title") and [b](<https://b.example/q#:~:text=hi>).',
      "Wiki [c](https://en.wikipedia.org/wiki/Rust_(programming_language)#:~:text=safe) and <https://www.google.com/url?q=https://d.example/r&sa=U>.",
      "`[e](https://e.example/?utm_source=perplexity)` stays.",
      "```",
      "[f](https://f.example/#:~:text=kept)",
      "```",
      "[ref]: https://g.example/s?utm_source=perplexity",
      "A [plain](https://h.example/t?utm_source=newsletter) link[1].",
    ].join("\n");
    expect(normaliseMarkdownLinks(markdown)).toBe(
      [
        'See [a](https://a.example/p?x=1 "A title") and [b](<https://b.example/q>).',
        "Wiki [c](https://en.wikipedia.org/wiki/Rust_(programming_language)) and <https://d.example/r>.",
        "`[e](https://e.example/?utm_source=perplexity)` stays.",
        "```",
        "[f](https://f.example/#:~:text=kept)",
        "```",
        "[ref]: https://g.example/s",
        "A [plain](https://h.example/t?utm_source=newsletter) link[1].",
      ].join("\n"),
    );
  });

  it("the parsed answer carries the same URL in result_markdown as in sources, whatever the chunking", () => {
    const result = expectSameOutcomeForEverySplit(fixture("inline-links"));
    if (!("answer" in result)) throw new Error("expected an answer");
    const linked = [...(result.answer.result_markdown ?? "").matchAll(/\]\((https?:[^)\s]+)\)|<(https?:[^>]+)>/g)].map((m) => m[1] ?? m[2]);
    expect(linked.length).toBeGreaterThan(0);
    for (const url of linked) expect(result.answer.sources.map((source) => source.url)).toContain(url);
  });
});
