/**
 * The navigation engine every provider drives its page with. Principles (the real sites change every few weeks, and
 * independent stand-ins built from the same fact sheets must work too):
 * - controls are found through the sheet's alternative CSS anchors, or by ARIA role and accessible name as Chromium
 *   computes them (case- and whitespace-insensitive, exact name first, else a unique word prefix; ambiguity refused);
 * - menus are scoped to the menu that opened;
 * - every wait is bounded by the caller's deadline and aborts with its signal;
 * - a login wall or challenge is recognised only by positive evidence (a redirect, a sign-in modal covering the
 *   composer, a challenge page), never by a "Sign in" link that anonymous pages always show, and page evidence only
 *   when it persists while the entry control is still missing (pages hydrate: a control not there yet is not absent);
 *   these rules and their in-page checks live in walls.ts and wall-scripts.ts, the engine runs them while it waits;
 * - a dialog that is neither sign-in nor challenge (consent, survey, promo) is an interruption: it is dismissed by role
 *   and name (Close, Dismiss, Not now, Reject all…), never taken for a wall;
 * - typing is checked: the composer must hold the prompt before anything is sent, else real key input is tried;
 * - what the engine cannot handle is a ScraperDriftError with a stable code (`<what>_missing` never appeared,
 *   `<what>_vanished` appeared and went away).
 */
import type { CDPSession, Page } from "@cloudflare/puppeteer";
import { BrowserCrashedError, ScraperDriftError } from "../../../errors";
import type { StepLog } from "../step-timings";
import { logLine } from "../../../util/log-line";
import type { PageSession } from "../page-session";
import type { CapturedExchange } from "../capture/types";
import { IS_VISIBLE } from "./in-page";
import { type RoleCandidate, roleCandidates } from "./role-lookup";
import { COVER_OF, INTERRUPTION_DIALOG, IS_SHOWN_DIALOG } from "./wall-scripts";
import {
  BLOCK_CHECK_EVERY_MS,
  type BlockKind,
  type BlockSignatures,
  blockFromUrl,
  WallEvidence,
  wallAtEndOfWait,
  wallOnPage,
} from "./walls";

const POLL_MS = 100;
/**
 * The first re-check of a poll comes after this, then the interval doubles up to the poll interval: what is about to
 * appear (the composer right after DOMContentLoaded, the send button after typing) is seen within milliseconds, while
 * a long wait still costs one round of CDP calls per interval at most.
 */
const FIRST_POLL_MS = 8;
const DEFAULT_ANCHOR_TIMEOUT_MS = 20_000;
/** How long typing may take to land in a composer that hydrates, is read-only for a while or ignores some input. */
const TYPING_WINDOW_MS = 12_000;
/** How long a click waits for a loading shell over its target to go. */
const COVER_WAIT_MS = 8_000;
/** How long a click waits for its effect before it clicks again (clickUntil). */
const CLICK_EFFECT_MS = 1_000;
/** How long a control the page replaced (a re-render) may take to be there again. */
const RELOCATE_MS = 5_000;
const MENU_OPEN_TIMEOUT_MS = 5_000;
const MENU_ROLES = ["menu", "listbox"] as const;
const MENU_ITEM_ROLES = ["menuitem", "menuitemradio", "menuitemcheckbox", "option"] as const;

/**
 * An element of the page, as the engine found it. It is a reference to Chromium's DOM node (not a puppeteer handle),
 * so the engine can query its accessible name, box and visibility through CDP in one place.
 */
export interface PageElement {
  readonly backendNodeId: number;
  /** Names the control in drift codes; set by the lookups. */
  readonly what?: string;
  /** Finds the control again when the page replaced its node (a framework re-render): set by the lookups. */
  readonly relocate?: () => Promise<PageElement | null>;
}

/** An entry control the scrape cannot start without (composer, entry button), and the walls that may stand instead. */
export interface EntryQuery {
  /** Names the control in drift codes (`<provider>.<what>_missing`). */
  what: string;
  /** The sheet's CSS anchors, tried in order (first visible wins). */
  anchors?: readonly string[];
  /** Or by role and accessible name (tried after the anchors). */
  role?: RoleQuery;
  /** The bounded wait (default 20 s, capped by the deadline). */
  timeoutMs?: number;
  /** Positive evidence of a challenge or login wall. */
  blocks: BlockSignatures;
  /**
   * Controls that signed-out pages show (a header "Sign in" link): a login wall only when the entry control is still
   * missing once the whole wait has passed.
   */
  signedOutEvidence?: readonly string[];
}

export interface NavigatorContext {
  /** The scrape's page session: the page driven, the step log timed into, the hot-page state of its landing. */
  session: PageSession;
  signal: AbortSignal;
  /** ms since epoch; no wait goes past it. */
  deadline: number;
  /** The provider id, prefixing drift codes. */
  provider: string;
}

export interface RoleQuery {
  roles: readonly string[];
  /** The accessible name, or alternatives (e.g. the sheet's labels and their localised variants). */
  name: string | readonly string[];
  /** Limits the search to this element's subtree. */
  within?: PageElement;
}

