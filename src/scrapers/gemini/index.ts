/** Google Gemini (gemini.google.com), the search-company assistant of spec §2.6. */
import { uniqueSources } from "../../schemas/cited-sources";
import { z } from "@hono/zod-openapi";
import { defineProvider } from "../provider-contract";
import { GEMINI_DOMAINS, GEMINI_EXAMPLE, GeminiAnswerSchema } from "./declaration";
import { geminiLanguage } from "./language";
import { captureGeminiAnswer } from "./navigate";
import { parseGeminiAnswer } from "./parse";

/** Names of the parser's inputs in a capture file: the StreamGenerate exchange and the page's citation markup. */
const STREAM_GENERATE = "stream_generate";
const PAGE = "page";
/** GeminiPageSnapshot, checked when a capture file is read back. */
const PageSnapshotSchema = z.object({
  responseHtml: z.string().nullable(),
  sourceCardsHtml: z.array(z.string()),
  modePickerHtml: z.string().nullable(),
});

export const geminiProvider = defineProvider({
  id: "gemini",
  name: "Gemini",
  kind: "search-company assistant",
  summary: "Gemini's answer with rich citations (snippet, site, highlighted sentences) and the model used.",
  version: "gemini/2026.11.1",
  citedSources: (answer) => uniqueSources(answer.citations.map((source) => ({ url: source.url, title: source.title }))),
  modelLabelField: "llm_model",
  params: {},
  countries: { refused: ["JP", "TW"] },
  answer: GeminiAnswerSchema,
  example: GEMINI_EXAMPLE,
  origin: { real: () => "https://gemini.google.com" },
  allowedDomains: (origin) => [...new Set([new URL(origin).hostname, ...GEMINI_DOMAINS])],
  async scrape({ pageSession, origin, params, signal, deadline, recorder }) {
    const language = geminiLanguage(params.country);
    const { exchange, snapshot } = await captureGeminiAnswer({ pageSession, origin, prompt: params.prompt, language, signal, deadline });
    recorder?.exchange(STREAM_GENERATE, exchange);
    recorder?.snapshot(PAGE, snapshot);
    return parseGeminiAnswer(exchange, snapshot);
  },
  replay(inputs) {
    const snapshot = inputs.snapshot(PAGE, PageSnapshotSchema) ?? { responseHtml: null, sourceCardsHtml: [], modePickerHtml: null };
    return parseGeminiAnswer(inputs.exchange(STREAM_GENERATE), snapshot);
  },
});
