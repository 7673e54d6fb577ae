/**
 * Reads a `POST …/StreamGenerate` request the way the real endpoint needs it (gemini.md §3): the query (`bl`, `f.sid`,
 * `hl`, `_reqid`, `rt=c`), the `X-Same-Domain: 1` header, and the form body `at=<token>&f.req=<[null,"<inner JSON>"]>`
 * whose inner list starts `[[<prompt>,…],[<lang>],…]`.
 */
import { parseJsonOrUndefined } from "../../src/util/json-record";

export const BUILD_LABEL_PATTERN = /^boq_assistant-bard-web-server_\d{8}\.\d{2}_p\d+$/;

/** What the replica uses of the request (everything else of the real body is accepted and ignored). */
export interface GeminiRequest {
  prompt: string;
  /** `hl` of the query; the language slot of the body when the query has none; "en" when neither has one. */
  language: string;
  /** The inner list's language slot (`[1][0]`), null when absent. */
  bodyLanguage: string | null;
  at: string;
  query: { bl: string; fSid: string; hl: string | null; reqid: string; rt: string };
  /** The `x-goog-ext-525001261-jspb` model selector header, null when absent. */
  modelHeader: string | null;
  /** The decoded inner list (for recording). */
  inner: unknown[];
}

export type RequestReading = { ok: true; request: GeminiRequest } | { ok: false; reason: string };

/** Validates one StreamGenerate request; `knownToken` says whether an `at` token was issued by a page of this replica. */
export function readGeminiRequest(url: URL, headers: Headers, body: string, knownToken: (token: string) => boolean): RequestReading {
  const bl = url.searchParams.get("bl") ?? "";
  if (!BUILD_LABEL_PATTERN.test(bl)) return { ok: false, reason: "bl: missing or not a build label" };
  if (url.searchParams.get("rt") !== "c") return { ok: false, reason: "rt: must be c" };
  const fSid = url.searchParams.get("f.sid") ?? "";
  const reqid = url.searchParams.get("_reqid") ?? "";
  if (!/^-?\d+$/.test(fSid) || !/^\d+$/.test(reqid)) return { ok: false, reason: "f.sid/_reqid: must be integers" };
  if (headers.get("x-same-domain") !== "1") return { ok: false, reason: "x-same-domain: header missing" };
  const contentType = headers.get("content-type") ?? "";
  if (!contentType.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return { ok: false, reason: "content-type: must be application/x-www-form-urlencoded" };
  }

  const form = new URLSearchParams(body);
  const at = form.get("at") ?? "";
  if (!knownToken(at)) return { ok: false, reason: "at: missing or unknown token" };
  const outer = parseJsonOrUndefined(form.get("f.req") ?? "");
  if (!Array.isArray(outer) || typeof outer[1] !== "string") return { ok: false, reason: 'f.req: must be [null,"<inner JSON>"]' };
  const inner = parseJsonOrUndefined(outer[1]);
  if (!Array.isArray(inner)) return { ok: false, reason: "f.req: inner JSON must be a list" };
  const message: unknown = Array.isArray(inner[0]) ? inner[0][0] : undefined;
  if (typeof message !== "string" || message.trim() === "") return { ok: false, reason: "f.req: [0][0] must be the prompt" };
  const bodyLanguage: unknown = Array.isArray(inner[1]) ? inner[1][0] : undefined;
  const hl = url.searchParams.get("hl");

  return {
    ok: true,
    request: {
      prompt: message,
      language: hl ?? (typeof bodyLanguage === "string" ? bodyLanguage : "en"),
      bodyLanguage: typeof bodyLanguage === "string" ? bodyLanguage : null,
      at,
      query: { bl, fSid, hl, reqid, rt: "c" },
      modelHeader: headers.get("x-goog-ext-525001261-jspb"),
      inner,
    },
  };
}
