/**
 * Brand figures of monitors (issue 33 item 4, docs/monitors.md#brand-figures). Every expected value is worked out by
 * hand from the stated rules: offsets are counted character by character in UTF-16 units of the text as written
 * (the comment beside each says how), sentences by reading the text, shares by dividing the mention counts.
 */
import { describe, expect, it } from "vitest";
import { brandFigures, sentenceIndexAt, shareOfVoice } from "../../src/monitors/brand-figures";
import type { Brand, BrandFigures, CitedSource } from "../../src/monitors/monitor-types";

function brand(name: string, aliases: string[] = [], domains: string[] = []): Brand {
  return { name, aliases, domains };
}

function sources(...urls: string[]): CitedSource[] {
  return urls.map((url) => ({ url, title: null }));
}

/** The figures of a single brand in an answer. */
function figuresOf(text: string, subject: Brand, cited: CitedSource[] = []): BrandFigures {
  const [figures] = brandFigures({ text, sources: cited }, [subject]);
  if (figures === undefined) throw new Error("brandFigures returned nothing for one brand");
  return figures;
}

describe("matching a brand's names", () => {
  it("ignores case, and folds it without a locale", () => {
    expect(figuresOf("NIKE makes shoes. nike too.", brand("Nike")).mentions).toBe(2);
    expect(figuresOf("Die Straße", brand("STRASSE")).mentions).toBe(1);
  });

  it("ignores diacritics both ways, precomposed or decomposed", () => {
    expect(figuresOf("Nestlé announced", brand("Nestle")).mentions).toBe(1);
    expect(figuresOf("Nestle announced", brand("Nestlé")).mentions).toBe(1);
    expect(figuresOf("Nestle\u0301 and Nestlé", brand("NESTLE")).mentions).toBe(2);
  });

  it("matches whole words only: not inside another word, but before a possessive or inside brackets", () => {
    const pineapple = figuresOf("Pineapple and Applebee's, Apple2", brand("Apple"));
    expect(pineapple).toEqual({ brand: "Apple", mentioned: false, firstPosition: null, mentions: 0, citedRank: null, citedUrl: null });
    const possessive = figuresOf("Apple's phones (Apple)", brand("Apple"));
    expect(possessive.mentions).toBe(2);
    expect(possessive.firstPosition).toEqual({ offset: 0, sentence: 0 });
  });

  it("matches punctuation in a name literally", () => {
    // "Call " is five characters, so the first "AT&T" starts at 5.
    const att = figuresOf("Call AT&T or at&t.", brand("AT&T"));
    expect([att.mentions, att.firstPosition?.offset]).toEqual([2, 5]);
    // "Built on " is nine characters; "Nodejs" lacks the dot.
    const node = figuresOf("Built on Node.js, not Nodejs", brand("Node.js"));
    expect([node.mentions, node.firstPosition?.offset]).toEqual([1, 9]);
    expect(figuresOf("Dr. Martens boots", brand("Dr. Martens")).mentions).toBe(1);
    expect(figuresOf("Dr Martens boots", brand("Dr. Martens")).mentions).toBe(0);
    // Characters that mean something in a regular expression are still themselves; "I like " is seven characters.
    const cpp = figuresOf("I like C++ a lot, and C as well", brand("C++"));
    expect([cpp.mentions, cpp.firstPosition?.offset]).toEqual([1, 7]);
  });

  it("lets any run of whitespace in a name match any run in the text, but not none", () => {
    expect(figuresOf("Coca  Cola, Coca\nCola and Coca\tCola", brand("Coca Cola")).mentions).toBe(3);
    expect(figuresOf("Coca Cola", brand("  Coca   Cola ")).mentions).toBe(1);
    expect(figuresOf("CocaCola", brand("Coca Cola")).mentions).toBe(0);
  });

  it("counts overlapping matches of a brand's names once, the longest at a position", () => {
    // At 0 "Coca-Cola Zero", "Coca-Cola" and (at 5) "Cola" all match: one mention. "Coke" starts at 30.
    const coke = brand("Coca-Cola", ["Coca-Cola Zero", "Coke", "Cola"]);
    const figures = figuresOf("Coca-Cola Zero is sugar free; Coke is not.", coke);
    expect(figures.mentions).toBe(2);
    expect(figures.firstPosition).toEqual({ offset: 0, sentence: 0 });
    expect(figuresOf("Apple Music and Apple", brand("Apple", ["Apple Music"])).mentions).toBe(2);
    // "Ford" alone at 0 would leave "Motor Company" at 5 as a second mention; the longest name at 0 covers both.
    expect(figuresOf("Ford Motor Company", brand("Ford", ["Motor Company", "Ford Motor Company"])).mentions).toBe(1);
  });

  it("never matches an empty name or alias", () => {
    expect(figuresOf("  Acme", brand("Acme", ["", "   "])).mentions).toBe(1);
    expect(figuresOf("hello world", brand("Acme", ["", "   "])).mentions).toBe(0);
    expect(figuresOf("hello world", brand("")).mentioned).toBe(false);
    // A name of combining marks alone is empty once the marks are dropped.
    expect(figuresOf("hello world", brand("\u0301")).mentioned).toBe(false);
  });

  it("gives one figure per brand, in the order given", () => {
    const figures = brandFigures({ text: "Adidas and Nike", sources: [] }, [brand("Nike"), brand("Puma"), brand("Adidas")]);
    expect(figures.map((figure) => [figure.brand, figure.mentions, figure.firstPosition?.offset ?? null])).toEqual([
      ["Nike", 1, 11],
      ["Puma", 0, null],
      ["Adidas", 1, 0],
    ]);
  });
});

