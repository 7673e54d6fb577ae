/**
 * Network-level delivery of the replica's WebSocket frames. A real server's frames reach the browser in TCP writes
 * that do not line up with messages: a long frame arrives in several WebSocket fragments (continuation frames), a
 * fragment can end inside a multi-byte UTF-8 character, and several short frames can share one write. The replica
 * reproduces that with the shared chunking of `paced-body.ts`: the frames are laid out like lines of one byte stream,
 * cut at the same deterministic offsets an HTTP body would be cut at, and every cut inside a frame becomes a fragment
 * boundary. Each write is then sent with the pacing of the plan.
 */
import { splitIntoChunks } from "../shared/paced-body";

/** A piece of one frame: the frame's first fragment when `first`, its last when `fin`. */
export interface Fragment {
  frame: number;
  data: Uint8Array;
  first: boolean;
  fin: boolean;
}

const SEPARATOR = 0x0a;

/**
 * The writes that deliver `frames` (UTF-8 payloads): each write is the fragments sent back to back. With
 * `lastFrameIncomplete`, the last frame is delivered only up to half of its bytes and never finished.
 */
export function fragmentFrames(frames: readonly Uint8Array[], options: { lastFrameIncomplete?: boolean } = {}): Fragment[][] {
  const payloads = frames.map((frame, index) =>
    options.lastFrameIncomplete === true && index === frames.length - 1 ? frame.subarray(0, Math.floor(frame.length / 2)) : frame,
  );
  // Frames joined like lines, so that splitIntoChunks also cuts inside every frame's first multi-byte character.
  const total = payloads.reduce((sum, payload) => sum + payload.length, 0) + Math.max(0, payloads.length - 1);
  const stream = new Uint8Array(total);
  let offset = 0;
  payloads.forEach((payload, index) => {
    stream.set(payload, offset);
    offset += payload.length;
    if (index < payloads.length - 1) stream[offset++] = SEPARATOR;
  });

  const writes: Fragment[][] = [];
  let frame = 0;
  let inFrame = 0;
  for (const chunk of stream.length === 0 ? [] : splitIntoChunks(stream)) {
    const write: Fragment[] = [];
    let at = 0;
    while (at < chunk.length) {
      const payload = payloads[frame] ?? new Uint8Array(0);
      if (inFrame === payload.length) {
        // the separator between this frame and the next
        frame += 1;
        inFrame = 0;
        at += 1;
        continue;
      }
      const take = Math.min(payload.length - inFrame, chunk.length - at);
      const last = inFrame + take === payload.length;
      const incomplete = options.lastFrameIncomplete === true && frame === payloads.length - 1;
      write.push({ frame, data: payload.subarray(inFrame, inFrame + take), first: inFrame === 0, fin: last && !incomplete });
      inFrame += take;
      at += take;
    }
    if (write.length > 0) writes.push(write);
  }
  return writes;
}