export interface FindOptions {
  /** Names the control in drift codes (`<provider>.<what>_missing`). */
  what: string;
  timeoutMs?: number;
  /** Return null instead of throwing when nothing matches in time. */
  optional?: boolean;
}

export interface ClickUntilOptions {
  /** Names the step in the scrape's timings (`click_<what>`). */
  what: string;
  /** The whole wait (default 20 s, capped by the deadline). */
  timeoutMs?: number;
  /** How long one click's effect may take before the next click (default 1 s). */
  retryAfterMs?: number;
}

export interface MenuOptions {
  what: string;
  /** How long the menu may take to open (default 5 s); a popover without a menu role then costs no more. */
  menuTimeoutMs?: number;
}

export interface Navigator {
  /**
   * Opens `url` (DOM content loaded), bounded by the deadline. `landing: true` says the URL is the provider's landing page, the same for every prompt: the next scrape on the
   * session may then start from a hot page already on it (src/browser/hot-page.ts), and this goto is skipped when this
   * scrape did. Never for a URL that carries the prompt.
   */
  goto(url: string, options?: { timeoutMs?: number; landing?: boolean }): Promise<void>;
  /**
   * For a provider whose own start does not open its landing (ChatGPT's deep link carries the prompt): true when this
   * scrape's page is a hot page already on `url`, so the scrape may use it instead. Never navigates; either way `url` is
   * recorded as the landing the next scrape's page is prepared on.
   */
  onHotLanding(url: string): boolean;
  /** The first visible element matching any of the alternative CSS anchors, waiting for one to appear. */
  waitForAnchor(anchors: readonly string[], options: FindOptions & { optional: true }): Promise<PageElement | null>;
  waitForAnchor(anchors: readonly string[], options: FindOptions): Promise<PageElement>;
  /** An element by ARIA role and accessible name, waiting for it to appear. */
  findByRole(query: RoleQuery, options: FindOptions & { optional: true }): Promise<PageElement | null>;
  findByRole(query: RoleQuery, options: FindOptions): Promise<PageElement>;
  /** A real mouse click at the element's centre (scrolled into view first); menus that open on pointerdown work. */
  click(target: PageElement): Promise<void>;
  /**
   * Opens the menu behind `trigger` and picks the item whose accessible name matches, scoped to the menu that opened.
   * Returns false when the menu does not open or has no such item (the caller then patches the request and verifies
   * it on the wire); throws drift when several items match.
   */
  chooseMenuItem(trigger: PageElement, item: string | readonly string[], options: MenuOptions): Promise<boolean>;
  /**
   * Types `text` into the composer and checks that it holds it: waits while it is read-only, inserts the text line by
   * line (Shift+Enter between lines), and falls back to one key event per character when the composer did not take
   * the insertion. Drift `<what>_rejects_input` when it stays empty through the typing window.
   */
  typeInto(target: PageElement, text: string): Promise<void>;
  pressKey(key: "Enter" | "Escape"): Promise<void>;
  /**
   * A login wall or challenge on the page now, by positive evidence only; `composer` enables the modal-cover check (a
   * modal over it is a wall only when it shows sign-in evidence; any other modal is dismissed as an interruption).
   */
  detectBlock(signatures: BlockSignatures, composer?: PageElement | null): Promise<BlockKind | null>;
  /**
   * Waits (bounded) for an entry control. Returns it once visible, or the wall that stands instead: a redirect at once,
   * page evidence once it persisted BLOCK_CONFIRM_MS with the control still missing, `signedOutEvidence` only at the end
   * of the wait. Interruptions are dismissed meanwhile. Drift `<what>_missing` when nothing came.
   */
  awaitEntry(query: EntryQuery): Promise<PageElement | BlockKind>;
  /**
   * Clicks, and clicks again while `effect` has not shown (a control that ignored the click); false when it never did.
   * `retryAfterMs` (default 1 s) is how long one click's effect may take: longer for a control that toggles what it
   * opens, so a slow list is not closed again.
   */
  clickUntil(target: PageElement, effect: () => Promise<boolean>, options: ClickUntilOptions): Promise<boolean>;
  /**
   * Polls an in-page expression that counts a list's entries until the count is above 0 and unchanged for `quietMs`
   * (lists that arrive in batches); the last count when `timeoutMs` passes first.
   */
  waitForStableCount(expression: string, options: { quietMs?: number; timeoutMs: number; what?: string }): Promise<number>;
  /** Closes dialogs that are neither sign-in nor challenge (consent, survey, promo) by their dismiss control; how many. */
  dismissInterruptions(): Promise<number>;
  /**
   * Polls a JS expression in the page until truthy; false when `timeoutMs` (or the deadline) passes first. With `what`,
   * the wait is a step of the scrape's timings (`wait_<what>`).
   */
  waitForCondition(expression: string, options: { timeoutMs: number; pollMs?: number; what?: string }): Promise<boolean>;
  /** outerHTML of the first element matching any of the anchors, or null. */
  snapshotHtml(anchors: readonly string[]): Promise<string | null>;
  /** Milliseconds left before the deadline. */
  remainingMs(): number;
  /**
   * One JSON log line about this scrape (`{"event": …, "provider": …, …}`), prefixed with whose scrape it is (the
   * request's or job's id, docs/errors.md "Request ids"). `warn` for what went other than planned.
   */
  logEvent(event: string, details?: Record<string, string | number | boolean>, level?: "info" | "warn"): void;
  /** Throws the signal's reason when the caller's deadline has passed, or a crash error when the page or browser is gone. */
  throwIfAborted(): void;
  drift(what: string, reason: string): ScraperDriftError;
}

