/**
 * "Verify on the wire" (DESIGN.md §4): the conversation request the page actually sent is the ground truth of what
 * ChatGPT was asked, whatever the page looked like on the way there.
 */
import { ScraperDriftError } from "../../errors";
import type { CapturedExchange } from "../../browser/page/capture/types";
import { requireJsonRequestBody } from "../../browser/page/navigation/engine";
import { SEARCH_HINT } from "./selectors";

const PROVIDER = "chatgpt";

/**
 * The request the page sent is the ground truth (chatgpt.md §3): it must carry the prompt as the user message and ask
 * for web search. A body that cannot be read is a failure, not a pass.
 */
export function verifyChatgptRequest(exchange: CapturedExchange, prompt: string): void {
  const body = requireJsonRequestBody(exchange, PROVIDER);
  const sent = sentPrompt(body);
  if (sent === null || normaliseText(sent) !== normaliseText(prompt)) {
    throw new ScraperDriftError(PROVIDER, "prompt_not_sent", "the request's user message is not the prompt");
  }
  const hints = body.system_hints;
  if (!Array.isArray(hints) || !hints.includes(SEARCH_HINT)) {
    throw new ScraperDriftError(PROVIDER, "search_not_requested", "the request's system_hints do not ask for web search");
  }
}

/** The text of the last user message of the request body (`messages[].content.parts`). */
function sentPrompt(body: Record<string, unknown>): string | null {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const message of [...messages].reverse()) {
    if (typeof message !== "object" || message === null) continue;
    const author: unknown = Reflect.get(message, "author");
    const role: unknown = typeof author === "object" && author !== null ? Reflect.get(author, "role") : undefined;
    if (role !== undefined && role !== "user") continue;
    const content: unknown = Reflect.get(message, "content");
    const parts: unknown = typeof content === "object" && content !== null ? Reflect.get(content, "parts") : undefined;
    if (Array.isArray(parts)) return parts.filter((part): part is string => typeof part === "string").join("\n");
  }
  return null;
}

/** Whitespace-insensitive form: the composer may turn line breaks into paragraphs or trim the ends. */
export function normaliseText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
