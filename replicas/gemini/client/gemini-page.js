// Browser script of the Gemini replica's /app page (inlined into the HTML by page.ts, after `const LAYOUT = {…}`).
// It behaves like gemini.google.com's bundle where a scraper can observe it: it POSTs the form body of gemini.md §3
// to StreamGenerate (XMLHttpRequest or fetch, by layout), consumes the length-prefixed frames as they arrive, renders
// the cumulative answer incrementally, toggles aria-busy on the newest model-response, and renders citation chips and
// source cards from the final candidate. Plain JS on purpose: it runs in the page as-is, without a build step.
// @ts-nocheck
"use strict";

const wiz = window.WIZ_global_data || {};
const pageUrl = new URL(location.href);
const language = pageUrl.searchParams.get("hl") || wiz.TuX5cc || "en";
// <base href> points at the site root (the replica's mount path), like "/" on the real origin.
const endpoint = new URL("_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate", document.baseURI);
const CARD_PLACEHOLDER = /^http:\/\/googleusercontent\.com\/card_content\/\d+$/;
const PLACEHOLDER = /http:\/\/googleusercontent\.com\/[A-Za-z_]+\/\d+/g;

const editor = document.querySelector('.ql-editor[contenteditable="true"]');
const actionsWrapper = document.querySelector(".trailing-actions-wrapper");
const stopButton = document.querySelector("button.send-button.stop");
const micButton = document.querySelector("button.speech_dictation_mic_button");
const chatHistory = document.querySelector("infinite-scroller.chat-history");
const picker = document.querySelector('button[data-test-id="bard-mode-menu-button"]');
const modeMenu = document.querySelector(".mode-menu");
const sidebar = document.querySelector("context-sidebar");
const overlay = document.querySelector(".cdk-overlay-container");

let sendButton = document.querySelector("button.send-button.submit");
let mode = LAYOUT.modes[0];
let streaming = false;
let abortActive = null;
let reqid = 100000 + Math.floor(Math.random() * 900000);
/** Ids of the conversation so far ([cid, rid, rcid]); a new page starts a new chat. */
let conversation = ["", "", ""];

// ---------------------------------------------------------------------------------------------------------------
// Composer (a Quill editor)

function composerText() {
  return editor.innerText.replace(/\u00a0/g, " ").trim();
}

function clearComposer() {
  editor.innerHTML = "<p><br></p>";
  updateComposerState();
}

function updateComposerState() {
  const hasText = composerText() !== "";
  editor.classList.toggle("ql-blank", !hasText);
  if (LAYOUT.sendAlwaysShown) {
    sendButton.setAttribute("aria-disabled", String(!hasText || streaming));
    sendButton.hidden = streaming;
    return;
  }
  // The send button only exists while there is something to send; the microphone takes its place otherwise.
  const wantSend = hasText && !streaming;
  if (wantSend && sendButton === null) {
    sendButton = document.createElement("button");
    sendButton.type = "button";
    sendButton.className = "send-button submit";
    sendButton.setAttribute("aria-label", LAYOUT.sendLabel);
    sendButton.innerHTML = '<mat-icon class="mat-icon" fonticon="send">send</mat-icon>';
    sendButton.addEventListener("click", () => void send());
    actionsWrapper.insertBefore(sendButton, stopButton);
  } else if (!wantSend && sendButton !== null) {
    sendButton.remove();
    sendButton = null;
  }
  if (micButton) micButton.hidden = wantSend || streaming;
}

editor.addEventListener("input", updateComposerState);
editor.addEventListener("keyup", updateComposerState);
editor.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void send();
  }
});
if (sendButton) {
  sendButton.addEventListener("click", () => {
    if (sendButton.getAttribute("aria-disabled") !== "true") void send();
  });
}
stopButton.addEventListener("click", () => abortActive?.());
updateComposerState();

// ---------------------------------------------------------------------------------------------------------------
// Mode picker

function setMenuOpen(open) {
  modeMenu.hidden = !open;
  picker.setAttribute("aria-expanded", String(open));
}

