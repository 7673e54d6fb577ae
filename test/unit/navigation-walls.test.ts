/**
 * Block detection's decisions (src/browser/page/navigation/walls.ts), without a browser: a redirect is believed at
 * once, page evidence only once it persisted BLOCK_CONFIRM_MS, a signed-out page's "Sign in" only at the end of the wait,
 * and what the in-page check returns is read as a wall only when it is positive evidence.
 */
import { describe, expect, it } from "vitest";
import {
  BLOCK_CONFIRM_MS,
  type BlockSignatures,
  blockFromPageCheck,
  blockFromUrl,
  WallEvidence,
  wallAtEndOfWait,
} from "../../src/browser/page/navigation/walls";

/** Google's walls as its sheet describes them: /sorry/ is a challenge, accounts.google.com a sign-in page. */
const SIGNATURES: BlockSignatures = {
  challenge: { urls: [/\/sorry\//], text: [/unusual traffic/i] },
  loginWall: { urls: [/^https:\/\/accounts\.google\.com\//] },
};

describe("walls: redirects", () => {
  it("believes a redirect to a challenge or a sign-in page, and nothing else", () => {
    expect(blockFromUrl(SIGNATURES, "https://www.google.com/sorry/index?continue=x")).toBe("challenge");
    expect(blockFromUrl(SIGNATURES, "https://accounts.google.com/ServiceLogin?continue=x")).toBe("login_wall");
    expect(blockFromUrl(SIGNATURES, "https://www.google.com/search?q=sign+in&udm=50")).toBeNull();
    expect(blockFromUrl({}, "https://www.google.com/sorry/index")).toBeNull();
  });

  it("calls a URL that matches both a challenge", () => {
    expect(blockFromUrl({ challenge: { urls: [/login/] }, loginWall: { urls: [/login/] } }, "https://example.com/login")).toBe("challenge");
  });
});

describe("walls: the in-page check's result", () => {
  it("takes the check's verdicts as they are", () => {
    expect(blockFromPageCheck("challenge", [])).toBe("challenge");
    expect(blockFromPageCheck("login_wall", [])).toBe("login_wall");
  });

  it("reads page text as a challenge only when a challenge text matches it", () => {
    expect(blockFromPageCheck({ text: "Our systems have detected unusual traffic from your computer network" }, [/unusual traffic/i])).toBe(
      "challenge",
    );
    expect(blockFromPageCheck({ text: "Ask anything" }, [/unusual traffic/i])).toBeNull();
    expect(blockFromPageCheck({ text: "unusual traffic" }, [])).toBeNull();
  });

  it("counts anything else (a failed check, another answer) as no evidence", () => {
    for (const result of [null, undefined, "dialog", 1, { html: "unusual traffic" }, { text: 42 }]) {
      expect(blockFromPageCheck(result, [/unusual traffic/i])).toBeNull();
    }
  });
});

describe("walls: page evidence must persist", () => {
  it("is 6 s: longer than a page takes to hydrate", () => {
    expect(BLOCK_CONFIRM_MS).toBe(6_000);
  });

  it("believes a sign-in modal seen in every check for 6 s, not before", () => {
    const evidence = new WallEvidence();
    expect(evidence.observe("login_wall", 1_000)).toBeNull();
    expect(evidence.observe("login_wall", 4_000)).toBeNull();
    expect(evidence.observe("login_wall", 6_999)).toBeNull();
    expect(evidence.observe("login_wall", 7_000)).toBe("login_wall");
  });

  it("starts again when a check sees nothing (a dialog that came and went)", () => {
    const evidence = new WallEvidence();
    expect(evidence.observe("challenge", 0)).toBeNull();
    expect(evidence.observe(null, 3_000)).toBeNull();
    expect(evidence.current).toBeNull();
    expect(evidence.observe("challenge", 4_000)).toBeNull();
    expect(evidence.observe("challenge", 9_000)).toBeNull();
    expect(evidence.observe("challenge", 10_000)).toBe("challenge");
  });

  it("starts again when the evidence changes kind", () => {
    const evidence = new WallEvidence();
    expect(evidence.observe("challenge", 0)).toBeNull();
    expect(evidence.observe("login_wall", 5_000)).toBeNull();
    expect(evidence.observe("login_wall", 6_000)).toBeNull();
    expect(evidence.current).toBe("login_wall");
    expect(evidence.observe("login_wall", 11_000)).toBe("login_wall");
  });

  it("takes a provider's own confirmation time (ChatGPT's 3 s)", () => {
    const evidence = new WallEvidence(3_000);
    expect(evidence.observe("login_wall", 0)).toBeNull();
    expect(evidence.observe("login_wall", 3_000)).toBe("login_wall");
  });
});

describe("walls: the end of the wait for the entry control", () => {
  it("believes the latest check's evidence, confirmed or not, without asking for signed-out controls", async () => {
    const evidence = new WallEvidence();
    evidence.observe("challenge", 19_000);
    let asked = false;
    const wall = await wallAtEndOfWait(evidence, async () => {
      asked = true;
      return true;
    });
    expect(wall).toBe("challenge");
    expect(asked).toBe(false);
  });

  it("calls a page showing only a signed-out 'Sign in' link a login wall once the whole wait passed", async () => {
    expect(await wallAtEndOfWait(new WallEvidence(), async () => true)).toBe("login_wall");
  });

  it("reports no wall when nothing showed (the control is missing: drift)", async () => {
    const evidence = new WallEvidence();
    evidence.observe("login_wall", 0);
    evidence.observe(null, 500);
    expect(await wallAtEndOfWait(evidence, async () => false)).toBeNull();
  });
});
