/**
 * Reads the StreamGenerate body (gemini.md §3) into what the parser maps: the final candidate, whether a candidate
 * completed, the first error envelope before completion, and the trailers. Pure and lenient: unknown envelopes, slots
 * and frames are skipped; framing itself is the shared length-prefixed decoder's job.
 */
import { decodeLengthPrefixed } from "../shared/decode/length-prefixed";
import { parseJsonOrUndefined } from "../../util/json-record";

/** An error envelope `["wrb.fr",null,null,null,null,[<status>,null,[["…BardErrorInfo",[<code>]]]]]`. */
export interface GeminiErrorEnvelope {
  /** `[5][0]` (e.g. 8 for "Invalid response"), null when absent. */
  status: number | null;
  /** The BardErrorInfo code at `[5][2][0][1][0]` (1037, 1013, 1060, 1152, …), null when absent. */
  code: number | null;
}

export interface GeminiWire {
  /** The candidate to answer from (`[4][0]`) and the inner array carrying it: the last completed one, else the last one. */
  final: { inner: readonly unknown[]; candidate: readonly unknown[] } | null;
  /** Some candidate reached state 2 (`[8][0] == 2`). */
  completed: boolean;
  /** Some candidate carried a state at all (builds that send none are judged by the end of the body). */
  sawState: boolean;
  /** Inner arrays of every data frame, in order (for lookups "near the end" of the final one). */
  inners: readonly (readonly unknown[])[];
  /** The first error envelope that arrived before any completed candidate. */
  error: GeminiErrorEnvelope | null;
  /** The `["e",…]` end trailer arrived. */
  endTrailer: boolean;
  /** Frames or inner payloads that did not parse (a body cut mid-frame is not counted here). */
  malformed: number;
  /** The body ended inside a frame. */
  endedMidFrame: boolean;
  /** The body started with the `)]}'` anti-hijacking line. */
  hadPrefix: boolean;
  /** How many frames parsed (data, error and trailer frames alike). */
  frames: number;
}

export function readGeminiWire(chunks: Iterable<Uint8Array>): GeminiWire {
  const decoded = decodeLengthPrefixed(chunks);
  const wire: GeminiWire = {
    final: null,
    completed: false,
    sawState: false,
    inners: [],
    error: null,
    endTrailer: false,
    malformed: decoded.malformedFrames - (decoded.endedMidFrame ? 1 : 0),
    endedMidFrame: decoded.endedMidFrame,
    hadPrefix: decoded.hadPrefix,
    frames: decoded.frames.length,
  };
  const inners: (readonly unknown[])[] = [];
  for (const frame of decoded.frames) {
    if (!Array.isArray(frame)) continue;
    for (const envelope of frame) {
      if (!Array.isArray(envelope)) continue;
      if (envelope[0] === "e") wire.endTrailer = true;
      if (envelope[0] !== "wrb.fr") continue;
      if (typeof envelope[2] === "string") {
        const inner = parseJsonOrUndefined(envelope[2]);
        if (!Array.isArray(inner)) {
          wire.malformed += 1;
          continue;
        }
        inners.push(inner);
        readInner(wire, inner);
      } else if (Array.isArray(envelope[5]) && !wire.completed && wire.error === null) {
        wire.error = readErrorEnvelope(envelope[5]);
      }
    }
  }
  wire.inners = inners;
  return wire;
}

function readInner(wire: GeminiWire, inner: readonly unknown[]): void {
  const candidates = inner[4];
  if (!Array.isArray(candidates)) return;
  const candidate: unknown = candidates[0];
  if (!Array.isArray(candidate)) return;
  const state = candidateState(candidate);
  if (state !== null) wire.sawState = true;
  if (state === 2) {
    wire.completed = true;
    wire.final = { inner, candidate };
  } else if (!wire.completed) {
    wire.final = { inner, candidate };
  }
}

/** `[8][0]`: 1 = in progress, 2 = complete; null when absent. */
function candidateState(candidate: readonly unknown[]): number | null {
  const state: unknown = Array.isArray(candidate[8]) ? candidate[8][0] : undefined;
  return typeof state === "number" ? state : null;
}

function readErrorEnvelope(details: readonly unknown[]): GeminiErrorEnvelope {
  const status = typeof details[0] === "number" ? details[0] : null;
  const infos: unknown = details[2];
  let code: number | null = null;
  if (Array.isArray(infos)) {
    for (const info of infos) {
      const payload: unknown = Array.isArray(info) ? info[1] : undefined;
      const value: unknown = Array.isArray(payload) ? payload[0] : undefined;
      if (typeof value === "number") {
        code = value;
        break;
      }
    }
  }
  return { status, code };
}
