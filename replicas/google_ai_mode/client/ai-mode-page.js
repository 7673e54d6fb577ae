// Browser script of the Google AI Mode replica's result page (inlined into the HTML by shell.ts). It behaves like the
// real page where a scraper can observe it: it reads the session tokens from the shell's data-* attributes, calls
// GET /async/folwr?…&q=…&udm=50&async=_fmt:adl,_xsrf:<token> once, consumes the HTML fragment as it streams in (fetch
// reader or XHR progress, depending on the layout), injects it into the page piece by piece, and on completion removes
// the "Thinking" placeholder and marks the response with data-complete="true". Plain JS on purpose: no build step.
// @ts-check
"use strict";

(() => {
  /** Replaced by the server: "fetch" or "xhr". */
  const TRANSPORT = "__TRANSPORT__";
  /**
   * Replaced by the server with the page's fuzzed variant (replicas/google_ai_mode/variation.ts), or left null:
   * { panel: { delivery, delayMs, batches, batchMs, container }, lateChipsMs, dataComplete, ... }.
   */
  const VARIANT = null /*__VARIANT__*/;
  /** The "N sites" label, in the languages the replica localises it to (variation.ts sitesLabel). */
  const SITES = /^\d+\s*(?:sites?|websites?|sitios?|siti|sito|件のサイト)$/i;

  const session = document.querySelector("[data-xsrf-folwr-token]");
  // No tokens: a consent dialog, a sign-in prompt or a classic results page. Nothing to fetch.
  if (!(session instanceof HTMLElement)) return;
  const status = session.querySelector('[role="status"]');
  const host = session.lastElementChild;
  if (!(host instanceof HTMLElement)) return;

  const params = new URLSearchParams(location.search);
  const q = params.get("q") || "";
  // The page lives at "<base>search"; the endpoint is "<base>async/folwr" (base "/" on the real origin).
  const base = location.pathname.replace(/search$/, "");

  /** @param {string | undefined} value */
  const enc = (value) => encodeURIComponent(value || "");

  const url =
    base +
    "async/folwr?srtst=" +
    Date.now() +
    "&garc=" +
    enc(session.dataset.garc) +
    "&mlro=" +
    enc(session.dataset.lroToken) +
    "&mlros=" +
    enc(session.dataset.lroSignature) +
    "&ei=" +
    enc(session.dataset.ei) +
    "&q=" +
    enc(q) +
    "&yv=3" +
    "&hl=" +
    enc(params.get("hl") || document.documentElement.lang) +
    "&gl=" +
    enc(params.get("gl") || "") +
    "&udm=50&stkp=" +
    enc(session.dataset.stkp) +
    "&async=_fmt:adl,_xsrf:" +
    (session.dataset.xsrfFolwrToken || "");

  /** @param {string} html */
  function render(html) {
    host.innerHTML = html;
  }

  function finish() {
    status?.remove();
    // The fragment's own "Thinking" placeholder is replaced on completion.
    for (const element of host.querySelectorAll('[aria-live="polite"]')) {
      if ((element.textContent || "").trim() === "Thinking") element.remove();
    }
    const response = host.querySelector('[data-subtree="aimc"]');
    // A fragment that ends before its feedback buttons is not a finished response; `data-complete` is (unverified)
    // in the sheet, so a fuzzed page may never set it.
    if (response && host.querySelector('[aria-label="Helpful"]') && (VARIANT === null || VARIANT.dataComplete)) {
      response.setAttribute("data-complete", "true");
    }
    wireSourcesPanel();
    if (VARIANT !== null && VARIANT.lateChipsMs > 0) {
      // citation chips render after the text settles
      const chips = Array.from(host.querySelectorAll("[data-icl-uuid]"));
      for (const chip of chips) chip.hidden = true;
      setTimeout(() => {
        for (const chip of chips) chip.hidden = false;
      }, VARIANT.lateChipsMs);
    }
  }

  /** The name of a button as a visitor reads it: aria-label, else its text. */
  /** @param {Element} button */
  function nameOf(button) {
    return (button.getAttribute("aria-label") || button.textContent || "").replace(/\s+/g, " ").trim();
  }

  /**
   * Adds entries (HTML of one entry each) to `list` in the variant's batches, the first after `delayMs`.
   * @param {HTMLElement} list @param {string[]} entries @param {number} delayMs
   */
  function addInBatches(list, entries, delayMs) {
    const batches = Math.max(1, Math.min(VARIANT ? VARIANT.panel.batches : 1, entries.length));
    const size = Math.ceil(entries.length / batches);
    for (let batch = 0; batch < batches; batch += 1) {
      const part = entries.slice(batch * size, (batch + 1) * size).join("");
      setTimeout(() => list.insertAdjacentHTML("beforeend", part), delayMs + batch * (VARIANT ? VARIANT.panel.batchMs : 0));
    }
  }

  /** A list the page opens itself (template, on_click): a dialog after the answer or a side panel beside the page. */
  /** @param {string} label @param {boolean} items */
  function openedList(label, items) {
    const side = VARIANT !== null && VARIANT.panel.container === "side_panel";
    const container = document.createElement(side ? "aside" : "div");
    if (!side) container.setAttribute("role", "dialog");
    container.setAttribute("aria-label", label);
    const list = document.createElement(items ? "ul" : "div");
    container.append(list);
    (side ? document.body : host).append(container);
    return { container, list };
  }

  /** The "N sites" button opens the list of sources (sheet §2); how the list arrives follows the page's variant. */
  function wireSourcesPanel() {
    const delivery = VARIANT === null ? "as_sent" : VARIANT.panel.delivery;
    const delayMs = VARIANT === null ? 0 : VARIANT.panel.delayMs;
    for (const button of host.querySelectorAll("button")) {
      const label = nameOf(button);
      if (!SITES.test(label)) continue;
      const panel = host.querySelector('[role="dialog"]') || button.nextElementSibling;
      if (!(panel instanceof HTMLElement)) continue;
      if (panel.getAttribute("role") !== "dialog") panel.hidden = true;
      button.setAttribute("aria-expanded", "false");
      if (delivery === "as_sent" || delivery === "late") {
        if (delivery === "late") {
          // the entries show up after the answer, in batches, whether or not the list is open
          const list = panel.querySelector(":scope > ul") || panel;
          const entries = Array.from(list.children).map((entry) => entry.outerHTML);
          for (const entry of Array.from(list.children)) entry.remove();
          addInBatches(/** @type {HTMLElement} */ (list), entries, delayMs);
        }
        button.addEventListener("click", () => {
          panel.hidden = !panel.hidden;
          button.setAttribute("aria-expanded", String(!panel.hidden));
        });
        continue;
      }
      const template = panel.querySelector("template");
      /** @type {{ container: HTMLElement, list: HTMLElement } | null} */
      let opened = null;
      button.addEventListener("click", () => {
        if (opened !== null) {
          opened.container.hidden = !opened.container.hidden;
          button.setAttribute("aria-expanded", String(!opened.container.hidden));
          return;
        }
        const holder = document.createElement("div");
        if (template) holder.append(template.content.cloneNode(true));
        const sent = Array.from(holder.children).map((entry) => entry.outerHTML);
        opened = openedList(label, (sent[0] || "").startsWith("<li") || panel.getAttribute("role") === "dialog");
        button.setAttribute("aria-expanded", "true");
        const list = opened.list;
        if (delivery === "template") {
          addInBatches(list, sent, delayMs);
          return;
        }
        // on_click: the list loads when it opens
        fetch(base + "async/folsrc?ei=" + enc(session.dataset.ei), { credentials: "include" })
          .then((response) => response.json())
          .then((/** @type {{ entries: string[] }} */ body) => addInBatches(list, body.entries, delayMs))
          .catch(() => {
            list.textContent = "Something went wrong.";
          });
      });
    }
  }

  function fail() {
    if (status) status.textContent = "Something went wrong and an AI response wasn't generated.";
  }

  async function readWithFetch() {
    try {
      const response = await fetch(url, { credentials: "include" });
      if (!response.ok || !response.body) {
        fail();
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let html = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // stream:true keeps a UTF-8 sequence split across pieces until its last byte arrives.
        html += decoder.decode(value, { stream: true });
        render(html);
      }
      html += decoder.decode();
      render(html);
      finish();
    } catch {
      fail();
    }
  }

  function readWithXhr() {
    const xhr = new XMLHttpRequest();
    xhr.open("GET", url);
    xhr.withCredentials = true;
    xhr.onprogress = () => {
      if (xhr.status === 200) render(xhr.responseText);
    };
    xhr.onload = () => {
      if (xhr.status !== 200) {
        fail();
        return;
      }
      render(xhr.responseText);
      finish();
    };
    xhr.onerror = fail;
    xhr.send();
  }

  if (TRANSPORT === "xhr") readWithXhr();
  else void readWithFetch();
})();
