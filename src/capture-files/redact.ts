/**
 * Redaction of a capture file before it leaves the Worker. Cookies and other headers never enter a capture (the capture
 * layer records bodies and frames, not headers); what can carry a credential or a person's address is a request's URL
 * or body (CSRF and XSRF tokens, `at=` of Google's forms, `key=AIza…`), a WebSocket frame, or a token or account
 * e-mail address the site echoes back. Those values are replaced by as many `*` as they had bytes, so a body's recorded
 * chunk lengths still add up and the stream replays in the same pieces.
 *
 * What is masked:
 * - values named as secrets, found as JSON pairs (also inside a JSON string, as in Google's `f.req`), form and query
 *   pairs, `name:value` list items (Google's `_xsrf:…`), hidden inputs and meta tags. Names count as secret when they
 *   say so (`csrf_token`, `x-xsrf`, `authToken`, `read_write_token`, `password`, `api_key`, `session_id`,
 *   `temporarySessionKey`, `signature`), and in requests also a bare `token`, `key`, `at`, `sig` and `sid` / `f.sid`;
 * - a bare `token` in what the site sends back only when its value looks like a credential (one unbroken run of 12+
 *   letters and digits, or base64 JSON `eyJ…`): Grok streams its answer as `{"token": "…"}`, words and spaces;
 * - wherever they appear: JWTs, `Bearer …` (any case), Google API keys (`AIza` + 35 characters) and e-mail addresses;
 * - all of the above once more after percent-decoding (`+` as a space), so a form-encoded body, or a URL inside a query
 *   parameter (`%3Ftoken%3D…`, `bob%40example.com`), is masked like plain text. The masked span of the encoded text is
 *   exactly the characters that encoded the value.
 *
 * What is kept: a value the file's answer or query holds (a source link's `?sid=…`, an address the answer quotes, the
 * prompt): it is in the file anyway, and masking it elsewhere would only change the answer the capture must replay to.
 *
 * Values without a name or a shape (a token inside Gemini's nested `f.req` array) cannot be recognised: review a
 * capture of a real site before committing it. The capture endpoint then replays the redacted file; a redaction that
 * changed the answer fails the capture.
 */
import type { CaptureFile, ExchangeFile } from "./format";

const SECRET_WORDS = "token|csrf|xsrf|password|passwd|secret|cookie|authorization|api[-_]?key|session[-_]?(?:id|key)|signature";
const REQUEST_SECRET_NAME = new RegExp(`^(?:at|sig|key|token|(?:.*[._-])?sid|.*(?:${SECRET_WORDS}).*)$`, "i");
/** In responses a bare `token` is decided by its value (BEARER_LIKE_VALUE); plural counters (`max_tokens`) are not secrets. */
const RESPONSE_SECRET_NAME = new RegExp(`^(?!tokens?$)(?!.*tokens$)(?:.*(?:${SECRET_WORDS}).*)$`, "i");
/** A value shaped like a credential: one run of 12+ token characters with letters and digits, or base64 JSON (`eyJ…`). */
const BEARER_LIKE_VALUE = /^(?:eyJ[A-Za-z0-9_-]{6,}.*|(?=[^\d]*\d)(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9._~+/:-]{12,}=*)$/;

type Side = "request" | "response";

