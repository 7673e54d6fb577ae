// Copilot's own page variation (replicas/copilot/variation.ts), inlined only on a fuzzed page load, after the page
// script. One function expression, called with the drawn CopilotPageVariation; each change stays within copilot.md.
// biome-ignore lint/correctness/noUnusedVariables: page.ts inlines this file as a function expression and calls it
function applyCopilotVariation(variation) {
  const text = typeof COPILOT_PAGE_CONFIG === "object" ? COPILOT_PAGE_CONFIG.text : { sources: "Sources" };

  // Test instrumentation, not the site: when the page sends its `send` frame it reports the mode menu's state (the
  // checked option and the trigger's label), so a test can tell a mode chosen on the page from a patched frame.
  const stateUrl = new URL("__replica/page-state", new URL(location.pathname.replace(/chats\/[^/]*\/?$/, ""), location.href)).toString();
  const nativeFetch = window.fetch.bind(window);
  const socketSend = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === "string" && data.includes('"event":"send"')) {
      const trigger = document.querySelector('button[data-testid*="chat-mode-"]');
      const panel = trigger?.nextElementSibling;
      const options = panel ? Array.from(panel.children) : [];
      const checked = options.findIndex(
        (option) => option.getAttribute("aria-checked") === "true" || option.getAttribute("aria-selected") === "true",
      );
      const state = { checkedIndex: checked, triggerLabel: (trigger?.querySelector("span")?.textContent ?? "").trim() };
      nativeFetch(stateUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(state) }).catch(
        () => {},
      );
    }
    return socketSend.call(this, data);
  };

  // sheet_alternatives, §1 "newer builds mint a temporary session key": an older build makes no such call
  if (variation.noTemporarySession) {
    const pageFetch = window.fetch;
    window.fetch = function (input, init) {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (/\/c\/api\/user\/sessions\/temporary$/.test(new URL(url, location.href).pathname)) {
        return Promise.resolve(new Response("", { status: 404 }));
      }
      return pageFetch.call(this, input, init);
    };
  }

  // sheet_alternatives, §2 "Cookie/consent: dismiss [aria-label="Dismiss"] if present"
  if (variation.consentBanner) {
    const banner = document.createElement("div");
    banner.setAttribute("role", "dialog");
    banner.setAttribute("aria-label", "Cookie consent");
    banner.style.cssText =
      "position:fixed;left:0;right:0;bottom:0;z-index:30;background:#fff;border-top:1px solid #e3ddd3;padding:24px 20px 48px;display:flex;gap:12px;align-items:center;justify-content:center;";
    // the page's language (the localised layout is German); the Dismiss control keeps the sheet's aria-label
    const german = document.documentElement.lang === "de";
    const words = german
      ? ["Wir verwenden Cookies, um Ihre Erfahrung zu verbessern und Ihnen personalisierte Werbung zu zeigen.", "Akzeptieren"]
      : ["We use cookies to improve your experience and to show you personalised ads.", "Accept"];
    banner.innerHTML = `<p>${words[0]}</p><button type="button">${words[1]}</button><button type="button" aria-label="Dismiss">✕</button>`;
    for (const button of banner.querySelectorAll("button")) button.addEventListener("click", () => banner.remove());
    document.body.append(banner);
  }

  // late_lists: §4 citations (the answer's sources list, §2 "a sources list (selectors unverified)") and the follow-up
  // suggestions render after done, in batches, or only behind a "Sources" button (general web behaviour)
  const lists = variation.lists;
  if (lists === null) return;
  const handled = new WeakSet();
  const reshape = (list) => {
    if (handled.has(list)) return;
    handled.add(list);
    if (lists.mode === "late") {
      list.style.visibility = "hidden";
      setTimeout(() => {
        list.style.visibility = "";
      }, lists.delayMs);
      return;
    }
    const entries = Array.from(list.children);
    if (lists.mode === "batches") {
      const size = Math.max(1, Math.ceil(entries.length / lists.batches));
      for (const entry of entries) entry.hidden = true;
      for (let batch = 0; batch * size < entries.length; batch += 1) {
        setTimeout(
          () => {
            for (const entry of entries.slice(batch * size, (batch + 1) * size)) entry.hidden = false;
          },
          400 + batch * 700,
        );
      }
      return;
    }
    const template = document.createElement("template");
    template.content.append(...entries);
    const opener = document.createElement("button");
    opener.type = "button";
    opener.setAttribute("aria-expanded", "false");
    opener.textContent = list.getAttribute("aria-label") ?? text.sources;
    opener.addEventListener("click", () => {
      if (opener.getAttribute("aria-expanded") === "true") return;
      opener.setAttribute("aria-expanded", "true");
      list.append(template.content.cloneNode(true));
    });
    list.before(opener);
  };
  // the page re-renders the sources list while streaming: reshape once the answer is done (its actions appear). The
  // lists: the sources list (the answer's labelled list of links) and the follow-ups (a row of unlabelled buttons).
  new MutationObserver(() => {
    for (const answer of document.querySelectorAll('[data-content="ai-message"]')) {
      if (answer.querySelector('button[data-testid*="-thumbs-up-"]') === null) continue;
      for (const list of answer.querySelectorAll(":scope > div")) {
        const children = Array.from(list.children);
        const sources =
          list.hasAttribute("aria-label") && !list.hidden && children.length > 0 && children.every((child) => child.tagName === "A");
        const followups = children.length > 0 && children.every((child) => child.tagName === "BUTTON" && !child.hasAttribute("aria-label"));
        if (sources || followups) reshape(list);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}