picker.addEventListener("click", (event) => {
  event.stopPropagation();
  setMenuOpen(modeMenu.hidden);
});
modeMenu.addEventListener("click", (event) => {
  const item = event.target instanceof Element ? event.target.closest('[role="menuitem"]') : null;
  if (!item) return;
  event.stopPropagation();
  const index = Array.from(modeMenu.querySelectorAll('[role="menuitem"]')).indexOf(item);
  mode = LAYOUT.modes[index] || mode;
  picker.querySelector(".mode-label").textContent = mode.label;
  picker.setAttribute("aria-label", LAYOUT.pickerLabel.replace("{mode}", mode.label));
  setMenuOpen(false);
  editor.focus();
});
document.addEventListener("click", (event) => {
  if (!modeMenu.hidden && event.target instanceof Node && !modeMenu.contains(event.target)) setMenuOpen(false);
});

// ---------------------------------------------------------------------------------------------------------------
// Length-prefixed frames (gemini.md §3): `)]}'`, then `<UTF-16 length>\n<JSON>\n`; a wrong length is read by JSON balance.

function balancedEnd(text, from) {
  let index = from;
  while (index < text.length && /\s/.test(text[index])) index += 1;
  if (text[index] !== "[" && text[index] !== "{") return -1;
  let depth = 0;
  let inString = false;
  for (; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "[" || char === "{") depth += 1;
    else if (char === "]" || char === "}") {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}

function createFrameReader(onFrame) {
  let buffer = "";
  let prefixChecked = false;
  const reader = { malformed: 0 };
  const drain = (final) => {
    if (!prefixChecked) {
      const trimmed = buffer.replace(/^\s+/, "");
      if (!final && trimmed.length < 4 && ")]}'".startsWith(trimmed)) return;
      prefixChecked = true;
      buffer = trimmed.startsWith(")]}'") ? trimmed.slice(4) : trimmed;
    }
    for (;;) {
      const start = buffer.search(/\S/);
      if (start < 0) {
        buffer = "";
        return;
      }
      buffer = buffer.slice(start);
      const header = /^(\d+)\n/.exec(buffer);
      if (!header) {
        if (/^\d*$/.test(buffer) && !final) return;
        const newline = buffer.indexOf("\n");
        if (newline < 0 && !final) return;
        reader.malformed += 1;
        buffer = newline < 0 ? "" : buffer.slice(newline + 1);
        continue;
      }
      const spanStart = header[1].length;
      const end = spanStart + Number(header[1]);
      if (end > buffer.length && !final) return;
      let value;
      let consumed = -1;
      if (end <= buffer.length) {
        try {
          value = JSON.parse(buffer.slice(spanStart + 1, end));
          consumed = end;
        } catch {
          consumed = -1;
        }
      }
      if (consumed < 0) {
        const balanced = balancedEnd(buffer, spanStart + 1);
        if (balanced < 0) {
          if (!final) return;
          reader.malformed += 1;
          buffer = "";
          return;
        }
        try {
          value = JSON.parse(buffer.slice(spanStart + 1, balanced));
        } catch {
          reader.malformed += 1;
          buffer = buffer.slice(balanced);
          continue;
        }
        consumed = balanced;
      }
      buffer = buffer.slice(consumed);
      onFrame(value);
    }
  };
  reader.push = (text) => {
    buffer += text;
    drain(false);
  };
  reader.end = () => {
    drain(true);
    return buffer.trim() !== "";
  };
  return reader;
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown (enough for the replica's answers: fences, headings, lists, tables, quotes, emphasis, links, chips)

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] || c);
}

function renderInline(text, renderChip) {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, index) => {
      if (index % 2 === 1) return "<code>" + escapeHtml(part.slice(1, -1)) + "</code>";
      const links = [];
      let html = escapeHtml(part).replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, (_m, label, href) => {
        links.push('<a href="' + href + '" target="_blank" rel="noopener">' + label + "</a>");
        return "\uE002" + (links.length - 1) + "\uE003";
      });
      html = html
        .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, (_m, char) => "\uE004" + char.charCodeAt(0) + "\uE005")
        .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
        .replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\*)/g, "$1<em>$2</em>")
        .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<del>$1</del>")
        .replace(/\uE004(\d+)\uE005/g, (_m, code) => escapeHtml(String.fromCharCode(Number(code))));
      html = html.replace(/\uE002(\d+)\uE003/g, (_m, i) => links[Number(i)] || "");
      return html.replace(/\uE000(\d+)\uE001/g, (_m, i) => renderChip(Number(i)));
    })
    .join("");
}

