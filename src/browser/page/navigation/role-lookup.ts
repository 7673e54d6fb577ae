/**
 * Elements by ARIA role, with the accessible name Chromium computes for them: what the navigation engine matches
 * controls by (`findByRole`, `chooseMenuItem`).
 *
 * Why not `Accessibility.queryAXTree` alone: Chromium takes about a frame to answer it however small the page (measured
 * on the Copilot replica, 42 elements: 13–17 ms for every query but the first, with or without `Accessibility.enable`),
 * and a menu choice makes three lookups. `Accessibility.getPartialAXTree` for one node answers at once with the same
 * role and name. So the page first lists the elements that can have one of the roles (an explicit `role`, or an
 * element whose implicit role it is, open shadow roots included), and Chromium's accessibility tree says which of them
 * really have it and under what name: the criteria stay Chromium's, only the search is narrowed. The tree query is
 * still used when the narrowed search cannot run or would ask about too many elements at once. What the narrowed
 * search cannot see is an element inside a closed shadow root.
 */
import type { CDPSession } from "@cloudflare/puppeteer";

export interface RoleCandidate {
  backendNodeId: number;
  name: string;
}

/** Beyond this many elements to ask about, one tree query is cheaper than a node query each. */
const MAX_NODE_QUERIES = 150;

/** Elements whose implicit role (HTML-AAM) is the role; an explicit `role` attribute is always looked at too. */
const IMPLICIT_ROLES: Readonly<Record<string, string>> = {
  button: 'button, input[type="button" i], input[type="submit" i], input[type="reset" i], input[type="image" i], summary',
  link: "a[href], area[href]",
  listbox: "select, datalist",
  option: "option",
  // Chromium confirms each: a contenteditable region is a textbox only where it computes so
  textbox:
    'textarea, input:not([type]), input[type="text" i], input[type="email" i], input[type="tel" i], input[type="url" i], [contenteditable]:not([contenteditable="false" i])',
  searchbox: 'input[type="search" i]',
};

let groups = 0;

/**
 * Non-ignored accessibility nodes with one of `roles` under `within` (the element's subtree, itself included) or the
 * whole document, with their names, in document order.
 */
export async function roleCandidates(cdp: CDPSession, roles: readonly string[], within: number | null): Promise<RoleCandidate[]> {
  const narrowed = await candidatesByNode(cdp, roles, within);
  return narrowed ?? candidatesByTree(cdp, roles, within);
}

/** The CSS selector of the elements that may have one of `roles`. */
function roleSelector(roles: readonly string[]): string {
  return roles
    .flatMap((role) => {
      const implicit = IMPLICIT_ROLES[role];
      const explicit = `[role~="${role.replace(/["\\]/g, "\\$&")}" i]`;
      return implicit === undefined ? [explicit] : [explicit, implicit];
    })
    .join(", ");
}

/**
 * In-page `(root, selector) => Element[]`: `root` itself when it matches, then its matching descendants, then those of
 * every open shadow root below it. Elements that are not rendered (no box, and not `display: contents`) are left out:
 * Chromium's tree ignores them too. Native `<option>`s have no box of their own and are kept.
 */
const LIST_CANDIDATES = `(root, selector) => {
  const found = [];
  const rendered = (element) =>
    element.getClientRects().length > 0 || element.localName === "option" || getComputedStyle(element).display === "contents";
  const visit = (scope) => {
    for (const element of scope.querySelectorAll(selector)) if (rendered(element)) found.push(element);
    for (const host of scope.querySelectorAll("*")) if (host.shadowRoot) visit(host.shadowRoot);
  };
  if (root instanceof Element && root.matches(selector) && rendered(root)) found.push(root);
  visit(root);
  return found;
}`;

/** The narrowed search; null when it could not run or would ask about more than MAX_NODE_QUERIES elements. */
async function candidatesByNode(cdp: CDPSession, roles: readonly string[], within: number | null): Promise<RoleCandidate[] | null> {
  groups += 1;
  const objectGroup = `role-lookup-${groups}`;
  const selector = JSON.stringify(roleSelector(roles));
  try {
    const listed = await listElements(cdp, objectGroup, selector, within);
    if (listed === null) return null;
    const { result } = await cdp.send("Runtime.getProperties", { objectId: listed, ownProperties: true });
    const elements = result
      .filter((property) => /^\d+$/.test(property.name))
      .sort((a, b) => Number(a.name) - Number(b.name))
      .flatMap((property) => (property.value?.objectId === undefined ? [] : [property.value.objectId]));
    if (elements.length > MAX_NODE_QUERIES) return null;
    const answers = await Promise.all(
      elements.map((objectId) =>
        cdp.send("Accessibility.getPartialAXTree", { objectId, fetchRelatives: false }).catch(() => ({ nodes: [] })),
      ),
    );
    return keepRoles(
      answers.flatMap(({ nodes }) => nodes),
      roles,
    );
  } catch {
    return null;
  } finally {
    cdp.send("Runtime.releaseObjectGroup", { objectGroup }).catch(() => undefined);
  }
}

/** The array of candidate elements in the page (its object id), or null when `within` is gone. */
async function listElements(cdp: CDPSession, objectGroup: string, selector: string, within: number | null): Promise<string | null> {
  if (within === null) {
    const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", {
      expression: `(${LIST_CANDIDATES})(document, ${selector})`,
      objectGroup,
    });
    return exceptionDetails === undefined ? (result.objectId ?? null) : null;
  }
  const { object } = await cdp.send("DOM.resolveNode", { backendNodeId: within, objectGroup });
  if (object.objectId === undefined) return null;
  const { result, exceptionDetails } = await cdp.send("Runtime.callFunctionOn", {
    objectId: object.objectId,
    functionDeclaration: `function () { return (${LIST_CANDIDATES})(this, ${selector}); }`,
    objectGroup,
  });
  return exceptionDetails === undefined ? (result.objectId ?? null) : null;
}

/** The tree query: one per role, sent together (one round trip), results in the roles' order. Exported for tests. */
export async function candidatesByTree(cdp: CDPSession, roles: readonly string[], within: number | null): Promise<RoleCandidate[]> {
  const root = within ?? (await cdp.send("DOM.getDocument", { depth: 0 })).root.backendNodeId;
  const answers = await Promise.all(
    roles.map((role) => cdp.send("Accessibility.queryAXTree", { backendNodeId: root, role }).catch(() => ({ nodes: [] }))),
  );
  return keepRoles(
    answers.flatMap(({ nodes }) => nodes),
    roles,
  );
}

interface AxNodeLike {
  ignored: boolean;
  backendDOMNodeId?: number;
  role?: { value?: unknown };
  name?: { value?: unknown };
}

function keepRoles(nodes: readonly AxNodeLike[], roles: readonly string[]): RoleCandidate[] {
  const found: RoleCandidate[] = [];
  for (const node of nodes) {
    const role: unknown = node.role?.value;
    if (node.ignored || node.backendDOMNodeId === undefined || typeof role !== "string" || !roles.includes(role)) continue;
    const name: unknown = node.name?.value;
    found.push({ backendNodeId: node.backendDOMNodeId, name: typeof name === "string" ? name : "" });
  }
  return found;
}
