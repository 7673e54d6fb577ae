/**
 * `wrangler dev`'s terminal output for `npm start`, minus one repetition: wrangler prints the bindings table when it
 * starts and again whenever its dev registry changes, which happens at once when this Worker registers itself as a
 * queue consumer (no flag or variable turns that off). The second, identical table reads as a restart to a newcomer.
 * A table that differs from the last one printed (a binding changed) still goes through; every other line is untouched.
 */
import { Transform, type TransformCallback } from "node:stream";

const TABLE_HEADING = "Your Worker has access to the following bindings:";

export function withoutRepeatedBindingsTable(): Transform {
  let pending = "";
  /** The table being read (heading included) until the blank line that ends it; null outside a table. */
  let table: string[] | null = null;
  let lastTable = "";

  const lineOut = (line: string): string => {
    if (table === null && line.trim() === TABLE_HEADING) {
      table = [line];
      return "";
    }
    if (table === null) return `${line}\n`;
    table.push(line);
    if (line.trim() !== "") return "";
    const text = `${table.join("\n")}\n`;
    table = null;
    if (text === lastTable) return "";
    lastTable = text;
    return text;
  };

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      const lines = (pending + chunk.toString("utf8")).split("\n");
      pending = lines.pop() ?? "";
      done(null, lines.map(lineOut).join(""));
    },
    flush(done: TransformCallback) {
      const unfinishedTable = table === null ? "" : `${table.join("\n")}\n`;
      done(null, unfinishedTable + pending);
    },
  });
}
