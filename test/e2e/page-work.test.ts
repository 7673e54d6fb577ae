/**
 * How the navigation engine picks an element among a control's anchors, with real Chromium: in the anchors' order, then
 * document order; visible elements only; an invalid selector matches nothing; a block signature counts only when shown.
 * Elements by role: the narrowed lookup (src/scrapers/shared/navigation/role-lookup.ts) finds exactly what Chromium's
 * own tree query finds. And the browser layer closes a scrape's page itself once the answer is in.
 */
import type { Page } from "@cloudflare/puppeteer";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { withScrapePage } from "../../src/browser/browser-provider";
import { devtoolsBinding } from "../../src/browser/devtools-binding";
import { puppeteer } from "../../src/browser/session";
import { ScraperDriftError } from "../../src/errors";
import { createNavigator, type Navigator, type PageElement } from "../../src/scrapers/shared/navigation/engine";
import { candidatesByTree, type RoleCandidate, roleCandidates } from "../../src/scrapers/shared/navigation/role-lookup";

/** Runs `use` with a navigator on a page holding `html` (the capture bench stands in for a provider: no replica needed). */
function onPage<T>(country: string, html: string, use: (nav: Navigator, page: Page) => Promise<T>): Promise<T> {
  const request = {
    country,
    provider: "capture-lab",
    allowedDomains: ["127.0.0.1"],
    signal: AbortSignal.timeout(60_000),
    deadline: Date.now() + 60_000,
  };
  return withScrapePage(env, request, async (page) => {
    await page.setContent(html);
    return use(createNavigator({ page, signal: AbortSignal.timeout(60_000), deadline: Date.now() + 60_000, provider: "test" }), page);
  });
}

/** Which element `element` is: clicks it, and the page records the id of what was clicked. */
async function idOf(nav: Navigator, page: Page, element: PageElement | null): Promise<string | null> {
  if (element === null) return null;
  await page.evaluate(`window.clicked = null`);
  await nav.click(element);
  const clicked: unknown = await page.evaluate(`window.clicked`);
  return typeof clicked === "string" ? clicked : null;
}

const BUTTONS = `<script>document.addEventListener("click", (event) => { window.clicked = event.target.id || null; }, true);</script>
<button id="hidden-by-display" class="send" style="display: none">Send</button>
<div style="display: none"><button id="inside-hidden-parent" class="send">Send</button></div>
<button id="hidden-by-visibility" class="send" style="visibility: hidden">Send</button>
<button id="visible-send" class="send">Send</button>
<button id="other" class="other">Other</button>
<button id="late-send" class="send">Send</button>`;

