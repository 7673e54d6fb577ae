import { describe, expect, it } from "vitest";
import {
  type ComparedAnswer,
  answerChanges,
  domainOf,
  hasChosenChange,
  textSimilarity,
  type WatchedChanges,
} from "../../src/monitors/answer-changes";
import type { AnswerChanges, BrandFigures } from "../../src/monitors/monitor-types";

/** An answer citing `urls` in this order, with `text` and brand figures. */
function answer(urls: string[], text = "", brands: BrandFigures[] = []): ComparedAnswer {
  return { answer: { text, sources: urls.map((url) => ({ url, title: null })) }, brands };
}

/** Figures of a brand that is mentioned or not (the other figures play no part in the changes). */
function brand(name: string, mentioned: boolean): BrandFigures {
  return {
    brand: name,
    mentioned,
    firstPosition: mentioned ? { offset: 0, sentence: 0 } : null,
    mentions: mentioned ? 1 : 0,
    citedRank: null,
    citedUrl: null,
  };
}

describe("answerChanges: sources and domains", () => {
  it("lists added and removed URLs and domains without repeats, and the rank changes of domains cited in both", () => {
    const previous = answer(["https://a.com/1", "https://b.org/2", "https://c.net/3", "https://a.com/1"]);
    const current = answer(["https://c.net/3", "https://a.com/1", "https://d.io/4", "https://d.io/4"]);
    const changes = answerChanges(previous, current);
    expect(changes.sourcesAdded).toEqual(["https://d.io/4"]);
    expect(changes.sourcesRemoved).toEqual(["https://b.org/2"]);
    expect(changes.domainsAdded).toEqual(["d.io"]);
    expect(changes.domainsRemoved).toEqual(["b.org"]);
    // In the current answer's order: c.net moved from 3 to 1, a.com from 1 to 2.
    expect(changes.domainRankChanges).toEqual([
      { domain: "c.net", from: 3, to: 1 },
      { domain: "a.com", from: 1, to: 2 },
    ]);
  });

  it("keeps the order of the answer that has the URLs", () => {
    const previous = answer(["https://x.com/1", "https://z.com/3", "https://y.com/2"]);
    const current = answer(["https://w.com/9", "https://v.com/8"]);
    const changes = answerChanges(previous, current);
    expect(changes.sourcesAdded).toEqual(["https://w.com/9", "https://v.com/8"]);
    expect(changes.sourcesRemoved).toEqual(["https://x.com/1", "https://z.com/3", "https://y.com/2"]);
    expect(changes.domainsAdded).toEqual(["w.com", "v.com"]);
    expect(changes.domainsRemoved).toEqual(["x.com", "z.com", "y.com"]);
    expect(changes.domainRankChanges).toEqual([]);
  });

  it("ranks a domain cited twice by its best rank", () => {
    const previous = answer(["https://other.org/", "https://example.com/a", "https://example.com/b"]);
    const current = answer(["https://example.com/b", "https://other.org/"]);
    const changes = answerChanges(previous, current);
    expect(changes.sourcesRemoved).toEqual(["https://example.com/a"]);
    expect(changes.domainRankChanges).toEqual([
      { domain: "example.com", from: 2, to: 1 },
      { domain: "other.org", from: 1, to: 2 },
    ]);
  });

  it("reports no rank change when the best rank stays, whatever the domain's other citations do", () => {
    const previous = answer(["https://example.com/a", "https://x.org/", "https://example.com/b"]);
    const current = answer(["https://example.com/b", "https://x.org/"]);
    const changes = answerChanges(previous, current);
    expect(changes.sourcesAdded).toEqual([]);
    expect(changes.sourcesRemoved).toEqual(["https://example.com/a"]);
    expect(changes.domainRankChanges).toEqual([]);
  });

  it("compares URLs as exact strings but domains without case and a leading www.", () => {
    const previous = answer(["https://WWW.Example.COM/Page"]);
    const current = answer(["https://example.com/Page", "https://www2.example.com/"]);
    const changes = answerChanges(previous, current);
    expect(changes.sourcesAdded).toEqual(["https://example.com/Page", "https://www2.example.com/"]);
    expect(changes.sourcesRemoved).toEqual(["https://WWW.Example.COM/Page"]);
    expect(changes.domainsAdded).toEqual(["www2.example.com"]);
    expect(changes.domainsRemoved).toEqual([]);
    expect(changes.domainRankChanges).toEqual([]);
  });

  it("gives an unparsable URL no domain while it still counts as a source and takes up a rank", () => {
    const previous = answer(["not a url", "https://a.com/"]);
    const current = answer(["https://a.com/", "not a url", "::broken", "mailto:sales@b.com"]);
    const changes = answerChanges(previous, current);
    expect(changes.sourcesAdded).toEqual(["::broken", "mailto:sales@b.com"]);
    expect(changes.sourcesRemoved).toEqual([]);
    expect(changes.domainsAdded).toEqual([]);
    expect(changes.domainsRemoved).toEqual([]);
    expect(changes.domainRankChanges).toEqual([{ domain: "a.com", from: 2, to: 1 }]);
  });

  it("finds nothing changed between two answers without sources", () => {
    const changes = answerChanges(answer([], "Same words."), answer([], "same WORDS"));
    expect(changes).toEqual({
      sourcesAdded: [],
      sourcesRemoved: [],
      domainsAdded: [],
      domainsRemoved: [],
      domainRankChanges: [],
      brandsGained: [],
      brandsLost: [],
      textSimilarity: 1,
    });
  });
});