const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)\s*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

function tableCells(row) {
  return row
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((cell) => cell.trim());
}

function isTableStart(lines, i) {
  const head = lines[i] || "";
  const divider = lines[i + 1] || "";
  return head.includes("|") && divider.includes("-") && TABLE_DIVIDER.test(divider);
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || /^\s*>/.test(line) || LIST_ITEM.test(line);
}

function indentOf(line) {
  return (/^\s*/.exec(line) || [""])[0].length;
}

function renderBlocks(source, renderChip) {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1];
      const code = [];
      i += 1;
      const closing = new RegExp("^\\s*" + (marker[0] === "`" ? "`" : "~") + "{" + marker.length + ",}\\s*$");
      while (i < lines.length && !closing.test(lines[i])) {
        code.push(lines[i]);
        i += 1;
      }
      i += 1;
      const cls = fence[2] ? ' class="language-' + escapeHtml(fence[2]) + '"' : "";
      out.push("<code-block><pre><code" + cls + ">" + escapeHtml(code.join("\n")) + "</code></pre></code-block>");
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1].length;
      out.push("<h" + level + ">" + renderInline(heading[2], renderChip) + "</h" + level + ">");
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      out.push("<hr>");
      i += 1;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) {
        quoted.push(lines[i].replace(/^\s*> ?/, ""));
        i += 1;
      }
      out.push("<blockquote>" + renderBlocks(quoted.join("\n"), renderChip) + "</blockquote>");
      continue;
    }
    if (isTableStart(lines, i)) {
      const header = tableCells(line);
      i += 2;
      const rows = [];
      while (i < lines.length && lines[i].includes("|") && lines[i].trim() !== "") {
        rows.push(
          "<tr>" +
            tableCells(lines[i])
              .map((c) => "<td>" + renderInline(c, renderChip) + "</td>")
              .join("") +
            "</tr>",
        );
        i += 1;
      }
      out.push(
        '<div class="horizontal-scroll-wrapper"><table-block><table><thead><tr>' +
          header.map((c) => "<th>" + renderInline(c, renderChip) + "</th>").join("") +
          "</tr></thead><tbody>" +
          rows.join("") +
          "</tbody></table></table-block></div>",
      );
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const indent = item[1].length;
      const ordered = /\d/.test(item[2]);
      const items = [];
      while (i < lines.length) {
        const current = lines[i];
        if (current.trim() === "") {
          const next = lines[i + 1] || "";
          if (next.trim() !== "" && indentOf(next) > indent) {
            items[items.length - 1]?.push("");
            i += 1;
            continue;
          }
          break;
        }
        const match = LIST_ITEM.exec(current);
        if (match && match[1].length === indent && /\d/.test(match[2]) === ordered) items.push([match[3]]);
        else if (indentOf(current) > indent && items.length > 0)
          items[items.length - 1].push(current.slice(Math.min(indentOf(current), indent + 2)));
        else break;
        i += 1;
      }
      const tag = ordered ? "ol" : "ul";
      out.push(
        "<" + tag + ">" + items.map((lines2) => "<li>" + renderBlocks(lines2.join("\n"), renderChip) + "</li>").join("") + "</" + tag + ">",
      );
      continue;
    }
    const paragraph = [];
    while (i < lines.length) {
      const current = lines[i];
      if (current.trim() === "" || (paragraph.length > 0 && (startsBlock(current) || isTableStart(lines, i)))) break;
      paragraph.push(current.trim());
      i += 1;
    }
    out.push("<p>" + renderInline(paragraph.join("\n"), renderChip) + "</p>");
  }
  return out.join("\n");
}

