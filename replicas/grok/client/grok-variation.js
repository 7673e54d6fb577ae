// Grok's own page variation (replicas/grok/variation.ts), inlined only on a fuzzed page load, after the page script.
// One function expression, called with the drawn GrokPageVariation. It reshapes what the page script renders (lists
// under the answer, action buttons, menu items) and how the page words its request, each within what grok.md allows.
// biome-ignore lint/correctness/noUnusedVariables: page.ts inlines this file as a function expression and calls it
function applyGrokVariation(variation) {
  const menu = document.querySelector('.query-bar [role="menu"]');

  // sheet_alternatives, §1 "Picker labels are (unverified) text": a description after each title; Heavy listed (§2)
  if (menu !== null) {
    const descriptions = ["Chooses Fast or Expert", "Quick responses", "Thinks hard", "Team of experts"];
    const items = Array.from(menu.children);
    if (variation.describedItems) {
      items.forEach((item, index) => {
        if (item.querySelector(".mi-desc") !== null) return;
        const description = document.createElement("span");
        description.className = "mi-desc";
        description.style.cssText = "display:block;font-size:12px;opacity:.7";
        description.textContent = descriptions[index] ?? "";
        item.append(description);
      });
    }
    if (variation.heavyItem && items.length > 0) {
      const heavy = items[0].cloneNode(false);
      heavy.setAttribute("aria-checked", "false");
      heavy.setAttribute("aria-disabled", "true");
      heavy.textContent = "Heavy";
      menu.append(heavy);
    }
  }

  // Test instrumentation, not the site: when the page sends, it reports its mode picker's state (the checked item) to
  // the replica, so a test can tell a mode chosen on the page from one patched into the request.
  const reportPageState = (send) => {
    const items = menu === null ? [] : Array.from(menu.children);
    const checked = items.findIndex(
      (item) => item.getAttribute("aria-checked") === "true" || item.getAttribute("data-state") === "checked",
    );
    const state = { checkedIndex: checked, checkedLabel: checked >= 0 ? (items[checked]?.textContent ?? "").trim() : null };
    send(new URL("__replica/page-state", new URL("./", location.href)).toString(), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(state),
    }).catch(() => {});
  };

  // sheet_alternatives, §1 "Older payloads modelMode:"MODEL_MODE_*" (unverified)": the page names the mode that way
  {
    const pageFetch = window.fetch;
    window.fetch = function (input, init) {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      const conversation = /\/rest\/app-chat\/conversations\//.test(url);
      if (conversation) reportPageState(pageFetch);
      if (variation.legacyModeField && conversation && init !== undefined && typeof init.body === "string") {
        try {
          const body = JSON.parse(init.body);
          if (typeof body.modeId === "string") {
            body.modelMode = `MODEL_MODE_${body.modeId.toUpperCase()}`;
            delete body.modeId;
            init = { ...init, body: JSON.stringify(body) };
          }
        } catch {
          // not JSON: sent as the page wrote it
        }
      }
      return pageFetch.call(this, input, init);
    };
  }

  // sheet_alternatives, §1 "Deep link ?q= (unverified that it auto-submits)": taken as submitting once the page is ready
  if (variation.deepLinkSubmits && new URLSearchParams(location.search).get("q")) {
    const submitWhenReady = () => {
      const button = document.querySelector('form.query-bar button[type="submit"]');
      if (button instanceof HTMLButtonElement && button.isConnected) button.click();
      else setTimeout(submitWhenReady, 200);
    };
    setTimeout(submitWhenReady, 300);
  }

  // late_lists (§4 related_questions; general web behaviour: lists under an answer render after it, in batches, or
  // in a panel behind a button) and §2 "action buttons under the bubble (unverified)"
  const lists = variation.lists;
  const handled = new WeakSet();
  const reshape = (element) => {
    if (handled.has(element)) return;
    handled.add(element);
    if (element.classList.contains("action-buttons")) {
      if (!variation.actionButtons) element.remove();
      return;
    }
    if (lists === null) return;
    const entries = Array.from(element.children);
    if (lists.mode === "late") {
      element.hidden = true;
      setTimeout(() => {
        element.hidden = false;
      }, lists.delayMs);
    } else if (lists.mode === "batches") {
      for (const entry of entries) entry.hidden = true;
      const size = Math.max(1, Math.ceil(entries.length / lists.batches));
      for (let batch = 0; batch * size < entries.length; batch += 1) {
        setTimeout(
          () => {
            for (const entry of entries.slice(batch * size, (batch + 1) * size)) entry.hidden = false;
          },
          400 + batch * 700,
        );
      }
    } else if (lists.mode === "behind_button") {
      const template = document.createElement("template");
      template.content.append(...entries);
      const opener = document.createElement("button");
      opener.type = "button";
      opener.className = "follow-up-opener";
      opener.setAttribute("aria-expanded", "false");
      opener.textContent = "Related";
      opener.addEventListener("click", () => {
        if (opener.getAttribute("aria-expanded") === "true") return;
        opener.setAttribute("aria-expanded", "true");
        element.append(template.content.cloneNode(true));
        // the clones are new buttons: give them the page's behaviour (fill the composer with the label)
        for (const button of element.querySelectorAll("button.follow-up-suggestion")) {
          button.addEventListener("click", () => {
            const composer = document.querySelector('.query-bar [contenteditable="true"], textarea.chat-input');
            if (composer instanceof HTMLTextAreaElement) composer.value = button.textContent ?? "";
            else if (composer !== null) composer.textContent = button.textContent ?? "";
          });
        }
      });
      element.before(opener);
    }
  };
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof HTMLElement)) continue;
        if (node.matches(".follow-up-suggestions, .action-buttons")) reshape(node);
        for (const inner of node.querySelectorAll(".follow-up-suggestions, .action-buttons")) reshape(inner);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}