describe("the first mention's offset, in the original text", () => {
  it("counts a decomposed character as the two units it is written with", () => {
    // C0 a1 f2 e3 U+0301 4, space 5, N 6.
    expect(figuresOf("Cafe\u0301 Nike", brand("Nike")).firstPosition?.offset).toBe(6);
    // U0 n1 space2 E3 U+0301 4: the match starts at the E.
    expect(figuresOf("Un E\u0301clair", brand("Eclair")).firstPosition?.offset).toBe(3);
  });

  it("counts a character that folds to two as one", () => {
    // The ligature U+FB01 is one unit (0), n1 e2 space3, N4.
    expect(figuresOf("\uFB01ne Nike", brand("Nike")).firstPosition?.offset).toBe(4);
    // S0 t1 r2 a3 ß4 e5 space6 N7: "ß" folds to "ss".
    expect(figuresOf("Straße Nike", brand("Nike")).firstPosition?.offset).toBe(7);
  });

  it("counts an emoji as its two surrogate units", () => {
    // 👍 is U+1F44D: units 0 and 1, space 2, N 3.
    expect(figuresOf("👍 Nike", brand("Nike")).firstPosition?.offset).toBe(3);
    expect(figuresOf("👍Nike", brand("Nike")).firstPosition?.offset).toBe(2);
  });
});

describe("the first mention's sentence", () => {
  it("ends sentences after ? and ! followed by whitespace", () => {
    // "Is it good? " is 12 units, "Yes! " 5, "Try " 4: N at 21, in the third sentence.
    expect(figuresOf("Is it good? Yes! Try Nike.", brand("Nike")).firstPosition).toEqual({ offset: 21, sentence: 2 });
  });

  it("ends sentences at every line break, without counting empty ones", () => {
    const text = "Best shoes\n\nRunning: Nike\nAlso Adidas";
    // "Best shoes" 0–9, breaks 10 and 11, "Running: " 12–20, Nike 21; "Nike" 21–24, break 25, "Also " 26–30, Adidas 31.
    const [nike, adidas] = brandFigures({ text, sources: [] }, [brand("Nike"), brand("Adidas")]);
    expect(nike?.firstPosition).toEqual({ offset: 21, sentence: 1 });
    expect(adidas?.firstPosition).toEqual({ offset: 31, sentence: 2 });
    // \r\n is one break; a line of spaces is no sentence.
    expect(figuresOf("One\r\nTwo Nike", brand("Nike")).firstPosition).toEqual({ offset: 9, sentence: 1 });
    expect(figuresOf("A.\n \nNike", brand("Nike")).firstPosition).toEqual({ offset: 5, sentence: 1 });
  });

  it("does not end a sentence at a point inside a number, but does after an abbreviation's point and a space", () => {
    // U0 p1 space2 "2.5%" 3–6 space7 "today." 8–13 space14 N15.
    expect(figuresOf("Up 2.5% today. Nike leads", brand("Nike")).firstPosition).toEqual({ offset: 15, sentence: 1 });
    // "Brands e.g. " is 12 units; "e.g. " ends the first sentence (no list of abbreviations).
    expect(figuresOf("Brands e.g. Nike", brand("Nike")).firstPosition).toEqual({ offset: 12, sentence: 1 });
  });

  it("ends sentences after … and after full-width 。 even with no space after it", () => {
    expect(figuresOf("Wait… Nike", brand("Nike")).firstPosition).toEqual({ offset: 6, sentence: 1 });
    // 我0 喜1 欢2 。3 N4; the space after Nike keeps the ideograph 很 from touching it.
    expect(figuresOf("我喜欢。Nike 很好", brand("Nike")).firstPosition).toEqual({ offset: 4, sentence: 1 });
  });

  it("is 0 for the start of a text and for leading blank lines", () => {
    expect(sentenceIndexAt("Nike", 0)).toBe(0);
    expect(sentenceIndexAt("\n\n  Nike", 4)).toBe(0);
    expect(sentenceIndexAt("One. Two. Three", 10)).toBe(2);
  });
});

