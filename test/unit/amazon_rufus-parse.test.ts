/**
 * The Rufus parser against replica-recorded and hand-written bodies (test/fixtures/amazon_rufus/): every fixture split at every byte boundary
 * (sampled for long ones), exact expected fields, and every failure signature of amazon_rufus.md §5. Expected fields
 * of the replica-recorded fixtures are derived from the replica's scenario data by the sheet's §4 mapping, written
 * here; the hand-written fixtures have literal expectations.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { pickRufusScenario, type RufusScenario } from "../../replicas/amazon_rufus/scenarios";
import { ServiceError, UnexpectedResultError, UpstreamError } from "../../src/errors";
import { type RufusAnswer, RufusAnswerSchema } from "../../src/scrapers/amazon_rufus/declaration";
import { cardRating } from "../../src/scrapers/amazon_rufus/node-tree";
import { parseRufusCapture, productUrl, withProductLinks } from "../../src/scrapers/amazon_rufus/parse";
import type { StreamCapture } from "../../src/browser/page/capture/types";
import { everySplit, sampledSplits, utf8 } from "../support/chunk-splits";
import { expectedRufusAnswer } from "../support/oracles/amazon_rufus";

const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`../fixtures/amazon_rufus/${name}`, import.meta.url)));

function captureOf(chunks: Uint8Array[], overrides: Partial<StreamCapture> = {}): StreamCapture {
  return {
    url: "https://www.amazon.com/rufus/cl/streaming?tabId=tab-1&programId=NILE_CLASSIC%3Adesktop-cl",
    status: 200,
    contentType: "text/event-stream;charset=UTF-8",
    requestBody: JSON.stringify({ queryContext: { query: "q" } }),
    chunks,
    complete: true,
    error: null,
    ...overrides,
  };
}

/**
 * Every two-way split for short bodies; for long ones the sampled splits (whole, one byte per chunk, even offsets,
 * multi-byte characters), thinned to about a hundred so that a 100 kB body stays quick to test.
 */
function splitsOf(bytes: Uint8Array): Uint8Array[][] {
  if (bytes.length <= 2500) return everySplit(bytes);
  const sampled = sampledSplits(bytes, 48);
  const step = Math.max(1, Math.ceil(sampled.length / 100));
  return sampled.filter((_split, index) => index < 2 || index % step === 0);
}

/** Parses every split of `bytes` and returns the answers that differ from the whole body's (none expected). */
function parseEverySplit(bytes: Uint8Array, domain: string): { whole: RufusAnswer; differing: number[] } {
  const whole = parseRufusCapture(captureOf([bytes]), domain);
  const reference = JSON.stringify(whole);
  const differing: number[] = [];
  splitsOf(bytes).forEach((chunks, index) => {
    if (JSON.stringify(parseRufusCapture(captureOf(chunks), domain)) !== reference) differing.push(index);
  });
  return { whole, differing };
}

/** The error every split of `bytes` raises (they must all agree). */
function failureOfEverySplit(bytes: Uint8Array, overrides: Partial<StreamCapture> = {}): ServiceError {
  const failures = splitsOf(bytes).map((chunks) => {
    try {
      parseRufusCapture(captureOf(chunks, overrides), "amazon.com");
    } catch (error) {
      if (error instanceof ServiceError) return error;
      throw error;
    }
    throw new Error("parsed without an error");
  });
  const first = failures[0];
  if (first === undefined) throw new Error("no splits");
  for (const failure of failures) expect([failure.constructor, failure.detail]).toEqual([first.constructor, first.detail]);
  return first;
}

// ---------------------------------------------------------------------------------------------------------------
// Expected fields from scenario data: the oracle (test/support/oracles/amazon_rufus.ts), amazon_rufus.md §4 applied by
// hand, with the hand-written plain text of the scenarios whose prose carries markdown; nothing of src/ renders them.

function expectedFromScenario(scenario: RufusScenario, domain: string): RufusAnswer {
  return RufusAnswerSchema.parse(expectedRufusAnswer(scenario, domain));
}

