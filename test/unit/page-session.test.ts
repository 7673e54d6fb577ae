/**
 * A scrape's page session (src/browser/page/page-session.ts) holds what used to sit in maps keyed by the page: the step
 * log, the hot-page state of its landing and capture claim, and the answer-started signal. Built around a stub page,
 * each is exercised here without a pool, a browser or a replica.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { HotMark } from "../../src/browser/page/hot-page-state";
import { CAPTURE_HOT } from "../../src/browser/page/capture/page-hook";
import { PageSession } from "../../src/browser/page/page-session";
import { StepLog } from "../../src/browser/page/step-timings";

const LANDING = "https://chat.example/";
const RULES = [{ name: "stream", source: "/api/stream", flags: "", transports: ["fetch"] }];

/** A page that answers the hook's claim with `claimAnswer` and remembers what it was asked to run. */
function stubPage(claimAnswer: () => Promise<unknown> = async () => true) {
  const evaluated: string[] = [];
  return {
    evaluated,
    evaluate(expression: string): Promise<unknown> {
      evaluated.push(expression);
      return claimAnswer();
    },
  };
}

/** The mark a hot page's hook leaves, prepared with `rules` on `landing`. */
function hotMark(rules: readonly unknown[], landing = LANDING): HotMark {
  return { landing, rulesKey: JSON.stringify(rules), preparedAt: 1_000, ready: true };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("page session: step log", () => {
  it("times steps into the log the browser layer handed over", async () => {
    const steps = new StepLog();
    const session = new PageSession(stubPage(), { steps });
    expect(await session.steps.time("goto", async () => "loaded")).toBe("loaded");
    expect(Object.keys(steps.summary().steps)).toEqual(["goto"]);
  });

  it("measures the page's own lead from the last page action to its answer request", () => {
    const session = new PageSession(stubPage());
    // no page action yet: nothing to measure from
    session.steps.recordPageLead(5_000);
    expect(session.steps.summary().steps).toEqual({});
    vi.spyOn(Date, "now").mockReturnValue(10_000);
    session.steps.markPageAction();
    session.steps.recordPageLead(10_250);
    expect(session.steps.summary().steps).toEqual({ page_before_request: 250 });
  });

  it("keeps two scrapes' logs apart", async () => {
    const first = new PageSession(stubPage());
    const second = new PageSession(stubPage());
    await first.steps.time("type", async () => undefined);
    expect(Object.keys(first.steps.summary().steps)).toEqual(["type"]);
    expect(second.steps.summary().steps).toEqual({});
  });
});

describe("page session: answer-started signal", () => {
  it("runs the browser layer's listener once, when the capture layer says the answer request started", () => {
    const session = new PageSession(stubPage());
    const heard: string[] = [];
    session.whenAnswerRequestStarts(() => heard.push("prepare the next page"));
    expect(heard).toEqual([]);
    session.answerRequestStarted();
    session.answerRequestStarted();
    expect(heard).toEqual(["prepare the next page"]);
  });

  it("is a no-op without a listener, and reaches only its own session's listener", () => {
    const quiet = new PageSession(stubPage());
    expect(() => quiet.answerRequestStarted()).not.toThrow();
    const first = new PageSession(stubPage());
    const second = new PageSession(stubPage());
    const heard: string[] = [];
    first.whenAnswerRequestStarts(() => heard.push("first"));
    second.whenAnswerRequestStarts(() => heard.push("second"));
    second.answerRequestStarted();
    expect(heard).toEqual(["second"]);
  });
});

describe("page session: hot-page landing and capture claim", () => {
  it("on a fresh page: never skips a landing, claims nothing, and records the first landing for the next page", async () => {
    const page = stubPage();
    const session = new PageSession(page);
    expect(session.hotPage.startedHot).toBe(false);
    await session.hotPage.claimCapture(RULES);
    session.hotPage.recordCaptureRules(RULES);
    expect(session.hotPage.recipe()).toBeNull();
    expect(session.hotPage.skipsLanding(LANDING)).toBe(false);
    expect(session.hotPage.skipsLanding("https://chat.example/other")).toBe(false);
    expect(session.hotPage.recipe()).toEqual({ rules: RULES, landing: LANDING });
    expect(page.evaluated).toEqual([]);
  });

  it("on a hot page prepared with the same rules: claims the hook's buffer, then skips its landing exactly once", async () => {
    const page = stubPage();
    const session = new PageSession(page, { hotMark: hotMark(RULES) });
    expect(session.hotPage.startedHot).toBe(true);
    await session.hotPage.claimCapture(RULES);
    // the hook's claim function, by the name the hot page's hook defines
    expect(page.evaluated).toEqual([`window.${CAPTURE_HOT.claim}()`]);
    expect(session.hotPage.skipsLanding(LANDING)).toBe(true);
    expect(session.hotPage.skipsLanding(LANDING)).toBe(false);
  });

  it("does not skip a landing before the claim, nor another landing than the one prepared", async () => {
    const early = new PageSession(stubPage(), { hotMark: hotMark(RULES) });
    // not claimed yet: the landing is still navigated
    expect(early.hotPage.skipsLanding(LANDING)).toBe(false);

    const elsewhere = new PageSession(stubPage(), { hotMark: hotMark(RULES) });
    await elsewhere.hotPage.claimCapture(RULES);
    expect(elsewhere.hotPage.skipsLanding("https://chat.example/other")).toBe(false);
    // spoiled: its own landing is navigated too
    expect(elsewhere.hotPage.skipsLanding(LANDING)).toBe(false);
  });

  it("is spoiled by other capture rules (nothing claimed) or by a claim the page refuses", async () => {
    const otherRulesPage = stubPage();
    const otherRules = new PageSession(otherRulesPage, { hotMark: hotMark([{ ...RULES[0], name: "other" }]) });
    await otherRules.hotPage.claimCapture(RULES);
    expect(otherRulesPage.evaluated).toEqual([]);
    expect(otherRules.hotPage.skipsLanding(LANDING)).toBe(false);

    const refused = new PageSession(
      stubPage(async () => false),
      { hotMark: hotMark(RULES) },
    );
    await refused.hotPage.claimCapture(RULES);
    expect(refused.hotPage.skipsLanding(LANDING)).toBe(false);

    const failed = new PageSession(
      stubPage(async () => {
        throw new Error("Execution context was destroyed");
      }),
      { hotMark: hotMark(RULES) },
    );
    await failed.hotPage.claimCapture(RULES);
    expect(failed.hotPage.skipsLanding(LANDING)).toBe(false);
  });
});
