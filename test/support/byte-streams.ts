/** Reading replica responses in the replica tests: the body as the chunks it arrived in, and chunks joined. */

/** Every chunk of a response body, in arrival order. */
export async function readChunks(response: Response): Promise<Uint8Array[]> {
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error("no body");
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

/** The chunks joined into one byte array. */
export function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((length, chunk) => length + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
