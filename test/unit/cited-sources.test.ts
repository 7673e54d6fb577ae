/**
 * Every provider declares the sources its answer cites (`citedSources`, src/scrapers/provider-contract.ts): read from
 * its declared example answer, the URLs and titles written out here by hand from those examples.
 */
import { describe, expect, it } from "vitest";
import type { z } from "@hono/zod-openapi";
import { type CitedSource, uniqueSources } from "../../src/schemas/cited-sources";
import { amazonRufusProvider } from "../../src/scrapers/amazon_rufus";
import { chatgptProvider } from "../../src/scrapers/chatgpt";
import { copilotProvider } from "../../src/scrapers/copilot";
import { geminiProvider } from "../../src/scrapers/gemini";
import { googleAiModeProvider } from "../../src/scrapers/google_ai_mode";
import { grokProvider } from "../../src/scrapers/grok";
import { perplexityProvider } from "../../src/scrapers/perplexity";
import { PROVIDERS } from "../../src/scrapers/provider-list";

interface DeclaredProvider<Answer extends z.ZodObject<z.ZodRawShape>> {
  id: string;
  answer: Answer;
  example?: Record<string, unknown>;
  citedSources(answer: z.output<Answer>): CitedSource[];
}

/** The provider's cited sources of its declared example's answer fields (checked by its own answer schema first). */
function citedInExample<Answer extends z.ZodObject<z.ZodRawShape>>(provider: DeclaredProvider<Answer>): CitedSource[] {
  const example = provider.example ?? {};
  const fields = Object.fromEntries(Object.keys(provider.answer.shape).flatMap((key) => (key in example ? [[key, example[key]]] : [])));
  return provider.citedSources(provider.answer.parse(fields));
}

const EXPECTED: Record<string, { url: string; title: string | null }[]> = {
  chatgpt: [{ url: "https://en.wikipedia.org/wiki/Burj_Khalifa", title: "Wikipedia" }],
  perplexity: [
    { url: "https://en.wikipedia.org/wiki/Eiffel_Tower", title: "Eiffel Tower - Wikipedia" },
    { url: "https://www.britannica.com/topic/Eiffel-Tower-Paris-France", title: "Eiffel Tower | Britannica" },
  ],
  grok: [
    { url: "https://en.wikipedia.org/wiki/SpaceX_Starship", title: "SpaceX Starship - Wikipedia" },
    { url: "https://www.spacex.com/vehicles/starship/", title: "Starship | SpaceX" },
  ],
  copilot: [{ url: "https://www.energy.gov/eere/solar/how-does-solar-work", title: "How Does Solar Work?" }],
  gemini: [{ url: "https://en.wikipedia.org/wiki/Eiffel_Tower", title: "Eiffel Tower - Wikipedia" }],
  google_ai_mode: [{ url: "https://science.nasa.gov/mars/facts/", title: "Mars Facts - NASA Science" }],
  amazon_rufus: [
    { url: "https://www.amazon.de/dp/B0EXAMPLE1", title: "Example Lamp, White" },
    { url: "https://www.amazon.de/dp/B0DESKLMP2", title: "Clip-On Desk Lamp with 3 Color Modes" },
  ],
};

describe("the sources each provider's answer cites", () => {
  it("every provider, from its declared example", () => {
    // one call per provider: each with its own answer type
    const cited = {
      chatgpt: citedInExample(chatgptProvider),
      perplexity: citedInExample(perplexityProvider),
      grok: citedInExample(grokProvider),
      copilot: citedInExample(copilotProvider),
      gemini: citedInExample(geminiProvider),
      google_ai_mode: citedInExample(googleAiModeProvider),
      amazon_rufus: citedInExample(amazonRufusProvider),
    };
    expect(cited).toEqual(EXPECTED);
    // and no provider is left out
    expect(Object.keys(cited).sort()).toEqual(PROVIDERS.map((provider) => provider.id).sort());
  });

  it("keeps each URL once, at its first place with its first title; a blank title is null", () => {
    expect(
      uniqueSources([
        { url: "https://a.example/", title: "A" },
        { url: "https://b.example/", title: "  " },
        { url: "https://a.example/", title: "A again" },
      ]),
    ).toEqual([
      { url: "https://a.example/", title: "A" },
      { url: "https://b.example/", title: null },
    ]);
  });
});
