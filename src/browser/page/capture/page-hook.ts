import { z } from "zod";

/**
 * The in-page half of the capture layer. Installed before any page script runs (evaluateOnNewDocument), it wraps
 * `fetch`, `XMLHttpRequest` and `WebSocket`, and for every request whose URL matches a capture rule it:
 * - applies the rule's outgoing patch to a JSON body / text frame (the navigation engine's fallback),
 * - reports the request, the response head, every body chunk (as the page's own reader receives it, base64) or
 *   WebSocket frame (both directions), and the end, one message at a time through a CDP binding.
 * Nothing accumulates in the page: chunks leave as they arrive, so capture cost is linear in the body length.
 *
 * It is a string because it runs in the page, not in the Worker; `installCaptureHook` fills in the rules.
 */

/** Messages from the page, one JSON string per binding call (checked on arrival: the page is not trusted). */
export const HookMessageSchema = z.discriminatedUnion("t", [
  z.object({
    t: z.literal("open"),
    id: z.string(),
    rule: z.string(),
    transport: z.enum(["fetch", "xhr", "websocket"]),
    url: z.string(),
    method: z.string(),
    requestBody: z.string().nullable(),
    startedAt: z.number(),
  }),
  z.object({ t: z.literal("response"), id: z.string(), status: z.number(), contentType: z.string() }),
  z.object({ t: z.literal("chunk"), id: z.string(), data: z.string(), at: z.number() }),
  z.object({
    t: z.literal("frame"),
    id: z.string(),
    direction: z.enum(["sent", "received"]),
    data: z.string(),
    binary: z.boolean(),
    at: z.number(),
  }),
  z.object({ t: z.literal("end"), id: z.string(), complete: z.boolean(), error: z.string().nullable() }),
]);
export type HookMessage = z.infer<typeof HookMessageSchema>;

export interface SerializedRule {
  name: string;
  source: string;
  flags: string;
  transports: readonly string[];
}

export const CAPTURE_BINDING = "__scraperCaptureEmit";
export const CAPTURE_PATCHES = "__scraperCapturePatches";

/**
 * The globals of a hot page's hook (src/browser/hot-page.ts): its mark (landing, rules, when it was prepared, whether
 * the landing loaded), the claim that flushes its buffer, and the flag of a buffer that overflowed.
 */
export const CAPTURE_HOT = {
  mark: "__scraperHotPage",
  claim: "__scraperCaptureClaim",
  overflow: "__scraperCaptureOverflowed",
} as const;

/** A hot page's hook keeps at most this many messages before a scrape claims them; past it the page is not used. */
const HOT_BUFFER_LIMIT = 2_000;

/** What a hot page's hook marks itself with (null: a scrape's own page, whose hook streams at once). */
export const HotHookMarkSchema = z.object({ landing: z.string(), rulesKey: z.string(), preparedAt: z.number() });
export type HotHookMark = z.infer<typeof HotHookMarkSchema>;

