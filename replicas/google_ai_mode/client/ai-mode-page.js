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
    // A fragment that ends before its feedback buttons is not a finished response.
    if (response && host.querySelector('[aria-label="Helpful"]')) response.setAttribute("data-complete", "true");
    wireSourcesPanel();
  }

  /** The "N sites" button opens the list of sources. */
  function wireSourcesPanel() {
    for (const button of host.querySelectorAll("button[aria-label]")) {
      if (!/^\d+ sites?$/.test(button.getAttribute("aria-label") || "")) continue;
      const panel = host.querySelector('[role="dialog"]') || button.nextElementSibling;
      if (!(panel instanceof HTMLElement)) continue;
      if (panel.getAttribute("role") !== "dialog") panel.hidden = true;
      button.setAttribute("aria-expanded", "false");
      button.addEventListener("click", () => {
        panel.hidden = !panel.hidden;
        button.setAttribute("aria-expanded", String(!panel.hidden));
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
