/**
 * A monitor run's results as a file to download (issue 33, docs/monitors.md "Exports"): CSV for spreadsheets and JSON
 * Lines for programs. Pure: rows in, the file's text out. The CSV is written here by hand (RFC 4180 needs a dozen lines
 * and no CSV library is among the dependencies).
 */

import type { AnswerChanges, BrandFigures, CitedSource } from "./monitor-types";

/** One answer of a run (prompt × scraper × country), as exported. */
export interface MonitorResultRow {
  prompt: string;
  scraper: string;
  country: string;
  status: "done" | "failed";
  job_id: string;
  /** The answer's text; "" when the scrape failed. */
  text: string;
  sources: CitedSource[];
  brands: BrandFigures[];
  /** What changed since the previous successful run; null when there is none to compare with or the scrape failed. */
  changes: AnswerChanges | null;
}

/** Line end of the CSV (RFC 4180). */
const CSV_LINE_END = "\r\n";
/** Separates brand names within one CSV cell: a brand name may contain spaces, never this pair. */
const BRAND_LIST_SEPARATOR = "; ";

/**
 * The rows as CSV (RFC 4180): a header line, then one line per row, every line ended by CRLF. Columns: prompt,
 * scraper, country, status, job_id, sources (URLs joined by a space), `<brand> mentions` and `<brand> cited rank` for
 * each brand of the first row that has brand figures (in that row's order), sources_added, sources_removed,
 * brands_gained, brands_lost (brand names joined by "; "), text_similarity. A cell without a value is empty.
 */
export function resultsToCsv(rows: MonitorResultRow[]): string {
  const brandNames = rows.find((row) => row.brands.length > 0)?.brands.map((figures) => figures.brand) ?? [];
  const header = [
    "prompt",
    "scraper",
    "country",
    "status",
    "job_id",
    "sources",
    ...brandNames.flatMap((brand) => [`${brand} mentions`, `${brand} cited rank`]),
    "sources_added",
    "sources_removed",
    "brands_gained",
    "brands_lost",
    "text_similarity",
  ];
  const lines = [header, ...rows.map((row) => csvCells(row, brandNames))];
  return lines.map((cells) => cells.map(csvField).join(",") + CSV_LINE_END).join("");
}

/**
 * The rows as JSON Lines: one JSON object per row, each followed by "\n". U+0085, U+2028 and U+2029 are written as
 * escapes: JSON allows them raw inside strings, but some line readers (Python's `str.splitlines`) end a line there.
 */
export function resultsToJsonLines(rows: MonitorResultRow[]): string {
  return rows.map((row) => `${JSON.stringify(jsonRecord(row)).replace(/[\u0085\u2028\u2029]/g, unicodeEscape)}\n`).join("");
}

/** The row's cells in the header's order. */
function csvCells(row: MonitorResultRow, brandNames: string[]): string[] {
  const brandCells = brandNames.flatMap((brand) => {
    const figures = row.brands.find((candidate) => candidate.brand === brand);
    if (figures === undefined) return ["", ""];
    return [String(figures.mentions), figures.citedRank === null ? "" : String(figures.citedRank)];
  });
  const changes = row.changes;
  return [
    row.prompt,
    row.scraper,
    row.country,
    row.status,
    row.job_id,
    row.sources.map((source) => source.url).join(" "),
    ...brandCells,
    changes === null ? "" : changes.sourcesAdded.join(" "),
    changes === null ? "" : changes.sourcesRemoved.join(" "),
    changes === null ? "" : changes.brandsGained.join(BRAND_LIST_SEPARATOR),
    changes === null ? "" : changes.brandsLost.join(BRAND_LIST_SEPARATOR),
    changes === null ? "" : String(changes.textSimilarity),
  ];
}

/**
 * One CSV field. Against CSV injection (a spreadsheet running a cell as a formula), a value starting with `=`, `+`,
 * `-`, `@`, a tab or a CR is prefixed with `'`, which spreadsheets show as text. Then a value holding a comma, a quote,
 * a CR or an LF is quoted, its quotes doubled (RFC 4180).
 */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The exported object of a row: its fields in a fixed order, nothing else the row may carry. */
function jsonRecord(row: MonitorResultRow): MonitorResultRow {
  return {
    prompt: row.prompt,
    scraper: row.scraper,
    country: row.country,
    status: row.status,
    job_id: row.job_id,
    text: row.text,
    sources: row.sources,
    brands: row.brands,
    changes: row.changes,
  };
}

/** `\uXXXX` for one character. */
function unicodeEscape(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
