/**
 * The scrapes of one monitor run (docs/monitors.md): every prompt asked of every scraper in every country, prompt by
 * prompt, so a run's results read in the order the customer wrote the prompts. Pure.
 */
import type { MonitorDefinition } from "./monitor-types";

export interface PlannedScrape {
  /** Position in the run (0-based): a result row's stable index. */
  itemIndex: number;
  promptIndex: number;
  prompt: string;
  scraper: string;
  country: string;
  /** The scraper's own parameters from the definition, with `prompt` and `country` added: a query as the API takes it. */
  query: Record<string, string>;
}

export function planRun(definition: Pick<MonitorDefinition, "prompts" | "targets" | "countries">): PlannedScrape[] {
  const planned: PlannedScrape[] = [];
  definition.prompts.forEach((prompt, promptIndex) => {
    for (const target of definition.targets) {
      for (const country of definition.countries) {
        planned.push({
          itemIndex: planned.length,
          promptIndex,
          prompt,
          scraper: target.scraper,
          country,
          query: { ...target.params, prompt, country },
        });
      }
    }
  });
  return planned;
}

/** What comparing two runs pairs up: the same prompt (by its text), scraper and country. */
export function comparisonKey(scrape: Pick<PlannedScrape, "prompt" | "scraper" | "country">): string {
  return JSON.stringify([scrape.prompt, scrape.scraper, scrape.country]);
}
