/**
 * "Verify on the wire" for Gemini: the StreamGenerate request the page sent must carry the prompt and the requested
 * language (gemini.md §3: `hl=` in the query, `[1][0]` of the inner list in `f.req`). A body that cannot be read is a
 * failure, never a pass.
 */
import { ScraperDriftError } from "../../errors";
import type { CapturedExchange } from "../../browser/page/capture/types";
import { sameLanguage } from "./language";
import { parseJsonOrUndefined } from "../../util/json-record";

/** The inner list of `f.req=[null,"<inner JSON>"]` in a form-encoded StreamGenerate body. */
function innerRequestList(requestBody: string): unknown[] | null {
  const fReq = new URLSearchParams(requestBody).get("f.req");
  if (fReq === null) return null;
  const outer = parseJsonOrUndefined(fReq);
  if (!Array.isArray(outer) || typeof outer[1] !== "string") return null;
  const inner = parseJsonOrUndefined(outer[1]);
  return Array.isArray(inner) ? inner : null;
}

export function verifyStreamRequest(exchange: Pick<CapturedExchange, "url" | "requestBody">, prompt: string, language: string): void {
  if (exchange.requestBody === null) {
    throw new ScraperDriftError("gemini", "request_body_unreadable", "the StreamGenerate request body could not be read");
  }
  const inner = innerRequestList(exchange.requestBody);
  if (inner === null)
    throw new ScraperDriftError("gemini", "request_body_unexpected", "the StreamGenerate body has no readable f.req list");
  const sentPrompt: unknown = Array.isArray(inner[0]) ? inner[0][0] : undefined;
  if (typeof sentPrompt !== "string" || comparable(sentPrompt) !== comparable(prompt)) {
    throw new ScraperDriftError("gemini", "prompt_mismatch", "the prompt in the StreamGenerate request differs from the one typed");
  }
  const queryLanguage = queryParam(exchange.url, "hl");
  const bodyLanguage: unknown = Array.isArray(inner[1]) ? inner[1][0] : undefined;
  for (const sent of [queryLanguage, typeof bodyLanguage === "string" ? bodyLanguage : null]) {
    if (sent !== null && sent !== "" && !sameLanguage(sent, language)) {
      throw new ScraperDriftError("gemini", "language_mismatch", `the page sent language ${sent} instead of ${language}`);
    }
  }
}

/** Editors normalise whitespace (line breaks become paragraphs, runs of spaces may collapse): compare without it. */
function comparable(text: string): string {
  return text.normalize("NFC").replace(/\s+/g, " ").trim();
}

function queryParam(url: string, name: string): string | null {
  try {
    return new URL(url).searchParams.get(name);
  } catch {
    return null;
  }
}