/** What the page shows of the text field: placeholders removed, a trailing unfinished fence dropped once complete. */
function displayText(text, complete) {
  let shown = text
    .split("\n")
    .filter((line) => !/^\s*http:\/\/googleusercontent\.com\/[A-Za-z_]+\/\d+\s*$/.test(line))
    .join("\n")
    .replace(PLACEHOLDER, "");
  const fences = shown.split("\n").filter((line) => /^\s*```/.test(line)).length;
  if (complete && fences % 2 === 1 && shown.endsWith("\n```")) shown = shown.slice(0, -4);
  return shown;
}

// ---------------------------------------------------------------------------------------------------------------
// Citations: chips in the answer, source cards in the side panel / sources list / dialog

function chipHtml(source) {
  return (
    '<source-inline-chip class="source-inline-chip"><button type="button" class="source-chip-button" aria-label="View source details for citation from ' +
    escapeHtml(source.site) +
    ". " +
    escapeHtml(LAYOUT.chipSuffix) +
    '"><span class="source-title">' +
    escapeHtml(source.site) +
    "</span></button></source-inline-chip>"
  );
}

function cardHtml(source) {
  const href = escapeHtml(source.url);
  if (LAYOUT.cardStyle === "hinted") {
    return (
      '<inline-source-card class="source-card-container"><a class="source-card" href="' +
      href +
      '" target="_blank" rel="noopener"><div class="source-card-header"><img class="favicon" alt="" src="data:,"><span class="source-card-site">' +
      escapeHtml(source.site) +
      '</span></div><div class="source-card-title gds-title-s">' +
      escapeHtml(source.title) +
      "</div>" +
      (source.snippet ? '<div class="source-card-snippet gds-body-s">' + escapeHtml(source.snippet) + "</div>" : "") +
      "</a></inline-source-card>"
    );
  }
  return (
    '<inline-source-card><div class="card-c1a"><a class="lnk-7f" href="' +
    href +
    '" target="_blank" rel="noopener"><span class="t-4x">' +
    escapeHtml(source.title) +
    '</span></a><div class="row-2b"><img alt="" src="data:,"><span class="s-9q">' +
    escapeHtml(source.site) +
    "</span></div>" +
    (source.snippet ? '<p class="d-3k">' + escapeHtml(source.snippet) + "</p>" : "") +
    "</div></inline-source-card>"
  );
}

/** Citation data of the final candidate: [[url, title, site, snippet]…], [[offset, [source indexes]]…], delay ms. */
function readCitations(raw) {
  if (!Array.isArray(raw) || !Array.isArray(raw[0])) return null;
  const sources = raw[0].map((s) => ({ url: s[0], title: s[1], site: s[2], snippet: s[3] || "" }));
  const points = (raw[1] || []).map((p) => ({ offset: p[0], sources: (p[1] || []).map((i) => sources[i]).filter(Boolean) }));
  return { sources, points, delayMs: Number(raw[2]) || 0 };
}

function openSidebar(sources) {
  if (!sidebar) return;
  sidebar.querySelector("side-bar-sources").innerHTML = sources.map(cardHtml).join("");
  sidebar.hidden = false;
}

function openSourcesDialog(sources) {
  overlay.innerHTML =
    '<div class="overlay-dialog" role="dialog" aria-modal="true" aria-label="Sources"><button type="button" class="close-button" aria-label="Close">close</button>' +
    sources.map(cardHtml).join("") +
    "</div>";
  overlay.querySelector(".close-button").addEventListener("click", () => {
    overlay.innerHTML = "";
  });
}

sidebar?.querySelector(".close-button")?.addEventListener("click", () => {
  sidebar.hidden = true;
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  overlay.innerHTML = "";
  if (sidebar) sidebar.hidden = true;
});

// ---------------------------------------------------------------------------------------------------------------
// One turn

function appendTurn(prompt) {
  const container = document.createElement("div");
  container.className = "conversation-container";
  const query = document.createElement("user-query");
  query.innerHTML = '<div class="user-query-container"><div class="query-content"><p class="query-text-line"></p></div></div>';
  query.querySelector(".query-text-line").textContent = prompt;
  const response = document.createElement("model-response");
  response.setAttribute("aria-busy", "true");
  const content =
    '<div class="response-content model-response-text processing-state-visible">' +
    (LAYOUT.wrappers === "plain"
      ? '<message-content class="model-response-text"><div class="markdown markdown-main-panel" dir="ltr"></div></message-content>'
      : '<structured-content-container><message-content class="model-response-text"><div class="markdown markdown-main-panel enable-updated-hr-color" dir="ltr"></div></message-content></structured-content-container>') +
    "</div>";
  const footer = '<div class="response-footer"><message-actions class="message-actions"></message-actions></div>';
  response.innerHTML =
    LAYOUT.wrappers === "plain"
      ? '<div class="response-container">' + content + footer + "</div>"
      : '<div class="presented-response-container"><div class="response-container-content"><div class="response-container">' +
        content +
        footer +
        "</div></div></div>";
  container.append(query, response);
  chatHistory.append(container);
  return response;
}

function newTurnState() {
  return { text: "", status: 0, complete: false, thoughts: null, citations: null, error: null };
}

function applyInner(state, inner) {
  if (!Array.isArray(inner)) return;
  if (Array.isArray(inner[1]) && typeof inner[1][0] === "string") conversation = [inner[1][0], inner[1][1] || "", conversation[2]];
  const candidate = Array.isArray(inner[4]) ? inner[4][0] : null;
  if (!Array.isArray(candidate)) return;
  if (typeof candidate[0] === "string") conversation[2] = candidate[0];
  let text = Array.isArray(candidate[1]) && typeof candidate[1][0] === "string" ? candidate[1][0] : state.text;
  if (CARD_PLACEHOLDER.test(text) && Array.isArray(candidate[22]) && typeof candidate[22][0] === "string") text = candidate[22][0];
  state.text = text;
  state.status = Array.isArray(candidate[8]) ? candidate[8][0] : state.status;
  const thoughts = candidate[37]?.[0]?.[0];
  if (typeof thoughts === "string") state.thoughts = thoughts;
  const citations = readCitations(candidate[2]);
  if (citations) state.citations = citations;
  if (state.status === 2) state.complete = true;
}

function applyFrame(state, frame) {
  if (!Array.isArray(frame)) return;
  for (const envelope of frame) {
    if (!Array.isArray(envelope) || envelope[0] !== "wrb.fr") continue;
    if (typeof envelope[2] === "string") {
      try {
        applyInner(state, JSON.parse(envelope[2]));
      } catch {
        // An inner payload that does not parse is skipped, like a frame that does not.
      }
    } else if (Array.isArray(envelope[5]) && !state.complete) {
      const code = envelope[5][2]?.[0]?.[1]?.[0];
      state.error = typeof code === "number" ? code : envelope[5][0];
    }
  }
}

function renderTurn(response, state, withChips) {
  const panel = response.querySelector(".markdown-main-panel");
  if (state.thoughts !== null && !response.querySelector("model-thoughts")) {
    const thoughts = document.createElement("model-thoughts");
    thoughts.innerHTML =
      '<button type="button" class="thoughts-header-button" aria-expanded="false">Show thinking</button><div class="thoughts-body" hidden><div class="markdown"></div></div>';
    thoughts.querySelector(".thoughts-header-button").addEventListener("click", (event) => {
      const body = thoughts.querySelector(".thoughts-body");
      body.hidden = !body.hidden;
      event.currentTarget.setAttribute("aria-expanded", String(!body.hidden));
    });
    response.querySelector(".response-content").before(thoughts);
    response.querySelector(".response-content").classList.add("has-thoughts");
  }
  const thoughtsBody = response.querySelector("model-thoughts .thoughts-body .markdown");
  if (thoughtsBody && state.thoughts !== null) thoughtsBody.innerHTML = renderBlocks(state.thoughts, () => "");
  let text = displayText(state.text, state.complete);
  const points = withChips && state.citations ? state.citations.points : [];
  // Insert chip markers from the last offset backwards so earlier offsets stay valid.
  points
    .map((point, index) => ({ point, index }))
    .sort((a, b) => b.point.offset - a.point.offset || b.index - a.index)
    .forEach(({ point, index }) => {
      text = text.slice(0, point.offset) + "\uE000" + index + "\uE001" + text.slice(point.offset);
    });
  panel.innerHTML = renderBlocks(text, (index) => {
    const point = points[index];
    return point ? "<sources-carousel-inline>" + point.sources.map(chipHtml).join("") + "</sources-carousel-inline>" : "";
  });
  for (const [index, carousel] of Array.from(panel.querySelectorAll("sources-carousel-inline")).entries()) {
    const sources = points.filter((p) => p.sources.length > 0)[index]?.sources || [];
    carousel.querySelectorAll("button").forEach((button) => {
      button.addEventListener("click", () =>
        LAYOUT.sources === "side-panel" ? openSidebar(state.citations.sources) : openSourcesDialog(sources),
      );
    });
  }
}

function renderSources(response, state) {
  const sources = state.citations ? state.citations.sources : [];
  if (sources.length === 0 || LAYOUT.sources === "dialog") return;
  if (LAYOUT.sources === "side-panel") {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "legacy-sources-sidebar-button";
    button.setAttribute("aria-label", "Sources");
    button.textContent = "Sources";
    button.addEventListener("click", () => openSidebar(sources));
    response.querySelector("message-actions").append(button);
    return;
  }
  const list = document.createElement("sources-list");
  list.className = "sources-list";
  list.innerHTML =
    '<div class="sources-list-header gds-title-m">Sources</div><div class="sources-list-items">' +
    sources.map(cardHtml).join("") +
    "</div>";
  response.querySelector(".response-footer").before(list);
}

function addFeedbackButtons(response) {
  response
    .querySelector("message-actions")
    .insertAdjacentHTML(
      "afterbegin",
      '<button type="button" aria-label="Good response" mattooltip="Good response"><mat-icon class="mat-icon">thumb_up</mat-icon></button>' +
        '<button type="button" aria-label="Bad response" mattooltip="Bad response"><mat-icon class="mat-icon">thumb_down</mat-icon></button>' +
        '<button type="button" aria-label="Copy response" mattooltip="Copy response"><mat-icon class="mat-icon">content_copy</mat-icon></button>',
    );
}

function showError(response, message) {
  const error = document.createElement("div");
  error.className = "response-error";
  error.setAttribute("role", "alert");
  error.textContent = message;
  response.querySelector(".response-content").append(error);
  const snackbar = document.createElement("div");
  snackbar.className = "snackbar";
  snackbar.setAttribute("role", "status");
  snackbar.textContent = message;
  document.body.append(snackbar);
  setTimeout(() => snackbar.remove(), 6000);
}

function setStreaming(on) {
  streaming = on;
  stopButton.hidden = !on;
  updateComposerState();
}

function requestBody(prompt) {
  const inner = new Array(69).fill(null);
  inner[0] = [prompt, 0, null, null, null, null, 0];
  inner[1] = [language];
  inner[2] = [conversation[0], conversation[1], conversation[2], null, null, null, null, null, null, ""];
  inner[3] = "!" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24))));
  inner[4] = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  inner[6] = [0];
  inner[7] = 1;
  inner[10] = 1;
  inner[11] = 0;
  inner[17] = [[0]];
  inner[18] = 0;
  inner[27] = 1;
  inner[30] = [4];
  inner[41] = [1];
  inner[53] = 0;
  inner[68] = 2;
  return "at=" + encodeURIComponent(wiz.SNlM0e || "") + "&f.req=" + encodeURIComponent(JSON.stringify([null, JSON.stringify(inner)])) + "&";
}