const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
const BEARER = /\b(Bearer\s+)([A-Za-z0-9._~+/-]{16,}=*)/gi;
const GOOGLE_API_KEY = /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g;
/** An e-mail address (RFC 5322's common form: dot-atoms, a domain with a letter TLD). */
const EMAIL =
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b/g;
const JSON_PAIR = /"([A-Za-z0-9_.-]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
/** A JSON pair inside a JSON string (`"{\"csrf\":\"…\"}"`), as in Google's `f.req`. */
const ESCAPED_JSON_PAIR = /\\"([A-Za-z0-9_.-]{1,64})\\"(\s*:\s*)\\"((?:[^"\\]|\\[^"])*)\\"/g;
const FORM_PAIR = /(^|[?&;])([A-Za-z0-9_.%-]{1,64})=([^&#\s"'<>]*)/g;
/** `name:value` items of a comma list, as in Google's `async=_fmt:adl,_xsrf:…`. */
const COLON_PAIR = /(^|[,=])([A-Za-z0-9_.-]{1,64}):([^,&#\s"'<>:]+)/g;
const HTML_TAG = /<(?:input|meta)\b[^>]*>/gi;
const HTML_NAME = /\b(?:name|id|property)\s*=\s*"([^"]*)"/i;
const HTML_VALUE = /(\b(?:value|content)\s*=\s*")([^"]*)(")/i;
const PERCENT_OR_PLUS = /%[0-9A-Fa-f]{2}|\+/;
const ALREADY_MASKED = /^\*+$/;
/** Queries inside query values (a redirect URL inside a redirect URL) searched for secrets. */
const MAX_NESTED_QUERIES = 3;

const utf8 = new TextEncoder();

/** Replaces a value by `*`, byte for byte (UTF-8), so byte offsets around it do not move. */
function mask(value: string): string {
  return "*".repeat(utf8.encode(value).byteLength);
}

/** Replaces a value by `*`, one per UTF-16 unit: for the decoded view, whose positions map back to the encoded text. */
function maskUnits(value: string): string {
  return "*".repeat(value.length);
}

class Redactor {
  readonly notes = new Set<string>();

  /** @param kept the strings of the file's answer and query: a value inside one of them is not masked. */
  constructor(private readonly kept: readonly string[]) {}

  text(where: string, text: string, side: Side): string {
    const plain = this.pass(where, text, side, mask);
    return PERCENT_OR_PLUS.test(plain) ? this.decodedPass(where, plain, side) : plain;
  }

  /** Whether a pair's value is a secret, by its name (and for a response's bare `token`, by its shape). */
  private secretPair(name: string, value: string, side: Side): boolean {
    const decodedName = safeDecode(name);
    if (side === "request") return REQUEST_SECRET_NAME.test(decodedName);
    return RESPONSE_SECRET_NAME.test(decodedName) || (/^token$/i.test(decodedName) && BEARER_LIKE_VALUE.test(value));
  }

  /** Whether a value is to be masked: not empty, not masked already, and not something the answer or query holds. */
  private maskable(value: string): boolean {
    return value !== "" && !ALREADY_MASKED.test(value) && !this.kept.some((kept) => kept.includes(value));
  }

  private pass(where: string, text: string, side: Side, maskOf: (value: string) => string): string {
    const masked = (label: string, value: string): string | null => {
      if (!this.maskable(value)) return null;
      this.notes.add(`${where}: ${label}`);
      return maskOf(value);
    };
    let out = text;
    for (const [pattern, label] of [
      [JWT, "jwt"],
      [GOOGLE_API_KEY, "google_api_key"],
      [EMAIL, "email"],
    ] as const) {
      out = out.replace(pattern, (value) => masked(label, value) ?? value);
    }
    out = out.replace(BEARER, (match, prefix: string, token: string) => {
      const replaced = masked("bearer", token);
      return replaced === null ? match : `${prefix}${replaced}`;
    });
    for (const pattern of [JSON_PAIR, ESCAPED_JSON_PAIR]) {
      const quote = pattern === JSON_PAIR ? '"' : '\\"';
      out = out.replace(pattern, (match, name: string, separator: string, value: string) => {
        if (!this.secretPair(name, value, side)) return match;
        const replaced = masked(name, value);
        return replaced === null ? match : `${quote}${name}${quote}${separator}${quote}${replaced}${quote}`;
      });
    }
    // A value that is not masked is searched again: it may be a URL with a query of its own (`redirect=…?token=…`).
    // Three levels deep at most, so a crafted chain of `?a=…?a=…` costs neither the stack nor quadratic time.
    const formPairs = (part: string, depth: number): string =>
      part.replace(FORM_PAIR, (match, lead: string, name: string, value: string) => {
        const replaced = this.secretPair(name, value, side) ? masked(safeDecode(name), value) : null;
        if (replaced !== null) return `${lead}${name}=${replaced}`;
        return depth < MAX_NESTED_QUERIES ? `${lead}${name}=${formPairs(value, depth + 1)}` : match;
      });
    out = formPairs(out, 0);
    out = out.replace(COLON_PAIR, (match, lead: string, name: string, value: string) => {
      if (!this.secretPair(name, value, side)) return match;
      const replaced = masked(name, value);
      return replaced === null ? match : `${lead}${name}:${replaced}`;
    });
    out = out.replace(HTML_TAG, (tag) => {
      const name = HTML_NAME.exec(tag)?.[1];
      if (name === undefined) return tag;
      return tag.replace(HTML_VALUE, (match, open: string, value: string, close: string) => {
        if (!this.secretPair(name, value, side)) return match;
        const replaced = masked(name, value);
        return replaced === null ? match : `${open}${replaced}${close}`;
      });
    });
    return out;
  }

  /**
   * The same pass over the percent-decoded text; every decoded character it masked masks the characters that encoded
   * it (`%40` is three of them), so the text keeps its bytes and its encoding around the masked values.
   */
  private decodedPass(where: string, text: string, side: Side): string {
    const { decoded, spans } = percentDecodeWithSpans(text);
    const redacted = this.pass(where, decoded, side, maskUnits);
    if (redacted === decoded) return text;
    const maskedAt = new Array<boolean>(text.length).fill(false);
    for (let index = 0; index < decoded.length; index += 1) {
      if (redacted[index] === decoded[index]) continue;
      const [start, end] = spans[index] ?? [index, index + 1];
      for (let at = start; at < end; at += 1) maskedAt[at] = true;
    }
    let out = "";
    let index = 0;
    while (index < text.length) {
      let end = index;
      while (end < text.length && maskedAt[end] === maskedAt[index]) end += 1;
      const piece = text.slice(index, end);
      out += maskedAt[index] === true ? mask(piece) : piece;
      index = end;
    }
    return out;
  }

  /** A snapshot value: strings are redacted as page text, object fields also by their name. */
  json(where: string, value: unknown): unknown {
    if (typeof value === "string") return this.text(where, value, "response");
    if (Array.isArray(value)) return value.map((item, index) => this.json(`${where}[${index}]`, item));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => {
          if (typeof item === "string" && this.secretPair(key, item, "response") && this.maskable(item)) {
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

const HEX_BYTE = /^%[0-9A-Fa-f]{2}$/;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text of one UTF-8 sequence, or null when it is not valid UTF-8 (overlong, a surrogate). */
function strictUtf8Decode(bytes: readonly number[]): string | null {
  try {
    return strictUtf8.decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

/** The UTF-8 sequence length a lead byte announces (0: not a lead byte). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Form decoding (`%XX` as UTF-8, `+` as a space) that records, for each UTF-16 unit of the result, the span of the
 * encoded text it came from. Escapes that are not valid UTF-8 stay as they were written.
 */
function percentDecodeWithSpans(encoded: string): { decoded: string; spans: Array<[number, number]> } {
  let decoded = "";
  const spans: Array<[number, number]> = [];
  const byteAt = (at: number): number | null => {
    const triplet = encoded.slice(at, at + 3);
    return HEX_BYTE.test(triplet) ? Number.parseInt(triplet.slice(1), 16) : null;
  };
  let index = 0;
  while (index < encoded.length) {
    const lead = byteAt(index);
    if (lead !== null) {
      const length = sequenceLength(lead);
      const bytes = [lead];
      for (let next = 1; next < length; next += 1) {
        const byte = byteAt(index + next * 3);
        if (byte === null || (byte & 0xc0) !== 0x80) break;
        bytes.push(byte);
      }
      const text = length > 0 && bytes.length === length ? strictUtf8Decode(bytes) : null;
      if (text !== null) {
        const span: [number, number] = [index, index + length * 3];
        for (let unit = 0; unit < text.length; unit += 1) spans.push(span);
        decoded += text;
        index += length * 3;
        continue;
      }
    }
    decoded += encoded[index] === "+" ? " " : encoded[index];
    spans.push([index, index + 1]);
    index += 1;
  }
  return { decoded, spans };
}

/** Every string of a JSON value (the answer's text, its source URLs…). */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(stringsOf);
  return [];
}

/** The file with every credential-like value masked, and `redactions` listing where (never the values). */
export function redactCaptureFile(file: CaptureFile): CaptureFile {
  const redactor = new Redactor([...stringsOf(file.answer), ...Object.values(file.query)]);
  const exchanges = Object.fromEntries(
    Object.entries(file.exchanges).map(([name, exchange]) => [name, redactor.exchange(`exchanges.${name}`, exchange)]),
  );
  const snapshots = Object.fromEntries(
    Object.entries(file.snapshots).map(([name, value]) => [name, redactor.json(`snapshots.${name}`, value)]),
  );
  const origin = redactor.text("origin", file.origin, "request");
  return { ...file, origin, exchanges, snapshots, redactions: [...new Set([...file.redactions, ...redactor.notes])].sort() };
}
