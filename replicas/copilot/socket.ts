/**
 * The Copilot replica's chat WebSocket, `GET /c/api/chat?api-version=2&clientSessionId=…` (copilot.md §3), served with
 * the `ws` package on the replica's Node server (a Hono app cannot take over an upgraded connection; the server calls
 * `attachCopilotSocket` once it listens).
 *
 * Per connection: `setOptions` → `connected`; `ping` → `pong`; each `send` frame is one exchange: it is recorded, takes
 * the fault at the head of the queue (when its variant belongs to `send`, see faults.ts), and plays the turn script
 * of its scenario (events.ts) with the plan's pacing, frames cut into fragments like a real network does
 * (delivery.ts). A hashcash challenge holds the answer back until the page's `challengeResponse`. Pongs asked for
 * during a turn are sent when it ends, so that no message is interleaved with the fragments of another.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type { FaultController, RecordedRequest } from "../control";
import { currentAnswerDue, sleep, spreadOffsetMs } from "../shared/paced-body";
import { fragmentFrames } from "./delivery";
import { serializeFrame, serializeFrames, turnScript, type SendRequest, type TurnScript } from "./events";
import { COPILOT_PROVIDER_ID, type FaultVariant, takeFaultAt } from "./faults";
import { COPILOT_WIRE_MODES, OTHER_WIRE_MODES, pickCopilotScenario, type CopilotEvent, type CopilotWireMode } from "./scenarios";
import { wireOf } from "./variation";

/** The socket's path below the site root. */
export const COPILOT_CHAT_PATH = "/c/api/chat";

/** Handshake refusals of the `handshake-*` fault variants (copilot.md §5). */
const REFUSALS = {
  "handshake-460": { status: 460, reason: "Request Refused", body: "" },
  "handshake-403": { status: 403, reason: "Forbidden", body: "Forbidden" },
} as const;

function refusalOf(variant: FaultVariant): (typeof REFUSALS)[keyof typeof REFUSALS] | null {
  return variant === "handshake-460" || variant === "handshake-403" ? REFUSALS[variant] : null;
}

/** Lets the last fragment of a cut frame leave the socket before the connection is torn down. */
const FLUSH_BEFORE_CUT_MS = 40;

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** Answers an upgrade request with a plain HTTP response and closes the connection (the handshake fails). */
function refuseUpgrade(socket: Duplex, status: number, reason: string, body: string): void {
  const bytes = Buffer.from(body, "utf8");
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Installs the upgrade handler for `<mountPath>/c/api/chat` on the replica server. Other paths are left alone. */
export function attachCopilotSocket(mountPath: string): (server: Server, controller: FaultController) => void {
  return (server, controller) => {
    const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false });
    closeWithServer(server, sockets);
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(request.url ?? "/", "http://replica.invalid");
      if (url.pathname !== `${mountPath}${COPILOT_CHAT_PATH}`) return;
      if (url.searchParams.get("api-version") !== "2" || (url.searchParams.get("clientSessionId") ?? "") === "") {
        controller.recordRejected(COPILOT_PROVIDER_ID);
        refuseUpgrade(socket, 400, "Bad Request", "api-version=2 and clientSessionId are required");
        return;
      }
      const plan = takeFaultAt(controller, "handshake");
      const refusal = plan.taken === null ? null : refusalOf(plan.taken.variant);
      if (refusal !== null) {
        controller.recordExchange(COPILOT_PROVIDER_ID, recorded("GET", url, request, null));
        refuseUpgrade(socket, refusal.status, refusal.reason, refusal.body);
        return;
      }
      sockets.handleUpgrade(request, socket, head, (ws) => {
        sockets.emit("connection", ws, request);
        new ChatConnection(ws, controller, url, request).listen();
      });
    });
  };
}

/** How often open sockets check whether the server was asked to close. */
const SERVER_CLOSE_CHECK_MS = 200;