function requestUrl() {
  reqid += 100000;
  const url = new URL(endpoint);
  url.searchParams.set("bl", wiz.cfb2h || "");
  url.searchParams.set("f.sid", wiz.FdrFJe || "0");
  url.searchParams.set("hl", language);
  url.searchParams.set("_reqid", String(reqid));
  url.searchParams.set("rt", "c");
  return url.toString();
}

function requestHeaders() {
  return {
    "Content-Type": "application/x-www-form-urlencoded;charset=utf-8",
    "X-Same-Domain": "1",
    "x-goog-ext-525001261-jspb": JSON.stringify([1, null, null, null, mode.modelId, null, null, 0, [4], null, null, mode.tier]),
    "x-goog-ext-73010989-jspb": "[0]",
  };
}

/** Sends with XMLHttpRequest, feeding `onText` as the response text grows; resolves with {status, broken, aborted}. */
function sendWithXhr(url, headers, body, onText) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    let consumed = 0;
    const feed = () => {
      if (xhr.status !== 200) return;
      const text = xhr.responseText;
      if (text.length > consumed) {
        onText(text.slice(consumed));
        consumed = text.length;
      }
    };
    xhr.open("POST", url, true);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.onprogress = feed;
    xhr.onload = () => {
      feed();
      resolve({ status: xhr.status, broken: false, aborted: false });
    };
    xhr.onerror = () => {
      feed();
      resolve({ status: xhr.status, broken: true, aborted: false });
    };
    xhr.onabort = () => resolve({ status: xhr.status, broken: true, aborted: true });
    abortActive = () => xhr.abort();
    xhr.send(body);
  });
}

