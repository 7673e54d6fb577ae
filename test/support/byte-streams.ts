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

/** Reads a body as text until it ends or breaks off; `broke` says whether the transfer failed (a cut connection). */
export async function readUntilBreak(response: Response): Promise<{ text: string; broke: boolean }> {
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error("no body");
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, broke: false };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { text, broke: true };
  }
}
