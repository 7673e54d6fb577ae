/** Google Gemini (gemini.google.com), the search-company assistant of spec §2.6. */
import { defineProvider } from "../provider";
import { GEMINI_DOMAINS, GEMINI_EXAMPLE, GeminiAnswerSchema } from "./declaration";
import { geminiLanguage } from "./language";
import { captureGeminiAnswer } from "./navigate";
import { parseGeminiAnswer } from "./parse";

export const geminiProvider = defineProvider({
  id: "gemini",
  name: "Gemini",
  kind: "search-company assistant",
  summary: "Gemini's answer with rich citations (snippet, site, highlighted sentences) and the model used.",
  params: {},
  countries: { refused: ["JP", "TW"] },
  answer: GeminiAnswerSchema,
  example: GEMINI_EXAMPLE,
  origin: { real: () => "https://gemini.google.com" },
  allowedDomains: (origin) => [...new Set([new URL(origin).hostname, ...GEMINI_DOMAINS])],
  async scrape({ page, origin, params, signal, deadline }) {
    const language = geminiLanguage(params.country);
    const { exchange, snapshot } = await captureGeminiAnswer({ page, origin, prompt: params.prompt, language, signal, deadline });
    return parseGeminiAnswer(exchange, snapshot);
  },
});