describe("navigation engine: anchors", () => {
  it("takes the first visible match of the first anchor that has one, skipping invalid selectors", async () => {
    const picked = await onPage("IE", BUTTONS, async (nav, page) => ({
      ordered: await idOf(nav, page, await nav.waitForAnchor(["button[", "button.send", "button.other"], { what: "send", timeoutMs: 0 })),
      otherFirst: await idOf(nav, page, await nav.waitForAnchor(["button.other", "button.send"], { what: "send", timeoutMs: 0 })),
      onlyInvalid: await nav.waitForAnchor(["button[", ":nope("], { what: "send", timeoutMs: 0, optional: true }),
      onlyHidden: await nav.waitForAnchor(["#hidden-by-display", "#inside-hidden-parent", "#hidden-by-visibility"], {
        what: "send",
        timeoutMs: 0,
        optional: true,
      }),
      none: await nav.waitForAnchor([], { what: "send", timeoutMs: 0, optional: true }),
    }));
    expect(picked).toEqual({ ordered: "visible-send", otherFirst: "other", onlyInvalid: null, onlyHidden: null, none: null });
  });

  it("waits for an anchor that becomes visible, and a required one that never does is drift naming the control", async () => {
    const html = `${BUTTONS}<script>setTimeout(() => { document.getElementById("hidden-by-display").style.display = "inline-block"; }, 300);</script>`;
    const outcome = await onPage("IE", html, async (nav, page) => ({
      appeared: await idOf(nav, page, await nav.waitForAnchor(["#hidden-by-display"], { what: "send", timeoutMs: 5_000 })),
      missing: await nav.waitForAnchor(["#inside-hidden-parent"], { what: "composer", timeoutMs: 200 }).then(
        () => "found",
        (error: unknown) => (error instanceof ScraperDriftError ? error.driftCode : String(error)),
      ),
    }));
    expect(outcome.appeared).toBe("hidden-by-display");
    expect(outcome.missing).toBe("test.composer_missing");
  });

  it("a block signature counts only when its element is visible", async () => {
    const signatures = { challenge: { selectors: ["button[", "#turnstile"] }, loginWall: { modalSelectors: ['[role="dialog"] a'] } };
    const hidden = `<div id="turnstile" style="display: none"></div><div role="dialog" style="visibility: hidden"><a href="#">Sign in</a></div>`;
    const shown = `<div role="dialog"><a href="#">Sign in</a></div>`;
    expect(await onPage("IE", hidden, (nav) => nav.detectBlock(signatures))).toBeNull();
    expect(await onPage("IE", shown, (nav) => nav.detectBlock(signatures))).toBe("login_wall");
    expect(await onPage("IE", `${shown}<div id="turnstile">Verify</div>`, (nav) => nav.detectBlock(signatures))).toBe("challenge");
  });

  it("a modal over the composer is a sign-in wall; challenge text counts only on a page without a composer", async () => {
    const signatures = {
      challenge: { selectors: ["#turnstile"], text: [/just a moment/i] },
      loginWall: { modalSelectors: ['[role="dialog"] a'] },
    };
    const composer = `<textarea id="composer"></textarea>`;
    const cover = `<div role="dialog" aria-modal="true" style="position: fixed; inset: 0; background: white">Continue with an account</div>`;
    const check = (html: string, withComposer: boolean) =>
      onPage("IE", html, async (nav) =>
        nav.detectBlock(signatures, withComposer ? await nav.waitForAnchor(["#composer"], { what: "composer", timeoutMs: 0 }) : null),
      );
    expect(await check(`${composer}${cover}`, true)).toBe("login_wall");
    expect(await check(`${composer}<p>Ask anything</p>`, true)).toBeNull();
    expect(await check(`<p>Just a moment…</p>`, false)).toBe("challenge");
    expect(await check(`${composer}<p>Just a moment…</p>`, true)).toBeNull();
    expect(await check(`<p>Ask anything</p>`, false)).toBeNull();
  });
});

describe("browser layer: a scrape's page after its answer", () => {
  it("is closed by the scrape itself, without waiting for the next scrape on the session", async () => {
    const used = await withScrapePage(
      env,
      {
        country: "IE",
        provider: "capture-lab",
        allowedDomains: ["127.0.0.1"],
        signal: AbortSignal.timeout(60_000),
        deadline: Date.now() + 60_000,
      },
      async (page) => ({ sessionId: page.browser().sessionId(), contextId: page.browserContext().id }),
    );
    expect(used.contextId).toEqual(expect.any(String));
    // Chromium disposes the context on its own time after the disconnect: looked at until it is gone (or 5 s passed)
    let contexts: (string | undefined)[] = [];
    for (const until = Date.now() + 5_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 50))) {
      const browser = await puppeteer.connect(devtoolsBinding(env.BROWSER), used.sessionId);
      contexts = browser.browserContexts().map((context) => context.id);
      await browser.disconnect();
      if (!contexts.includes(used.contextId)) break;
    }
    expect(contexts).not.toContain(used.contextId);
  });
});

