/** Amazon Rufus (the store's shopping assistant, spec §2.6): prose answer, product cards and follow-up questions. */
import { uniqueSources } from "../../schemas/cited-sources";
import { defineProvider } from "../provider-contract";
import { RUFUS_COUNTRIES, RUFUS_DOMAINS, RUFUS_EXAMPLE, RufusAnswerSchema } from "./declaration";
import { MARKETPLACE_DOMAINS, marketplaceDomainOf } from "./marketplaces";
import { captureRufusExchange } from "./navigate";
import { parseRufusCapture } from "./parse";

/** The name the streaming exchange is recorded under in a capture file. */
const STREAMING = "streaming";

export const amazonRufusProvider = defineProvider({
  id: "amazon_rufus",
  name: "Amazon Rufus",
  kind: "shopping assistant",
  summary: "Rufus's answer to a shopping query with the product cards it shows and suggested questions.",
  version: "amazon_rufus/2026.11.1",
  citedSources: (answer) => uniqueSources(answer.products.map((source) => ({ url: source.url, title: source.title }))),
  params: {},
  countries: RUFUS_COUNTRIES,
  answer: RufusAnswerSchema,
  example: RUFUS_EXAMPLE,
  origin: {
    real: (params) => `https://www.${marketplaceDomainOf(params.country)}`,
    // an origin override is a template such as http://127.0.0.1:8788/amazon_rufus/{domain}
    templateValues: (params) => ({ domain: marketplaceDomainOf(params.country) }),
  },
  allowedDomains: (origin) => [...new Set([new URL(origin).hostname, ...RUFUS_DOMAINS])],
  async scrape({ pageSession, origin, params, signal, deadline, recorder }) {
    const exchange = await captureRufusExchange({ pageSession, origin, prompt: params.prompt, signal, deadline });
    recorder?.exchange(STREAMING, exchange);
    // product URLs always use the real marketplace, whatever the origin (a replica run equals a real one)
    return parseRufusCapture(exchange, marketplaceDomainOf(params.country));
  },
  replay: (inputs, params) => parseRufusCapture(inputs.exchange(STREAMING), marketplaceDomainOf(params.country)),
  // Rufus answers reliably only when signed in, and Amazon signs in per marketplace (amazon_rufus.md §1)
  accounts: {
    marketplaceOf: (params) => marketplaceDomainOf(params.country),
    marketplaces: Object.values(MARKETPLACE_DOMAINS),
    anonymousFallback: false,
  },
});