/**
 * Upgraded connections are no longer the HTTP server's: neither `close()` nor `closeAllConnections()` ends them, and
 * `close()` would wait for them forever (a `hang` exchange never ends by itself). While sockets are open, this notices
 * that the server stopped listening and tears them down.
 */
function closeWithServer(server: Server, sockets: WebSocketServer): void {
  let timer: ReturnType<typeof setInterval> | undefined;
  sockets.on("connection", () => {
    if (timer !== undefined) return;
    timer = setInterval(() => {
      if (!server.listening) for (const client of sockets.clients) client.terminate();
      if (sockets.clients.size === 0) {
        clearInterval(timer);
        timer = undefined;
      }
    }, SERVER_CLOSE_CHECK_MS);
    timer.unref();
  });
}

function recorded(method: string, url: URL, request: IncomingMessage, body: unknown): RecordedRequest {
  return { method, path: `${url.pathname}${url.search}`, headers: headersOf(request), body, receivedAt: new Date().toISOString() };
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}

type JsonRecord = Record<string, unknown>;

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const KNOWN_MODES: readonly string[] = [...COPILOT_WIRE_MODES, ...OTHER_WIRE_MODES];

function isWireMode(mode: string): mode is CopilotWireMode {
  return COPILOT_WIRE_MODES.some((known) => known === mode);
}

/** The fields of a `send` frame the replica uses, or an error naming the bad field. */
export function parseSendFrame(frame: JsonRecord): SendRequest | { error: string } {
  const conversationId = frame.conversationId;
  if (typeof conversationId !== "string" || conversationId === "") return { error: "conversationId: must be a non-empty string" };
  const content = Array.isArray(frame.content) ? frame.content : [];
  const prompt = content
    .filter(isRecord)
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => String(part.text))
    .join("\n");
  if (prompt.trim() === "") return { error: "content: must hold a non-blank text part" };
  const mode = frame.mode;
  if (typeof mode !== "string" || !KNOWN_MODES.includes(mode)) return { error: `mode: must be one of ${KNOWN_MODES.join(", ")}` };
  return { conversationId, prompt, mode };
}

class ChatConnection {
  private nextId = 0;
  private busy = false;
  private pendingPongs = 0;
  private readonly queuedSends: JsonRecord[] = [];
  private challengeAnswered: (() => void) | null = null;
  private readonly closed = new AbortController();

  constructor(
    private readonly ws: WebSocket,
    private readonly controller: FaultController,
    private readonly url: URL,
    private readonly request: IncomingMessage,
  ) {}

