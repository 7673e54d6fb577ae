/**
 * HTML parsing that runs the same in Workers, Node and tests: htmlparser2 builds the tree (lenient like a browser
 * about unclosed tags, comments kept), css-select queries it with CSS selectors, domutils reads it. Provider parsers of
 * server-rendered answers (Google AI Mode) and DOM snapshots (citation chips) use these instead of regular expressions.
 */
import { selectAll, selectOne } from "css-select";
import type { AnyNode, ChildNode, Document, Element } from "domhandler";
import { isComment, isTag, isText } from "domhandler";
import { render } from "dom-serializer";
import { parseDocument } from "htmlparser2";

export type { AnyNode, Document, Element };
export { isTag, isText };

/** Parses an HTML document or fragment. Entities in text and attributes are decoded. */
export function parseHtml(html: string): Document {
  return parseDocument(html, { decodeEntities: true });
}

/** Every element under `root` matching a CSS selector, in document order. */
export function queryAll(root: AnyNode | AnyNode[], selector: string): Element[] {
  return selectAll(selector, root);
}

/** The first element under `root` matching a CSS selector, or null. */
export function queryOne(root: AnyNode | AnyNode[], selector: string): Element | null {
  return selectOne(selector, root);
}

/** An attribute's value, or null when absent. */
export function attributeOf(element: Element, name: string): string | null {
  const value = element.attribs[name];
  return value === undefined ? null : value;
}

/** Concatenated text of a node (like `textContent`: no layout, comments and script text excluded). */
export function textOf(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (isTag(node)) {
    if (node.name === "script" || node.name === "style" || node.name === "template") return "";
    return node.children.map(textOf).join("");
  }
  if ("children" in node && Array.isArray(node.children)) return node.children.map((child: ChildNode) => textOf(child)).join("");
  return "";
}

/** The data of every comment under `root`, in document order. */
export function commentsOf(root: AnyNode): string[] {
  const found: string[] = [];
  const visit = (node: AnyNode): void => {
    if (isComment(node)) {
      found.push(node.data);
      return;
    }
    if ("children" in node && Array.isArray(node.children)) for (const child of node.children) visit(child);
  };
  visit(root);
  return found;
}

/** Detaches every element matching `selector` under `root` (in place). */
export function removeAll(root: AnyNode | AnyNode[], selector: string): void {
  for (const element of queryAll(root, selector)) removeNode(element);
}

/** Detaches one node from its parent (in place). */
export function removeNode(node: AnyNode): void {
  const parent = node.parent;
  if (parent === null) return;
  const index = parent.children.findIndex((child) => child === node);
  if (index >= 0) parent.children.splice(index, 1);
  const previous = node.prev;
  const next = node.next;
  if (previous !== null) previous.next = next;
  if (next !== null) next.prev = previous;
  node.parent = null;
  node.prev = null;
  node.next = null;
}

/** Serialises nodes back to HTML (entities encoded as needed). */
export function toHtml(nodes: AnyNode | AnyNode[]): string {
  return render(nodes, { encodeEntities: "utf8" });
}
