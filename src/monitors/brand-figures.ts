/**
 * Brand figures (issue 33 item 4, docs/monitors.md#brand-figures): for one kept answer and a monitor's brands, whether
 * each brand is named, where first, how often, and whether one of its sites is cited and at which rank; and, for a
 * group of answers, each brand's share of voice. Deterministic and explainable (no model): plain text matching with
 * the rules the docs state, so a customer can check any figure by reading the answer.
 */
import { foldCharacter, foldText } from "./text-fold";
import { parseHttpUrl } from "../util/http-url";
import type { Brand, BrandFigures, KeptAnswer } from "./monitor-types";

/** The text as matching sees it, and where each of its UTF-16 units came from in the original. */
interface FoldedText {
  folded: string;
  /** `originalIndex[i]` is the index in the original text of the character that folded unit `i` came from. */
  originalIndex: number[];
}

const REGEX_SYNTAX = /[\^$\\.*+?()[\]{}|/]/g;
const LETTER_OR_DIGIT = "[\\p{L}\\p{N}]";

/** The text folded character by character (./text-fold.ts), keeping the way back: folding changes lengths. */
function foldWithOrigins(text: string): FoldedText {
  let folded = "";
  const originalIndex: number[] = [];
  let index = 0;
  for (const character of text) {
    const piece = foldCharacter(character);
    folded += piece;
    for (let unit = 0; unit < piece.length; unit += 1) originalIndex.push(index);
    index += character.length;
  }
  return { folded, originalIndex };
}

/**
 * A name as a regular expression over folded text, or null for a name with nothing left once folded. Runs of
 * whitespace match any run of whitespace; every other character matches itself ("AT&T", "Node.js").
 */
function namePattern(name: string): string | null {
  const words = foldText(name.trim()).trim().split(/\s+/u);
  if (words.every((word) => word === "")) return null;
  return words.map((word) => word.replace(REGEX_SYNTAX, "\\$&")).join("\\s+");
}

/** A mention in folded text: where it starts and where it ends (exclusive). */
interface Span {
  start: number;
  end: number;
}

/**
 * Every place a name matches at word boundaries (neither preceded nor followed by a letter or digit), overlapping
 * ones included: the match sits in a lookahead so the search moves on one character at a time, not past the match.
 */
function nameSpans(folded: string, pattern: string): Span[] {
  const search = new RegExp(`(?<!${LETTER_OR_DIGIT})(?=(${pattern})(?!${LETTER_OR_DIGIT}))`, "gu");
  const spans: Span[] = [];
  for (const match of folded.matchAll(search)) {
    const matched = match[1] ?? "";
    spans.push({ start: match.index, end: match.index + matched.length });
  }
  return spans;
}

/** The brand's mentions in folded text: all its names' matches, the longest at a position kept, none overlapping. */
function brandMentions(folded: string, brand: Brand): Span[] {
  const candidates: Span[] = [];
  for (const name of [brand.name, ...brand.aliases]) {
    const pattern = namePattern(name);
    if (pattern !== null) candidates.push(...nameSpans(folded, pattern));
  }
  candidates.sort((left, right) => left.start - right.start || right.end - left.end);
  const mentions: Span[] = [];
  let cursor = 0;
  for (const candidate of candidates) {
    if (candidate.start < cursor) continue;
    mentions.push(candidate);
    cursor = candidate.end;
  }
  return mentions;
}

const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/u;
const WHITESPACE = /\s/u;
/** Ends a sentence when followed by whitespace or the end of the text. */
const SENTENCE_END = /[.!?…]/u;
/** Full-width punctuation ends a sentence even when the next one follows directly, as Chinese and Japanese write. */
const FULL_WIDTH_SENTENCE_END = /[。！？]/u;

/**
 * The 0-based index of the sentence that holds `offset`: the number of non-empty sentences that end before it. A
 * sentence ends after ".", "!", "?" or "…" followed by whitespace or the end, after "。", "！" or "？", and at every line
 * break; one holding only whitespace is not counted. There is no list of abbreviations: "e.g. " ends a sentence too.
 */
