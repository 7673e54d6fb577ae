/**
 * How the navigation engine picks an element among a control's anchors, with real Chromium: in the anchors' order, then
 * document order; visible elements only; an invalid selector matches nothing; a block signature counts only when shown.
 * Elements by role: the narrowed lookup (src/browser/page/navigation/role-lookup.ts) finds exactly what Chromium's
 * own tree query finds. And the browser layer closes a scrape's page itself once the answer is in.
 */
import type { Page } from "@cloudflare/puppeteer";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { withScrapePage } from "../../src/browser/page-lease";
import { devtoolsBinding } from "../../src/browser/devtools-binding";
import { puppeteer } from "../../src/browser/session";
import { ScraperDriftError } from "../../src/errors";
import { createNavigator, type Navigator, type PageElement } from "../../src/browser/page/navigation/engine";
import { candidatesByTree, type RoleCandidate, roleCandidates } from "../../src/browser/page/navigation/role-lookup";

/** Runs `use` with a navigator on a page holding `html` (the capture bench stands in for a provider: no replica needed). */
function onPage<T>(country: string, html: string, use: (nav: Navigator, page: Page) => Promise<T>): Promise<T> {
  const request = {
    country,
    provider: "capture-lab",
    allowedDomains: ["127.0.0.1"],
    signal: AbortSignal.timeout(60_000),
    deadline: Date.now() + 60_000,
  };
  return withScrapePage(env, request, async (session) => {
    const { page } = session;
    await page.setContent(html);
    return use(createNavigator({ session, signal: AbortSignal.timeout(60_000), deadline: Date.now() + 60_000, provider: "test" }), page);
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
    const cover = `<div role="dialog" aria-modal="true" style="position: fixed; inset: 0; background: white"><h2>Welcome back</h2><button>Log in</button><button>Sign up</button></div>`;
    const promo = `<div role="dialog" aria-modal="true" style="position: fixed; inset: 0; background: white"><h2>Try voice mode</h2><button>Not now</button></div>`;
    const check = (html: string, withComposer: boolean) =>
      onPage("IE", html, async (nav) =>
        nav.detectBlock(signatures, withComposer ? await nav.waitForAnchor(["#composer"], { what: "composer", timeoutMs: 0 }) : null),
      );
    expect(await check(`${composer}${cover}`, true)).toBe("login_wall");
    // a dialog without sign-in evidence over the composer is an interruption, not a wall
    expect(await check(`${composer}${promo}`, true)).toBeNull();
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
      async ({ page }) => ({ sessionId: page.browser().sessionId(), contextId: page.browserContext().id }),
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

/** A driftCode, or what else a promise settled with. */
function outcomeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    (value) => (typeof value === "string" ? value : "found"),
    (error: unknown) => (error instanceof ScraperDriftError ? error.driftCode : String(error)),
  );
}

describe("navigation engine: evidence before verdicts (issue 29)", () => {
  const blocks = { challenge: { selectors: ["#captcha"] }, loginWall: { modalSelectors: [] } };
  const signIn = `<header><a href="https://accounts.example.com/ServiceLogin">Sign in</a></header>`;

  it("an entry control inserted seconds after load is waited for, although a Sign-in link shows from the start", async () => {
    const html = `${signIn}<main></main><script>setTimeout(() => { document.querySelector("main").innerHTML = '<div id="composer" contenteditable="true"></div>'; }, 1800);</script>`;
    const found = await onPage("IE", html, async (nav, page) => {
      const entry = await nav.awaitEntry({
        what: "composer",
        anchors: ["#composer"],
        blocks,
        signedOutEvidence: ['a[href*="ServiceLogin"]'],
        timeoutMs: 8_000,
      });
      return typeof entry === "string"
        ? entry
        : await page.evaluate(`document.activeElement === document.body && !!document.querySelector("#composer")`);
    });
    expect(found).toBe(true);
  });

  it("a signed-out page is a login wall only once the whole wait passed without the entry", async () => {
    const startedAt = Date.now();
    const outcome = await onPage("IE", `${signIn}<main>Welcome</main>`, (nav) =>
      outcomeOf(
        nav.awaitEntry({
          what: "composer",
          anchors: ["#composer"],
          blocks,
          signedOutEvidence: ['a[href*="ServiceLogin"]'],
          timeoutMs: 1_500,
        }),
      ),
    );
    expect(outcome).toBe("login_wall");
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_500);
  });

  it("challenge evidence is believed once it persisted without the entry; a loading page that hydrates is not a challenge", async () => {
    const captcha = `<div id="captcha">Verify you are human</div>`;
    const persisted = await onPage("IE", captcha, (nav) =>
      outcomeOf(nav.awaitEntry({ what: "composer", anchors: ["#composer"], blocks, timeoutMs: 20_000 })),
    );
    expect(persisted).toBe("challenge");
    const passing = `${captcha}<script>setTimeout(() => { document.querySelector("#captcha").remove(); document.body.insertAdjacentHTML("beforeend", '<textarea id="composer"></textarea>'); }, 2500);</script>`;
    expect(
      await onPage("IE", passing, (nav) =>
        outcomeOf(nav.awaitEntry({ what: "composer", anchors: ["#composer"], blocks, timeoutMs: 20_000 })),
      ),
    ).toBe("found");
    expect(
      await onPage("IE", "<main></main>", (nav) =>
        outcomeOf(nav.awaitEntry({ what: "composer", anchors: ["#composer"], blocks, timeoutMs: 300 })),
      ),
    ).toBe("test.composer_missing");
  });

  it("typing lands in a composer that is read-only for a while, or takes key input only, and the composer holds the prompt", async () => {
    const prompt = "Compare 2 phones\nunder 300 €, please 🙂";
    const readOnly = `<textarea id="composer" readonly></textarea><script>setTimeout(() => { document.querySelector("#composer").readOnly = false; }, 800);</script>`;
    // text that no trusted keydown preceded (an insertion, a paste) is refused, as some controlled editors do
    const keysOnly = `<div id="composer" contenteditable="true"></div><script>
      let keyAt = -1;
      addEventListener("keydown", (event) => { if (event.isTrusted) keyAt = performance.now(); }, true);
      addEventListener("beforeinput", (event) => { if (event.inputType === "insertText" && performance.now() - keyAt > 50) event.preventDefault(); }, true);
    </script>`;
    const typed = async (html: string) =>
      onPage("IE", html, async (nav, page) => {
        await nav.typeInto(await nav.waitForAnchor(["#composer"], { what: "composer", timeoutMs: 0 }), prompt);
        return page.evaluate(`(() => { const c = document.querySelector("#composer"); return c.value ?? c.innerText; })()`);
      });
    expect(String(await typed(readOnly))).toBe(prompt);
    expect(String(await typed(keysOnly)).replace(/\s+/g, " ")).toBe(prompt.replace(/\s+/g, " "));
    const refusing = `<textarea id="composer" readonly></textarea>`;
    expect(
      await onPage("IE", refusing, async (nav) =>
        outcomeOf(nav.typeInto(await nav.waitForAnchor(["#composer"], { what: "composer", timeoutMs: 0 }), "hi")),
      ),
    ).toBe("test.composer_rejects_input");
  });

  it("a consent dialog over a control is dismissed by name before the click; a sign-in dialog is not", async () => {
    const button = `<script>addEventListener("click", (event) => { if (event.target.id) window.clicked = event.target.id; }, true);</script><button id="send">Send</button>`;
    const consent = `<div style="position: fixed; inset: 0; background: rgba(0,0,0,.5)"></div><div role="dialog" aria-modal="true" style="position: fixed; inset: 20%; background: white"><h2>Before you continue</h2><a href="https://accounts.example.com/ServiceLogin">Sign in</a><button onclick="this.closest('[role=dialog]').previousElementSibling.remove(); this.closest('[role=dialog]').remove()">Reject all</button></div>`;
    const clickedWith = (html: string) =>
      onPage("IE", html, async (nav, page) => {
        await page.evaluate("window.clicked = null");
        await nav.click(await nav.waitForAnchor(["#send"], { what: "send", timeoutMs: 0 }));
        return {
          clicked: await page.evaluate("window.clicked"),
          dialogs: await page.evaluate(`document.querySelectorAll("[role=dialog]").length`),
        };
      });
    expect(await clickedWith(`${button}${consent}`)).toEqual({ clicked: "send", dialogs: 0 });
    const wall = `<div role="dialog" aria-modal="true" style="position: fixed; inset: 0; background: white"><h2>Log in to continue</h2><input type="password"><button>Close</button></div>`;
    const walled = await onPage("IE", `<textarea id="composer"></textarea>${wall}`, async (nav, page) => ({
      dismissed: await nav.dismissInterruptions(),
      dialogs: await page.evaluate(`document.querySelectorAll("[role=dialog]").length`),
    }));
    expect(walled).toEqual({ dismissed: 0, dialogs: 1 });
  });

  it("a click without effect is repeated until the effect shows; a list that arrives in batches is counted once it stops", async () => {
    const deaf = `<button id="open">Sources</button><ul id="list"></ul><script>
      let clicks = 0;
      document.querySelector("#open").addEventListener("click", () => {
        clicks += 1;
        if (clicks < 3) return;
        const list = document.querySelector("#list");
        for (const [count, at] of [[3, 100], [2, 400], [1, 700]])
          setTimeout(() => { for (let i = 0; i < count; i += 1) list.insertAdjacentHTML("beforeend", "<li>source</li>"); }, at);
      });
    </script>`;
    const outcome = await onPage("IE", deaf, async (nav) => {
      const opened = await nav.clickUntil(
        await nav.waitForAnchor(["#open"], { what: "sources_button", timeoutMs: 0 }),
        () => nav.waitForCondition(`document.querySelectorAll("#list li").length > 0`, { timeoutMs: 0 }),
        { what: "sources", timeoutMs: 10_000 },
      );
      return {
        opened,
        count: await nav.waitForStableCount(`document.querySelectorAll("#list li").length`, { quietMs: 500, timeoutMs: 5_000 }),
      };
    });
    expect(outcome).toEqual({ opened: true, count: 6 });
  });

  it("a control the page replaced is found again; one that went for good is drift that says it vanished", async () => {
    const replaced = `<button id="send" class="send">Send</button><script>setTimeout(() => { document.querySelector("#send").outerHTML = '<button id="send2" class="send">Send</button>'; }, 200);
      addEventListener("click", (event) => { window.clicked = event.target.id; }, true);</script>`;
    const outcome = await onPage("IE", replaced, async (nav, page) => {
      const send = await nav.waitForAnchor(["button.send"], { what: "send", timeoutMs: 0 });
      await new Promise((resolve) => setTimeout(resolve, 400));
      await nav.click(send);
      return page.evaluate("window.clicked");
    });
    expect(outcome).toBe("send2");
    const gone = `<button id="send" class="send">Send</button><script>setTimeout(() => document.querySelector("#send").remove(), 200);</script>`;
    const vanished = await onPage("IE", gone, async (nav) => {
      const send = await nav.waitForAnchor(["button.send"], { what: "send", timeoutMs: 0 });
      await new Promise((resolve) => setTimeout(resolve, 400));
      return outcomeOf(nav.click(send));
    });
    expect(vanished).toBe("test.send_vanished");
  });
});
