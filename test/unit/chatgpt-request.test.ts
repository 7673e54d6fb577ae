/**
 * "Verify on the wire": the ChatGPT scraper accepts a captured conversation request only when it carries the prompt
 * as the user message and asks for web search (providers/chatgpt.md §1, §3). A body it cannot read is a failure.
 */
import { describe, expect, it } from "vitest";
import { ScraperDriftError } from "../../src/errors";
import { verifyChatgptRequest } from "../../src/scrapers/chatgpt/request-check";
import type { CapturedExchange } from "../../src/browser/page/capture/types";

function exchange(requestBody: string | null): CapturedExchange {
  return {
    rule: "conversation",
    transport: "fetch",
    url: "https://chatgpt.com/backend-anon/f/conversation",
    method: "POST",
    status: 200,
    contentType: "text/event-stream",
    requestBody,
    chunks: [],
    chunkTimesMs: [],
    frames: [],
    complete: true,
    error: null,
    startedAt: 0,
  };
}

function body(prompt: unknown, hints: unknown = ["search"]): string {
  return JSON.stringify({
    action: "next",
    messages: [{ id: "u-1", author: { role: "user" }, content: { content_type: "text", parts: [prompt] } }],
    parent_message_id: "client-created-root",
    system_hints: hints,
  });
}

function driftCode(run: () => void): string | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof ScraperDriftError) return error.driftCode;
    throw error;
  }
}

describe("verifyChatgptRequest", () => {
  it("accepts the prompt as the user message with search among the hints, whitespace aside", () => {
    expect(driftCode(() => verifyChatgptRequest(exchange(body("Two  lines\nhere ")), "Two lines here"))).toBeNull();
    expect(driftCode(() => verifyChatgptRequest(exchange(body("q", ["reason", "search"])), "q"))).toBeNull();
  });

  it("refuses a request without the prompt or without the search hint", () => {
    expect(driftCode(() => verifyChatgptRequest(exchange(body("something else")), "the prompt"))).toBe("chatgpt.prompt_not_sent");
    expect(driftCode(() => verifyChatgptRequest(exchange(body("q", [])), "q"))).toBe("chatgpt.search_not_requested");
    expect(driftCode(() => verifyChatgptRequest(exchange(body("q", null)), "q"))).toBe("chatgpt.search_not_requested");
    expect(driftCode(() => verifyChatgptRequest(exchange(JSON.stringify({ action: "next", system_hints: ["search"] })), "q"))).toBe(
      "chatgpt.prompt_not_sent",
    );
  });

  it("treats a body it cannot read as a failure, never as a pass", () => {
    expect(driftCode(() => verifyChatgptRequest(exchange(null), "q"))).toBe("chatgpt.request_body_unreadable");
    expect(driftCode(() => verifyChatgptRequest(exchange("not json"), "q"))).toBe("chatgpt.request_body_not_json");
  });
});
