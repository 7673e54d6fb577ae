// Gemini's own page variation (replicas/gemini/variation.ts), inlined only on a fuzzed page load, after the page script
// and before the generic variation. One function expression, called with the drawn GeminiPageVariation. It reshapes
// what the page script renders (when chips and source cards arrive, how cards and labels are worded), each within what
// gemini.md allows (the sheet line is named beside each part). Plain JS, run in the page as-is.
// biome-ignore lint/correctness/noUnusedVariables: page.ts inlines this function's text into the page and calls it there
function applyGeminiVariation(variation) {
  const german = (document.documentElement.lang || "").toLowerCase().startsWith("de");
  const done = new WeakSet();

  // sheet_alternatives, §2 Composer "(Quill editor; placeholder text unverified)": another placeholder
  if (variation.placeholder > 0) {
    const placeholders = german
      ? ["Prompt hier eingeben", "Frag Gemini", "Frag Gemini etwas"]
      : ["Enter a prompt here", "Ask Gemini", "Ask Gemini anything"];
    for (const editor of document.querySelectorAll(".ql-editor"))
      editor.setAttribute("aria-label", placeholders[variation.placeholder] || placeholders[0]);
  }

  // sheet_alternatives, §2 Model label "aria-label like 'Open mode picker, currently Flash'": another wording
  const picker = document.querySelector('button[data-test-id="bard-mode-menu-button"]');
  if (picker !== null && variation.pickerWording > 0) {
    const mode = (picker.querySelector(".mode-label") || picker).textContent.trim();
    const wordings = german
      ? [`Modusauswahl öffnen, aktuell ${mode}`, `Modusauswahl, ${mode} ausgewählt`, `${mode} – Modus wechseln`]
      : [`Open mode picker, currently ${mode}`, `Mode picker, ${mode} selected`, `${mode}, open mode picker`];
    picker.setAttribute("aria-label", wordings[variation.pickerWording] || wordings[0]);
  }

  const escapeHtml = (text) =>
    String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] || c);

  // Cards in either of the page's two markups: class hints (site, title, snippet) or bare (title link first).
  const hintedCard = (s) =>
    '<inline-source-card class="source-card-container"><a class="source-card" href="' +
    escapeHtml(s.url) +
    '" target="_blank" rel="noopener"><div class="source-card-header"><img class="favicon" alt="" src="data:,"><span class="source-card-site">' +
    escapeHtml(s.site) +
    '</span></div><div class="source-card-title gds-title-s">' +
    escapeHtml(s.title) +
    "</div>" +
    (s.snippet ? '<div class="source-card-snippet gds-body-s">' + escapeHtml(s.snippet) + "</div>" : "") +
    "</a></inline-source-card>";
  const plainCard = (s) =>
    '<inline-source-card><div class="card-c1a"><a class="lnk-7f" href="' +
    escapeHtml(s.url) +
    '" target="_blank" rel="noopener"><span class="t-4x">' +
    escapeHtml(s.title) +
    '</span></a><div class="row-2b"><img alt="" src="data:,"><span class="s-9q">' +
    escapeHtml(s.site) +
    "</span></div>" +
    (s.snippet ? '<p class="d-3k">' + escapeHtml(s.snippet) + "</p>" : "") +
    "</div></inline-source-card>";
  const readCard = (card) => {
    const text = (selector) => (card.querySelector(selector)?.textContent || "").trim();
    const link = card.querySelector("a[href]");
    const hinted = card.querySelector(".source-card-site") !== null;
    return {
      hinted,
      url: link ? link.getAttribute("href") : "",
      site: hinted ? text(".source-card-site") : text(".s-9q"),
      title: hinted ? text(".source-card-title") : text(".t-4x"),
      snippet: hinted ? text(".source-card-snippet") : text(".d-3k"),
    };
  };
  const fromHtml = (html) => {
    const holder = document.createElement("template");
    holder.innerHTML = html;
    return holder.content.firstElementChild;
  };

  // sheet_alternatives, §2 Sources panel cards "(title, site, url, snippet)": the inner markup is not stated
  const restyle = (card) => {
    if (!variation.otherCardStyle || done.has(card)) return card;
    const source = readCard(card);
    const other = fromHtml(source.hinted ? plainCard(source) : hintedCard(source));
    done.add(other);
    card.replaceWith(other);
    return other;
  };

  // sheet_alternatives, §4 citations are "one entry per distinct source, in order of first chip": a list may also
  // show a source no chip cites (it is not a citation)
  const UNCITED = {
    url: "https://www.example.org/further-reading/overview",
    title: "Further reading - an overview",
    site: "Example Reference",
    snippet: "A general overview the answer does not cite.",
  };
  const addUncited = (container) => {
    if (!variation.uncitedSource || container.querySelector("inline-source-card") === null) return;
    if (Array.from(container.querySelectorAll("a[href]")).some((a) => a.getAttribute("href") === UNCITED.url)) return;
    const model = container.querySelector("inline-source-card");
    const extra = fromHtml(readCard(model).hinted ? hintedCard(UNCITED) : plainCard(UNCITED));
    done.add(extra);
    model.parentNode.append(extra);
  };

  // Plays a list late or in batches: the items are taken out (a comment keeps each place) and put back in order.
  const later = (items, delayMs, batches, gapMs, after) => {
    const held = items.map((item) => {
      const marker = document.createComment("pending");
      item.replaceWith(marker);
      return { item, marker };
    });
    const size = Math.ceil(held.length / Math.max(1, batches));
    for (let batch = 0; batch * size < held.length; batch += 1) {
      const last = (batch + 1) * size >= held.length;
      setTimeout(
        () => {
          for (const { item, marker } of held.slice(batch * size, (batch + 1) * size)) if (marker.isConnected) marker.replaceWith(item);
          if (last && after) after();
        },
        Math.max(0, delayMs) + batch * gapMs,
      );
    }
  };

  // late_lists, §2 "Citations may appear a few seconds **after** the text settles": chips (and the Sources button
  // that comes with them) 0–4 s after the answer settled, or in batches; counted from the moment it settled
  let settledAt = null;
  const chipsOf = (response) => {
    if (done.has(response)) return;
    const carousels = Array.from(
      response.querySelectorAll(".markdown-main-panel sources-carousel-inline, .markdown-main-panel source-footnote"),
    );
    if (carousels.length === 0) return;
    done.add(response);
    if (variation.chips.arrival === "immediate") return;
    const button = response.querySelector("button.legacy-sources-sidebar-button");
    const extras = button === null ? [] : [button];
    const since = settledAt === null ? 0 : performance.now() - settledAt;
    const held = extras.map((item) => {
      const marker = document.createComment("pending");
      item.replaceWith(marker);
      return { item, marker };
    });
    later(carousels, variation.chips.delayMs - since, variation.chips.batches, variation.chips.gapMs, () => {
      for (const { item, marker } of held) if (marker.isConnected) marker.replaceWith(item);
    });
  };

  // late_lists, §2 Sources panel / sources-list: the end-of-answer list late, in batches, or behind its button
  const listOf = (list) => {
    if (done.has(list)) return;
    done.add(list);
    for (const card of list.querySelectorAll("inline-source-card")) restyle(card);
    addUncited(list);
    const arrival = variation.cards.arrival;
    if (arrival === "behind_button") {
      const holder = document.createElement("template");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "legacy-sources-sidebar-button";
      button.setAttribute("aria-label", german ? "Quellen" : "Sources");
      button.textContent = german ? "Quellen" : "Sources";
      list.replaceWith(button);
      button.after(holder);
      holder.content.append(list);
      button.addEventListener("click", () => {
        // the list is instantiated from its template where the button was
        holder.replaceWith(document.adoptNode(list));
        button.remove();
      });
    } else if (arrival === "late") {
      later([list], variation.cards.delayMs, 1, 0);
    } else if (arrival === "batches") {
      later(
        Array.from(list.querySelectorAll("inline-source-card")),
        variation.cards.delayMs,
        variation.cards.batches,
        variation.cards.gapMs,
      );
    }
  };

  // late_lists, §2 Sources panel "opens a side panel of `inline-source-card` entries": the panel loads them late or
  // in batches the first time it opens
  let panelLoaded = false;
  const panelOf = (panel) => {
    const cards = Array.from(panel.querySelectorAll("inline-source-card")).filter((card) => !done.has(card));
    if (cards.length === 0) return;
    const restyled = cards.map(restyle);
    for (const card of restyled) done.add(card);
    addUncited(panel);
    if (panelLoaded) return;
    panelLoaded = true;
    const arrival = variation.cards.arrival;
    if (arrival === "immediate") return;
    const items = Array.from(panel.querySelectorAll("inline-source-card"));
    later(items, variation.cards.delayMs, arrival === "batches" ? variation.cards.batches : 1, variation.cards.gapMs);
  };

  // late_lists: a chip's dialog fetches its cards late the first time
  let dialogLoaded = false;
  const dialogOf = (dialog) => {
    const cards = Array.from(dialog.querySelectorAll("inline-source-card")).filter((card) => !done.has(card));
    if (cards.length === 0) return;
    const restyled = cards.map(restyle);
    for (const card of restyled) done.add(card);
    if (dialogLoaded) return;
    dialogLoaded = true;
    if (variation.cards.firstDialogDelayMs > 0) later(restyled, variation.cards.firstDialogDelayMs, 1, 0);
  };

  // sheet_alternatives, §2 Inline citations: the aria-label "… Opens side panel." or its variant "… Press Enter to
  // open sources dialog."
  const relabelChips = (root) => {
    if (variation.chipSuffix === null) return;
    const suffix = variation.chipSuffix === "dialog" ? "Press Enter to open sources dialog." : "Opens side panel.";
    for (const button of root.querySelectorAll("source-inline-chip button[aria-label]")) {
      const label = button.getAttribute("aria-label");
      const relabelled = label.replace(/\.\s*(?:Opens side panel|Press Enter to open sources dialog)\.?\s*$/, ". " + suffix);
      if (relabelled !== label) button.setAttribute("aria-label", relabelled);
    }
  };

  const scan = () => {
    const responses = document.querySelectorAll("model-response");
    const newest = responses[responses.length - 1];
    if (newest !== undefined) {
      if (newest.getAttribute("aria-busy") !== "true" && settledAt === null) settledAt = performance.now();
      relabelChips(newest);
      if (newest.getAttribute("aria-busy") !== "true") chipsOf(newest);
      for (const list of newest.querySelectorAll("sources-list")) listOf(list);
    }
    for (const panel of document.querySelectorAll("side-bar-sources")) panelOf(panel);
    for (const dialog of document.querySelectorAll(".cdk-overlay-container .overlay-dialog")) dialogOf(dialog);
  };
  new MutationObserver(scan).observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["aria-busy"],
  });
}
