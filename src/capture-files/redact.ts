/**
 * Redaction of a capture file before it leaves the Worker. Cookies never enter a capture (the capture layer records
 * bodies and frames, not headers); what can carry a credential is a request's URL or body (CSRF and XSRF tokens,
 * `at=` of Google's forms), a WebSocket frame, or a token the site echoes back. Those values are replaced by as many
 * `*` as they had bytes, so a body's recorded chunk lengths still add up and the stream replays in the same pieces.
 * Values are found as JSON pairs, form and query pairs, `name:value` list items (Google's `_xsrf:…`), hidden inputs
 * and meta tags.
 *
 * Names count as secret when they say so (`csrf_token`, `x-xsrf`, `authToken`, `password`, `api_key`, `session_id`,
 * `temporarySessionKey`, and in requests also a bare `token`, `at`, `sig` and `sid` / `f.sid`). Values without a name
 * (a token inside Gemini's nested `f.req` array) cannot be recognised: review a capture of a real site before committing it. In what the site sends back, a bare `token` is not a
 * secret: Grok streams its answer as `{"token": "…"}`. JWTs and `Bearer …` values are masked wherever they appear.
 * The capture endpoint then replays the redacted file; a redaction that changed the answer fails the capture.
 */
import type { CaptureFile, ExchangeFile } from "./format";

const REQUEST_SECRET_NAME =
  /^(?:at|sig|token|(?:.*[._-])?sid|.*(?:token|csrf|xsrf|password|passwd|secret|cookie|authorization|api[-_]?key|session[-_]?(?:id|key)|signature).*)$/i;
const RESPONSE_SECRET_NAME =
  /^(?:.*(?:access|refresh|id|csrf|xsrf|session|auth|bearer|api)[-_]?token.*|.*(?:csrf|xsrf|password|passwd|secret|cookie|authorization|api[-_]?key|session[-_]?(?:id|key)).*)$/i;

type Side = "request" | "response";

const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
const BEARER = /\b(Bearer\s+)([A-Za-z0-9._~+/-]{16,}=*)/g;
const JSON_PAIR = /"([A-Za-z0-9_.-]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
/** A JSON pair inside a JSON string (`"{\"csrf\":\"…\"}"`), as in Google's `f.req`. */
const ESCAPED_JSON_PAIR = /\\"([A-Za-z0-9_.-]{1,64})\\"(\s*:\s*)\\"((?:[^"\\]|\\[^"])*)\\"/g;
const FORM_PAIR = /(^|[?&;])([A-Za-z0-9_.%-]{1,64})=([^&#\s"'<>]*)/g;
/** `name:value` items of a comma list, as in Google's `async=_fmt:adl,_xsrf:…`. */
const COLON_PAIR = /(^|[,=])([A-Za-z0-9_.-]{1,64}):([^,&#\s"'<>:]+)/g;
const HTML_TAG = /<(?:input|meta)\b[^>]*>/gi;
const HTML_NAME = /\b(?:name|id|property)\s*=\s*"([^"]*)"/i;
const HTML_VALUE = /(\b(?:value|content)\s*=\s*")([^"]*)(")/i;

/** Replaces a value by `*`, byte for byte (UTF-8), so byte offsets around it do not move. */
function mask(value: string): string {
  return "*".repeat(new TextEncoder().encode(value).byteLength);
}

class Redactor {
  readonly notes = new Set<string>();

  text(where: string, text: string, side: Side): string {
    const secret = side === "request" ? REQUEST_SECRET_NAME : RESPONSE_SECRET_NAME;
    const named = (name: string): boolean => secret.test(safeDecode(name));
    let out = text.replace(JWT, (token) => {
      this.notes.add(`${where}: jwt`);
      return mask(token);
    });
    out = out.replace(BEARER, (_match, prefix: string, token: string) => {
      this.notes.add(`${where}: bearer`);
      return `${prefix}${mask(token)}`;
    });
    for (const pattern of [JSON_PAIR, ESCAPED_JSON_PAIR]) {
      const quote = pattern === JSON_PAIR ? '"' : '\\"';
      out = out.replace(pattern, (match, name: string, separator: string, value: string) => {
        if (!named(name) || value === "" || /^\*+$/.test(value)) return match;
        this.notes.add(`${where}: ${name}`);
        return `${quote}${name}${quote}${separator}${quote}${mask(value)}${quote}`;
      });
    }
    out = out.replace(FORM_PAIR, (match, lead: string, name: string, value: string) => {
      if (!named(name) || value === "" || /^\*+$/.test(value)) return match;
      this.notes.add(`${where}: ${safeDecode(name)}`);
      return `${lead}${name}=${mask(value)}`;
    });
    out = out.replace(COLON_PAIR, (match, lead: string, name: string, value: string) => {
      if (!named(name) || /^\*+$/.test(value)) return match;
      this.notes.add(`${where}: ${name}`);
      return `${lead}${name}:${mask(value)}`;
    });
    out = out.replace(HTML_TAG, (tag) => {
      const name = HTML_NAME.exec(tag)?.[1];
      if (name === undefined || !named(name)) return tag;
      return tag.replace(HTML_VALUE, (match, open: string, value: string, close: string) => {
        if (value === "") return match;
        this.notes.add(`${where}: ${name}`);
        return `${open}${mask(value)}${close}`;
      });
    });
    return out;
  }

  /** A snapshot value: strings are redacted as page text, object fields also by their name. */
  json(where: string, value: unknown): unknown {
    if (typeof value === "string") return this.text(where, value, "response");
    if (Array.isArray(value)) return value.map((item, index) => this.json(`${where}[${index}]`, item));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => {
          if (typeof item === "string" && item !== "" && RESPONSE_SECRET_NAME.test(key)) {
            this.notes.add(`${where}.${key}`);
            return [key, mask(item)];
          }
          return [key, this.json(`${where}.${key}`, item)];
        }),
      );
    }
    return value;
  }

  exchange(where: string, exchange: ExchangeFile): ExchangeFile {
    return {
      ...exchange,
      url: this.text(`${where}.url`, exchange.url, "request"),
      request_body: exchange.request_body === null ? null : this.text(`${where}.request_body`, exchange.request_body, "request"),
      ...(exchange.body_text === undefined ? {} : { body_text: this.text(`${where}.body_text`, exchange.body_text, "response") }),
      frames: exchange.frames.map((frame, index) =>
        frame.binary
          ? frame
          : { ...frame, data: this.text(`${where}.frames[${index}]`, frame.data, frame.direction === "sent" ? "request" : "response") },
      ),
    };
  }
}

function safeDecode(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** The file with every credential-like value masked, and `redactions` listing where (never the values). */
export function redactCaptureFile(file: CaptureFile): CaptureFile {
  const redactor = new Redactor();
  const exchanges = Object.fromEntries(
    Object.entries(file.exchanges).map(([name, exchange]) => [name, redactor.exchange(`exchanges.${name}`, exchange)]),
  );
  const snapshots = Object.fromEntries(
    Object.entries(file.snapshots).map(([name, value]) => [name, redactor.json(`snapshots.${name}`, value)]),
  );
  const origin = redactor.text("origin", file.origin, "request");
  return { ...file, origin, exchanges, snapshots, redactions: [...new Set([...file.redactions, ...redactor.notes])].sort() };
}
