/**
 * The capture layer every provider uses: records the page's own network exchanges (fetch streams, XMLHttpRequest,
 * WebSocket frames both ways) for the rules a provider declares, streamed out of the page chunk by chunk through a CDP
 * binding (no polling, nothing re-copied), and lets the provider patch an outgoing JSON request or frame.
 *
 * DevTools often reports a streamed fetch as ERR_ABORTED and keeps no body (DESIGN.md §3), so capture happens in the
 * page, where the page's own reader sees the bytes.
 */
import { BrowserCrashedError, ScraperDriftError } from "../../../errors";
import { base64ToBytes } from "../../../util/base64";
import { CAPTURE_BINDING, CAPTURE_PATCHES, captureHookSource, HookMessageSchema, type HookMessage, type SerializedRule } from "./page-hook";
import type { PageSession } from "../page-session";
import type { CapturedExchange, CaptureRule, OutgoingPatch } from "./types";

export interface WaitForExchangeOptions {
  /** Aborted when the caller's deadline passes; the wait then rejects with the signal's reason. */
  signal: AbortSignal;
  /** How long the page may take to start the exchange (after the prompt was sent). */
  startTimeoutMs: number;
  /**
   * Resolves early once this returns true (checked on every new chunk or frame): for a WebSocket that stays open after
   * the answer, or a stream whose last frame says "done" before the connection closes.
   */
  until?: (exchange: CapturedExchange) => boolean;
  /** Which exchange of the rule (0 = the first the page made). */
  index?: number;
}

export interface CaptureSession {
  /** The exchanges recorded so far (all rules, or one), in the order the page started them. */
  exchanges(rule?: string): CapturedExchange[];
  /** Waits for an exchange of `rule` to finish (or satisfy `until`); see WaitForExchangeOptions. */
  waitForExchange(rule: string, options: WaitForExchangeOptions): Promise<CapturedExchange>;
  /** Sets (or clears) the outgoing patch of a rule, for the current document and every later one. */
  setPatch(rule: string, patch: OutgoingPatch | null): Promise<void>;
  /**
   * For a provider that reads the answer with its own loop instead of `waitForExchange`: runs `wait` as the scrape's
   * answer wait (the `answer` step), and times the page's own lead before the exchange it returns
   * (`page_before_request`). Such a provider calls `answerRequestStarted` once the page sent its answer request.
   */
  answerWait(wait: () => Promise<CapturedExchange>): Promise<CapturedExchange>;
  /**
   * The page has sent the request for the answer (`waitForExchange` calls it when its exchange opens): the browser
   * layer starts preparing the next scrape's page, now that this one only waits.
   */
  answerRequestStarted(): void;
  /**
   * Resolves at the page's next capture message (a new exchange, chunk, frame or end), when the page goes away, after
   * `timeoutMs`, or on abort; never rejects. A provider's loop waits on this instead of a fixed poll interval.
   */
  nextChange(timeoutMs: number, signal: AbortSignal): Promise<void>;
}

/**
 * Installs capture on the page of `pageSession` for `rules`. Call before the first navigation (on a hot page, before
 * its landing's `goto`, which is then skipped: src/browser/hot-page.ts). `provider` names drift errors
 * (`<provider>.request_not_sent`).
 */
export function startCapture(pageSession: PageSession, rules: readonly CaptureRule[], provider: string): Promise<CaptureSession> {
  return pageSession.steps.time("capture_hook", () => installCapture(pageSession, rules, provider));
}

async function installCapture(pageSession: PageSession, rules: readonly CaptureRule[], provider: string): Promise<CaptureSession> {
  const { page } = pageSession;
  const session = new PageCaptureSession(pageSession, provider);
  // A browser that crashes or a page that closes sends no more events: waits must end then, not at the deadline.
  page.once("close", () => session.pageGone("the page closed"));
  page.browser().once("disconnected", () => session.pageGone("the browser disconnected"));
  const cdp = await page.createCDPSession();
  cdp.on("Runtime.bindingCalled", (event: { name: string; payload: string }) => {
    if (event.name === CAPTURE_BINDING) session.receive(event.payload);
  });
  const serialized = serializeCaptureRules(rules);
  // Sent together, not one round trip after another: a CDP session runs its commands in the order sent, and nothing
  // here depends on another's answer. Only the claim below must wait, for the binding to listen.
  await Promise.all([
    cdp.send("Runtime.enable").then(() => undefined),
    cdp.send("Runtime.addBinding", { name: CAPTURE_BINDING }).then(() => undefined),
    page.evaluateOnNewDocument(captureHookSource(serialized)).then(() => undefined),
    ...rules.map((rule) => (rule.patch === undefined ? Promise.resolve() : session.setPatch(rule.name, rule.patch))),
  ]);
  // A hot page already has the hook (buffered since its landing loaded): the binding listens now, so it can stream.
  await pageSession.hotPage.claimCapture(serialized);
  pageSession.hotPage.recordCaptureRules(serialized);
  return session;
}

/** When the page started the request: a socket's first sent frame (the handshake is part of it), else its start. */
function requestStartOf(exchange: CapturedExchange): number {
  const firstSent = exchange.frames.find((frame) => frame.direction === "sent");
  return exchange.startedAt + (firstSent?.atMs ?? 0);
}

/** The rules as the page hook receives them (a RegExp does not cross into the page), and as a hot page records them. */
export function serializeCaptureRules(rules: readonly CaptureRule[]): SerializedRule[] {
  return rules.map((rule) => ({ name: rule.name, source: rule.url.source, flags: rule.url.flags, transports: rule.transports }));
}