/** A page with controls of every kind a role lookup must find or skip (open shadow DOM, implicit roles, hidden ones). */
const ROLES_PAGE = `<button id="plain">Send message</button>
<div role="button" aria-label="Submit" id="div-button">↑</div>
<input type="submit" value="Go" id="submit-input">
<a href="#docs" id="link">Docs</a>
<a id="no-href">Not a link</a>
<span role="link" id="span-link">Span link</span>
<button style="display: none" id="hidden">Hidden</button>
<div style="visibility: hidden"><button id="invisible">Invisible</button></div>
<button aria-hidden="true" id="aria-hidden">Aria hidden</button>
<details><summary id="summary">More</summary><p>Details</p></details>
<div style="display: contents" role="button" id="contents">Contents</div>
<div role="menu" aria-label="Modes" id="menu"><div role="menuitemradio" aria-checked="false">Search</div><div role="menuitemradio" aria-checked="true">Smart</div><div role="menuitem">Other</div></div>
<ul role="listbox" aria-label="Choices" id="listbox"><li role="option" aria-selected="true">One</li><li role="option">Two</li></ul>
<div role="button toolbar" id="two-roles">Two roles</div>
<shadow-host id="host"></shadow-host>
<script>
  document.getElementById("host").attachShadow({ mode: "open" }).innerHTML = '<button>In the shadow</button><a href="#s">Shadow link</a>';
</script>`;

describe("navigation engine: elements by role", () => {
  it("finds by role and accessible name exactly what Chromium's own tree query finds", async () => {
    const outcome = await onPage("IE", ROLES_PAGE, async (nav, page) => {
      const cdp = await page.createCDPSession();
      const { root } = await cdp.send("DOM.getDocument", { depth: -1, pierce: true });
      const menu = await nav.waitForAnchor(["#menu"], { what: "menu", timeoutMs: 0 });
      const queries: Array<{ roles: string[]; within: number | null }> = [
        { roles: ["button"], within: null },
        { roles: ["link"], within: null },
        { roles: ["button", "link"], within: null },
        { roles: ["menu", "listbox"], within: null },
        { roles: ["menuitem", "menuitemradio", "menuitemcheckbox", "option"], within: null },
        { roles: ["menuitem", "menuitemradio", "menuitemcheckbox", "option"], within: menu.backendNodeId },
      ];
      const compared = [];
      for (const query of queries) {
        const names = (found: RoleCandidate[]) => found.map((candidate) => `${candidate.backendNodeId}:${candidate.name}`).sort();
        compared.push({
          query: query.roles.join("/"),
          narrowed: names(await roleCandidates(cdp, query.roles, query.within)),
          tree: names(await candidatesByTree(cdp, query.roles, query.within)),
        });
      }
      return { compared, rootSeen: root.backendNodeId > 0 };
    });
    for (const { query, narrowed, tree } of outcome.compared) expect(narrowed, query).toEqual(tree);
    const byQuery = Object.fromEntries(
      outcome.compared.map(({ query, narrowed }) => [query, narrowed.map((entry) => entry.split(":")[1])]),
    );
    expect(byQuery.button?.sort()).toEqual(["Contents", "Go", "In the shadow", "Send message", "Submit", "Two roles"].sort());
    expect(byQuery.link?.sort()).toEqual(["Docs", "Shadow link", "Span link"]);
    expect(byQuery["menu/listbox"]?.sort()).toEqual(["Choices", "Modes"]);
  });

  it("picks a menu item by name and a control by role through the engine", async () => {
    const html = `${ROLES_PAGE}<script>document.addEventListener("click", (event) => { window.clicked = event.target.textContent; }, true);</script>`;
    const picked = await onPage("IE", html, async (nav, page) => {
      const send = await nav.findByRole({ roles: ["button"], name: ["Send message"] }, { what: "send", timeoutMs: 0 });
      await nav.click(send);
      const first: unknown = await page.evaluate("window.clicked");
      const missing = await nav.findByRole(
        { roles: ["button"], name: ["Hidden", "Aria hidden", "Invisible"] },
        { what: "gone", timeoutMs: 0, optional: true },
      );
      return { first, missing };
    });
    expect(picked).toEqual({ first: "Send message", missing: null });
  });
});
