/** Grok (grok.com), the social-network assistant: the worked example of a provider folder (see CONTRIBUTING.md). */
import { uniqueSources } from "../../schemas/cited-sources";
import { defineProvider } from "../provider-contract";
import { GROK_DOMAINS, GROK_EXAMPLE, GROK_PARAMS, GrokAnswerSchema } from "./declaration";
import { captureGrokExchange } from "./navigate";
import { parseGrokCapture } from "./parse";

/** The name the conversation exchange is recorded under in a capture file. */
const CONVERSATION = "conversation";

export const grokProvider = defineProvider({
  id: "grok",
  name: "Grok",
  kind: "social-network assistant",
  summary: "Grok's answer with the web pages and X posts it cited, follow-up questions, conversation metadata and model.",
  version: "grok/2026.11.1",
  citedSources: (answer) => uniqueSources(answer.web_sources.map((source) => ({ url: source.url, title: source.title }))),
  modelLabelField: "llm_model",
  params: GROK_PARAMS,
  countries: { refused: ["JP", "TW"] },
  answer: GrokAnswerSchema,
  example: GROK_EXAMPLE,
  origin: { real: () => "https://grok.com" },
  allowedDomains: (origin) => [...new Set([new URL(origin).hostname, ...GROK_DOMAINS])],
  async scrape({ pageSession, origin, params, signal, deadline, recorder }) {
    const capture = await captureGrokExchange({ pageSession, origin, prompt: params.prompt, mode: params.mode, signal, deadline });
    recorder?.exchange(CONVERSATION, capture);
    const answer = parseGrokCapture(capture);
    return { mode: params.mode, ...answer };
  },
  replay: (inputs, params) => ({ mode: params.mode, ...parseGrokCapture(inputs.exchange(CONVERSATION)) }),
});
