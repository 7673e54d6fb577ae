/** A monitor run's scrapes (src/monitors/run-plan.ts): prompts × scrapers × countries, prompt by prompt. */
import { describe, expect, it } from "vitest";
import { comparisonKey, planRun } from "../../src/monitors/run-plan";

describe("planRun", () => {
  it("asks every prompt of every scraper in every country, prompt by prompt, with each scraper's own parameters", () => {
    const planned = planRun({
      prompts: ["Best running shoes", "Best trail shoes"],
      targets: [
        { scraper: "grok", params: { mode: "MODEL_MODE_FAST" } },
        { scraper: "perplexity", params: {} },
      ],
      countries: ["US", "DE"],
    });
    expect(planned.map((scrape) => [scrape.itemIndex, scrape.promptIndex, scrape.scraper, scrape.country])).toEqual([
      [0, 0, "grok", "US"],
      [1, 0, "grok", "DE"],
      [2, 0, "perplexity", "US"],
      [3, 0, "perplexity", "DE"],
      [4, 1, "grok", "US"],
      [5, 1, "grok", "DE"],
      [6, 1, "perplexity", "US"],
      [7, 1, "perplexity", "DE"],
    ]);
    expect(planned[1]?.query).toEqual({ mode: "MODEL_MODE_FAST", prompt: "Best running shoes", country: "DE" });
    expect(planned[6]?.query).toEqual({ prompt: "Best trail shoes", country: "US" });
  });

  it("pairs runs by prompt text, scraper and country: reordering the prompts keeps each pair", () => {
    const before = planRun({ prompts: ["A", "B"], targets: [{ scraper: "grok", params: {} }], countries: ["US"] });
    const after = planRun({ prompts: ["B", "A"], targets: [{ scraper: "grok", params: {} }], countries: ["US"] });
    const keysBefore = new Map(before.map((scrape) => [comparisonKey(scrape), scrape.prompt]));
    for (const scrape of after) expect(keysBefore.get(comparisonKey(scrape))).toBe(scrape.prompt);
    // a prompt that contains the separator of a naive key is still its own
    expect(comparisonKey({ prompt: "a|grok", scraper: "US", country: "x" })).not.toBe(
      comparisonKey({ prompt: "a", scraper: "grok|US", country: "x" }),
    );
  });
});