export function captureHookSource(rules: readonly SerializedRule[], hot: HotHookMark | null = null): string {
  return `(() => {
  if (window.__scraperCaptureInstalled) return;
  window.__scraperCaptureInstalled = true;
  const RULES = ${JSON.stringify(rules)}.map((rule) => ({ ...rule, pattern: new RegExp(rule.source, rule.flags) }));
  const PATCHES = (window[${JSON.stringify(CAPTURE_PATCHES)}] = window[${JSON.stringify(CAPTURE_PATCHES)}] || {});
  const BINDING = ${JSON.stringify(CAPTURE_BINDING)};
  const HOT = ${JSON.stringify(hot)};
  // A hot page idles with nobody listening to the binding: messages wait here until a scrape claims them.
  let buffer = HOT === null ? null : [];
  const send = (message) => {
    try { window[BINDING](JSON.stringify(message)); } catch (error) { /* binding gone: the scrape is over */ }
  };
  const emit = (message) => {
    if (buffer === null) return send(message);
    if (buffer.length < ${HOT_BUFFER_LIMIT}) buffer.push(message);
    else window[${JSON.stringify(CAPTURE_HOT.overflow)}] = true;
  };
  if (HOT !== null) {
    window[${JSON.stringify(CAPTURE_HOT.mark)}] = { ...HOT, ready: false };
    window[${JSON.stringify(CAPTURE_HOT.claim)}] = () => {
      if (buffer === null || window[${JSON.stringify(CAPTURE_HOT.overflow)}]) return false;
      const pending = buffer;
      buffer = null;
      for (const message of pending) send(message);
      return true;
    };
  }
  let counter = 0;
  const newId = () => Math.random().toString(36).slice(2) + "-" + (counter++);
  const absolute = (url) => { try { return new URL(String(url), location.href).href; } catch (error) { return String(url); } };
  const ruleFor = (url, transport) => RULES.find((rule) => rule.transports.includes(transport) && rule.pattern.test(url));
  const toBase64 = (bytes) => {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  };
  const encoder = new TextEncoder();
  const tokens = (pointer) => pointer === "" ? [] : pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  const getAt = (doc, pointer) => tokens(pointer).reduce((value, token) => (value !== null && typeof value === "object" ? value[token] : undefined), doc);
  const setAt = (doc, pointer, value) => {
    const path = tokens(pointer);
    let target = doc;
    for (const token of path.slice(0, -1)) {
      if (target[token] === null || typeof target[token] !== "object") target[token] = {};
      target = target[token];
    }
    if (path.length > 0) target[path[path.length - 1]] = value;
  };
  const patchText = (text, rule) => {
    const patch = PATCHES[rule.name];
    if (!patch || typeof text !== "string") return text;
    let doc;
    try { doc = JSON.parse(text); } catch (error) { return text; }
    if (doc === null || typeof doc !== "object") return text;
    const matches = (patch.when || []).every(([pointer, value]) => JSON.stringify(getAt(doc, pointer)) === JSON.stringify(value));
    if (!matches) return text;
    let changed = false;
    for (const [pointer, value] of patch.set || []) {
      setAt(doc, pointer, value);
      changed = true;
    }
    for (const [pointer, item] of patch.include || []) {
      const list = getAt(doc, pointer);
      const key = JSON.stringify(item);
      if (Array.isArray(list) && list.some((entry) => JSON.stringify(entry) === key)) continue;
      if (Array.isArray(list)) list.push(item);
      else setAt(doc, pointer, [item]);
      changed = true;
    }
    return changed ? JSON.stringify(doc) : text;
  };
  const readableBody = (body) => {
    if (typeof body === "string") return body;
    if (body instanceof URLSearchParams) return body.toString();
    return null;
  };

  // fetch ------------------------------------------------------------------------------------------------------
  const originalFetch = window.fetch;
  window.fetch = async function (input, init) {
    const request = input instanceof Request ? input : null;
    const url = absolute(request ? request.url : input);
    const rule = ruleFor(url, "fetch");
    if (!rule) return originalFetch.apply(this, arguments);
    const method = String((init && init.method) || (request && request.method) || "GET").toUpperCase();
    let body = init && "body" in init ? init.body : undefined;
    if (body === undefined && request && method !== "GET" && method !== "HEAD") {
      try { body = await request.clone().text(); } catch (error) { body = null; }
    }
    const text = readableBody(body);
    const patched = text === null ? null : patchText(text, rule);
    let callInput = input;
    let callInit = init;
    if (patched !== text) {
      if (request && !(init && "body" in init)) callInput = new Request(request, { body: patched });
      else callInit = { ...(init || {}), body: patched };
    }
    const id = newId();
    const startedAt = Date.now();
    emit({ t: "open", id, rule: rule.name, transport: "fetch", url, method, requestBody: patched, startedAt });
    let response;
    try {
      response = await originalFetch.call(this, callInput, callInit);
    } catch (error) {
      emit({ t: "end", id, complete: false, error: String((error && error.message) || error) });
      throw error;
    }
    emit({ t: "response", id, status: response.status, contentType: response.headers.get("content-type") || "" });
    if (!response.body || [101, 204, 205, 304].includes(response.status)) {
      emit({ t: "end", id, complete: true, error: null });
      return response;
    }
    const [forPage, forCapture] = response.body.tee();
    (async () => {
      const reader = forCapture.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          emit({ t: "chunk", id, data: toBase64(value), at: Date.now() - startedAt });
        }
        emit({ t: "end", id, complete: true, error: null });
      } catch (error) {
        emit({ t: "end", id, complete: false, error: String((error && error.message) || error) });
      }
    })();
    const wrapped = new Response(forPage, { status: response.status, statusText: response.statusText, headers: response.headers });
    Object.defineProperty(wrapped, "url", { value: response.url });
    Object.defineProperty(wrapped, "redirected", { value: response.redirected });
    return wrapped;
  };

  // XMLHttpRequest ---------------------------------------------------------------------------------------------
  const xhrOpen = XMLHttpRequest.prototype.open;
  const xhrSend = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.open = function (method, url) {
    this.__scraperCapture = { method: String(method).toUpperCase(), url: absolute(url) };
    return xhrOpen.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function (body) {
    const info = this.__scraperCapture;
    const rule = info && ruleFor(info.url, "xhr");
    if (!rule) return xhrSend.apply(this, arguments);
    const text = readableBody(body);
    const patched = text === null ? null : patchText(text, rule);
    const id = newId();
    const startedAt = Date.now();
    emit({ t: "open", id, rule: rule.name, transport: "xhr", url: info.url, method: info.method, requestBody: patched, startedAt });
    let seen = 0;
    let headSent = false;
    let ended = false;
    const xhr = this;
    const head = () => {
      if (headSent || xhr.readyState < 2) return;
      headSent = true;
      emit({ t: "response", id, status: xhr.status, contentType: xhr.getResponseHeader("content-type") || "" });
    };
    const flush = () => {
      head();
      if (xhr.responseType !== "" && xhr.responseType !== "text") return;
      const all = xhr.responseText || "";
      if (all.length > seen) {
        emit({ t: "chunk", id, data: toBase64(encoder.encode(all.slice(seen))), at: Date.now() - startedAt });
        seen = all.length;
      }
    };
    const finish = (error) => {
      if (ended) return;
      ended = true;
      if (!error && xhr.responseType === "arraybuffer" && xhr.response) {
        emit({ t: "chunk", id, data: toBase64(new Uint8Array(xhr.response)), at: Date.now() - startedAt });
      }
      emit({ t: "end", id, complete: !error, error: error || null });
    };
    this.addEventListener("readystatechange", () => {
      if (xhr.readyState >= 3) flush();
      else head();
    });
    this.addEventListener("progress", flush);
    this.addEventListener("load", () => { flush(); finish(null); });
    this.addEventListener("error", () => finish("network error"));
    this.addEventListener("abort", () => finish("aborted"));
    this.addEventListener("timeout", () => finish("timeout"));
    return xhrSend.call(this, patched === null ? body : patched);
  };

  // WebSocket --------------------------------------------------------------------------------------------------
  const OriginalWebSocket = window.WebSocket;
  class CapturingWebSocket extends OriginalWebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      const target = absolute(url);
      const rule = ruleFor(target, "websocket");
      if (!rule) return;
      const id = newId();
      const startedAt = Date.now();
      this.__scraperCapture = { id, rule, startedAt };
      emit({ t: "open", id, rule: rule.name, transport: "websocket", url: target, method: "GET", requestBody: null, startedAt });
      this.addEventListener("open", () => emit({ t: "response", id, status: 101, contentType: "" }));
      this.addEventListener("message", (event) => {
        const at = Date.now() - startedAt;
        if (typeof event.data === "string") emit({ t: "frame", id, direction: "received", data: event.data, binary: false, at });
        else if (event.data instanceof ArrayBuffer) emit({ t: "frame", id, direction: "received", data: toBase64(new Uint8Array(event.data)), binary: true, at });
        else if (event.data instanceof Blob) event.data.arrayBuffer().then((buffer) => emit({ t: "frame", id, direction: "received", data: toBase64(new Uint8Array(buffer)), binary: true, at }));
      });
      this.addEventListener("close", (event) => emit({ t: "end", id, complete: event.wasClean, error: event.wasClean ? null : "socket closed with code " + event.code }));
    }
    send(data) {
      const capture = this.__scraperCapture;
      if (!capture) return super.send(data);
      let outgoing = data;
      const at = Date.now() - capture.startedAt;
      if (typeof data === "string") {
        outgoing = patchText(data, capture.rule);
        emit({ t: "frame", id: capture.id, direction: "sent", data: outgoing, binary: false, at });
      } else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
        const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        emit({ t: "frame", id: capture.id, direction: "sent", data: toBase64(bytes), binary: true, at });
      }
      return super.send(outgoing);
    }
  }
  window.WebSocket = CapturingWebSocket;
})();`;
}