describe("the first cited source on one of the brand's domains", () => {
  it("takes the domain and its subdomains, not look-alikes, and skips a URL that does not parse", () => {
    const cited = sources(
      "https://nike.com.evil.io/a",
      "https://notnike.com/",
      "not a url",
      "https://NEWS.Nike.COM/story",
      "https://nike.com/",
    );
    const figures = figuresOf("No names here.", brand("Nike", [], ["nike.com"]), cited);
    expect([figures.mentioned, figures.citedRank, figures.citedUrl]).toEqual([false, 4, "https://NEWS.Nike.COM/story"]);
  });

  it("takes www. and any of the brand's domains, written in any case", () => {
    const cited = sources("https://example.org/", "https://www.jordan.com/x");
    expect(figuresOf("", brand("Nike", [], ["nike.com", "Jordan.com"]), cited).citedRank).toBe(2);
    expect(figuresOf("", brand("Nike", [], ["nike.com"]), sources("http://nike.com./")).citedRank).toBe(1);
  });

  it("compares internationalised domains as the URL parser writes them", () => {
    expect(figuresOf("", brand("Müller", [], ["müller.de"]), sources("https://www.xn--mller-kva.de/")).citedRank).toBe(1);
  });

  it("is null when none of its domains is cited, or it has none", () => {
    const cited = sources("https://www.nike.com/");
    expect(figuresOf("Nike", brand("Adidas", [], ["adidas.com"]), cited)).toMatchObject({ citedRank: null, citedUrl: null });
    expect(figuresOf("Nike", brand("Nike"), cited)).toMatchObject({ citedRank: null, citedUrl: null, mentions: 1 });
  });
});

describe("share of voice", () => {
  function figure(name: string, mentions: number): BrandFigures {
    return {
      brand: name,
      mentioned: mentions > 0,
      firstPosition: mentions > 0 ? { offset: 0, sentence: 0 } : null,
      mentions,
      citedRank: null,
      citedUrl: null,
    };
  }

  it("divides each brand's mentions by all the mentions, ties included", () => {
    const group = [
      [figure("Nike", 3), figure("Adidas", 1), figure("Puma", 0)],
      [figure("Nike", 0), figure("Adidas", 2), figure("Puma", 0)],
    ];
    expect(shareOfVoice(group)).toEqual([
      { brand: "Nike", mentions: 3, answersMentioning: 1, answers: 2, share: 0.5 },
      { brand: "Adidas", mentions: 3, answersMentioning: 2, answers: 2, share: 0.5 },
      { brand: "Puma", mentions: 0, answersMentioning: 0, answers: 2, share: 0 },
    ]);
  });

  it("rounds to four decimals", () => {
    const group = [[figure("Nike", 2), figure("Adidas", 1)]];
    expect(shareOfVoice(group).map((row) => row.share)).toEqual([0.6667, 0.3333]);
    const threeWayTie = [[figure("A", 1), figure("B", 1), figure("C", 1)]];
    expect(shareOfVoice(threeWayTie).map((row) => row.share)).toEqual([0.3333, 0.3333, 0.3333]);
  });

  it("is 0 for every brand when nobody is mentioned, and empty for no answers", () => {
    const group = [
      [figure("Nike", 0), figure("Adidas", 0)],
      [figure("Nike", 0), figure("Adidas", 0)],
      [figure("Nike", 0), figure("Adidas", 0)],
    ];
    expect(shareOfVoice(group)).toEqual([
      { brand: "Nike", mentions: 0, answersMentioning: 0, answers: 3, share: 0 },
      { brand: "Adidas", mentions: 0, answersMentioning: 0, answers: 3, share: 0 },
    ]);
    expect(shareOfVoice([])).toEqual([]);
  });
});
