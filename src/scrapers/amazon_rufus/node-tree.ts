/**
 * Reading Rufus's UI node trees (amazon_rufus.md §3): `text{lines?, children[]}`, `box{onPress?{url}, children[]}`,
 * `image{altText}`, `rating{valueString, count}`, `price{…}`; children are strings or nodes; other node types are
 * ignored. Everything is read leniently (a node may lack any field); nothing here throws.
 */

import { isRecord, type JsonRecord } from "../../util/json-record";

function childrenOf(node: JsonRecord): unknown[] {
  const children = node.children;
  if (Array.isArray(children)) return children;
  // a single child sent bare instead of in a list
  return typeof children === "string" || isRecord(children) ? [children] : [];
}

/**
 * The text of a node tree: strings as they are, a `text` node's children joined, a `box`'s children as blocks
 * separated by a blank line (a prose group sent as a box of paragraphs). Other node types carry no answer text.
 */
export function nodeText(node: unknown): string {
  if (typeof node === "string") return node;
  if (!isRecord(node)) return "";
  if (node.type === "text") return childrenOf(node).map(nodeText).join("");
  if (node.type === "box") {
    return childrenOf(node)
      .map(nodeText)
      .filter((text) => text.trim() !== "")
      .join("\n\n");
  }
  return "";
}

/** Every node of `type` in the tree, depth first, in document order. */
function nodesOfType(node: unknown, type: string): JsonRecord[] {
  if (!isRecord(node)) return [];
  const found: JsonRecord[] = node.type === type ? [node] : [];
  for (const child of childrenOf(node)) found.push(...nodesOfType(child, type));
  return found;
}

const ASIN_IN_URL = /\/dp\/([A-Z0-9]{10})(?![A-Za-z0-9])/;

/** The ASIN a product URL opens (`/dp/<ASIN>`, with or without a slug before and a ref/query after), or null. */
export function asinOfUrl(url: unknown): string | null {
  if (typeof url !== "string") return null;
  return ASIN_IN_URL.exec(url)?.[1] ?? null;
}

export interface CardNode {
  asin: string;
  node: JsonRecord;
}

/**
 * The product cards of a card group: every `box` whose `onPress.url` opens a product page, outermost first; a card's
 * own descendants are not searched again (a link inside a card is part of that card).
 */
export function findCards(node: unknown): CardNode[] {
  if (!isRecord(node)) return [];
  if (node.type === "box" && isRecord(node.onPress)) {
    const asin = asinOfUrl(node.onPress.url);
    if (asin !== null) return [{ asin, node }];
  }
  return childrenOf(node).flatMap(findCards);
}

const PACKAGING_NOTE = /[\s,–-]*\(\s*packaging may vary\s*\)\s*$/i;

/** The card's title: its first `text` node with `lines`, else the image's `altText`; "(Packaging May Vary)" dropped. */
export function cardTitle(card: JsonRecord): string {
  const titled = nodesOfType(card, "text").find((text) => text.lines !== undefined && text.lines !== null && nodeText(text).trim() !== "");
  const raw =
    titled !== undefined
      ? nodeText(titled)
      : (nodesOfType(card, "image")
          .map((image) => stringOf(image.altText))
          .find((alt) => alt !== "") ?? "");
  return collapseSpaces(raw).replace(PACKAGING_NOTE, "").trim();
}

export interface CardRating {
  rating: string;
  reviews: string;
}

const NUMBER_TEXT = /\d+(?:[.,]\d+)?/g;

/**
 * The card's stars and review count as the site shows them. `valueString` is reduced to its number, in any wording
 * of the scale ("4.5 out of 5 stars" → "4.5", "4,5 von 5 Sternen" → "4,5", "5つ星のうち4.3" → "4.3"; a bare "4,5"
 * stays "4,5"): with more than one number, one "5" is the scale. The count is kept as shown ("1,234"). No rating
 * node → both "".
 */
export function cardRating(card: JsonRecord): CardRating {
  const node = nodesOfType(card, "rating")[0];
  if (node === undefined) return { rating: "", reviews: "" };
  const shown = stringOf(node.valueString);
  const numbers: string[] = shown.match(NUMBER_TEXT) ?? [];
  const scale = numbers.length > 1 ? numbers.indexOf("5") : -1;
  const value = numbers.filter((_number, index) => index !== scale)[0];
  return { rating: value ?? shown, reviews: stringOf(node.count) };
}

/** A string or number field as text (trimmed); anything else is "". */
function stringOf(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return "";
}

export function collapseSpaces(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
