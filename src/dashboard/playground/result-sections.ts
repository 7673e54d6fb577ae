/**
 * The fields of a scrape response arranged for reading, whatever the scraper: the viewer knows no provider. Every
 * field beside the common ones becomes
 * - a list of cards when it is a list of objects (citations, sources, web sources, social posts, products, search
 *   results): the card's title is its `title`, `name` or `text`; its `url` is the link; its other values are its body;
 * - a list of links when it is a list of URLs (Copilot's `links`), or of chips when it is a list of other strings
 *   (related questions, search queries);
 * - a detail when it is a single value or object (model, mode, conversation).
 * Machine-readable fields (`*_json`, e.g. `result_markdown_json`) are left to the raw JSON.
 */
import { isHttpUrl } from "../../util/http-url";
import { isRecord } from "../../util/json-record";

interface CardLine {
  label: string;
  text: string;
}

export interface ResultCard {
  title: string;
  /** The card's link: an http(s) URL from the item, or null. */
  url: string | null;
  /** Short values shown on one line (rating, views, site, time). */
  meta: CardLine[];
  /** Longer texts shown as paragraphs (snippet, preview, post text, footer). */
  paragraphs: string[];
  /** Lists inside the item (Gemini's highlights). */
  lists: Array<{ label: string; items: string[] }>;
}

export type ResultSection =
  | { kind: "cards"; field: string; title: string; cards: ResultCard[] }
  | { kind: "links"; field: string; title: string; urls: string[] }
  | { kind: "chips"; field: string; title: string; items: string[] };

interface ResultDetail {
  field: string;
  label: string;
  text: string;
}

interface ArrangedResult {
  sections: ResultSection[];
  details: ResultDetail[];
}

/** Fields every response has; the viewer shows them in its header and answer, not as sections. */
const COMMON_FIELDS: ReadonlySet<string> = new Set([
  "scraper",
  "status",
  "job_id",
  "prompt",
  "country",
  "result",
  "result_markdown",
  "credits_used",
  "elapsed_ms",
  "cached",
  "markdown_url",
  // shown in the viewer's evidence card
  "evidence",
]);

/** Names the spec gives these lists, where the field name alone reads less well. */
const SECTION_TITLES: Readonly<Record<string, string>> = {
  social_results: "Social posts",
  web_sources: "Web sources",
  search_results: "Search results",
  llm_model: "Model",
};

/**
 * How the spec's well-known item fields (§2.4, §2.6) read on a card; any other field shows as "Label value". An empty
 * label shows the text alone.
 */
const CARD_META: Readonly<Record<string, { label: string; format?: (text: string) => string }>> = {
  user_name: { label: "", format: (text) => `@${text}` },
  view_count: { label: "", format: (text) => `${text} views` },
  create_time: { label: "Posted" },
  post_id: { label: "Post" },
  rating: { label: "", format: (text) => `★ ${text}` },
  reviews: { label: "", format: (text) => `${text} ratings` },
  asin: { label: "ASIN" },
  website_name: { label: "" },
};
/** Item fields that read as a sentence, whatever their length. */
const PARAGRAPH_FIELDS: ReadonlySet<string> = new Set(["text", "snippet", "preview", "footer"]);

const TITLE_FIELDS = ["title", "name", "text"] as const;
/** Strings at least this long read better as a paragraph than on the meta line. */
const PARAGRAPH_LENGTH = 60;

function humanise(field: string): string {
  const title = SECTION_TITLES[field];
  if (title !== undefined) return title;
  const words = field.replaceAll("_", " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function scalarText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number") return value.toLocaleString("en-US");
  if (typeof value === "boolean") return value ? "yes" : "no";
  return null;
}

function cardOf(item: Record<string, unknown>, index: number): ResultCard {
  const titleField = TITLE_FIELDS.find((name) => typeof item[name] === "string" && item[name] !== "");
  const url = typeof item.url === "string" && isHttpUrl(item.url) ? item.url : null;
  const card: ResultCard = { title: "", url, meta: [], paragraphs: [], lists: [] };
  card.title = titleField === undefined ? (url ?? `Item ${index + 1}`) : String(item[titleField]);
  for (const [name, value] of Object.entries(item)) {
    if (name === titleField || name === "url" || value === null || value === "") continue;
    if (Array.isArray(value)) {
      const items = value.map(scalarText).filter((text): text is string => text !== null && text !== "");
      if (items.length > 0) card.lists.push({ label: humanise(name), items });
      continue;
    }
    const text = scalarText(value);
    if (text === null) continue;
    // Image URLs (a post author's picture) are not loaded by the dashboard; the raw JSON has them.
    if (isHttpUrl(text) && name !== "url") continue;
    const known = CARD_META[name];
    if (known !== undefined) card.meta.push({ label: known.label, text: known.format?.(text) ?? text });
    else if (text.length >= PARAGRAPH_LENGTH || PARAGRAPH_FIELDS.has(name)) card.paragraphs.push(text);
    else card.meta.push({ label: humanise(name), text });
  }
  return card;
}

function detailText(value: unknown): string | null {
  const scalar = scalarText(value);
  if (scalar !== null) return scalar;
  if (isRecord(value)) {
    const parts = Object.entries(value)
      .map(([name, inner]) => {
        const text = scalarText(inner);
        return text === null || text === "" ? null : `${humanise(name)}: ${text}`;
      })
      .filter((part): part is string => part !== null);
    return parts.length === 0 ? null : parts.join(" · ");
  }
  return null;
}

/** The response's own fields as sections and details (empty lists are sections too: "none" is an answer). */
export function arrangeResult(response: Readonly<Record<string, unknown>>): ArrangedResult {
  const arranged: ArrangedResult = { sections: [], details: [] };
  for (const [field, value] of Object.entries(response)) {
    if (COMMON_FIELDS.has(field) || field.endsWith("_json")) continue;
    const title = humanise(field);
    if (Array.isArray(value)) {
      if (value.every(isRecord)) {
        arranged.sections.push({ kind: "cards", field, title, cards: value.map(cardOf) });
      } else if (value.every((item): item is string => typeof item === "string")) {
        const allUrls = value.length > 0 && value.every(isHttpUrl);
        arranged.sections.push(allUrls ? { kind: "links", field, title, urls: value } : { kind: "chips", field, title, items: value });
      }
      continue;
    }
    const text = detailText(value);
    if (text !== null && text !== "") arranged.details.push({ field, label: title, text });
  }
  return arranged;
}
