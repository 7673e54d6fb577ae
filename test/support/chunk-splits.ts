/**
 * The one chunk-splitting harness of the parser tests: a body cut into chunks every way that matters — whole, one byte
 * per chunk, and into two pieces at every byte boundary (which cuts every line, frame, and multi-byte character).
 */

/** Every way of cutting `data` into two chunks, plus the whole body and one chunk per byte. */
export function everySplit(data: Uint8Array): Uint8Array[][] {
  const splits: Uint8Array[][] = [[data], Array.from(data, (byte) => Uint8Array.of(byte))];
  for (let at = 0; at <= data.length; at += 1) splits.push([data.subarray(0, at), data.subarray(at)]);
  return splits;
}

/**
 * For long bodies (where every two-way split would be slow in a loop of heavy parses): the whole body, one byte per
 * chunk, two-way splits at `samples` evenly spread offsets, and two-way splits at every byte of every multi-byte UTF-8
 * character.
 */
export function sampledSplits(data: Uint8Array, samples = 64): Uint8Array[][] {
  const cuts = new Set<number>();
  for (let index = 0; index <= samples; index += 1) cuts.add(Math.round((index * data.length) / samples));
  for (let at = 0; at < data.length; at += 1) if ((data[at] ?? 0) >= 0x80) cuts.add(at);
  const splits: Uint8Array[][] = [[data], Array.from(data, (byte) => Uint8Array.of(byte))];
  for (const at of [...cuts].sort((a, b) => a - b)) splits.push([data.subarray(0, at), data.subarray(at)]);
  return splits;
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
