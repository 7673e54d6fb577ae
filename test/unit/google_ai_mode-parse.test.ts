/**
 * The Google AI Mode parser against `/async/folwr` fragments (test/fixtures/google_ai_mode/): every scenario of
 * the replica in two markup layouts, the sheet's own sample, hand-written edge cases and every failure signature of
 * providers/google_ai_mode.md §5. Bodies are split at every byte boundary (sampled for the longer bodies), so
 * multi-byte characters cut between chunks are covered. Expected values come from the scenario data
 * (fixtures/google_ai_mode/expected.ts), never from the parser.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_FIXTURE_PROMPT, recordedFixtures } from "../../replicas/google_ai_mode/record-fixtures";
import { pickAiModeScenario } from "../../replicas/google_ai_mode/scenarios";
import { ScraperDriftError, ServiceError, UnexpectedResultError, UpstreamError } from "../../src/errors";
import type { StreamCapture } from "../../src/browser/page/capture/types";
import { searchLocaleOf } from "../../src/scrapers/google_ai_mode/declaration";
import { searchUrl } from "../../src/scrapers/google_ai_mode/navigate";
import { type AiModeCapture, parseAiModeCapture } from "../../src/scrapers/google_ai_mode/parse";
import { sourceUrl, stripTextFragment } from "../../src/scrapers/google_ai_mode/urls";
import { everySplit, sampledSplits, utf8 } from "../support/chunk-splits";
import { expectedAnswer } from "../fixtures/google_ai_mode/expected";

const FIXTURES = new URL("../fixtures/google_ai_mode/", import.meta.url);
const fixture = (file: string): Uint8Array => new Uint8Array(readFileSync(new URL(file, FIXTURES)));

function captured(chunks: Uint8Array[], overrides: Partial<StreamCapture> = {}, pageCompleted = false): AiModeCapture {
  return {
    exchange: {
      url: "https://www.google.com/async/folwr?q=x&udm=50&async=_fmt:adl,_xsrf:t",
      status: 200,
      contentType: "text/html; charset=UTF-8",
      requestBody: null,
      chunks,
      complete: true,
      error: null,
      ...overrides,
    },
    pageCompleted,
  };
}

function failureOf(capture: AiModeCapture): ServiceError {
  try {
    parseAiModeCapture(capture);
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error("expected the parser to fail");
}

/** A detail never carries provider text: none of these words from the fixtures may appear in it. */
function expectClientSafe(error: ServiceError): void {
  expect(error.detail).not.toMatch(/Volcano|Danube|unusual traffic|robot|Etna|<|\{/i);
}

describe("recorded fixtures", () => {
  it("equal what the replica renders now (re-record with tsx replicas/google_ai_mode/record-fixtures.ts)", () => {
    for (const recorded of recordedFixtures()) {
      expect(new TextDecoder().decode(fixture(recorded.file)), recorded.file).toBe(recorded.html);
    }
  });

  it("cover every scenario in two layouts, with rotating class names", () => {
    const scenarioFixtures = recordedFixtures().filter((recorded) => recorded.scenario !== null);
    expect(scenarioFixtures.length).toBeGreaterThanOrEqual(26);
    const rotatedClasses = (file: string): string[] =>
      [...new TextDecoder().decode(fixture(file)).matchAll(/class="([^"]+)"/g)].map((match) => match[1] ?? "");
    expect(rotatedClasses("emoji.rotated.html")).not.toEqual(rotatedClasses("deutsch.rotated.html"));
  });
});

describe("scenario fixtures, split at byte boundaries", () => {
  for (const recorded of recordedFixtures()) {
    const scenario = recorded.scenario;
    if (scenario === null) continue;
    it(`${recorded.file}: every field exactly`, () => {
      const expected = expectedAnswer(scenario);
      const bytes = fixture(recorded.file);
      for (const chunks of sampledSplits(bytes, bytes.length > 20_000 ? 16 : 48)) {
        expect(parseAiModeCapture(captured(chunks))).toEqual(expected);
      }
    });
  }

  it("the default scenario quotes the prompt", () => {
    const answer = parseAiModeCapture(captured([fixture("default.classic.html")]));
    expect(answer.result.startsWith(`You asked: “${DEFAULT_FIXTURE_PROMPT}”.`)).toBe(true);
  });

  it("duplicate citations: one chip citing three sources, the same source behind two chips", () => {
    const answer = parseAiModeCapture(captured([fixture("duplicate-citations.rotated.html")]));
    expect(answer.citations.map((citation) => citation.url)).toEqual([
      "https://science.nasa.gov/mars/facts/",
      "https://www.esa.int/Science_Exploration/Space_Science/Mars_Express",
      "https://www.britannica.com/place/Mars-planet",
    ]);
    expect(answer.search_results).toHaveLength(4);
  });

  it("a panel with more entries than citations; the long answer is whole", () => {
    const many = parseAiModeCapture(captured([fixture("many-sources.classic.html")]));
    expect(many.citations).toHaveLength(2);
    expect(many.search_results).toHaveLength(12);
    const long = parseAiModeCapture(captured([fixture("long-answer.rotated.html")]));
    expect(utf8(long.result_markdown ?? "").length).toBeGreaterThan(30_000);
    expect(long.result_markdown).toContain("```\npeaks = {");
  });

  it("no chrome reaches the answer: chips, feedback, disclaimer, Thinking, the ready text, the sites button", () => {
    for (const file of ["default.rotated.html", "table-and-list.rotated.html", "default.classic.html"]) {
      const { result, result_markdown: markdown } = parseAiModeCapture(captured([fixture(file)]));
      for (const text of [result, markdown ?? ""]) {
        expect(text).not.toMatch(
          /Thinking|AI Mode response is ready|AI responses may include mistakes|AI can make mistakes|\d+ sites|Helpful|Learn more|\+\d/,
        );
      }
    }
  });
});

describe("the sheet's sample fragment (google_ai_mode.md §3)", () => {
  it("maps to the §4 fields at every split", () => {
    for (const chunks of everySplit(fixture("sheet-sample.html"))) {
      expect(parseAiModeCapture(captured(chunks))).toEqual({
        result: "Example answer about widgets.\n\n- First example point\n- Second example point 🙂",
        result_markdown: "Example answer about **widgets**.\n\n- First example point\n- Second example point 🙂",
        citations: [{ title: "Example page", url: "https://example.com/a", website_name: "Example Site" }],
        search_results: [
          { title: "Example page", url: "https://example.com/a" },
          { title: "Another page", url: "https://example.org/b" },
        ],
      });
    }
  });
});

describe("hand-written edge cases", () => {
  it("a localised disclaimer and Google links go, /url?q= links are unwrapped, short records and bad comments are tolerated", () => {
    for (const chunks of everySplit(fixture("localized-disclaimer.html"))) {
      expect(parseAiModeCapture(captured(chunks))).toEqual({
        result: "Der Rhein ist 1.233 Kilometer lang.\n\nMehr dazu bei Rhein und rhein.de.",
        result_markdown: "Der Rhein ist 1.233 Kilometer lang.\n\nMehr dazu bei Rhein und [rhein.de](https://www.rhein.de/geschichte).",
        citations: [{ title: "Rhein – Wikipedia", url: "https://de.wikipedia.org/wiki/Rhein", website_name: "de.wikipedia.org" }],
        search_results: [],
      });
    }
  });

  it("an answer that talks about CAPTCHAs is an answer, not a challenge", () => {
    const answer = parseAiModeCapture(captured([fixture("captcha-topic-answer.html")]));
    expect(answer.result).toBe(
      'A CAPTCHA page says "Our systems have detected unusual traffic from your computer network" and shows an "I\'m not a robot" box.\n\nSolving it proves you are human.',
    );
    expect(answer.citations).toEqual([]);
  });

  it("a fragment without any completion marker is truncated, unless the page showed the finished response", () => {
    const error = failureOf(captured([fixture("no-completion-marker.html")]));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.status).toBe(502);
    expect(error.retryable).toBe(true);
    expectClientSafe(error);
    const answer = parseAiModeCapture(captured([fixture("no-completion-marker.html")], {}, true));
    expect(answer.result_markdown).toBe("The Danube flows through ten countries.\n\nIt ends in the Black Sea.");
  });

  it("markup without the sheet's anchors is drift with a stable code", () => {
    const error = failureOf(captured([fixture("unknown-markup.html")]));
    expect(error).toBeInstanceOf(ScraperDriftError);
    expect(error instanceof ScraperDriftError ? error.driftCode : "").toBe("google_ai_mode.answer_container_missing");
    expect(error.status).toBe(502);
    expect(error.detail).not.toContain("sheet");
  });
});

