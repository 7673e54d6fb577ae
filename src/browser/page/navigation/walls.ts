/**
 * Block detection: whether a login wall or an anti-bot challenge stands where the scrape expected the provider's page,
 * by positive evidence only. The rules (the navigation engine and the providers apply them, engine.ts):
 * - a redirect to a challenge or sign-in URL is believed at once;
 * - page evidence (a challenge element or text, a sign-in modal, a dialog with sign-in evidence over the composer) only
 *   once it persisted BLOCK_CONFIRM_MS with the entry control still missing: pages hydrate, and a control not there yet
 *   is not absent;
 * - a signed-out page's ordinary "Sign in" link only once the whole wait for the entry control passed without it;
 * - a dialog without sign-in or challenge evidence is an interruption (dismissed by the engine), never a wall.
 * The decisions are plain functions of what was seen and when, so they are tested without a browser
 * (test/unit/navigation-walls.test.ts); the checks that run inside the page are in wall-scripts.ts.
 */
import type { CDPSession } from "@cloudflare/puppeteer";
import { blockCheckFunction } from "./wall-scripts";

export type BlockKind = "challenge" | "login_wall";

export interface BlockSignatures {
  challenge?: {
    /** The page was redirected to a challenge (e.g. Google's /sorry/, Amazon's /errors/validateCaptcha). */
    urls?: readonly RegExp[];
    /** Elements only a challenge page has (a CAPTCHA form, a Turnstile container). */
    selectors?: readonly string[];
    /** Text of a challenge page (title + body); only consulted when no composer is on the page. */
    text?: readonly RegExp[];
  };
  loginWall?: {
    /** The page was redirected to a sign-in page. */
    urls?: readonly RegExp[];
    /** A visible sign-in modal or dialog (it must be visible to count). */
    modalSelectors?: readonly string[];
  };
}

/**
 * How long page evidence of a wall (a challenge element, a sign-in modal, challenge text) must persist, with the entry
 * control still missing, before it is believed: longer than a page takes to hydrate on a slow device. A redirect to a
 * challenge or sign-in URL is believed at once.
 */
export const BLOCK_CONFIRM_MS = 6_000;

/** How often a wait for an entry control also looks for walls and interruptions. */
export const BLOCK_CHECK_EVERY_MS = 250;

/** The wall a redirect shows: the page's URL matches a challenge URL (checked first) or a sign-in URL. */
export function blockFromUrl(signatures: BlockSignatures, url: string): BlockKind | null {
  if ((signatures.challenge?.urls ?? []).some((pattern) => pattern.test(url))) return "challenge";
  if ((signatures.loginWall?.urls ?? []).some((pattern) => pattern.test(url))) return "login_wall";
  return null;
}

/**
 * The wall the in-page block check reported (wall-scripts.ts `blockCheckFunction`): its verdict, or the page text it
 * returned when asked for it, which is a challenge when a challenge text matches it. Anything else is no evidence.
 */
export function blockFromPageCheck(result: unknown, challengeText: readonly RegExp[]): BlockKind | null {
  if (result === "challenge" || result === "login_wall") return result;
  if (typeof result === "object" && result !== null) {
    const text: unknown = Reflect.get(result, "text");
    if (typeof text === "string" && challengeText.some((pattern) => pattern.test(text))) return "challenge";
  }
  return null;
}

/**
 * Page evidence of a wall across the checks of one wait: believed once the same kind has been seen in every check for
 * `confirmMs`. A check that sees nothing, or another kind, starts the count again.
 */
export class WallEvidence {
  private seen: { kind: BlockKind; since: number } | null = null;

  constructor(private readonly confirmMs: number = BLOCK_CONFIRM_MS) {}

  /** Records what the check at `now` saw; the wall once its evidence has persisted `confirmMs`, else null. */
  observe(seen: BlockKind | null, now: number): BlockKind | null {
    if (seen === null) this.seen = null;
    else if (this.seen === null || this.seen.kind !== seen) this.seen = { kind: seen, since: now };
    return this.seen !== null && now - this.seen.since >= this.confirmMs ? this.seen.kind : null;
  }

  /** The wall the latest check saw, confirmed or not: what the end of a wait believes. */
  get current(): BlockKind | null {
    return this.seen?.kind ?? null;
  }
}

/**
 * The wall to report when the wait for an entry control ended without it: the page evidence of the latest check, else
 * a login wall when the page shows what signed-out pages show (asked only then: anonymous pages show it too), else none
 * (the control is missing: drift).
 */
export async function wallAtEndOfWait(evidence: WallEvidence, signedOutShown: () => Promise<boolean>): Promise<BlockKind | null> {
  if (evidence.current !== null) return evidence.current;
  return (await signedOutShown()) ? "login_wall" : null;
}

/**
 * The wall the page shows now, by positive evidence: a redirect, then the in-page check (challenge elements, sign-in
 * modals, a sign-in dialog over the composer, then the challenge texts). `composerNodeId` enables the cover check.
 */
export async function wallOnPage(
  cdp: CDPSession,
  url: string,
  signatures: BlockSignatures,
  composerNodeId: number | null,
): Promise<BlockKind | null> {
  const redirected = blockFromUrl(signatures, url);
  if (redirected !== null) return redirected;
  const challengeText = signatures.challenge?.text ?? [];
  const check = blockCheckFunction(
    signatures.challenge?.selectors ?? [],
    signatures.loginWall?.modalSelectors ?? [],
    challengeText.length > 0,
  );
  return blockFromPageCheck(await blockInPage(cdp, check, composerNodeId), challengeText);
}

/**
 * Runs a block check in the page: on the composer when there is one (resolved, called and released in two round
 * trips), else as one evaluation. A composer that went away is checked as none, but without the page text (the text
 * check is for pages that never had a composer). Anything that fails counts as no evidence.
 */
async function blockInPage(cdp: CDPSession, check: string, composerNodeId: number | null): Promise<unknown> {
  try {
    if (composerNodeId !== null) {
      const { object } = await cdp.send("DOM.resolveNode", { backendNodeId: composerNodeId }).catch(() => ({ object: null }));
      const objectId = object?.objectId;
      if (objectId !== undefined) {
        // Sent together: a session runs its commands in the order sent, so the call is done before its handle goes.
        const [{ result }] = await Promise.all([
          cdp.send("Runtime.callFunctionOn", {
            objectId,
            functionDeclaration: `function () { return (${check})(this, false); }`,
            returnByValue: true,
          }),
          cdp.send("Runtime.releaseObject", { objectId }).catch(() => undefined),
        ]);
        return result.value;
      }
    }
    const { result } = await cdp.send("Runtime.evaluate", {
      expression: `(${check})(null, ${composerNodeId === null})`,
      returnByValue: true,
    });
    return result.value;
  } catch {
    return undefined;
  }
}
