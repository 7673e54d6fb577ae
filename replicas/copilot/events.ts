/**
 * The server side of one Copilot turn as frames (copilot.md §3): what the replica sends after a `send` frame, built
 * from a scenario and the fault variant being played. Pure and deterministic, so tests and fixtures build the very
 * frames the replica sends. Ids are not part of the events: they are the connection's resume cursor and are assigned
 * when a frame is serialised (`serializeFrame`).
 */
import type { FaultVariant } from "./faults";
import type { AnswerStep, CopilotEvent, CopilotScenario } from "./scenarios";
import { NO_WIRE_VARIATION, type CopilotWireVariation } from "./variation";

/** What the page's `send` frame asked for (the fields the answer echoes). */
export interface SendRequest {
  conversationId: string;
  prompt: string;
  mode: string;
}

/** One WebSocket text frame: one or more events (joined without separator, or by `\x1e`), or raw text. */
export type TurnFrame = { kind: "events"; events: readonly CopilotEvent[]; separator: "" | "\u001e" } | { kind: "raw"; text: string };

/** How a turn ends once its frames are delivered. */
export type TurnEnding =
  /** The socket stays open (the normal case: the page keeps it for the next message). */
  | { kind: "open" }
  /** The server closes the socket with a close frame. */
  | { kind: "close"; code: number; reason: string }
  /** The last frame is delivered only halfway (a non-final fragment), then the TCP connection is torn down. */
  | { kind: "cut" };

export interface TurnScript {
  /** Sent right after `send`. A hashcash challenge holds the rest back until the page's `challengeResponse`. */
  challenge: CopilotEvent | null;
  /** Whether the rest waits for a `challengeResponse` (true for hashcash; a cloudflare/null challenge has no rest). */
  awaitsChallengeResponse: boolean;
  frames: readonly TurnFrame[];
  ending: TurnEnding;
}

/** The proof-of-work parameter of the hashcash challenge: `<hex>:<difficulty>` (difficulty 1; any token is accepted). */
export const HASHCASH_PARAMETER = "9f86d081884c7d65:1";
/** A Turnstile site key, as a `cloudflare` challenge carries. */
export const TURNSTILE_SITE_KEY = "0x4AAAAAAADnPIDROrmt1Wwj";

export const ERROR_EVENT: CopilotEvent = {
  event: "error",
  errorCode: "internal-server-error",
  message: "Sorry, something went wrong. Please try again.",
};

/** The `chatMessageError` of the `chat-message-error` variant (for the answer `messageId`). */
export function chatMessageErrorEvent(messageId: string): CopilotEvent {
  return { event: "chatMessageError", messageId, errorCode: "model-unavailable", message: "The model could not finish this message." };
}

/** The truncated JSON the `non-json-frame` variant sends (a frame that does not parse). */
export function malformedFrameText(messageId: string): string {
  return `{"event":"appendText","messageId":${JSON.stringify(messageId)},"partId":"part-1","text":"Trunc`;
}

const events = (...list: CopilotEvent[]): TurnFrame => ({ kind: "events", events: list, separator: "" });

/** The events of one answer step, flattened (a `frame` step's inner steps included). */
export function stepEvents(step: AnswerStep, messageId: string): CopilotEvent[] {
  switch (step.kind) {
    case "text":
      return step.deltas.map((delta) => ({ event: "appendText", messageId, partId: step.partId, text: delta }));
    case "replace":
      return [{ event: "replaceText", messageId, partId: step.partId, text: step.text }];
    case "citation": {
      const citation: CopilotEvent = { event: "citation", url: step.url };
      if (step.title !== undefined) citation.title = step.title;
      if (step.iconUrl !== undefined) citation.iconUrl = step.iconUrl;
      return [citation];
    }
    case "partCompleted":
      return [{ event: "partCompleted", messageId, partId: step.partId }];
    case "thought":
      return [{ event: "chainOfThought", messageId, text: step.text }];
    case "event":
      return [step.event];
    case "frame":
      return step.steps.flatMap((inner) => stepEvents(inner, messageId));
  }
}

/** The frames of the steps: one frame per event, except a `frame` step, whose events share one frame. */
function stepFrames(steps: readonly AnswerStep[], messageId: string): TurnFrame[] {
  return steps.flatMap((step): TurnFrame[] =>
    step.kind === "frame"
      ? [{ kind: "events", events: stepEvents(step, messageId), separator: step.separator }]
      : stepEvents(step, messageId).map((event) => events(event)),
  );
}

function receivedFrames(scenario: CopilotScenario, request: SendRequest): TurnFrame[] {
  const { conversationId } = request;
  return [
    events({ event: "received", conversationId, messageId: scenario.userMessageId, createdAt: scenario.receivedAt }),
    events({ event: "startMessage", conversationId, messageId: scenario.messageId, createdAt: scenario.startedAt }),
  ];
}

function closingFrames(scenario: CopilotScenario, request: SendRequest): TurnFrame[] {
  const frames: TurnFrame[] = [events({ event: "done", messageId: scenario.messageId })];
  if (scenario.title !== null) frames.push(events({ event: "titleUpdate", conversationId: request.conversationId, title: scenario.title }));
  if (scenario.followups !== null) frames.push(events({ event: "suggestedFollowups", suggestions: [...scenario.followups] }));
  return frames;
}

/**
 * The answer's step frames as a fuzzed page's wire variant plays them (variation.ts): citations after the text,
 * citations with `messageId`, pairs of single-event frames joined into one frame. The answer itself never changes.
 */