interface LiveExchange extends CapturedExchange {
  ended: boolean;
}

class PageCaptureSession implements CaptureSession {
  private readonly byId = new Map<string, LiveExchange>();
  private readonly ordered: LiveExchange[] = [];
  private readonly listeners = new Set<() => void>();
  /** Set when the page or its browser went away; every wait then fails with it. */
  private gone: Error | null = null;

  constructor(
    private readonly pageSession: PageSession,
    private readonly provider: string,
  ) {}

  exchanges(rule?: string): CapturedExchange[] {
    return this.ordered.filter((exchange) => rule === undefined || exchange.rule === rule).map(snapshot);
  }

  async setPatch(rule: string, patch: OutgoingPatch | null): Promise<void> {
    const script = `(window[${JSON.stringify(CAPTURE_PATCHES)}] = window[${JSON.stringify(CAPTURE_PATCHES)}] || {})[${JSON.stringify(rule)}] = ${JSON.stringify(patch)};`;
    await this.pageSession.page.evaluateOnNewDocument(script);
    await this.pageSession.page.evaluate(script).catch(() => undefined);
  }

  waitForExchange(rule: string, options: WaitForExchangeOptions): Promise<CapturedExchange> {
    return this.answerWait(() => this.exchangeDone(rule, options));
  }

  async answerWait(wait: () => Promise<CapturedExchange>): Promise<CapturedExchange> {
    const exchange = await this.pageSession.steps.time("answer", wait);
    this.pageSession.steps.recordPageLead(requestStartOf(exchange));
    return exchange;
  }

  answerRequestStarted(): void {
    // idle time for this scrape from here on: the browser layer prepares the next scrape's page meanwhile
    this.pageSession.answerRequestStarted();
  }

  nextChange(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.listeners.delete(done);
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      if (signal.aborted || this.gone !== null) {
        done();
        return;
      }
      signal.addEventListener("abort", done, { once: true });
      this.listeners.add(done);
    });
  }

  private exchangeDone(rule: string, options: WaitForExchangeOptions): Promise<CapturedExchange> {
    const index = options.index ?? 0;
    const startedAt = Date.now();
    return new Promise<CapturedExchange>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (outcome: () => void): void => {
        this.listeners.delete(check);
        clearTimeout(timer);
        options.signal.removeEventListener("abort", onAbort);
        outcome();
      };
      const check = (): void => {
        const gone = this.gone;
        if (gone !== null) {
          finish(() => reject(gone));
          return;
        }
        const exchange = this.ordered.filter((candidate) => candidate.rule === rule)[index];
        if (exchange === undefined) {
          if (Date.now() - startedAt >= options.startTimeoutMs) {
            finish(() =>
              reject(
                new ScraperDriftError(
                  this.provider,
                  "request_not_sent",
                  `the page did not start the "${rule}" exchange within ${options.startTimeoutMs} ms after the prompt was sent`,
                ),
              ),
            );
          }
          return;
        }
        this.answerRequestStarted();
        if (exchange.ended || (options.until?.(snapshot(exchange)) ?? false)) finish(() => resolve(snapshot(exchange)));
      };
      const onAbort = (): void => finish(() => reject(options.signal.reason));
      if (options.signal.aborted) {
        onAbort();
        return;
      }
      options.signal.addEventListener("abort", onAbort, { once: true });
      this.listeners.add(check);
      timer = setTimeout(check, options.startTimeoutMs);
      check();
    });
  }

  /** The page or its browser went away (crash, disconnect): pending waits fail as a closed target does. */
  pageGone(reason: string): void {
    if (this.gone !== null) return;
    // a crash for the browser layer by its reason (502, session replaced)
    this.gone = new BrowserCrashedError(new Error(`${reason} during the capture`));
    for (const listener of [...this.listeners]) listener();
  }

  /** One message from the page hook. Malformed messages are ignored: the page is not trusted to be well-behaved. */
  receive(payload: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      return;
    }
    const checked = HookMessageSchema.safeParse(parsed);
    if (!checked.success) return;
    const message: HookMessage = checked.data;
    if (message.t === "open") {
      const exchange: LiveExchange = {
        rule: message.rule,
        transport: message.transport,
        url: message.url,
        method: message.method,
        status: 0,
        contentType: "",
        requestBody: message.requestBody,
        chunks: [],
        chunkTimesMs: [],
        frames: [],
        complete: false,
        error: null,
        startedAt: message.startedAt,
        ended: false,
      };
      this.byId.set(message.id, exchange);
      this.ordered.push(exchange);
    } else {
      const exchange = this.byId.get(message.id);
      if (exchange === undefined) return;
      switch (message.t) {
        case "response":
          exchange.status = message.status;
          exchange.contentType = message.contentType;
          break;
        case "chunk":
          exchange.chunks.push(base64ToBytes(message.data));
          exchange.chunkTimesMs.push(message.at);
          break;
        case "frame":
          exchange.frames.push({ direction: message.direction, data: message.data, binary: message.binary, atMs: message.at });
          break;
        case "end":
          exchange.ended = true;
          exchange.complete = message.complete;
          exchange.error = message.error;
          break;
      }
    }
    for (const listener of [...this.listeners]) listener();
  }
}

function snapshot(exchange: LiveExchange): CapturedExchange {
  const { ended: _ended, ...rest } = exchange;
  return { ...rest, chunks: [...rest.chunks], chunkTimesMs: [...rest.chunkTimesMs], frames: [...rest.frames] };
}