/** Replica-recorded fixtures: file, the prompt it was recorded with, the marketplace. */
const RECORDED: ReadonlyArray<[file: string, prompt: string, domain: string]> = [
  ["default.sse", "What desk lamp should I buy?", "amazon.com"],
  ["text-only.sse", "text-only: how should running shoes fit?", "amazon.com"],
  ["one-product.sse", "one-product desk lamp", "amazon.com"],
  ["many-products.sse", "many-products water bottles", "amazon.com"],
  ["duplicate-asin.sse", "duplicate-asin headphones", "amazon.com"],
  ["alt-title.sse", "alt-title detergent", "amazon.com"],
  ["no-rating.sse", "no-rating smart plugs", "amazon.com"],
  ["no-footer.sse", "no-footer yoga mats", "amazon.com"],
  ["deals.sse", "deals on air fryers", "amazon.com"],
  ["german.sse", "Beste Kaffeemaschine für kleine Küchen", "amazon.de"],
  ["japanese.sse", "一人暮らし 炊飯器 おすすめ", "amazon.co.jp"],
  ["html-entities.sse", "html-entities grinder", "amazon.com"],
  ["table.sse", "compare-table kettles", "amazon.com"],
  ["emoji.sse", "emoji reading corner", "amazon.com"],
  ["rewrite.sse", "rewrite tents", "amazon.com"],
  ["no-pills.sse", "no-pills toothbrush", "amazon.com"],
  ["long-answer.sse", "long-answer bed sheets", "amazon.com"],
  ["footer-by-asin.sse", "footer-by-asin backpacks", "amazon.com"],
  ["unknown-events.sse", "unknown-events bike lights", "amazon.com"],
  ["rating-text.sse", "rating-text grinder", "amazon.com"],
  ["two-prose-groups.sse", "two-prose-groups home office", "amazon.com"],
  ["nested-prose.sse", "nested-prose air purifier", "amazon.com"],
  // product links in the prose carry the same URL as products[].url, on the marketplace of the request
  ["product-links.sse", "product-links desk lamps", "amazon.fr"],
  // a fuzzed page's wire (replicas/amazon_rufus/variation.ts): opaque ids, ratings in the marketplace's words,
  // absolute card URLs, cards appended one by one, footers by ASIN, pills split over two affordances, unknown events
  ["wire-variants-ja.sse", "一人暮らし 炊飯器 おすすめ", "amazon.co.jp"],
  // padded ids, "4,5 von 5 Sternen", slug-and-ref card URLs, footers by index, pills beside a disclaimer
  ["wire-variants-de.sse", "Beste Kaffeemaschine für kleine Küchen", "amazon.de"],
];

/** Parsing hundreds of splits is CPU-bound; on a shared, loaded machine it can take several times its usual second. */
const SPLIT_TEST_TIMEOUT_MS = 30_000;

describe("replica-recorded answers, split at every byte boundary", { timeout: SPLIT_TEST_TIMEOUT_MS }, () => {
  for (const [file, prompt, domain] of RECORDED) {
    it(file, () => {
      const { whole, differing } = parseEverySplit(fixture(file), domain);
      expect(whole).toEqual(expectedFromScenario(pickRufusScenario(prompt), domain));
      expect(differing).toEqual([]);
    });
  }
});