function variedStepFrames(scenario: CopilotScenario, wire: CopilotWireVariation): TurnFrame[] {
  const steps = wire.citationsAfterText
    ? [...scenario.steps.filter((step) => step.kind !== "citation"), ...scenario.steps.filter((step) => step.kind === "citation")]
    : scenario.steps;
  const frames = stepFrames(steps, scenario.messageId).map(
    (frame): TurnFrame =>
      wire.citationMessageId && frame.kind === "events"
        ? {
            ...frame,
            events: frame.events.map((event) => (event.event === "citation" ? { ...event, messageId: scenario.messageId } : event)),
          }
        : frame,
  );
  const separator = wire.sharedFrames;
  if (separator === null) return frames;
  const joined: TurnFrame[] = [];
  for (let index = 0; index < frames.length; index += 2) {
    const first = frames[index];
    const second = frames[index + 1];
    if (first === undefined) break;
    if (
      second !== undefined &&
      first.kind === "events" &&
      second.kind === "events" &&
      first.events.length === 1 &&
      second.events.length === 1
    ) {
      joined.push({ kind: "events", events: [...first.events, ...second.events], separator });
    } else {
      joined.push(first);
      if (second !== undefined) joined.push(second);
    }
  }
  return joined;
}

/** Every frame of a normal answer, from `received` to `suggestedFollowups` (copilot.md §3). */
export function answerFrames(scenario: CopilotScenario, request: SendRequest, wire: CopilotWireVariation = NO_WIRE_VARIATION): TurnFrame[] {
  const steps = wire === NO_WIRE_VARIATION ? stepFrames(scenario.steps, scenario.messageId) : variedStepFrames(scenario, wire);
  return [...receivedFrames(scenario, request), ...steps, ...closingFrames(scenario, request)];
}

/** `received`, `startMessage` and the first half of the step frames: where a broken answer breaks off. */
function firstHalf(scenario: CopilotScenario, request: SendRequest): { head: TurnFrame[]; next: TurnFrame | undefined } {
  const steps = stepFrames(scenario.steps, scenario.messageId);
  const cut = Math.floor(steps.length / 2);
  return { head: [...receivedFrames(scenario, request), ...steps.slice(0, cut)], next: steps[cut] };
}

const hashcash: CopilotEvent = { event: "challenge", method: "hashcash", parameter: HASHCASH_PARAMETER };

/** What the server does after a `send` frame, for a scenario and the fault variant being played (null = none). */
export function turnScript(
  scenario: CopilotScenario,
  request: SendRequest,
  variant: FaultVariant | null,
  wire: CopilotWireVariation = NO_WIRE_VARIATION,
): TurnScript {
  const normal = (challenge: CopilotEvent | null): TurnScript => ({
    challenge,
    awaitsChallengeResponse: challenge !== null,
    frames: answerFrames(scenario, request, wire),
    ending: { kind: "open" },
  });
  const immediate = (frames: TurnFrame[], ending: TurnEnding = { kind: "open" }): TurnScript => ({
    challenge: null,
    awaitsChallengeResponse: false,
    frames,
    ending,
  });
  switch (variant) {
    case null:
    case "slow":
      return normal(scenario.hashcash ? hashcash : null);
    case "cloudflare-challenge":
      return {
        challenge: { event: "challenge", method: "cloudflare", parameter: TURNSTILE_SITE_KEY },
        awaitsChallengeResponse: false,
        frames: [],
        ending: { kind: "open" },
      };
    case "null-challenge":
      return {
        challenge: { event: "challenge", method: null, parameter: null },
        awaitsChallengeResponse: false,
        frames: [],
        ending: { kind: "open" },
      };
    case "banned":
      return immediate([events({ event: "banned" })], { kind: "close", code: 1008, reason: "banned" });
    case "error-event":
      return immediate([...receivedFrames(scenario, request), events(ERROR_EVENT)]);
    case "chat-message-error": {
      const { head } = firstHalf(scenario, request);
      return immediate([...head, events(chatMessageErrorEvent(scenario.messageId))]);
    }
    case "non-json-frame": {
      const { head } = firstHalf(scenario, request);
      return immediate([...head, { kind: "raw", text: malformedFrameText(scenario.messageId) }], {
        kind: "close",
        code: 1011,
        reason: "internal error",
      });
    }
    case "socket-cut": {
      const { head, next } = firstHalf(scenario, request);
      // the last frame delivered is cut halfway: the one after the first half (every scenario has one)
      return immediate(next === undefined ? head : [...head, next], { kind: "cut" });
    }
    case "silent":
      return immediate([]);
    case "no-text-parts":
      return immediate([...receivedFrames(scenario, request), ...closingFrames(scenario, request)]);
    default:
      // start and handshake variants never reach a `send` frame
      return normal(scenario.hashcash ? hashcash : null);
  }
}

/** A frame's text with every event's `id` (the resume cursor, from `nextId` on); raw frames carry no id. */
export function serializeFrame(frame: TurnFrame, nextId: number): { text: string; nextId: number } {
  if (frame.kind === "raw") return { text: frame.text, nextId };
  let id = nextId;
  const texts = frame.events.map((event) => JSON.stringify({ ...event, id: String(id++) }));
  return { text: texts.join(frame.separator), nextId: id };
}

/** Serialises frames in order, ids continuing from `firstId`. */
export function serializeFrames(frames: readonly TurnFrame[], firstId: number): { texts: string[]; nextId: number } {
  const texts: string[] = [];
  let nextId = firstId;
  for (const frame of frames) {
    const serialized = serializeFrame(frame, nextId);
    texts.push(serialized.text);
    nextId = serialized.nextId;
  }
  return { texts, nextId };
}