export function createNavigator(context: NavigatorContext): Navigator {
  return new PageNavigator(context);
}

/**
 * The request body the page sent, parsed as JSON: the ground truth of what the site will do ("verify on the wire").
 * A missing or unreadable body is drift, never a silent pass.
 */
export function requireJsonRequestBody(exchange: CapturedExchange, provider: string): Record<string, unknown> {
  if (exchange.requestBody === null) {
    throw new ScraperDriftError(provider, "request_body_unreadable", `the ${exchange.rule} request body could not be read`);
  }
  let body: unknown;
  try {
    body = JSON.parse(exchange.requestBody);
  } catch {
    throw new ScraperDriftError(provider, "request_body_not_json", `the ${exchange.rule} request body is not JSON`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ScraperDriftError(provider, "request_body_not_object", `the ${exchange.rule} request body is not a JSON object`);
  }
  return Object.fromEntries(Object.entries(body));
}

/** Case- and whitespace-insensitive form of an accessible name or label. */
function normaliseName(name: string): string {
  return name.replace(/\s+/g, " ").trim().toLowerCase();
}

/**
 * Picks among candidate names: exact matches first, else names that start with a label followed by a non-letter
 * (so "Auto" matches "Auto Chooses Fast or Expert" but not "Automatic"). Returns the indexes that matched at the best
 * level.
 */
export function matchNames(candidates: readonly string[], labels: readonly string[]): number[] {
  const wanted = labels.map(normaliseName).filter((label) => label !== "");
  const names = candidates.map(normaliseName);
  const exact = names.flatMap((name, index) => (wanted.includes(name) ? [index] : []));
  if (exact.length > 0) return exact;
  return names.flatMap((name, index) =>
    wanted.some((label) => name.startsWith(label) && !/[\p{L}\p{N}]/u.test(name.charAt(label.length))) ? [index] : [],
  );
}

class PageNavigator implements Navigator {
  private cdp: CDPSession | null = null;

  /** Set when the page or its browser went away: every later step fails at once instead of waiting for the deadline. */
  private gone: Error | null = null;

  private readonly page: Page;
  /** The scrape's step log: each find, click, type and wait is a step of the scrape's timings. */
  private readonly steps: StepLog;

  constructor(private readonly context: NavigatorContext) {
    this.page = context.session.page;
    this.steps = context.session.steps;
    // a crash for the browser layer by its reason (502, session replaced)
    this.page.once("close", () => {
      this.gone ??= new BrowserCrashedError(new Error("the page closed during navigation"));
    });
    this.page.browser().once("disconnected", () => {
      this.gone ??= new BrowserCrashedError(new Error("the browser disconnected during navigation"));
    });
  }

  logEvent(event: string, details: Record<string, string | number | boolean> = {}, level: "info" | "warn" = "info"): void {
    const line = logLine(this.context.session.logSubject, JSON.stringify({ event, provider: this.context.provider, ...details }));
    if (level === "warn") console.warn(line);
    else console.log(line);
  }

  remainingMs(): number {
    return Math.max(0, this.context.deadline - Date.now());
  }

  throwIfAborted(): void {
    this.context.signal.throwIfAborted();
    if (this.gone !== null) throw this.gone;
  }

  drift(what: string, reason: string): ScraperDriftError {
    return new ScraperDriftError(this.context.provider, what, reason);
  }

  async goto(url: string, options: { timeoutMs?: number; landing?: boolean } = {}): Promise<void> {
    this.throwIfAborted();
    // a hot page is on this landing already, its hook claimed by the capture layer: nothing to load
    if (options.landing === true && this.context.session.hotPage.skipsLanding(url)) return;
    const timeout = Math.max(1, Math.min(options.timeoutMs ?? 30_000, this.remainingMs()));
    await this.steps.time("goto", () => this.page.goto(url, { waitUntil: "domcontentloaded", timeout }));
    this.steps.markPageAction();
  }

  onHotLanding(url: string): boolean {
    return this.context.session.hotPage.skipsLanding(url);
  }

  waitForAnchor(anchors: readonly string[], options: FindOptions & { optional: true }): Promise<PageElement | null>;
  waitForAnchor(anchors: readonly string[], options: FindOptions): Promise<PageElement>;
  async waitForAnchor(anchors: readonly string[], options: FindOptions): Promise<PageElement | null> {
    const found = await this.steps.time(`find_${options.what}`, () =>
      this.poll(options.timeoutMs ?? DEFAULT_ANCHOR_TIMEOUT_MS, () => this.firstVisible(anchors)),
    );
    if (found !== null) return this.relocatable(found, options.what, () => this.firstVisible(anchors));
    if (options.optional === true) return null;
    throw this.drift(`${options.what}_missing`, `none of the anchors ${JSON.stringify(anchors)} became visible`);
  }

  findByRole(query: RoleQuery, options: FindOptions & { optional: true }): Promise<PageElement | null>;
  findByRole(query: RoleQuery, options: FindOptions): Promise<PageElement>;
  async findByRole(query: RoleQuery, options: FindOptions): Promise<PageElement | null> {
    const labels = typeof query.name === "string" ? [query.name] : query.name;
    const found = await this.steps.time(`find_${options.what}`, () => this.pollForRole(query, labels, options));
    if (found !== null)
      return this.relocatable(found, options.what, () =>
        this.roleMatch(query, labels).then((match) => (match === "ambiguous" ? null : match)),
      );
    if (options.optional === true) return null;
    throw this.drift(`${options.what}_missing`, `no ${query.roles.join("/")} named ${JSON.stringify(labels)}`);
  }

  /** The element with its name and a way to find it again (the same lookup) when the page replaces its node. */
  private relocatable(found: PageElement, what: string, lookup: () => Promise<PageElement | null>): PageElement {
    return { backendNodeId: found.backendNodeId, what, relocate: lookup };
  }

  /** One role lookup: the only match, null for none, "ambiguous" for several. */
  private async roleMatch(query: RoleQuery, labels: readonly string[]): Promise<PageElement | null | "ambiguous"> {
    const candidates = await this.axCandidates(query.roles, query.within ?? null);
    const matched = uniqueNodes(
      matchNames(
        candidates.map((candidate) => candidate.name),
        labels,
      ).map((index) => candidates[index]),
    );
    if (matched.length > 1) return "ambiguous";
    const [only] = matched;
    return only === undefined ? null : { backendNodeId: only.backendNodeId };
  }

  async awaitEntry(query: EntryQuery): Promise<PageElement | BlockKind> {
    return this.steps.time(`find_${query.what}`, () => this.entryOrWall(query));
  }

  private async entryOrWall(query: EntryQuery): Promise<PageElement | BlockKind> {
    const labels = query.role === undefined ? [] : typeof query.role.name === "string" ? [query.role.name] : query.role.name;
    const lookup = async (): Promise<PageElement | null | "ambiguous"> => {
      const byAnchor = query.anchors === undefined ? null : await this.firstVisible(query.anchors);
      if (byAnchor !== null || query.role === undefined) return byAnchor;
      return this.roleMatch(query.role, labels);
    };
    const until = Date.now() + Math.min(query.timeoutMs ?? DEFAULT_ANCHOR_TIMEOUT_MS, this.remainingMs());
    const evidence = new WallEvidence();
    let ambiguous = false;
    let checkedAt = 0;
    for (let interval = FIRST_POLL_MS; ; interval = Math.min(POLL_MS, interval * 2)) {
      this.throwIfAborted();
      const found = await lookup();
      if (found !== null && found !== "ambiguous") {
        return this.relocatable(found, query.what, async () => {
          const again = await lookup();
          return again === "ambiguous" ? null : again;
        });
      }
      ambiguous = found === "ambiguous";
      const redirected = blockFromUrl(query.blocks, this.page.url());
      if (redirected !== null) return redirected;
      const now = Date.now();
      if (now - checkedAt >= BLOCK_CHECK_EVERY_MS || now >= until) {
        checkedAt = now;
        const seen = await this.blockOnPage(query.blocks, null);
        const confirmed = evidence.observe(seen, now);
        if (confirmed !== null) return confirmed;
        if (seen === null) await this.dismissInterruptions();
      }
      if (now >= until) {
        const signedOut = query.signedOutEvidence;
        const wall = await wallAtEndOfWait(evidence, async () => signedOut !== undefined && (await this.firstVisible(signedOut)) !== null);
        if (wall !== null) return wall;
        if (ambiguous) throw this.drift(`${query.what}_ambiguous`, `several controls match ${JSON.stringify(labels)}`);
        throw this.drift(
          `${query.what}_missing`,
          `none of ${JSON.stringify(query.anchors ?? [])} ${query.role === undefined ? "" : `nor a ${query.role.roles.join("/")} named ${JSON.stringify(labels)} `}became visible`,
        );
      }
      await sleep(Math.min(interval, Math.max(0, until - Date.now())), this.context.signal);
    }
  }

  private pollForRole(query: RoleQuery, labels: readonly string[], options: FindOptions): Promise<PageElement | null> {
    return this.poll(options.timeoutMs ?? DEFAULT_ANCHOR_TIMEOUT_MS, async () => {
      const match = await this.roleMatch(query, labels);
      if (match !== "ambiguous") return match;
      // an optional lookup falls back (the caller has another way); a required one cannot choose
      if (options.optional === true) return null;
      throw this.drift(`${options.what}_ambiguous`, `several ${query.roles.join("/")} elements match ${JSON.stringify(labels)}`);
    });
  }

  click(target: PageElement): Promise<void> {
    return this.steps.time("click", () => this.clickAt(target));
  }

  async clickUntil(target: PageElement, effect: () => Promise<boolean>, options: ClickUntilOptions): Promise<boolean> {
    const until = Date.now() + Math.min(options.timeoutMs ?? DEFAULT_ANCHOR_TIMEOUT_MS, this.remainingMs());
    return this.steps.time(`click_${options.what}`, async () => {
      for (;;) {
        await this.clickAt(target);
        const shown = await this.poll(Math.min(options.retryAfterMs ?? CLICK_EFFECT_MS, Math.max(0, until - Date.now())), async () =>
          (await effect()) ? true : null,
        );
        if (shown === true) return true;
        if (Date.now() >= until) return false;
      }
    });
  }

  async waitForStableCount(expression: string, options: { quietMs?: number; timeoutMs: number; what?: string }): Promise<number> {
    const quietMs = options.quietMs ?? 500;
    const wait = async (): Promise<number> => {
      let last = -1;
      let changedAt = Date.now();
      const settled = await this.poll(
        Math.min(options.timeoutMs, this.remainingMs()),
        async () => {
          const value: unknown = await this.page.evaluate(`Number(${expression}) || 0`).catch(() => 0);
          const count = typeof value === "number" ? value : 0;
          if (count !== last) {
            last = count;
            changedAt = Date.now();
          }
          return count > 0 && Date.now() - changedAt >= quietMs ? count : null;
        },
        Math.min(POLL_MS, Math.max(FIRST_POLL_MS, quietMs / 4)),
      );
      return settled ?? Math.max(0, last);
    };
    return options.what === undefined ? wait() : this.steps.time(`wait_${options.what}`, wait);
  }

  async dismissInterruptions(): Promise<number> {
    let dismissed = 0;
    // a page may stack two (a consent dialog, then a promo); a dialog that will not close ends the attempt
    for (let round = 0; round < 3; round += 1) {
      const dialog = await this.elementFrom(`(${INTERRUPTION_DIALOG})()`);
      if (dialog === null) return dismissed;
      const buttons = await this.axCandidates(["button", "link"], dialog);
      const names = buttons.map((button) => button.name);
      let choice: RoleCandidate | undefined;
      for (const label of DISMISS_LABELS) {
        const [index] = matchNames(names, [label]);
        if (index !== undefined) {
          choice = buttons[index];
          break;
        }
      }
      if (choice === undefined) await this.pressKey("Escape");
      else await this.pressAt({ backendNodeId: choice.backendNodeId });
      const closed = await this.poll(Math.min(1_000, this.remainingMs()), async () =>
        (await this.callOn(dialog, IS_SHOWN_DIALOG)) === true ? null : true,
      );
      if (closed === null) return dismissed;
      dismissed += 1;
    }
    return dismissed;
  }

  /**
   * The element, found again when the page replaced its node. A control that was there and is gone for good is drift
   * `<what>_vanished`.
   */
  private async present(target: PageElement): Promise<PageElement> {
    if ((await this.callOn(target, "function () { return this.isConnected; }")) === true) return target;
    const relocate = target.relocate;
    if (relocate !== undefined) {
      const found = await this.poll(Math.min(RELOCATE_MS, this.remainingMs()), relocate);
      if (found !== null) return { ...found, what: target.what, relocate };
    }
    throw this.drift(`${target.what ?? "control"}_vanished`, "the control was on the page and went away");
  }

  /**
   * Makes the target clickable like a person would: a dialog over it that is an interruption is dismissed, a loading
   * shell is waited out. Returns false when something else still covers it (the caller then clicks the element itself).
   */
  private async uncover(target: PageElement): Promise<boolean> {
    const until = Date.now() + Math.min(COVER_WAIT_MS, this.remainingMs());
    for (;;) {
      const cover = await this.callOn(target, COVER_OF);
      if (cover === "none" || cover === undefined) return true;
      if (cover === "dialog") {
        if ((await this.dismissInterruptions()) === 0 && Date.now() >= until) return false;
      } else if (cover !== "loading" || Date.now() >= until) {
        return false;
      }
      if (Date.now() >= until) return false;
      await sleep(POLL_MS, this.context.signal);
      this.throwIfAborted();
    }
  }

  private async clickAt(given: PageElement): Promise<void> {
    this.throwIfAborted();
    const target = await this.present(given);
    const cdp = await this.session();
    await cdp.send("DOM.scrollIntoViewIfNeeded", { backendNodeId: target.backendNodeId }).catch(() => undefined);
    if (!(await this.uncover(target))) {
      // covered by something that is neither an interruption nor a loading shell: the element takes the click itself
      this.steps.markPageAction();
      await this.callOn(target, "function () { this.click(); }");
      return;
    }
    await this.pressAt(target);
  }

  /** A real mouse click at the element's centre (no cover check). */
  private async pressAt(target: PageElement): Promise<void> {
    this.throwIfAborted();
    const cdp = await this.session();
    // A session's commands run in the order sent, and scrolling is done when its command returns: the box is measured
    // after the scroll although both leave in one round trip.
    const [, centre] = await Promise.all([
      cdp.send("DOM.scrollIntoViewIfNeeded", { backendNodeId: target.backendNodeId }).catch(() => undefined),
      this.centreOf(target),
    ]);
    if (centre === null) {
      // not rendered as a box (e.g. display: contents): let the element handle the click itself
      this.steps.markPageAction();
      await this.callOn(target, "function () { this.click(); }");
      return;
    }
    // Move, press and release in one round trip: input events of a session reach the page in the order sent, as three
    // awaited commands (puppeteer's mouse.click) would, without waiting for each acknowledgement.
    const at = { x: centre.x, y: centre.y };
    this.steps.markPageAction();
    await Promise.all([
      cdp.send("Input.dispatchMouseEvent", { type: "mouseMoved", ...at, button: "none", buttons: 0 }),
      cdp.send("Input.dispatchMouseEvent", { type: "mousePressed", ...at, button: "left", buttons: 1, clickCount: 1 }),
      cdp.send("Input.dispatchMouseEvent", { type: "mouseReleased", ...at, button: "left", buttons: 0, clickCount: 1 }),
    ]);
  }

  async chooseMenuItem(trigger: PageElement, item: string | readonly string[], options: MenuOptions): Promise<boolean> {
    const labels = typeof item === "string" ? [item] : item;
    const menusBefore = new Set((await this.axCandidates(MENU_ROLES, null)).map((menu) => menu.backendNodeId));
    await this.click(trigger);
    const menu = await this.poll(Math.min(options.menuTimeoutMs ?? MENU_OPEN_TIMEOUT_MS, this.remainingMs()), async () => {
      const menus = await this.axCandidates(MENU_ROLES, null);
      const opened = menus.filter((candidate) => !menusBefore.has(candidate.backendNodeId));
      // a menu that was already open (and is still the only one) counts as the opened one
      const choice = opened.length > 0 ? opened : menus;
      return choice.length === 1 ? (choice[0] ?? null) : null;
    });
    if (menu === null) return false;
    const items = await this.axCandidates(MENU_ITEM_ROLES, { backendNodeId: menu.backendNodeId });
    const matched = uniqueNodes(
      matchNames(
        items.map((candidate) => candidate.name),
        labels,
      ).map((index) => items[index]),
    );
    if (matched.length > 1) {
      throw this.drift(`${options.what}_ambiguous`, `${matched.length} menu items match ${JSON.stringify(labels)}`);
    }
    const [only] = matched.length > 0 ? matched : await this.itemsTitled(items, labels);
    if (only === undefined) {
      await this.pressKey("Escape");
      return false;
    }
    await this.click({ backendNodeId: only.backendNodeId });
    return true;
  }

  /**
   * Menu items whose title is the label although their accessible name is not: an item holding a title and a
   * description in separate elements may be named by both run together ("FastQuick responses"), which no name match
   * can split. An item counts when one of its parts (an element, or a line of its text) reads exactly a label; only a
   * single such item is returned (none when several).
   */
  private async itemsTitled(items: readonly RoleCandidate[], labels: readonly string[]): Promise<RoleCandidate[]> {
    const wanted = JSON.stringify(labels.map(normaliseName));
    const check = `function () {
  const wanted = ${wanted};
  const norm = (text) => (text || "").replace(/\\s+/g, " ").trim().toLowerCase();
  const parts = [...this.querySelectorAll("*")].map((part) => norm(part.textContent));
  const lines = (this.innerText || "").split("\\n").map(norm);
  return [...parts, ...lines].some((text) => wanted.includes(text));
}`;
    const titled: RoleCandidate[] = [];
    for (const item of items) if ((await this.callOn({ backendNodeId: item.backendNodeId }, check)) === true) titled.push(item);
    return titled.length === 1 ? titled : [];
  }

  typeInto(target: PageElement, text: string): Promise<void> {
    return this.steps.time("type", () => this.insertText(target, text));
  }

  private async insertText(given: PageElement, text: string): Promise<void> {
    this.throwIfAborted();
    const until = Date.now() + Math.min(TYPING_WINDOW_MS, this.remainingMs());
    let target = given;
    for (;;) {
      target = await this.present(target);
      await this.poll(Math.max(0, until - Date.now()), async () => ((await this.callOn(target, IS_EDITABLE)) === false ? null : true));
      await this.focusComposer(target);
      if (holdsText(await this.textOf(target), "")) {
        // the fast way: one insertion per line
        await this.typeLines(text, (line) => this.page.keyboard.sendCharacter(line));
        if (holdsText(await this.textOf(target), text)) return;
      }
      // the composer ignored the insertion (it takes key input only) or holds something else: real keys
      await this.clearFocused();
      await this.typeLines(text, (line) => this.typeKeys(line));
      if (holdsText(await this.textOf(target), text)) return;
      if (Date.now() >= until) break;
      // still hydrating or read-only: the same again once it may listen
      await this.clearFocused();
      await sleep(250, this.context.signal);
    }
    const held = await this.textOf(target);
    if (held === null || held.trim() === "") {
      throw this.drift(`${target.what ?? "composer"}_rejects_input`, "the composer did not take the prompt");
    }
    // text the editor reformatted (an input rule): the request on the wire is what each provider verifies
    this.logEvent("composer_text_differs", {}, "warn");
  }

  private async focusComposer(target: PageElement): Promise<void> {
    await this.clickAt(target);
    const cdp = await this.session();
    await cdp.send("DOM.focus", { backendNodeId: target.backendNodeId }).catch(() => undefined);
  }

  /**
   * Types line by line; a line break is Shift+Enter, the line break of every chat composer (Enter alone sends).
   * Inserting "\n" as text would leave it to the editor, which may drop it or split paragraphs.
   */
  private async typeLines(text: string, typeLine: (line: string) => Promise<void>): Promise<void> {
    const { keyboard } = this.page;
    for (const [index, line] of text.split(/\r\n|\r|\n/).entries()) {
      if (index > 0) {
        await keyboard.down("Shift");
        await keyboard.press("Enter");
        await keyboard.up("Shift");
      }
      if (line !== "") await typeLine(line);
    }
  }

  /** One trusted key press per character (keydown with its text, keyup), sent in batches without waiting for each. */
  private async typeKeys(line: string): Promise<void> {
    const cdp = await this.session();
    const characters = [...line];
    for (let start = 0; start < characters.length; start += KEY_BATCH) {
      this.throwIfAborted();
      await Promise.all(
        characters
          .slice(start, start + KEY_BATCH)
          .flatMap((character) => [
            cdp.send("Input.dispatchKeyEvent", { type: "keyDown", text: character, unmodifiedText: character, key: character }),
            cdp.send("Input.dispatchKeyEvent", { type: "keyUp", key: character }),
          ]),
      );
    }
  }

  /** Selects everything in the focused composer and deletes it. */
  private async clearFocused(): Promise<void> {
    const { keyboard } = this.page;
    await keyboard.down("Control");
    await keyboard.press("KeyA");
    await keyboard.up("Control");
    await keyboard.press("Backspace");
  }

  /** What the composer holds: the value of a text field, the text of an editable region; null when it is gone. */
  private async textOf(target: PageElement): Promise<string | null> {
    const text = await this.callOn(target, COMPOSER_TEXT);
    return typeof text === "string" ? text : null;
  }

  async pressKey(key: "Enter" | "Escape"): Promise<void> {
    this.throwIfAborted();
    this.steps.markPageAction();
    await this.page.keyboard.press(key);
  }

  detectBlock(signatures: BlockSignatures, composer: PageElement | null = null): Promise<BlockKind | null> {
    return this.steps.time("detect_block", () => this.blockOnPage(signatures, composer));
  }

  private async blockOnPage(signatures: BlockSignatures, composer: PageElement | null): Promise<BlockKind | null> {
    return wallOnPage(await this.session(), this.page.url(), signatures, composer === null ? null : composer.backendNodeId);
  }

  async waitForCondition(expression: string, options: { timeoutMs: number; pollMs?: number; what?: string }): Promise<boolean> {
    const wait = () =>
      this.poll(
        Math.min(options.timeoutMs, this.remainingMs()),
        async () => ((await this.page.evaluate(`Boolean(${expression})`).catch(() => false)) === true ? true : null),
        options.pollMs,
      );
    const result = options.what === undefined ? await wait() : await this.steps.time(`wait_${options.what}`, wait);
    return result === true;
  }

  async snapshotHtml(anchors: readonly string[]): Promise<string | null> {
    for (const anchor of anchors) {
      const [element] = await this.queryAll(anchor);
      if (element === undefined) continue;
      const html = await this.callOn(element, "function () { return this.outerHTML; }");
      if (typeof html === "string") return html;
    }
    return null;
  }

  /**
   * Calls `attempt` until it returns non-null or `timeoutMs` (capped by the deadline) passes: again after
   * FIRST_POLL_MS, then at doubling intervals up to `pollMs`.
   */
  private async poll<T>(timeoutMs: number, attempt: () => Promise<T | null>, pollMs = POLL_MS): Promise<T | null> {
    const until = Date.now() + Math.min(timeoutMs, this.remainingMs());
    for (let interval = Math.min(FIRST_POLL_MS, pollMs); ; interval = Math.min(pollMs, interval * 2)) {
      this.throwIfAborted();
      const result = await attempt();
      if (result !== null) return result;
      if (Date.now() >= until) return null;
      await sleep(Math.min(interval, Math.max(0, until - Date.now())), this.context.signal);
    }
  }

  /**
   * The first rendered, visible element matching the anchors, tried in order. One round trip finds it (the page matches
   * the selectors itself; an invalid selector matches nothing) and one resolves it to its node, whatever the number of
   * anchors: a wait that polls several anchors, or a block check that finds nothing, no longer costs two round trips per
   * selector and four per element.
   */
  private async firstVisible(anchors: readonly string[]): Promise<PageElement | null> {
    if (anchors.length === 0) return null;
    return this.elementFrom(firstVisibleExpression(anchors));
  }

  /** The element an in-page expression evaluates to (one round trip to find, one to resolve), or null. */
  private async elementFrom(expression: string): Promise<PageElement | null> {
    const cdp = await this.session();
    try {
      const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", { expression });
      const objectId = result.objectId;
      if (objectId === undefined) return null;
      // Sent together: a session runs its commands in the order sent, so the node is described before its handle goes.
      const [described] = await Promise.all([
        exceptionDetails === undefined && result.subtype === "node" ? cdp.send("DOM.describeNode", { objectId }) : null,
        cdp.send("Runtime.releaseObject", { objectId }).catch(() => undefined),
      ]);
      return described === null ? null : { backendNodeId: described.node.backendNodeId };
    } catch {
      return null;
    }
  }

  /** Every element matching a CSS selector, in document order (an invalid selector matches nothing). */
  private async queryAll(selector: string): Promise<PageElement[]> {
    const cdp = await this.session();
    try {
      const { root } = await cdp.send("DOM.getDocument", { depth: 0 });
      const { nodeIds } = await cdp.send("DOM.querySelectorAll", { nodeId: root.nodeId, selector });
      const elements: PageElement[] = [];
      for (const nodeId of nodeIds) {
        const { node } = await cdp.send("DOM.describeNode", { nodeId });
        elements.push({ backendNodeId: node.backendNodeId });
      }
      return elements;
    } catch {
      return [];
    }
  }

  private async session(): Promise<CDPSession> {
    if (this.cdp === null) this.cdp = await this.page.createCDPSession();
    return this.cdp;
  }

  /** Runs `functionDeclaration` in the page with `this` bound to the element; its JSON-serialisable result, or undefined. */
  private async callOn(element: PageElement, functionDeclaration: string): Promise<unknown> {
    const cdp = await this.session();
    try {
      const { object } = await cdp.send("DOM.resolveNode", { backendNodeId: element.backendNodeId });
      if (object.objectId === undefined) return undefined;
      const { result } = await cdp.send("Runtime.callFunctionOn", { objectId: object.objectId, functionDeclaration, returnByValue: true });
      await cdp.send("Runtime.releaseObject", { objectId: object.objectId }).catch(() => undefined);
      return result.value;
    } catch {
      return undefined;
    }
  }

  private async centreOf(element: PageElement): Promise<{ x: number; y: number } | null> {
    const cdp = await this.session();
    try {
      const { model } = await cdp.send("DOM.getBoxModel", { backendNodeId: element.backendNodeId });
      const [x1 = 0, y1 = 0, , , x3 = 0, y3 = 0] = model.border;
      if (model.width === 0 || model.height === 0) return null;
      return { x: (x1 + x3) / 2, y: (y1 + y3) / 2 };
    } catch {
      return null;
    }
  }

  /** Non-ignored accessibility nodes of the given roles under `within` (or the document), with their names. */
  private async axCandidates(roles: readonly string[], within: PageElement | null): Promise<RoleCandidate[]> {
    return roleCandidates(await this.session(), roles, within === null ? null : within.backendNodeId);
  }
}

/** Key presses sent before waiting for Chromium's acknowledgements (typeKeys). */
const KEY_BATCH = 64;

/** Dismiss controls of interruptions, most specific first (English, then the commonest localisations). */
const DISMISS_LABELS: readonly string[] = [
  "Close",
  "Dismiss",
  "Not now",
  "No thanks",
  "Maybe later",
  "Reject all",
  "Accept all",
  "Got it",
  "Skip",
  "Cancel",
  "Schließen",
  "Alle ablehnen",
  "Alle akzeptieren",
  "Fermer",
  "Tout refuser",
  "Tout accepter",
  "Cerrar",
  "Rechazar todo",
  "Aceptar todo",
  "Chiudi",
  "Rifiuta tutto",
  "Fechar",
  "Rejeitar tudo",
  "閉じる",
  "すべて拒否",
];

/** In-page `this` = a composer: whether it takes input now (not disabled, read-only or switched off). */
const IS_EDITABLE = `function () {
  if (!this.isConnected) return true;
  if (this.disabled === true || this.readOnly === true) return false;
  if (this.getAttribute("aria-disabled") === "true" || this.getAttribute("aria-readonly") === "true") return false;
  if (this.hasAttribute("contenteditable") && !this.isContentEditable) return false;
  return true;
}`;

/** In-page `this` = a composer: its text (a field's value, an editable region's rendered text). */
const COMPOSER_TEXT = `function () {
  if (!this.isConnected) return null;
  if ((this instanceof HTMLTextAreaElement || this instanceof HTMLInputElement) && typeof this.value === "string") return this.value;
  return this.innerText || this.textContent || "";
}`;

/**
 * Whether the composer's text is the prompt. Letters and digits are compared (an editor may render line breaks as
 * paragraphs, collapse spaces or turn "* " into a list item: the characters a person typed are what counts).
 */
function holdsText(held: string | null, prompt: string): boolean {
  if (held === null) return false;
  const significant = (text: string) => text.replace(/[^\p{L}\p{N}]/gu, "");
  return significant(held) === significant(prompt);
}

/** In-page: the first element matching one of `anchors` (in their order, then document order) that IS_VISIBLE, or null. */
function firstVisibleExpression(anchors: readonly string[]): string {
  return `(() => {
  const isVisible = ${IS_VISIBLE};
  for (const selector of ${JSON.stringify(anchors)}) {
    let matches;
    try {
      matches = document.querySelectorAll(selector);
    } catch {
      continue;
    }
    for (const element of matches) if (isVisible.call(element)) return element;
  }
  return null;
})()`;
}

function uniqueNodes(candidates: ReadonlyArray<RoleCandidate | undefined>): RoleCandidate[] {
  const seen = new Map<number, RoleCandidate>();
  for (const candidate of candidates) if (candidate !== undefined) seen.set(candidate.backendNodeId, candidate);
  return [...seen.values()];
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
