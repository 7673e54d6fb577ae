/**
 * Perplexity's citation markers: `[n]` in the answer markdown, a 1-based index into the answer's web results
 * (providers/perplexity.md §4). Markers are recognised only in prose: code fences and inline code (`arr[1]`) are left
 * alone, and `[n](url)` is a link, not a marker.
 */

const MARKER = /\[(\d{1,4})\](?!\()/g;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const INLINE_CODE = /(`+)[^`]*?\1/g;

/** Rewrites every marker's number through `renumber`; a marker mapped to null is removed. */
export function mapCitationMarkers(markdown: string, renumber: (n: number) => number | null): string {
  return mapProse(markdown, (prose) =>
    prose.replace(MARKER, (_marker, digits: string) => {
      const mapped = renumber(Number(digits));
      return mapped === null ? "" : `[${mapped}]`;
    }),
  );
}

/** The numbers of the markers in the prose of `markdown`, in order of appearance. */
export function citationMarkerNumbers(markdown: string): number[] {
  const numbers: number[] = [];
  mapProse(markdown, (prose) => {
    for (const match of prose.matchAll(MARKER)) numbers.push(Number(match[1]));
    return prose;
  });
  return numbers;
}

/** Applies `edit` to the prose parts of `markdown` (outside fenced code and inline code spans). */
export function mapProse(markdown: string, edit: (prose: string) => string): string {
  let fence: { char: string; length: number } | null = null;
  return markdown
    .split("\n")
    .map((line) => {
      if (fence !== null) {
        const closing = new RegExp(`^ {0,3}${fence.char === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
        if (closing.test(line)) fence = null;
        return line;
      }
      const opening = FENCE_OPEN.exec(line);
      if (opening !== null) {
        const marker = opening[1] ?? "```";
        fence = { char: marker.charAt(0), length: marker.length };
        return line;
      }
      let result = "";
      let last = 0;
      for (const code of line.matchAll(INLINE_CODE)) {
        result += edit(line.slice(last, code.index)) + code[0];
        last = code.index + code[0].length;
      }
      return result + edit(line.slice(last));
    })
    .join("\n");
}
