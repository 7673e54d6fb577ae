/**
 * How the Copilot replica plays the shared faults (DESIGN.md §6) with the signatures of copilot.md §5. Several faults
 * have more than one real signature; the replica rotates through them: the n-th time a fault is served (counted by
 * the controller's `faults_served`, which a reset clears) it plays variant n modulo the number of variants. So the first
 * `login_wall` after a reset is a 401 from `POST /c/api/start`, the second an `isBlocked` start, the third `banned`.
 *
 * A turn (one prompt) passes three points in order, and each variant belongs to one of them:
 *   start      POST /c/api/start (the page calls it before its first message)
 *   handshake  the WebSocket upgrade of /c/api/chat
 *   send       the `send` frame on the open socket
 * A fault at the head of the queue is consumed by the first point its current variant belongs to; earlier points
 * leave it queued. (A client that never calls /c/api/start therefore never consumes a start variant.)
 */
import type { FaultController, FaultName } from "../control";

export const COPILOT_PROVIDER_ID = "copilot";

export type FaultPoint = "start" | "handshake" | "send";

export const COPILOT_FAULT_VARIANTS = {
  /** `challenge` event with method `cloudflare` (Turnstile, not solvable headless), or with method null, then nothing. */
  challenge: ["cloudflare-challenge", "null-challenge"],
  /** 401 from start, `isBlocked:true` from start, or a `banned` event after `send`. */
  login_wall: ["start-unauthorized", "start-blocked", "banned"],
  /** 429 from start, or a start whose `remainingTurns` is 0. */
  rate_limited: ["start-too-many-requests", "start-no-turns-left"],
  /** The upgrade refused with 460 or 403, an `error` event, or a `chatMessageError` event. */
  http_error: ["handshake-460", "handshake-403", "error-event", "chat-message-error"],
  /** Half the answer, a frame that is not JSON, then a close frame (1011). */
  malformed_stream: ["non-json-frame"],
  /** Half the answer, cut inside a frame, then the TCP connection is torn down (no close frame). */
  disconnect: ["socket-cut"],
  /** Nothing at all after `send`; the socket stays open. */
  hang: ["silent"],
  /** `received`, `startMessage`, `done` without any text part. */
  empty_answer: ["no-text-parts"],
  /** A normal answer at the slow pacing. */
  slow: ["slow"],
} as const satisfies Record<FaultName, readonly string[]>;

export type FaultVariant = (typeof COPILOT_FAULT_VARIANTS)[FaultName][number];

export function pointOf(variant: FaultVariant): FaultPoint {
  if (variant.startsWith("start-")) return "start";
  if (variant.startsWith("handshake-")) return "handshake";
  return "send";
}

/** The variant the next serving of `fault` plays, given how often it was served since the last reset. */
export function variantOf(fault: FaultName, timesServed: number): FaultVariant {
  const variants: readonly FaultVariant[] = COPILOT_FAULT_VARIANTS[fault];
  return variants[timesServed % variants.length] ?? variants[0] ?? "slow";
}

export interface TakenFault {
  fault: FaultName;
  variant: FaultVariant;
}

/** What one point of a turn must do: the fault variant to play (null = behave normally) and the pacing. */
export interface PointPlan {
  taken: TakenFault | null;
  pacing: { delayMs: number; chunkMs: number };
}

/** Consumes the head fault when its current variant belongs to `point`. */
export function takeFaultAt(controller: FaultController, point: FaultPoint): PointPlan {
  const served = (fault: FaultName): number => controller.state().providers[COPILOT_PROVIDER_ID]?.faults_served[fault] ?? 0;
  // an object, not a `let`: the assignment happens inside the callback, where control-flow narrowing cannot see it
  const chosen: { variant: FaultVariant | null } = { variant: null };
  const plan = controller.takeFault(
    COPILOT_PROVIDER_ID,
    (fault) => {
      const variant = variantOf(fault, served(fault));
      if (pointOf(variant) !== point) return false;
      chosen.variant = variant;
      return true;
    },
    // the turn played after a `send` frame is the answer: an exact answer time (`total_ms`) applies to it
    { answer: point === "send" },
  );
  const { variant } = chosen;
  return { taken: plan.fault === null || variant === null ? null : { fault: plan.fault, variant }, pacing: plan.pacing };
}