describe("exact fields of representative answers", { timeout: SPLIT_TEST_TIMEOUT_MS }, () => {
  it("the sheet's transcript", () => {
    const { whole, differing } = parseEverySplit(fixture("sheet-example.sse"), "amazon.com");
    expect(differing).toEqual([]);
    expect(whole).toEqual({
      result: "Here are two example picks for small desks.",
      result_markdown: "Here are two example picks for small desks.",
      products: [
        {
          asin: "B0EXAMPLE1",
          title: "Example Lamp, White",
          rating: "4.5",
          reviews: "1,234",
          url: "https://www.amazon.com/dp/B0EXAMPLE1",
          footer: "Bright and compact",
        },
      ],
      related_questions: ["Is it dimmable?", "Compare with similar lamps"],
    });
  });

  it("German marketplace: decimal commas as shown, URLs on amazon.de whatever the origin", () => {
    const answer = parseRufusCapture(
      captureOf([fixture("german.sse")], { url: "http://127.0.0.1:8788/amazon_rufus/amazon.de/rufus/cl/streaming" }),
      "amazon.de",
    );
    expect(answer.result_markdown).toBe(
      "Für eine kleine Küche eignen sich diese beiden Kaffeemaschinen besonders gut. Beide sind leise und schnell aufgeheizt.",
    );
    expect(answer.products).toEqual([
      {
        asin: "B0DEKAFFE1",
        title: "Filterkaffeemaschine mit Glaskanne, 1,25 l, Schwarz",
        rating: "4,5",
        reviews: "1.234",
        url: "https://www.amazon.de/dp/B0DEKAFFE1",
        footer: "Kompakt und leise",
      },
      {
        asin: "B0DEKAFFE2",
        title: "Kaffeevollautomat mit Milchaufschäumer",
        rating: "4,2",
        reviews: "987",
        url: "https://www.amazon.de/dp/B0DEKAFFE2",
        footer: "Für Cappuccino-Fans",
      },
    ]);
    expect(answer.related_questions).toEqual(["Welche ist am leisesten?", "Gibt es Modelle mit Thermoskanne?"]);
  });

  it("badges are not titles; a (Packaging May Vary) suffix is dropped; altText stands in for a missing title", () => {
    const deals = parseRufusCapture(captureOf([fixture("deals.sse")]), "amazon.com");
    expect(deals.products.map((product) => product.title)).toEqual(["Air Fryer 5.8 QT, Black", "Compact Air Fryer 2 QT"]);
    const alt = parseRufusCapture(captureOf([fixture("alt-title.sse")]), "amazon.com");
    expect(alt.products.map((product) => [product.title, product.rating, product.footer])).toEqual([
      ["Laundry Detergent Pods, 81 Count", "4.5", "Fresh scent"],
      ["Liquid Detergent, 64 Loads", "4.5", ""],
      ["Wool Dryer Balls, 6 Pack", "", "Reusable"],
    ]);
  });

  it("a duplicate ASIN is one product with the first card's fields", () => {
    const answer = parseRufusCapture(captureOf([fixture("duplicate-asin.sse")]), "amazon.com");
    expect(answer.products.map((product) => [product.asin, product.footer])).toEqual([
      ["B0DUPL0001", "Best overall"],
      ["B0DUPL0002", "Great battery"],
      ["B0DUPL0003", ""],
    ]);
    expect(answer.result_markdown).toBe("Two headphones stand out; the first is also the best for travel.\n\nFor travel:");
  });

  it("a replace rewrites the prose; entities in pills are decoded; a table becomes tab-separated text", () => {
    expect(parseRufusCapture(captureOf([fixture("rewrite.sse")]), "amazon.com").result_markdown).toBe(
      "These two-person tents are light and quick to pitch.",
    );
    expect(parseRufusCapture(captureOf([fixture("html-entities.sse")]), "amazon.com").related_questions).toEqual([
      'Is it "dishwasher-safe"?',
      "Tom & Jerry's <mini> set?",
      "What's the warranty?",
    ]);
    const table = parseRufusCapture(captureOf([fixture("table.sse")]), "amazon.com");
    expect(table.result).toBe(
      "Here is how the two kettles compare:\n\nKettle\tCapacity\tPrice\nAlpha\t1.0 L\t$24.99\nBeta\t1.7 L\t$39.99\n\nBeta boils fastest.",
    );
  });

  it("footers matched by ASIN when sent in reverse order", () => {
    const answer = parseRufusCapture(captureOf([fixture("footer-by-asin.sse")]), "amazon.com");
    expect(answer.products.map((product) => product.footer)).toEqual(["Laptop sleeve", "", "Lightest"]);
  });

  it("CRLF framing, a BOM, comments, a retry field, data over two lines, repeated pills", () => {
    const { whole, differing } = parseEverySplit(fixture("crlf-comments.sse"), "amazon.com");
    expect(differing).toEqual([]);
    expect(whole).toEqual({
      result: "Line one.\nLine two.",
      result_markdown: "Line one.\nLine two.",
      products: [{ asin: "B0CRLF0001", title: "Kettle", rating: "", reviews: "", url: "https://www.amazon.com/dp/B0CRLF0001", footer: "" }],
      related_questions: ["First?", "Second question?", "Third?"],
    });
  });

  it("cards without any prose: the markdown lists the product titles", () => {
    const { whole, differing } = parseEverySplit(fixture("cards-only.sse"), "amazon.com");
    expect(differing).toEqual([]);
    expect(whole.result_markdown).toBe("- Phone Stand *Aluminium*\n- USB-C Cable, 2 m");
    expect(whole.result).toBe("- Phone Stand Aluminium\n- USB-C Cable, 2 m");
    expect(whole.products.map((product) => product.footer)).toEqual(["", "Braided"]);
    expect(whole.related_questions).toEqual([]);
  });

  it("footer ids naming neither ASIN nor index follow their group's cards in order", () => {
    const { whole, differing } = parseEverySplit(fixture("footer-unresolved.sse"), "amazon.com");
    expect(differing).toEqual([]);
    expect(whole.products.map((product) => [product.title, product.footer])).toEqual([
      ["Mug A", "Footer of A"],
      ["Mug B", "Footer of B"],
      ["Mug C", "Footer of C"],
    ]);
  });

  it("JSON patch operations below a group's root; patches without a group or for an unknown group are ignored", () => {
    const { whole, differing } = parseEverySplit(fixture("patch-ops.sse"), "amazon.com");
    expect(differing).toEqual([]);
    expect(whole).toEqual({
      result: "Final text, patched in place.",
      result_markdown: "Final text, patched in place.",
      products: [
        { asin: "B0PATCH002", title: "Stays", rating: "3.9", reviews: "1,234", url: "https://www.amazon.com/dp/B0PATCH002", footer: "" },
        { asin: "B0PATCH003", title: "Appended", rating: "4.5", reviews: "1,234", url: "https://www.amazon.com/dp/B0PATCH003", footer: "" },
      ],
      related_questions: ["Anything else?"],
    });
  });

  it("blocks without an event: line are read by their content; named unknown events are ignored", () => {
    const body = utf8(
      [
        'id:CHUNK-1\ndata: {"patches":[{"groupId":"markdown_processor_0","op":"add","path":"/","value":{"type":"text","children":["Unnamed prose."]}}]}\n\n',
        'id:CHUNK-2\ndata: {"sections":[{"content":{"data":"<button class=\\"rufus-pill\\">Unnamed pill?</button>"}}]}\n\n',
        "id:CHUNK-3\nevent: telemetry\ndata: not json at all\n\n",
      ].join(""),
    );
    const { whole, differing } = parseEverySplit(body, "amazon.com");
    expect(differing).toEqual([]);
    expect(whole).toEqual({
      result: "Unnamed prose.",
      result_markdown: "Unnamed prose.",
      products: [],
      related_questions: ["Unnamed pill?"],
    });
    expect(() => parseRufusCapture(captureOf([utf8("id:CHUNK-1\ndata: {broken\n\n")]), "amazon.com")).toThrow(/could not be read/);
  });

  it("the long answer arrives whole", () => {
    const answer = parseRufusCapture(captureOf([fixture("long-answer.sse")]), "amazon.com");
    expect(utf8(answer.result_markdown ?? "").length).toBeGreaterThan(30_000);
    expect(answer.result).not.toContain("**");
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Failures (amazon_rufus.md §5)

describe("failure signatures", { timeout: SPLIT_TEST_TIMEOUT_MS }, () => {
  it("no prose and no cards → 500 empty answer, at every split", () => {
    const error = failureOfEverySplit(fixture("empty-answer.sse"));
    expect(error).toBeInstanceOf(UnexpectedResultError);
    expect(error.status).toBe(500);
    expect(error.retryable).toBe(true);
    expect(() => parseRufusCapture(captureOf([]), "amazon.com")).toThrow(UnexpectedResultError);
  });

  it("an undecodable data: line → 502 malformed stream, retryable", () => {
    const error = failureOfEverySplit(fixture("malformed-data.sse"));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.status).toBe(502);
    expect(error.retryable).toBe(true);
    expect(error.detail).toMatch(/could not be read/);
  });

  it("a stream cut mid-block → 502 truncated, whether or not the transfer reported an error", () => {
    const cut = failureOfEverySplit(fixture("disconnect.sse"), { complete: false, error: "network error" });
    expect(cut.detail).toMatch(/ended before the answer was complete/);
    expect(cut.retryable).toBe(true);
    // a body that ends inside a block even though the transfer looked complete
    expect(failureOfEverySplit(fixture("disconnect.sse")).detail).toBe(cut.detail);
    // a transfer that broke off exactly between two blocks
    expect(() => parseRufusCapture(captureOf([fixture("one-product.sse")], { complete: false }), "amazon.com")).toThrow(cut.detail);
  });

  it("streaming 401/403 (stale anti-csrftoken-a2z or session) → 502, retryable", () => {
    for (const status of [401, 403]) {
      const error = captureError(captureOf([], { status, contentType: "" }));
      expect([error.status, error.retryable]).toEqual([502, true]);
      expect(error.detail).toMatch(/stale session token/);
    }
  });

  it("robot check page (200 or 503) → 502 challenge, retryable", () => {
    for (const status of [200, 503]) {
      const error = captureError(captureOf([fixture("robot-check.html")], { status, contentType: "text/html;charset=UTF-8" }));
      expect([error.status, error.retryable, error.code]).toEqual([502, true, "provider_challenge"]);
      expect(error.detail).toMatch(/robot check/);
      expect(error.detail).not.toMatch(/characters|api-services/);
    }
  });

  it("sign-in page (a redirect the page followed) → 502 login wall, not retryable", () => {
    const error = captureError(captureOf([fixture("sign-in.html")], { contentType: "text/html" }));
    expect([error.status, error.retryable, error.code]).toEqual([502, false, "provider_login_required"]);
    expect(error.detail).toMatch(/sign in/);
  });

  it("503 dogs page and 429 → 502 rate limited, retryable", () => {
    const dogs = captureError(captureOf([fixture("dogs-503.html")], { status: 503, contentType: "text/html" }));
    expect([dogs.status, dogs.retryable, dogs.code]).toEqual([502, true, "provider_rate_limited"]);
    expect(dogs.detail).toMatch(/rate limiting/);
    expect(captureError(captureOf([], { status: 429 })).detail).toBe(dogs.detail);
    expect(captureError(captureOf([], { status: 429 })).code).toBe("provider_rate_limited");
  });

  it("other statuses, an unreachable host and an unknown HTML page → 502, retryable", () => {
    expect(captureError(captureOf([utf8("oops")], { status: 500 })).detail).toMatch(/failed upstream/);
    const unreachable = captureError(captureOf([], { status: 0, complete: false, error: "net::ERR_CONNECTION_RESET" }));
    expect(unreachable.detail).toMatch(/could not be reached/);
    expect(unreachable.detail).not.toContain("ERR_CONNECTION_RESET");
    const page = captureError(captureOf([utf8("<!doctype html><html><body><p>Hello</p></body></html>")], { contentType: "text/html" }));
    expect([page.status, page.retryable]).toEqual([502, true]);
    expect(page.detail).toMatch(/unexpected page/);
  });

  it("a stream labelled text/html is still read as a stream", () => {
    const answer = parseRufusCapture(captureOf([fixture("one-product.sse")], { contentType: "text/html" }), "amazon.com");
    expect(answer.products).toHaveLength(1);
  });
});

function captureError(capture: StreamCapture): ServiceError {
  try {
    parseRufusCapture(capture, "amazon.com");
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error("parsed without an error");
}

describe("one URL rule and rating wordings", () => {
  it("markdown links to product pages carry products[].url's form; other links stay", () => {
    const prose = [
      "[A](/dp/B0EXAMPLE1/ref=x?th=1)",
      '[B](<https://www.amazon.com/Some-Slug/dp/B0DESKLMP2?psc=1> "title")',
      "[C](https://example.com/page)",
      "[D](/gp/help)",
    ].join(" ");
    expect(withProductLinks(prose, "amazon.de")).toBe(
      '[A](https://www.amazon.de/dp/B0EXAMPLE1) [B](https://www.amazon.de/dp/B0DESKLMP2 "title") [C](https://example.com/page) [D](/gp/help)',
    );
    expect(productUrl("amazon.co.jp", "B0JPRICE01")).toBe("https://www.amazon.co.jp/dp/B0JPRICE01");
  });

  it("a rating's number in any wording of the scale", () => {
    const rating = (valueString: string) => cardRating({ type: "box", children: [{ type: "rating", valueString, count: "12" }] }).rating;
    expect(
      ["4.5", "4,5", "4.5 out of 5 stars", "4,5 von 5 Sternen", "5つ星のうち4.3", "5.0 out of 5 stars", "5 out of 5 stars"].map(rating),
    ).toEqual(["4.5", "4,5", "4.5", "4,5", "4.3", "5.0", "5"]);
  });
});
