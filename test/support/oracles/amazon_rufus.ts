/**
 * What a scrape of each Rufus replica scenario must return, written from the scenario data
 * (replicas/amazon_rufus/scenarios.ts) by the field mapping of providers/amazon_rufus.md §4, by hand: nothing of src/
 * (parser, renderer, URL helper) is used. The plain text of prose that carries markdown is the scenario's own
 * hand-written `plainText`.
 */
import {
  allCards,
  defaultRufusScenario,
  finalProse,
  pillLabels,
  RUFUS_SCENARIOS,
  type RufusCard,
  type RufusScenario,
} from "../../../replicas/amazon_rufus/scenarios";
import type { OracleCase, ProviderOracle } from "./oracle";

/** Country → marketplace domain (sheet §1 table), for the countries the cases use. */
const DOMAINS: Readonly<Record<string, string>> = {
  US: "amazon.com",
  GB: "amazon.co.uk",
  DE: "amazon.de",
  JP: "amazon.co.jp",
  FR: "amazon.fr",
  IN: "amazon.in",
};

/** One prompt (and country) per scenario: the prompt carries the scenario's trigger and no earlier one. */
const PROMPTS: Readonly<Record<string, { prompt: string; country: string }>> = {
  "text-only": { prompt: "text-only: how should running shoes fit?", country: "US" },
  "one-product": { prompt: "best travel mug one-product", country: "US" },
  "many-products": { prompt: "many-products water bottles", country: "US" },
  "duplicate-asin": { prompt: "duplicate-asin headphones", country: "GB" },
  "alt-title": { prompt: "alt-title detergent", country: "US" },
  "no-rating": { prompt: "no-rating smart plugs", country: "US" },
  "no-footer": { prompt: "no-footer yoga mats", country: "IN" },
  deals: { prompt: "deals on air fryers", country: "US" },
  german: { prompt: "Beste Kaffeemaschine für kleine Küchen", country: "DE" },
  japanese: { prompt: "一人暮らし 炊飯器 おすすめ", country: "JP" },
  "html-entities": { prompt: "html-entities grinder", country: "US" },
  table: { prompt: "compare-table kettles", country: "US" },
  emoji: { prompt: "emoji reading corner ☕", country: "US" },
  rewrite: { prompt: "rewrite tents", country: "US" },
  "no-pills": { prompt: "no-pills toothbrush", country: "US" },
  "long-answer": { prompt: "long-answer bed sheets", country: "US" },
  "footer-by-asin": { prompt: "footer-by-asin backpacks", country: "GB" },
  "unknown-events": { prompt: "unknown-events bike lights", country: "US" },
  "rating-text": { prompt: "rating-text grinder", country: "US" },
  "two-prose-groups": { prompt: "two-prose-groups home office", country: "US" },
  "nested-prose": { prompt: "nested-prose air purifier", country: "US" },
  "product-links": { prompt: "product-links desk lamps", country: "FR" },
};

/** Prompts that match no trigger (the default scenario, which quotes the prompt), and the capture files' prompts. */
const DEFAULT_PROMPTS: readonly { prompt: string; country: string }[] = [
  { prompt: "Which kettle is best for tea?", country: "GB" },
  { prompt: "desk lamp for a small desk", country: "DE" },
];

/** §4 rating: the number text of `valueString` ("4.5 out of 5 stars" → "4.5"); the scenarios write it first. */
function ratingOf(card: RufusCard): string {
  return card.rating === null ? "" : (card.rating.valueString.split(" ")[0] ?? "");
}

/** §4 title: the title text node, else the image's altText, without a trailing "(Packaging May Vary)". */
function titleOf(card: RufusCard): string {
  const title = card.title ?? card.altText;
  const note = " (Packaging May Vary)";
  return title.endsWith(note) ? title.slice(0, -note.length) : title;
}

export function expectedRufusAnswer(scenario: RufusScenario, domain: string): Record<string, unknown> {
  const products: Record<string, string>[] = [];
  for (const card of allCards(scenario)) {
    // one product per distinct ASIN, the first card's fields
    if (products.some((product) => product.asin === card.asin)) continue;
    products.push({
      asin: card.asin,
      title: titleOf(card),
      rating: ratingOf(card),
      reviews: card.rating?.count ?? "",
      url: `https://www.${domain}/dp/${card.asin}`,
      footer: card.footer ?? "",
    });
  }
  const prose = finalProse(scenario)
    .map((group) => group.text)
    .join("\n\n");
  const markdown = scenario.expectedMarkdown?.replaceAll("{domain}", domain) ?? prose;
  const labels: string[] = [];
  for (const label of pillLabels(scenario)) if (!labels.includes(label)) labels.push(label);
  return {
    result: scenario.plainText ?? markdown,
    result_markdown: markdown,
    products,
    related_questions: labels,
  };
}

function caseOf(scenario: RufusScenario, prompt: string, country: string): OracleCase {
  const domain = DOMAINS[country];
  if (domain === undefined) throw new Error(`amazon_rufus oracle: no domain for ${country}`);
  return { id: `${scenario.id} (${country})`, params: { prompt, country }, expected: expectedRufusAnswer(scenario, domain) };
}

export const amazonRufusOracle: ProviderOracle = {
  provider: "amazon_rufus",
  cases(): readonly OracleCase[] {
    const scenarios = RUFUS_SCENARIOS.map((scenario) => {
      const chosen = PROMPTS[scenario.id];
      if (chosen === undefined) throw new Error(`amazon_rufus oracle: no prompt for scenario ${scenario.id}`);
      return caseOf(scenario, chosen.prompt, chosen.country);
    });
    const defaults = DEFAULT_PROMPTS.map(({ prompt, country }) => caseOf(defaultRufusScenario(prompt), prompt, country));
    return [...scenarios, ...defaults];
  },
};
