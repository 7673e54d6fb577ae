/**
 * Captures a provider's streamed `fetch` responses from inside the page. DevTools often reports a streamed fetch as
 * ERR_ABORTED and returns no body (DESIGN.md §3), so a hook installed before any page script runs wraps `fetch`,
 * tees each matching response, and records the raw chunks as the page's own reader receives them.
 */
import type { Page } from "@cloudflare/puppeteer";
import { UpstreamError } from "../../errors";
import type { StreamCapture } from "../types";

const CAPTURE_GLOBAL = "__scraperCaptures";

interface RawCapture {
  url: string;
  status: number;
  contentType: string;
  requestBody: string | null;
  chunks: string[];
  complete: boolean;
  error: string | null;
}

/**
 * The hook's source. It is a string because it runs in the page, not in the Worker; `urlPattern` is a RegExp source
 * matched against the absolute request URL.
 */
function captureHookSource(urlPattern: string): string {
  return `(() => {
  const pattern = new RegExp(${JSON.stringify(urlPattern)});
  const captures = (window[${JSON.stringify(CAPTURE_GLOBAL)}] = []);
  const originalFetch = window.fetch.bind(window);
  const toBase64 = (bytes) => {
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  };
  window.fetch = async (input, init) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url, location.href).href;
    if (!pattern.test(url)) return originalFetch(input, init);
    const capture = { url, status: 0, contentType: "", requestBody: typeof init?.body === "string" ? init.body : null,
      chunks: [], complete: false, error: null };
    captures.push(capture);
    let response;
    try {
      response = await originalFetch(input, init);
    } catch (error) {
      capture.error = String(error && error.message || error);
      throw error;
    }
    capture.status = response.status;
    capture.contentType = response.headers.get("content-type") || "";
    if (!response.body) { capture.complete = true; return response; }
    const [forPage, forCapture] = response.body.tee();
    (async () => {
      const reader = forCapture.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          capture.chunks.push(toBase64(value));
        }
        capture.complete = true;
      } catch (error) {
        capture.error = String(error && error.message || error);
      }
    })();
    return new Response(forPage, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
})();`;
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** Installs the hook; call before the first navigation. */
export async function installFetchCapture(page: Page, urlPattern: RegExp): Promise<void> {
  await page.evaluateOnNewDocument(captureHookSource(urlPattern.source));
}

async function readRawCaptures(page: Page): Promise<RawCapture[]> {
  const captures = await page.evaluate(`window[${JSON.stringify(CAPTURE_GLOBAL)}] || []`);
  return Array.isArray(captures) ? (captures as RawCapture[]) : [];
}

export interface WaitForCaptureOptions {
  /** Aborted when the caller's deadline passes or the request is abandoned. */
  signal: AbortSignal;
  /** How long the page may take to send the request after the prompt was submitted. */
  requestStartTimeoutMs: number;
  pollIntervalMs?: number;
}

/**
 * Waits until the page's first matching exchange has finished (body read to EOF, or broken) and returns it.
 * Throws UpstreamError when the page never sends the request.
 */
export async function waitForCapturedStream(page: Page, options: WaitForCaptureOptions): Promise<StreamCapture> {
  const startedAt = Date.now();
  const pollIntervalMs = options.pollIntervalMs ?? 150;
  for (;;) {
    options.signal.throwIfAborted();
    const [capture] = await readRawCaptures(page);
    if (capture === undefined && Date.now() - startedAt > options.requestStartTimeoutMs) {
      throw new UpstreamError("The provider page did not send the prompt (the page layout may have changed). Safe to retry.");
    }
    if (capture !== undefined && (capture.complete || capture.error !== null)) {
      return {
        url: capture.url,
        status: capture.status,
        contentType: capture.contentType,
        requestBody: capture.requestBody,
        chunks: capture.chunks.map(decodeBase64),
        complete: capture.complete,
        error: capture.error,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
}
