/** Perplexity (www.perplexity.ai), the answer engine (spec §2.6, §4.3): numbered web sources and related questions. */
import { uniqueSources } from "../../schemas/cited-sources";
import { z } from "@hono/zod-openapi";
import { defineProvider } from "../provider-contract";
import { PERPLEXITY_DOMAINS, PERPLEXITY_PARAMS, PerplexityAnswerSchema } from "./declaration";
import { citationMarkerNumbers } from "./markers";
import { capturePerplexityAnswer } from "./navigate";
import { parsePerplexityCapture } from "./parse";

/** Names of the parser's inputs in a capture file: the answer stream, and the rendered answer's HTML when it was read. */
const ANSWER_STREAM = "answer_stream";
const ANSWER_HTML = "answer_html";

export const perplexityProvider = defineProvider({
  id: "perplexity",
  name: "Perplexity",
  kind: "answer engine",
  summary: "Perplexity's answer with numbered web sources ([n] markers index `sources`) and related questions.",
  version: "perplexity/2026.11.1",
  citedSources: (answer) => uniqueSources(answer.sources.map((source) => ({ url: source.url, title: source.title }))),
  params: PERPLEXITY_PARAMS,
  answer: PerplexityAnswerSchema,
  example: {
    scraper: "perplexity",
    status: "done",
    job_id: "5b0e1c62-8a4f-4f0e-9a57-0d3c8d1f2a6b",
    prompt: "Who built the Eiffel Tower?",
    country: "US",
    result: "The Eiffel Tower was designed and built by Gustave Eiffel's company [1][2].",
    result_markdown: "The Eiffel Tower was designed and built by **Gustave Eiffel's company** [1][2].",
    sources: [
      {
        title: "Eiffel Tower - Wikipedia",
        url: "https://en.wikipedia.org/wiki/Eiffel_Tower",
        snippet: "The Eiffel Tower is a wrought-iron lattice tower…",
      },
      {
        title: "Eiffel Tower | Britannica",
        url: "https://www.britannica.com/topic/Eiffel-Tower-Paris-France",
        snippet: "Parisian landmark…",
      },
    ],
    related_questions: ["How tall is the Eiffel Tower?"],
    credits_used: 3,
    elapsed_ms: 8123.4,
    cached: false,
    markdown_url: "https://api.example.com/md/5b0e1c62-8a4f-4f0e-9a57-0d3c8d1f2a6b.md",
    served_by: {
      country: "US",
      session: "anonymous",
      attempt: 1,
      hot_page: true,
      model_label: null,
      scraper_version: "perplexity/2026.11.1",
      from_cache: false,
    },
    evidence: null,
  },
  origin: { real: () => "https://www.perplexity.ai" },
  allowedDomains: (origin) => [...new Set([new URL(origin).hostname, ...PERPLEXITY_DOMAINS])],
  async scrape({ pageSession, origin, params, signal, deadline, recorder }) {
    const captured = await capturePerplexityAnswer({
      pageSession,
      origin,
      prompt: params.prompt,
      webSearch: params.web_search,
      signal,
      deadline,
    });
    recorder?.exchange(ANSWER_STREAM, captured.exchange);
    const answer = parsePerplexityCapture(captured.exchange);
    // the stream carries the sources; the rendered citation pills are only read when it has none for cited markers
    if (answer.sources.length > 0 || citationMarkerNumbers(answer.result_markdown ?? "").length === 0) return answer;
    const html = await captured.readAnswerHtml().catch(() => null);
    recorder?.snapshot(ANSWER_HTML, html);
    return html === null ? answer : parsePerplexityCapture(captured.exchange, html);
  },
  replay(inputs) {
    const exchange = inputs.exchange(ANSWER_STREAM);
    const answer = parsePerplexityCapture(exchange);
    if (answer.sources.length > 0 || citationMarkerNumbers(answer.result_markdown ?? "").length === 0) return answer;
    const html = inputs.snapshot(ANSWER_HTML, z.string().nullable()) ?? null;
    return html === null ? answer : parsePerplexityCapture(exchange, html);
  },
});