export function sentenceIndexAt(text: string, offset: number): number {
  let completed = 0;
  let hasContent = false;
  for (let index = 0; index < offset && index < text.length; index += 1) {
    const character = text.charAt(index);
    if (LINE_BREAK.test(character)) {
      if (hasContent) completed += 1;
      hasContent = false;
      continue;
    }
    if (WHITESPACE.test(character)) continue;
    hasContent = true;
    const next = text.charAt(index + 1);
    const endsHere = FULL_WIDTH_SENTENCE_END.test(character) || (SENTENCE_END.test(character) && (next === "" || WHITESPACE.test(next)));
    if (endsHere) {
      completed += 1;
      hasContent = false;
    }
  }
  return completed;
}

/** A host or domain compared as the URL parser writes hosts: lower case, internationalised names in punycode, no final dot. */
function canonicalHost(host: string): string {
  const parsed = parseHttpUrl(`http://${host.trim()}`);
  const canonical = parsed === null ? host.trim().toLowerCase() : parsed.hostname;
  return canonical.replace(/\.$/, "");
}

/** Whether `host` is `domain` or one of its subdomains (`news.nike.com` is on `nike.com`; `nike.com.evil.io` is not). */
function isOnDomain(host: string, domain: string): boolean {
  return domain !== "" && (host === domain || host.endsWith(`.${domain}`));
}

/** The first cited source on one of the brand's domains, with its 1-based rank; sources that are not http(s) URLs are skipped. */
function firstCitation(answer: KeptAnswer, brand: Brand): { rank: number; url: string } | null {
  const domains = brand.domains.map(canonicalHost);
  for (const [index, source] of answer.sources.entries()) {
    const url = parseHttpUrl(source.url);
    if (url === null) continue;
    const host = canonicalHost(url.hostname);
    if (domains.some((domain) => isOnDomain(host, domain))) return { rank: index + 1, url: source.url };
  }
  return null;
}

/** The figures of each brand in one answer, in the order of `brands`. */
export function brandFigures(answer: KeptAnswer, brands: readonly Brand[]): BrandFigures[] {
  const { folded, originalIndex } = foldWithOrigins(answer.text);
  return brands.map((brand) => {
    const mentions = brandMentions(folded, brand);
    const first = mentions[0];
    const offset = first === undefined ? undefined : originalIndex[first.start];
    const citation = firstCitation(answer, brand);
    return {
      brand: brand.name,
      mentioned: mentions.length > 0,
      firstPosition: offset === undefined ? null : { offset, sentence: sentenceIndexAt(answer.text, offset) },
      mentions: mentions.length,
      citedRank: citation?.rank ?? null,
      citedUrl: citation?.url ?? null,
    };
  });
}

/** One brand's share of voice in a group of answers. */
export interface ShareOfVoice {
  brand: string;
  /** Its mentions across the group's answers. */
  mentions: number;
  /** How many of the group's answers mention it at least once. */
  answersMentioning: number;
  /** How many answers the group holds. */
  answers: number;
  /** Its mentions over all the brands' mentions in the group, 0 to 1, rounded to 4 decimals; 0 when no brand is mentioned. */
  share: number;
}

/**
 * Share of voice per brand for a group of answers (one scraper × country of a run), each answer given as its brand
 * figures; brands in the order they first appear. The unit is the mention, not the answer, because that is what share
 * of voice measures: how much of the talk about the brands is about this one. An answer that names one brand five times
 * and a rival once gives them 5/6 and 1/6, where counting answers would call it even; and mention shares add up to 1,
 * while answer counts do not when answers name several brands. How many answers name a brand is `answersMentioning`.
 */
export function shareOfVoice(figures: readonly (readonly BrandFigures[])[]): ShareOfVoice[] {
  const totals = new Map<string, { mentions: number; answersMentioning: number }>();
  for (const answer of figures) {
    for (const brand of answer) {
      const total = totals.get(brand.brand) ?? { mentions: 0, answersMentioning: 0 };
      total.mentions += brand.mentions;
      if (brand.mentions > 0) total.answersMentioning += 1;
      totals.set(brand.brand, total);
    }
  }
  const allMentions = [...totals.values()].reduce((sum, total) => sum + total.mentions, 0);
  return [...totals].map(([brand, total]) => ({
    brand,
    mentions: total.mentions,
    answersMentioning: total.answersMentioning,
    answers: figures.length,
    share: allMentions === 0 ? 0 : Math.round((total.mentions / allMentions) * 10_000) / 10_000,
  }));
}
