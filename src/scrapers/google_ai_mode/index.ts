/** Google AI Mode (www.google.com/search?udm=50), the AI search mode of spec §2.6: answer, citations, sources panel. */
import { uniqueSources } from "../../schemas/cited-sources";
import { z } from "@hono/zod-openapi";
import { defineProvider } from "../provider-contract";
import { GOOGLE_AI_MODE_DOMAINS, GOOGLE_AI_MODE_EXAMPLE, GOOGLE_AI_MODE_ID, GoogleAiModeAnswerSchema, searchLocaleOf } from "./declaration";
import { captureAiModeAnswer } from "./navigate";
import { PanelEntrySnapshotSchema, parseAiModeCapture } from "./parse";

/** Names of the parser's inputs in a capture file: the folwr fragment, and whether the page showed a finished answer. */
const FOLWR = "folwr";
const PAGE_COMPLETED = "page_completed";
/** The "N sites" panel's entries as the page showed them once opened (absent in captures recorded before it was read). */
const PANEL = "sources_panel";

export const googleAiModeProvider = defineProvider({
  id: GOOGLE_AI_MODE_ID,
  name: "Google AI Mode",
  kind: "AI search mode",
  summary: "Google Search's AI Mode answer with its citations and the sources panel.",
  version: "google_ai_mode/2026.11.1",
  citedSources: (answer) => uniqueSources(answer.citations.map((source) => ({ url: source.url, title: source.title }))),
  params: {},
  countries: { refused: ["JP", "TW"] },
  answer: GoogleAiModeAnswerSchema,
  example: GOOGLE_AI_MODE_EXAMPLE,
  origin: { real: () => "https://www.google.com" },
  allowedDomains: (origin) => [...new Set([new URL(origin).hostname, ...GOOGLE_AI_MODE_DOMAINS])],
  async scrape({ pageSession, origin, params, signal, deadline, recorder }) {
    const { hl, gl } = searchLocaleOf(params.country);
    const capture = await captureAiModeAnswer({ pageSession, origin, prompt: params.prompt, hl, gl, signal, deadline });
    recorder?.exchange(FOLWR, capture.exchange);
    recorder?.snapshot(PAGE_COMPLETED, capture.pageCompleted);
    recorder?.snapshot(PANEL, capture.panel ?? null);
    return parseAiModeCapture(capture);
  },
  replay: (inputs) =>
    parseAiModeCapture({
      exchange: inputs.exchange(FOLWR),
      pageCompleted: inputs.snapshot(PAGE_COMPLETED, z.boolean()) ?? false,
      panel: inputs.snapshot(PANEL, z.array(PanelEntrySnapshotSchema).nullable()) ?? null,
    }),
});
