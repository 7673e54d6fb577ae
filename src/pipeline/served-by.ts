/**
 * `served_by`: who produced an answer. The browser layer reports what it knew of the page (src/browser/page-lease.ts:
 * country, signed in, hot page), the request says which attempt this is, and the provider's declarations give its
 * version and the answer field that holds the model label. A response-cache entry stores that provenance with the
 * answer (its own key, beside the answer's fields), so a cache hit and a coalesced follower carry the provenance of the
 * scrape that produced their answer, with `from_cache: true` (docs/decisions.md).
 */
import type { LeasedPageReport } from "../browser/leased-page-report";
import { type ScrapeProvenance, ScrapeProvenanceSchema, type ServedBy } from "../schemas/responses";
import { isRecord } from "../util/json-record";
import type { ScrapeAnswer } from "./scrape-answer";

/** An answer and who produced it: what a fresh scrape returns, the cache stores and a coalesced scrape shares. */
export interface ProducedAnswer {
  answer: ScrapeAnswer;
  provenance: ScrapeProvenance;
}

/** The key of a cache entry (or shared answer) that holds its provenance; no provider answer has a field of that name. */
const PROVENANCE_KEY = "served_by";

/** What `served_by` needs of a provider's declarations (src/scrapers/provider-contract.ts). */
interface ServingProvider {
  readonly version: string;
  readonly modelLabelField?: string;
}

export function provenanceOf(provider: ServingProvider, answer: ScrapeAnswer, page: LeasedPageReport, attempt: number): ScrapeProvenance {
  const label = provider.modelLabelField === undefined ? null : answer[provider.modelLabelField];
  return {
    country: page.country,
    session: page.signedIn ? "signed_in" : "anonymous",
    attempt,
    hot_page: page.hotPage,
    // a provider whose page showed no label this time answers null in that field
    model_label: typeof label === "string" && label !== "" ? label : null,
    scraper_version: provider.version,
  };
}

export function servedByOf(provenance: ScrapeProvenance, fromCache: boolean): ServedBy {
  return { ...provenance, from_cache: fromCache };
}

/** The JSON-ready form of a produced answer: the answer's fields and its provenance beside them. */
export function storedFormOf(produced: ProducedAnswer): Record<string, unknown> {
  return { ...produced.answer, [PROVENANCE_KEY]: produced.provenance };
}

/**
 * A stored (cached or shared) answer read back: its provenance checked here, its answer fields handed to
 * `checkAnswer` (the provider's schema). Null for anything else, an entry without provenance included.
 */
export function readStoredForm(
  value: unknown,
  checkAnswer: (answer: Record<string, unknown>) => ScrapeAnswer | null,
): ProducedAnswer | null {
  if (!isRecord(value)) return null;
  const { [PROVENANCE_KEY]: storedProvenance, ...fields } = value;
  // the answer first: its check reports a malformed answer, which is worth an operator's look whatever else is wrong
  const answer = checkAnswer(fields);
  if (answer === null) return null;
  const provenance = ScrapeProvenanceSchema.strict().safeParse(storedProvenance);
  return provenance.success ? { answer, provenance: provenance.data } : null;
}