describe("domainOf", () => {
  it("is the lower-case host without one leading www.", () => {
    expect(domainOf("https://WWW.Shop.Example.co.uk/path?q=1")).toBe("shop.example.co.uk");
    expect(domainOf("http://www.www.example.com/")).toBe("www.example.com");
    expect(domainOf("https://wwwexample.com/")).toBe("wwwexample.com");
  });

  it("is null for what is not an absolute http(s) URL", () => {
    expect(domainOf("example.com/page")).toBeNull();
    expect(domainOf("")).toBeNull();
    expect(domainOf("ftp://files.example.com/")).toBeNull();
  });
});

describe("answerChanges: brands", () => {
  it("gains the brands mentioned now and not before and loses the reverse, a brand missing from one side unmentioned", () => {
    const previous = answer([], "", [brand("Acme", true), brand("Globex", false), brand("Initech", true), brand("Hooli", false)]);
    const current = answer([], "", [brand("Acme", false), brand("Globex", true), brand("Umbrella", true), brand("Initech", true)]);
    const changes = answerChanges(previous, current);
    expect(changes.brandsGained).toEqual(["Globex", "Umbrella"]);
    expect(changes.brandsLost).toEqual(["Acme"]);
  });

  it("loses a mentioned brand that the current figures leave out", () => {
    const changes = answerChanges(answer([], "", [brand("Acme", true), brand("Globex", true)]), answer([], "", [brand("Globex", true)]));
    expect(changes.brandsGained).toEqual([]);
    expect(changes.brandsLost).toEqual(["Acme"]);
  });
});

describe("textSimilarity", () => {
  it("is 1 for identical texts and 0 for texts sharing no word", () => {
    expect(textSimilarity("The quick brown fox", "The quick brown fox")).toBe(1);
    expect(textSimilarity("alpha beta", "gamma delta")).toBe(0);
  });

  it("is shared words over all words for partly shared texts, rounded to 3 decimals", () => {
    // {paris, is, the, capital, of, france} and the same plus {a, city}: 6 shared of 8.
    expect(textSimilarity("Paris is the capital of France.", "The capital of France is Paris, a city.")).toBe(0.75);
    // {one, two} and {one, three}: 1 of 3.
    expect(textSimilarity("one two", "one three")).toBe(0.333);
    // {one, two, three} and {one, two}: 2 of 3.
    expect(textSimilarity("one two three", "one two")).toBe(0.667);
  });

  it("ignores order, repeats, punctuation, case and diacritics", () => {
    expect(textSimilarity("b, a!", "a b")).toBe(1);
    expect(textSimilarity("a a a b", "a b")).toBe(1);
    expect(textSimilarity("Café CRÈME", "cafe creme")).toBe(1);
    expect(textSimilarity("cafe\u0301", "café")).toBe(1);
    expect(textSimilarity("İstanbul", "istanbul")).toBe(1);
    expect(textSimilarity("ＡＢＣ 123", "abc 123")).toBe(1);
    // folded as brand names are: "ß" reads as "ss"
    expect(textSimilarity("Straße", "STRASSE")).toBe(1);
  });

  it("counts letters and digits of every script as words", () => {
    // {東京, 2024} and {東京, 大阪}: 1 of 3.
    expect(textSimilarity("東京 2024", "東京 大阪")).toBe(0.333);
  });

  it("is 1 when neither text has a word and 0 when only one has", () => {
    expect(textSimilarity("", "")).toBe(1);
    expect(textSimilarity("... —", "")).toBe(1);
    expect(textSimilarity("", "word")).toBe(0);
  });
});