  listen(): void {
    this.ws.on("message", (data: RawData, isBinary: boolean) => this.onMessage(data, isBinary));
    this.ws.on("close", () => {
      this.closed.abort();
      this.challengeAnswered?.();
    });
    this.ws.on("error", () => this.closed.abort());
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) return;
    let frame: unknown;
    try {
      frame = JSON.parse(rawText(data));
    } catch {
      return;
    }
    if (!isRecord(frame)) return;
    switch (frame.event) {
      case "setOptions":
        this.sendEvent({ event: "connected", requestId: randomUUID() });
        break;
      case "ping":
        if (this.busy) this.pendingPongs += 1;
        else this.sendEvent({ event: "pong" });
        break;
      case "challengeResponse":
        this.challengeAnswered?.();
        break;
      case "send":
        this.queuedSends.push(frame);
        if (!this.busy) void this.drainSends();
        break;
      default:
        break;
    }
  }

  /** Plays queued `send` frames one turn at a time. */
  private async drainSends(): Promise<void> {
    this.busy = true;
    try {
      for (let frame = this.queuedSends.shift(); frame !== undefined; frame = this.queuedSends.shift()) {
        await this.playTurn(frame);
        if (this.closed.signal.aborted) return;
      }
    } finally {
      this.busy = false;
      for (; this.pendingPongs > 0; this.pendingPongs -= 1) this.sendEvent({ event: "pong" });
    }
  }

  private async playTurn(frame: JsonRecord): Promise<void> {
    this.controller.recordExchange(COPILOT_PROVIDER_ID, recorded("WS", this.url, this.request, frame));
    const request = parseSendFrame(frame);
    if ("error" in request) {
      this.controller.recordRejected(COPILOT_PROVIDER_ID);
      this.sendEvent({ event: "error", errorCode: "invalid-request", message: request.error });
      return;
    }
    const plan = takeFaultAt(this.controller, "send");
    const scenario = pickCopilotScenario(request.prompt, isWireMode(request.mode) ? request.mode : "smart");
    // a fuzzed page's wire variant (variation.ts), found by the page-load cookie the page's socket carries
    const wire = wireOf(this.request.headers.cookie);
    const script = turnScript(scenario, request, plan.taken?.variant ?? null, wire);

    if (script.challenge !== null) {
      const answered = script.awaitsChallengeResponse ? this.nextChallengeResponse() : null;
      this.sendEvent(script.challenge);
      if (answered === null) return;
      await answered;
    }
    if (this.closed.signal.aborted) return;
    // With an exact answer time (`total_ms`), the writes are spread so that the last one leaves exactly then.
    const dueAt = plan.taken === null ? currentAnswerDue() : null;
    if (dueAt === null) await sleep(plan.pacing.delayMs, this.closed.signal);
    await this.deliver(script, plan.pacing.chunkMs, dueAt, wire.lateClosingMs);
  }

  private nextChallengeResponse(): Promise<void> {
    return new Promise((resolve) => {
      this.challengeAnswered = () => {
        this.challengeAnswered = null;
        resolve();
      };
    });
  }

  private async deliver(script: TurnScript, chunkMs: number, dueAt: number | null = null, lateClosingMs = 0): Promise<void> {
    const { texts, nextId } = serializeFrames(script.frames, this.nextId);
    this.nextId = nextId;
    const writes = fragmentFrames(
      texts.map((text) => Buffer.from(text, "utf8")),
      { lastFrameIncomplete: script.ending.kind === "cut" },
    );
    // With an exact answer time, the answer is over when its `done` frame is complete: that write leaves at `dueAt`
    // (the writes before it spread evenly), what follows it (follow-up suggestions) right after.
    const doneFrame = texts.findLastIndex((text) => text.includes('"event":"done"'));
    const doneWrite = writes.findIndex((write) => write.some((fragment) => fragment.frame === doneFrame && fragment.fin));
    const answerWrites = doneWrite < 0 ? writes.length : doneWrite + 1;
    const startedAt = Date.now();
    for (const [index, write] of writes.entries()) {
      if (dueAt !== null) {
        const offset = spreadOffsetMs(Math.min(index, answerWrites - 1), answerWrites, startedAt, dueAt);
        await sleep(startedAt + offset - Date.now(), this.closed.signal);
      } else if (index > 0) await sleep(chunkMs, this.closed.signal);
      // copilot.md §3: titleUpdate / suggestedFollowups "may follow within ~1 s" of done (a fuzzed page's variant)
      if (lateClosingMs > 0 && index === answerWrites) await sleep(lateClosingMs, this.closed.signal);
      if (!this.isOpen()) return;
      for (const fragment of write) this.ws.send(fragment.data, { binary: false, fin: fragment.fin, compress: false });
    }
    const ending = script.ending;
    if (ending.kind === "close" && this.isOpen()) this.ws.close(ending.code, ending.reason);
    if (ending.kind === "cut") {
      await sleep(FLUSH_BEFORE_CUT_MS, this.closed.signal);
      this.ws.terminate();
    }
  }

  /** Sends one event in one frame, with the next id. */
  private sendEvent(event: CopilotEvent): void {
    if (!this.isOpen()) return;
    const { text, nextId } = serializeFrame({ kind: "events", events: [event], separator: "" }, this.nextId);
    this.nextId = nextId;
    this.ws.send(text);
  }

  private isOpen(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }
}
