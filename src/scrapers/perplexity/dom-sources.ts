/**
 * The DOM fallback for sources (providers/perplexity.md §4): the citation pills of the rendered answer,
 * `span.citation[data-pplx-citation][data-pplx-citation-url]`, in order of first appearance; the title is the
 * `aria-label` of the pill's inner element. Used only when the stream carried no web results.
 */
import { attributeOf, parseHtml, queryAll, queryOne } from "../shared/decode/html";
import type { PerplexitySource } from "./declaration";
import { trimmedOrNull } from "../../util/json-record";
import { normaliseSourceUrl } from "./urls";

const PILL = "[data-pplx-citation-url]";

export function sourcesFromAnswerHtml(html: string): PerplexitySource[] {
  const document = parseHtml(html);
  const seen = new Set<string>();
  const sources: PerplexitySource[] = [];
  for (const pill of queryAll(document, PILL)) {
    const url = normaliseSourceUrl(attributeOf(pill, "data-pplx-citation-url") ?? "");
    if (url === null || seen.has(url)) continue;
    seen.add(url);
    const labelled = queryOne(pill.children, "[aria-label]");
    const title =
      trimmedOrNull(labelled === null ? null : attributeOf(labelled, "aria-label")) ?? trimmedOrNull(attributeOf(pill, "aria-label"));
    sources.push({ title: title ?? url, url, snippet: "" });
  }
  return sources;
}