describe("hasChosenChange", () => {
  const nothing: AnswerChanges = {
    sourcesAdded: [],
    sourcesRemoved: [],
    domainsAdded: [],
    domainsRemoved: [],
    domainRankChanges: [],
    brandsGained: [],
    brandsLost: [],
    textSimilarity: 1,
  };
  const watchAll: WatchedChanges = {
    brandsLost: true,
    brandsGained: true,
    domainsRemoved: true,
    domainsAdded: true,
    similarityBelow: 0.5,
  };
  const watchNone: WatchedChanges = {
    brandsLost: false,
    brandsGained: false,
    domainsRemoved: false,
    domainsAdded: false,
    similarityBelow: null,
  };

  it("is false when nothing changed, or only what is not watchable (sources, ranks)", () => {
    expect(hasChosenChange(nothing, watchAll)).toBe(false);
    const sourcesAndRanks: AnswerChanges = {
      ...nothing,
      sourcesAdded: ["https://a.com/"],
      sourcesRemoved: ["https://a.com/old"],
      domainRankChanges: [{ domain: "a.com", from: 2, to: 1 }],
    };
    expect(hasChosenChange(sourcesAndRanks, watchAll)).toBe(false);
  });

  const cases: { change: string; changes: AnswerChanges; watch: Partial<WatchedChanges> }[] = [
    { change: "a brand lost", changes: { ...nothing, brandsLost: ["Acme"] }, watch: { brandsLost: true } },
    { change: "a brand gained", changes: { ...nothing, brandsGained: ["Acme"] }, watch: { brandsGained: true } },
    { change: "a domain dropped", changes: { ...nothing, domainsRemoved: ["a.com"] }, watch: { domainsRemoved: true } },
    { change: "a domain added", changes: { ...nothing, domainsAdded: ["a.com"] }, watch: { domainsAdded: true } },
    { change: "a text under the threshold", changes: { ...nothing, textSimilarity: 0.4 }, watch: { similarityBelow: 0.5 } },
  ];
  for (const { change, changes, watch } of cases) {
    it(`is true for ${change} when watched, false when not`, () => {
      expect(hasChosenChange(changes, { ...watchNone, ...watch })).toBe(true);
      expect(hasChosenChange(changes, watchNone)).toBe(false);
      expect(hasChosenChange(changes, { ...watchAll, ...negated(watch) })).toBe(false);
    });
  }

  it("counts a similarity equal to the threshold as not below it", () => {
    expect(hasChosenChange({ ...nothing, textSimilarity: 0.5 }, { ...watchNone, similarityBelow: 0.5 })).toBe(false);
    expect(hasChosenChange({ ...nothing, textSimilarity: 0.499 }, { ...watchNone, similarityBelow: 0.5 })).toBe(true);
  });
});

/** The watch turned off for what `watch` turns on (a threshold becomes null). */
function negated(watch: Partial<WatchedChanges>): Partial<WatchedChanges> {
  const off: Partial<WatchedChanges> = {};
  if (watch.brandsLost !== undefined) off.brandsLost = false;
  if (watch.brandsGained !== undefined) off.brandsGained = false;
  if (watch.domainsRemoved !== undefined) off.domainsRemoved = false;
  if (watch.domainsAdded !== undefined) off.domainsAdded = false;
  if (watch.similarityBelow !== undefined) off.similarityBelow = null;
  return off;
}
