/** ChatGPT (chatgpt.com), the chat assistant (spec §2.6, §4.3): the answer with its links, web searches and model. */
import { uniqueSources } from "../../schemas/cited-sources";
import { z } from "@hono/zod-openapi";
import { defineProvider } from "../provider-contract";
import { CHATGPT_DOMAINS, CHATGPT_PARAMS, ChatgptAnswerSchema } from "./declaration";
import { markdownTokenTree } from "./markdown-tokens";
import { captureChatgptExchange } from "./navigate";
import { parseChatgptCapture } from "./parse";

/** Names of the parser's inputs in a capture file: the conversation stream, and the model slug the page showed. */
const CONVERSATION = "conversation";
const MODEL_SLUG = "model_slug";

export const chatgptProvider = defineProvider({
  id: "chatgpt",
  name: "ChatGPT",
  kind: "chat assistant",
  summary: "ChatGPT's answer (web search on) with its links, the web searches it ran and the model that answered.",
  version: "chatgpt/2026.11.1",
  citedSources: (answer) => uniqueSources(answer.links.map((source) => ({ url: source.url, title: source.text }))),
  modelLabelField: "llm_model",
  params: CHATGPT_PARAMS,
  answer: ChatgptAnswerSchema,
  example: {
    scraper: "chatgpt",
    status: "done",
    job_id: "0b6f8a52-3c1e-4d2a-9f47-5e8c1d2b7a90",
    prompt: "What is the tallest building in the world?",
    country: "US",
    result: "The tallest building is the Burj Khalifa in Dubai, 828 m tall (Wikipedia).",
    result_markdown:
      "The tallest building is the Burj Khalifa in Dubai, 828 m tall ([Wikipedia](https://en.wikipedia.org/wiki/Burj_Khalifa)).",
    links: [{ text: "Wikipedia", url: "https://en.wikipedia.org/wiki/Burj_Khalifa" }],
    search_queries: ["tallest building in the world"],
    llm_model: "gpt-5-2026-10-14",
    credits_used: 3,
    elapsed_ms: 9412.5,
    cached: false,
    markdown_url: "https://api.example.com/md/0b6f8a52-3c1e-4d2a-9f47-5e8c1d2b7a90.md",
    served_by: {
      country: "US",
      session: "anonymous",
      attempt: 1,
      hot_page: true,
      model_label: "gpt-5-2026-10-14",
      scraper_version: "chatgpt/2026.11.1",
      from_cache: false,
    },
    evidence: null,
  },
  origin: { real: () => "https://chatgpt.com" },
  allowedDomains: (origin) => [...new Set([new URL(origin).hostname, ...CHATGPT_DOMAINS])],
  async scrape({ pageSession, origin, params, signal, deadline, recorder }) {
    const { exchange, readModelSlugFromPage } = await captureChatgptExchange({
      pageSession,
      origin,
      prompt: params.prompt,
      signal,
      deadline,
    });
    recorder?.exchange(CONVERSATION, exchange);
    const parsed = parseChatgptCapture(exchange);
    let answer = parsed;
    if (parsed.llm_model === null) {
      // the stream did not name the model: the page's model picker does
      const slug = await readModelSlugFromPage();
      recorder?.snapshot(MODEL_SLUG, slug);
      answer = { ...parsed, llm_model: slug };
    }
    if (!params.markdown_json) return answer;
    return { ...answer, result_markdown_json: markdownTokenTree(answer.result_markdown ?? "") };
  },
  replay(inputs, params) {
    const parsed = parseChatgptCapture(inputs.exchange(CONVERSATION));
    const answer =
      parsed.llm_model === null ? { ...parsed, llm_model: inputs.snapshot(MODEL_SLUG, z.string().nullable()) ?? null } : parsed;
    if (!params.markdown_json) return answer;
    return { ...answer, result_markdown_json: markdownTokenTree(answer.result_markdown ?? "") };
  },
});
