/**
 * What changed in one answer (prompt × scraper × country) between two runs of a monitor (issue 33, docs/monitors.md
 * "What changed"), and whether a change the customer chose to watch happened (the `monitor.changed` webhook event).
 * Pure: two kept answers and their brand figures in, an `AnswerChanges` out.
 */

import { foldText } from "./text-fold";
import { parseHttpUrl } from "../util/http-url";
import type { AnswerChanges, BrandFigures, KeptAnswer } from "./monitor-types";

/** One side of the comparison: the answer a run kept and the brand figures computed from it. */
export interface ComparedAnswer {
  answer: KeptAnswer;
  brands: BrandFigures[];
}

/** The changes a monitor's webhook watches; `similarityBelow`: report texts whose similarity falls under it (null: never). */
export interface WatchedChanges {
  brandsLost: boolean;
  brandsGained: boolean;
  domainsRemoved: boolean;
  domainsAdded: boolean;
  similarityBelow: number | null;
}

/** What changed from `previous` (the last successful run's answer) to `current`. */
export function answerChanges(previous: ComparedAnswer, current: ComparedAnswer): AnswerChanges {
  const previousUrls = distinct(previous.answer.sources.map((source) => source.url));
  const currentUrls = distinct(current.answer.sources.map((source) => source.url));
  const previousRanks = bestRankByDomain(previous.answer);
  const currentRanks = bestRankByDomain(current.answer);
  const previousMentioned = mentionedBrands(previous.brands);
  const currentMentioned = mentionedBrands(current.brands);

  const domainRankChanges: AnswerChanges["domainRankChanges"] = [];
  for (const [domain, to] of currentRanks) {
    const from = previousRanks.get(domain);
    if (from !== undefined && from !== to) domainRankChanges.push({ domain, from, to });
  }

  return {
    sourcesAdded: missingFrom(currentUrls, new Set(previousUrls)),
    sourcesRemoved: missingFrom(previousUrls, new Set(currentUrls)),
    domainsAdded: missingFrom([...currentRanks.keys()], new Set(previousRanks.keys())),
    domainsRemoved: missingFrom([...previousRanks.keys()], new Set(currentRanks.keys())),
    domainRankChanges,
    brandsGained: missingFrom(currentMentioned, new Set(previousMentioned)),
    brandsLost: missingFrom(previousMentioned, new Set(currentMentioned)),
    textSimilarity: textSimilarity(previous.answer.text, current.answer.text),
  };
}

/** Whether `changes` contain one of the changes `watch` asks to be told about (a `monitor.changed` event is due). */
export function hasChosenChange(changes: AnswerChanges, watch: WatchedChanges): boolean {
  return (
    (watch.brandsLost && changes.brandsLost.length > 0) ||
    (watch.brandsGained && changes.brandsGained.length > 0) ||
    (watch.domainsRemoved && changes.domainsRemoved.length > 0) ||
    (watch.domainsAdded && changes.domainsAdded.length > 0) ||
    (watch.similarityBelow !== null && changes.textSimilarity < watch.similarityBelow)
  );
}

/**
 * The domain of a cited URL: its host in lower case without a leading `www.`; null when the URL is not an absolute
 * http(s) URL (a cited source that is no web page belongs to no site).
 */
export function domainOf(url: string): string | null {
  const host = parseHttpUrl(url)?.hostname.toLowerCase() ?? "";
  const domain = host.replace(/^www\./, "");
  return domain === "" ? null : domain;
}

/**
 * How alike two texts are: the Jaccard index of their sets of words (shared words over all words), rounded to 3
 * decimals; 1 when neither text has a word. Chosen because it can be explained in one sentence and checked by hand
 * (a customer can count the words), it ignores word order (an assistant that reorders the same facts has not changed
 * its answer), and it costs one pass over each text (no model, no quadratic edit distance on answers of pages).
 */
export function textSimilarity(previous: string, current: string): number {
  const previousWords = wordSet(previous);
  const currentWords = wordSet(current);
  const union = new Set([...previousWords, ...currentWords]);
  if (union.size === 0) return 1;
  let shared = 0;
  for (const word of previousWords) if (currentWords.has(word)) shared += 1;
  return Math.round((shared / union.size) * 1000) / 1000;
}

/**
 * The words of a text: runs of letters and digits, folded as brand names are (./text-fold.ts: case, diacritics and
 * compatibility forms), so "Café", "cafe" and "CAFÉ" are one word.
 */
function wordSet(text: string): Set<string> {
  return new Set(foldText(text).match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Each cited domain's best (lowest 1-based) rank, in the order the answer first cites it. */
function bestRankByDomain(answer: KeptAnswer): Map<string, number> {
  const ranks = new Map<string, number>();
  answer.sources.forEach((source, index) => {
    const domain = domainOf(source.url);
    // Ranks grow along the list, so the first rank seen for a domain is its best.
    if (domain !== null && !ranks.has(domain)) ranks.set(domain, index + 1);
  });
  return ranks;
}

/** The names of the brands an answer mentions, in the order of its figures. */
function mentionedBrands(brands: BrandFigures[]): string[] {
  return distinct(brands.filter((figures) => figures.mentioned).map((figures) => figures.brand));
}

/** `values` without repeats, in the order each first appears. */
function distinct(values: string[]): string[] {
  return [...new Set(values)];
}

/** The values of `values` not in `other`, in their order. */
function missingFrom(values: string[], other: Set<string>): string[] {
  return values.filter((value) => !other.has(value));
}
