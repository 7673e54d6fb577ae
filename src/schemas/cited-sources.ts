/**
 * The sources an answer cites, as every provider declares them (`citedSources` in src/scrapers/provider-contract.ts)
 * and monitors rank and compare them (docs/monitors.md). Here, below the providers, so both can name the type.
 */

/** A source an answer cites, in the answer's order (its rank is its 1-based position). */
export interface CitedSource {
  url: string;
  title: string | null;
}

/** `sources` with each URL kept at its first place only (a repeat keeps the first title); blank titles become null. */
export function uniqueSources(sources: readonly CitedSource[]): CitedSource[] {
  const seen = new Set<string>();
  const unique: CitedSource[] = [];
  for (const source of sources) {
    if (seen.has(source.url)) continue;
    seen.add(source.url);
    unique.push({ url: source.url, title: source.title === null || source.title.trim() === "" ? null : source.title });
  }
  return unique;
}
