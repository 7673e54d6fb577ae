// Rufus's own page fuzzing (replicas/amazon_rufus/variation.ts), inlined only into fuzzed store pages, after
// rufus-page.js; a page without fuzzing never carries it, so it stays byte-identical. One function expression, called
// with the page's RufusPageVariation. It changes only what the sheet leaves open:
// - late_lists (sheet §2 Completion: "the active turn stops changing …; pills rendered"): an answer's pills appear
//   `pillsDelayMs` after the answer ended, its cards in `cardBatches` batches `batchGapMs` apart;
// - sheet_alternatives (sheet §3: home pages send "their own URL and no ASIN metadata — unverified"): an empty
//   `targetPageMetadata` list is left out of the request.
// biome-ignore lint/correctness/noUnusedVariables: page.ts inlines this function as an expression and calls it
function applyRufusVariation(
  /** @type {{lateLists: {pillsDelayMs: number, cardBatches: number, batchGapMs: number} | null, omitEmptyMetadata: boolean}} */ variation,
) {
  "use strict";
  if (variation.omitEmptyMetadata) {
    const originalFetch = window.fetch;
    window.fetch = function (input, init) {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (/\/rufus\/cl\/streaming/.test(url) && init !== undefined && typeof init.body === "string") {
        try {
          const body = JSON.parse(init.body);
          const context = body?.pageContext;
          if (context && Array.isArray(context.targetPageMetadata) && context.targetPageMetadata.length === 0) {
            delete context.targetPageMetadata;
            init = { ...init, body: JSON.stringify(body) };
          }
        } catch {
          // not JSON: sent as it is
        }
      }
      return originalFetch.call(this, input, init);
    };
  }

  const late = variation.lateLists;
  if (late === null) return;
  const renderer = document.querySelector("#rufus-react-renderer");
  if (renderer === null) return;
  /** Cards and pills whose time has come (kept out of the page's markup: no attribute the real site lacks). */
  const shown = new WeakSet();
  /** Cards and pills of an answer turn that is still streaming (or just ended): hidden until their time. */
  const hideLists = (/** @type {Element} */ turn) => {
    for (const pill of turn.querySelectorAll("button.rufus-pill")) if (!shown.has(pill)) pill.hidden = true;
    if (late.cardBatches > 1)
      for (const link of turn.querySelectorAll("a[href*='/dp/']")) {
        const card = link.parentElement;
        if (card !== null && !shown.has(card)) card.hidden = true;
      }
  };
  const reveal = (/** @type {Element} */ turn) => {
    const cards = Array.from(turn.querySelectorAll("a[href*='/dp/']"))
      .map((link) => link.parentElement)
      .filter((card) => card !== null && !shown.has(card));
    const perBatch = Math.max(1, Math.ceil(cards.length / late.cardBatches));
    for (let batch = 0; batch < late.cardBatches; batch += 1) {
      setTimeout(() => {
        for (const card of cards.slice(batch * perBatch, (batch + 1) * perBatch)) {
          shown.add(card);
          card.hidden = false;
        }
      }, batch * late.batchGapMs);
    }
    setTimeout(() => {
      for (const pill of turn.querySelectorAll("button.rufus-pill")) {
        shown.add(pill);
        pill.hidden = false;
      }
    }, late.pillsDelayMs);
  };
  const revealed = new WeakSet();
  new MutationObserver(() => {
    for (const turn of renderer.querySelectorAll(".rufus-papyrus-turn")) {
      if (turn.querySelector(".rufus-customer-text-wrap") !== null) continue;
      const streaming = turn.classList.contains("rufus-papyrus-active-turn");
      const isAnswer = turn.previousElementSibling?.classList.contains("rufus-dialog-customer") === true;
      if (!isAnswer) continue;
      if (streaming || !revealed.has(turn)) hideLists(turn);
      if (!streaming && !revealed.has(turn)) {
        revealed.add(turn);
        reveal(turn);
      }
    }
  }).observe(renderer, { childList: true, subtree: true, attributes: true, attributeFilter: ["class"] });
}