/** Sends with fetch and a stream reader; same contract as sendWithXhr. */
async function sendWithFetch(url, headers, body, onText) {
  const controller = new AbortController();
  abortActive = () => controller.abort();
  let status = 0;
  try {
    const response = await fetch(url, { method: "POST", credentials: "include", headers, body, signal: controller.signal });
    status = response.status;
    if (status !== 200 || !response.body) return { status, broken: false, aborted: false };
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onText(decoder.decode(value, { stream: true }));
    }
    onText(decoder.decode());
    return { status, broken: false, aborted: false };
  } catch {
    return { status, broken: true, aborted: controller.signal.aborted };
  }
}

const ERROR_MESSAGES = {
  1037: "You've reached your limit for now. Try again later.",
  1013: "Something went wrong. Try again in a moment.",
  1060: "Gemini isn't available in your location right now.",
  1152: "Something went wrong. Please verify it's you and try again.",
  8: "Something went wrong. (Invalid response)",
};

async function send() {
  const prompt = composerText();
  if (streaming || prompt === "") return;
  setMenuOpen(false);
  clearComposer();
  const response = appendTurn(prompt);
  const state = newTurnState();
  setStreaming(true);
  let renderScheduled = false;
  let finished = false;
  const scheduleRender = () => {
    if (renderScheduled) return;
    renderScheduled = true;
    setTimeout(() => {
      renderScheduled = false;
      // the final render below owns the panel once the body ended
      if (!finished) renderTurn(response, state, false);
    }, 16);
  };
  const reader = createFrameReader((frame) => applyFrame(state, frame));
  const transport = LAYOUT.transport === "xhr" ? sendWithXhr : sendWithFetch;
  const outcome = await transport(requestUrl(), requestHeaders(), requestBody(prompt), (text) => {
    reader.push(text);
    scheduleRender();
  });
  reader.end();
  finished = true;
  abortActive = null;

  const citations = state.citations;
  const delayMs = citations ? citations.delayMs : 0;
  if (outcome.status === 200 && state.complete) {
    renderTurn(response, state, delayMs === 0);
    if (delayMs === 0) renderSources(response, state);
  } else {
    renderTurn(response, state, false);
    if (!outcome.aborted) {
      const message =
        outcome.status !== 200 && outcome.status !== 0
          ? outcome.status === 401 || outcome.status === 403
            ? "You've been signed out. Sign in to continue."
            : "Something went wrong (" + outcome.status + ")."
          : state.error !== null
            ? ERROR_MESSAGES[state.error] || "Something went wrong (" + state.error + ")."
            : "Something went wrong. The response was interrupted.";
      showError(response, message);
    }
  }
  response.querySelector(".response-content").classList.remove("processing-state-visible");
  if (state.complete && outcome.status === 200) addFeedbackButtons(response);
  response.removeAttribute("aria-busy");
  setStreaming(false);
  if (outcome.status === 200 && state.complete && delayMs > 0) {
    // Sources render a moment after the text settled, as on the real site.
    setTimeout(() => {
      renderTurn(response, state, true);
      renderSources(response, state);
    }, delayMs);
  }
}
