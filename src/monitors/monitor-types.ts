/**
 * Monitors (issue 33, docs/monitors.md): a set of prompts asked of a set of scrapers in a set of countries on a
 * schedule, each run compared with the previous one, and the brands the answers name and cite. The types every part
 * shares: the definition a customer writes, the answer a run keeps of each scrape, the brand figures and the changes.
 * Pure (no Worker types), so the parsing, matching and comparing modules and their unit tests need nothing else.
 */
import type { CitedSource } from "../schemas/cited-sources";

export type { CitedSource };

/** A brand to look for: its name, other names it goes by, and the domains that are its own sites. */
export interface Brand {
  name: string;
  /** Other spellings or names (product names, the company's short name); matched like the name. */
  aliases: string[];
  /** Registrable domains or hosts (`example.com`, `shop.example.co.uk`), lower case, without scheme or path. */
  domains: string[];
}

/** When a monitor runs, in UTC: a five-field cron expression, or every N whole hours from its creation. */
export type MonitorSchedule = { kind: "cron"; expression: string } | { kind: "every_hours"; hours: number };

/** One scraper a monitor asks, with that scraper's own parameters (validated by its query schema, never `prompt`). */
export interface MonitorTarget {
  scraper: string;
  /** The scraper's parameters besides `prompt` and `country` (e.g. grok's `mode`), as a query would carry them. */
  params: Record<string, string>;
}

/** What a customer defines (the body of `POST /monitors`, validated). */
export interface MonitorDefinition {
  name: string;
  prompts: string[];
  targets: MonitorTarget[];
  countries: string[];
  schedule: MonitorSchedule;
  brands: Brand[];
  /** Evidence kinds every scrape of a run keeps (docs/evidence.md); [] for none. */
  evidence: ("screenshot" | "html" | "stream")[];
  /** Where the monitor's events go (`monitor.run_completed`, `monitor.changed`, `monitor.run_skipped`); null: the account's endpoint. */
  webhookUrl: string | null;
}

/** What a run keeps of one answer: enough to compute brand figures and to compare with the next run. */
export interface KeptAnswer {
  text: string;
  sources: CitedSource[];
}

/** One brand in one answer. */
export interface BrandFigures {
  brand: string;
  mentioned: boolean;
  /** Where the first mention starts: a character offset into the answer's text (UTF-16 units), and its sentence (0-based). */
  firstPosition: { offset: number; sentence: number } | null;
  mentions: number;
  /** The 1-based rank of the first cited source on one of the brand's domains, or null when none is cited. */
  citedRank: number | null;
  /** The cited URL at that rank. */
  citedUrl: string | null;
}

/** What changed in one answer (prompt × scraper × country) since the previous successful run. */
export interface AnswerChanges {
  sourcesAdded: string[];
  sourcesRemoved: string[];
  domainsAdded: string[];
  domainsRemoved: string[];
  /** Cited domains whose best rank moved: from and to (1-based). */
  domainRankChanges: { domain: string; from: number; to: number }[];
  brandsGained: string[];
  brandsLost: string[];
  /** How alike the two answers' texts are, 0 (nothing shared) to 1 (the same words). */
  textSimilarity: number;
}