describe("failure signatures (google_ai_mode.md §5)", () => {
  it("malformed_stream: a fragment cut inside the answer that ends normally → 502, retryable", () => {
    for (const file of ["malformed-stream.classic.html", "malformed-stream.rotated.html"]) {
      for (const chunks of sampledSplits(fixture(file), 32)) {
        const error = failureOf(captured(chunks));
        expect(error, file).toBeInstanceOf(UpstreamError);
        expect(error.status).toBe(502);
        expect(error.retryable).toBe(true);
        expectClientSafe(error);
      }
    }
  });

  it("disconnect: a body that broke off → 502, even when what arrived looks whole", () => {
    const cut = failureOf(captured([fixture("disconnect.classic.html")], { complete: false, error: "network error" }));
    expect(cut).toBeInstanceOf(UpstreamError);
    expect(cut.status).toBe(502);
    expect(cut.retryable).toBe(true);
    const whole = failureOf(captured([fixture("default.classic.html")], { complete: false, error: "net::ERR_CONNECTION_RESET" }));
    expect(whole.status).toBe(502);
  });

  it("empty_answer: the chrome without an answer → 500, retryable", () => {
    for (const file of ["empty-answer.classic.html", "empty-answer.rotated.html"]) {
      const error = failureOf(captured([fixture(file)]));
      expect(error, file).toBeInstanceOf(UnexpectedResultError);
      expect(error.status).toBe(500);
      expect(error.retryable).toBe(true);
    }
    expect(failureOf(captured([])).status).toBe(500);
    expect(failureOf(captured([utf8("  \n")])).status).toBe(500);
  });

  it("challenge: the unusual-traffic page (429, or a 200 carrying it) → 502, retryable", () => {
    const page = fixture("sorry-page.html");
    for (const status of [429, 200]) {
      const error = failureOf(captured([page], { status }));
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error.status).toBe(502);
      expect(error.retryable).toBe(true);
      expect(error.detail).toMatch(/CAPTCHA/);
      expect(error.code).toBe("provider_challenge");
      expectClientSafe(error);
    }
    expect(failureOf(captured([], { status: 403 })).code).toBe("provider_challenge");
  });

  it("a 429 without the unusual-traffic page is a rate limit, retryable", () => {
    const error = failureOf(captured([fixture("google-error-500.html")], { status: 429 }));
    expect(error.status).toBe(502);
    expect(error.code).toBe("provider_rate_limited");
    expect(error.retryable).toBe(true);
    expectClientSafe(error);
  });

  it("folwr non-200 → 502 (a sign-in demand is not retryable); no response at all → 502", () => {
    for (const status of [400, 404, 500, 503]) {
      const error = failureOf(captured([fixture("google-error-500.html")], { status }));
      expect(error.status, String(status)).toBe(502);
      expect(error.retryable).toBe(true);
      expectClientSafe(error);
    }
    const login = failureOf(captured([], { status: 401 }));
    expect(login.status).toBe(502);
    expect(login.retryable).toBe(false);
    expect(login.detail).toMatch(/sign in/);
    expect(login.code).toBe("provider_login_required");
    const unreachable = failureOf(captured([], { status: 0, complete: false, error: "net::ERR_NAME_NOT_RESOLVED" }));
    expect(unreachable.status).toBe(502);
    expect(unreachable.retryable).toBe(true);
  });

  it("errors keep the provider's text out of detail but in cause", () => {
    const error = failureOf(captured([fixture("no-completion-marker.html")]));
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe("URL normalisation", () => {
  it("removes #:~:text= directives, keeping a fragment before them", () => {
    expect(stripTextFragment("https://a.example/x#:~:text=foo")).toBe("https://a.example/x");
    expect(stripTextFragment("https://a.example/x#sec:~:text=foo,bar")).toBe("https://a.example/x#sec");
    expect(stripTextFragment("https://a.example/x#sec")).toBe("https://a.example/x#sec");
    expect(stripTextFragment("https://a.example/x?q=:~:")).toBe("https://a.example/x?q=:~:");
  });

  it("unwraps Google redirects (absolute, relative, q= or url=) and keeps other URLs exactly", () => {
    expect(sourceUrl("https://www.google.com/url?q=https://a.example/p%3Fx%3D1%26y%3D2&sa=U")).toBe("https://a.example/p?x=1&y=2");
    expect(sourceUrl("/url?sa=t&url=https%3A%2F%2Fb.example%2F%23%3A~%3Atext%3Dhi&ved=x")).toBe("https://b.example/");
    // the target is one query value: decoded once, so its own escapes survive
    expect(sourceUrl("https://www.google.de/url?q=https://c.example/%25C3%25BC")).toBe("https://c.example/%C3%BC");
    expect(sourceUrl("https://ja.example.org/wiki/桜")).toBe("https://ja.example.org/wiki/桜");
    expect(sourceUrl("https://d.example/a_(b)?utm=1#top")).toBe("https://d.example/a_(b)?utm=1#top");
  });

  it("rejects what is not an absolute http(s) source", () => {
    expect(sourceUrl("/search?q=x")).toBeNull();
    expect(sourceUrl("javascript:alert(1)")).toBeNull();
    expect(sourceUrl("https://www.google.com/url?sa=U")).toBeNull();
    expect(sourceUrl("https://www.google.com/url?q=ftp://e.example/file")).toBeNull();
    expect(sourceUrl("")).toBeNull();
  });
});

describe("search locale and entry URL (google_ai_mode.md §1)", () => {
  it("maps the team table and defaults other countries to English with their region", () => {
    expect(searchLocaleOf("US")).toEqual({ hl: "en", gl: "us" });
    expect(searchLocaleOf("DE")).toEqual({ hl: "de", gl: "de" });
    expect(searchLocaleOf("BR")).toEqual({ hl: "pt-BR", gl: "br" });
    expect(searchLocaleOf("MX")).toEqual({ hl: "es", gl: "mx" });
    expect(searchLocaleOf("SE")).toEqual({ hl: "en", gl: "se" });
  });

  it("opens /search with udm=50 and the prompt, language and region encoded", () => {
    const url = new URL(searchUrl("https://www.google.com", "Größe & Gewicht? 100%", "de", "de"));
    expect(url.pathname).toBe("/search");
    expect(Object.fromEntries(url.searchParams)).toEqual({ udm: "50", q: "Größe & Gewicht? 100%", hl: "de", gl: "de" });
    expect(searchUrl("http://127.0.0.1:8788/google_ai_mode", "hi", "en", "us")).toBe(
      "http://127.0.0.1:8788/google_ai_mode/search?udm=50&q=hi&hl=en&gl=us",
    );
    expect(pickAiModeScenario("hi").id).toBe("default");
  });
});
