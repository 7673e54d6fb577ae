// Browser script of the Grok replica's home page (inlined into the HTML by page.ts). It behaves like grok.com's own
// bundle where a scraper can observe it: it POSTs the JSON body of grok.md §3, consumes the answer with a stream
// reader (so network capture sees the same chunked NDJSON as on the real site), and renders the assistant bubble
// incrementally. Plain JS on purpose: it runs in the page as-is, without a build step.
// @ts-check
"use strict";

const MODES = [
  { id: "auto", label: "Auto" },
  { id: "fast", label: "Fast" },
  { id: "expert", label: "Expert" },
];

// Resolved once at load, relative to the page, so the same script works at "/" (real origin) and "/grok/" (replica).
const baseUrl = new URL("./", location.href);
const apiUrl = new URL("rest/app-chat/conversations/new", baseUrl).toString();

/** @param {string} selector */
function must(selector) {
  const el = document.querySelector(selector);
  if (!(el instanceof HTMLElement)) throw new Error("grok replica page: missing " + selector);
  return el;
}

// LAYOUT is defined by page.ts before this script: where this page's own elements are in the served layout.
/** @type {{composer: string, textarea: boolean, modeButton: string, modeLabel: string, modeMenu: string, modeItem: string, labels: string[]}} */
// @ts-expect-error -- injected by page.ts
const layout = LAYOUT;
const composer = must(layout.composer);
const form = must("form.query-bar");
const submitButton = /** @type {HTMLButtonElement} */ (must('form.query-bar button[type="submit"]'));
const stopButton = /** @type {HTMLButtonElement} */ (must('form.query-bar button[aria-label="Stop model response"]'));
const modeButton = /** @type {HTMLButtonElement} */ (must(layout.modeButton));
const modeLabel = must(layout.modeButton + " " + layout.modeLabel);
const modeMenu = must(layout.modeMenu);
const thread = must("#thread");
const toaster = must("#toaster");

let modeId = "auto";
let streaming = false;
/** @type {AbortController | null} */
let activeRequest = null;

// ---------------------------------------------------------------------------------------------------------------
// Composer

const EMPTY_COMPOSER =
  '<p class="is-empty is-editor-empty" data-placeholder="What do you want to know?"><br class="ProseMirror-trailingBreak"></p>';

function composerText() {
  if (composer instanceof HTMLTextAreaElement) return composer.value.trim();
  return composer.innerText.replace(/\u00a0/g, " ").trim();
}

/** @param {string} text */
function setComposerText(text) {
  if (composer instanceof HTMLTextAreaElement) {
    composer.value = text;
    return;
  }
  composer.textContent = "";
  for (const lineText of text.split("\n")) {
    const p = document.createElement("p");
    p.textContent = lineText;
    composer.append(p);
  }
}

function clearComposer() {
  if (composer instanceof HTMLTextAreaElement) {
    composer.value = "";
    return;
  }
  composer.innerHTML = EMPTY_COMPOSER;
}

composer.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void send();
  }
});
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void send();
});
stopButton.addEventListener("click", () => activeRequest?.abort());

// Deep link: ?q= fills the composer but, like the real site (as far as known), does not send.
const deepLinkPrompt = new URLSearchParams(location.search).get("q");
if (deepLinkPrompt) setComposerText(deepLinkPrompt);

// ---------------------------------------------------------------------------------------------------------------
// Mode picker

/** @param {boolean} open */
function setMenuOpen(open) {
  modeMenu.hidden = !open;
  modeButton.setAttribute("aria-expanded", String(open));
  modeButton.dataset.state = open ? "open" : "closed";
}

// Menu items are in MODES order: the page knows an item's mode by its position, as a framework would by its data.
function menuItems() {
  return [...modeMenu.querySelectorAll(layout.modeItem)].filter((item) => item instanceof HTMLElement);
}

function renderModeMenu() {
  const index = MODES.findIndex((m) => m.id === modeId);
  menuItems().forEach((item, position) => {
    const checked = position === index;
    item.setAttribute("aria-checked", String(checked));
    item.dataset.state = checked ? "checked" : "unchecked";
  });
  modeLabel.textContent = layout.labels[index] ?? "Auto";
}

modeButton.addEventListener("click", (event) => {
  event.stopPropagation();
  setMenuOpen(modeButton.getAttribute("aria-expanded") !== "true");
});
modeMenu.addEventListener("click", (event) => {
  const target = event.target instanceof Element ? event.target.closest(layout.modeItem) : null;
  const mode = target instanceof HTMLElement ? MODES[menuItems().indexOf(target)] : undefined;
  if (mode === undefined) return;
  event.stopPropagation();
  modeId = mode.id;
  renderModeMenu();
  setMenuOpen(false);
  composer.focus();
});
document.addEventListener("click", (event) => {
  if (!modeMenu.hidden && event.target instanceof Node && !modeMenu.contains(event.target)) setMenuOpen(false);
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !modeMenu.hidden) setMenuOpen(false);
});
renderModeMenu();

// ---------------------------------------------------------------------------------------------------------------
// Notifications and login wall

/**
 * @param {string} message
 * @param {number | null} status
 */
function showError(message, status) {
  const toast = document.createElement("div");
  toast.className = "toast toast-error";
  toast.setAttribute("role", "alert");
  toast.dataset.type = "error";
  if (status !== null) toast.dataset.status = String(status);
  toast.textContent = message;
  toaster.append(toast);
}

function showLoginWall() {
  if (document.querySelector('[role="dialog"].login-modal')) return;
  const template = document.getElementById("login-wall-template");
  if (template instanceof HTMLTemplateElement) document.body.append(template.content.cloneNode(true));
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown (enough of it for the replica's answers: fences, headings, lists, tables, quotes, emphasis, links)

/** @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/** @param {string} url */
function hostLabel(url) {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}

/**
 * @typedef {{ url: string, cardType: string }} Card
 * @typedef {{ url: string, cardId: string }} Citation
 */

/**
 * Turns Grok's answer markup into plain markdown plus citation placeholders: citation tags whose card is known become
 * links, unknown cards and image cards disappear, artifact wrappers are unwrapped.
 * @param {string} text
 * @param {Map<string, Card>} cards
 * @param {boolean} partial true while streaming: a tag still being received is hidden until it is complete
 * @returns {{ markdown: string, citations: Citation[] }}
 */
function prepareAnswer(text, cards, partial) {
  /** @type {Citation[]} */
  const citations = [];
  let markdown = text.replace(/<grok:render\b([^>]*)>[\s\S]*?<\/grok:render>/g, (_tag, attrs) => {
    const cardId = /card_id="([^"]*)"/.exec(attrs)?.[1] ?? "";
    const cardType = /card_type="([^"]*)"/.exec(attrs)?.[1] ?? "";
    const card = cards.get(cardId);
    if (cardType !== "citation_card" || !card) return "";
    citations.push({ url: card.url, cardId });
    return "\uE000" + (citations.length - 1) + "\uE001";
  });
  markdown = markdown.replace(/<xaiArtifact\b[^>]*>\n?/g, "").replace(/\n?<\/xaiArtifact>/g, "");
  if (partial) {
    markdown = markdown.replace(/<grok:render\b[\s\S]*$/, "").replace(/<xaiArtifact\b[^>]*$/, "");
    const lastOpen = markdown.lastIndexOf("<");
    if (lastOpen >= 0 && !markdown.includes(">", lastOpen) && /^<\/?[A-Za-z:]*$/.test(markdown.slice(lastOpen))) {
      markdown = markdown.slice(0, lastOpen);
    }
  }
  return { markdown, citations };
}

/**
 * @param {string} text
 * @param {Citation[]} citations
 */
function renderInline(text, citations) {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, index) => {
      if (index % 2 === 1) return "<code>" + escapeHtml(part.slice(1, -1)) + "</code>";
      /** @type {string[]} */
      const links = [];
      let html = escapeHtml(part).replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+(?:\([^\s)]*\))?[^\s)]*)\)/g, (_m, label, href) => {
        links.push('<a href="' + href + '" target="_blank" rel="noopener noreferrer">' + label + "</a>");
        return "\uE002" + (links.length - 1) + "\uE003";
      });
      html = html
        .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
        .replace(/__(?=\S)([\s\S]*?\S)__/g, "<strong>$1</strong>")
        .replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\*)/g, "$1<em>$2</em>")
        .replace(/(^|[\s(])_(?=\S)([^_]*?\S)_(?=$|[\s).,!?:;])/g, "$1<em>$2</em>")
        .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<del>$1</del>");
      html = html.replace(/\uE002(\d+)\uE003/g, (_m, i) => links[Number(i)] ?? "");
      return html.replace(/\uE000(\d+)\uE001/g, (_m, i) => {
        const citation = citations[Number(i)];
        if (!citation) return "";
        const href = escapeHtml(citation.url);
        return (
          '<a class="citation inline-flex" href="' +
          href +
          '" data-card-id="' +
          escapeHtml(citation.cardId) +
          '" target="_blank" rel="noopener noreferrer">' +
          escapeHtml(hostLabel(citation.url)) +
          "</a>"
        );
      });
    })
    .join("");
}

const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)\s*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

/** @param {string} line */
function indentOf(line) {
  return (/^\s*/.exec(line)?.[0] ?? "").length;
}

/** @param {string} row */
function tableCells(row) {
  return row
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((cell) => cell.trim());
}

/**
 * @param {string[]} lines
 * @param {number} i
 */
function isTableStart(lines, i) {
  const head = lines[i] ?? "";
  const divider = lines[i + 1] ?? "";
  return head.includes("|") && divider.includes("-") && TABLE_DIVIDER.test(divider);
}

/** @param {string} line */
function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || /^\s*>/.test(line) || LIST_ITEM.test(line);
}

/**
 * @param {string} source
 * @param {Citation[]} citations
 * @returns {string}
 */
function renderBlocks(source, citations) {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  /** @type {string[]} */
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] ?? "```";
      // Grok labels some fences "x-<lang>src" (e.g. x-pythonsrc); show them as the plain language.
      const lang = (fence[2] ?? "").replace(/^x-(.+)src$/, "$1");
      /** @type {string[]} */
      const code = [];
      i += 1;
      while (i < lines.length && !new RegExp("^\\s*" + marker[0] + "{" + marker.length + ",}\\s*$").test(lines[i] ?? "")) {
        code.push(lines[i] ?? "");
        i += 1;
      }
      i += 1;
      const cls = lang ? ' class="language-' + escapeHtml(lang) + '"' : "";
      out.push("<pre><code" + cls + ">" + escapeHtml(code.join("\n")) + "</code></pre>");
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = (heading[1] ?? "#").length;
      out.push("<h" + level + ">" + renderInline(heading[2] ?? "", citations) + "</h" + level + ">");
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      out.push("<hr>");
      i += 1;
      continue;
    }
    if (/^\s*>/.test(line)) {
      /** @type {string[]} */
      const quoted = [];
      while (i < lines.length && /^\s*>/.test(lines[i] ?? "")) {
        quoted.push((lines[i] ?? "").replace(/^\s*> ?/, ""));
        i += 1;
      }
      out.push("<blockquote>" + renderBlocks(quoted.join("\n"), citations) + "</blockquote>");
      continue;
    }
    if (isTableStart(lines, i)) {
      const header = tableCells(line);
      const aligns = tableCells(lines[i + 1] ?? "").map((cell) =>
        cell.startsWith(":") && cell.endsWith(":") ? "center" : cell.endsWith(":") ? "right" : cell.startsWith(":") ? "left" : "",
      );
      /** @param {string} cell @param {number} index @param {string} tag */
      const cellHtml = (cell, index, tag) => {
        const align = aligns[index] ? ' style="text-align:' + aligns[index] + '"' : "";
        return "<" + tag + align + ">" + renderInline(cell, citations) + "</" + tag + ">";
      };
      i += 2;
      /** @type {string[]} */
      const rows = [];
      while (i < lines.length && (lines[i] ?? "").includes("|") && (lines[i] ?? "").trim() !== "") {
        rows.push(
          "<tr>" +
            tableCells(lines[i] ?? "")
              .map((c, x) => cellHtml(c, x, "td"))
              .join("") +
            "</tr>",
        );
        i += 1;
      }
      out.push(
        '<div class="table-container"><table><thead><tr>' +
          header.map((c, x) => cellHtml(c, x, "th")).join("") +
          "</tr></thead><tbody>" +
          rows.join("") +
          "</tbody></table></div>",
      );
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const indent = (item[1] ?? "").length;
      const ordered = /\d/.test(item[2] ?? "");
      const start = ordered ? parseInt(item[2] ?? "1", 10) : 1;
      /** @type {string[][]} */
      const items = [];
      let loose = false;
      while (i < lines.length) {
        const current = lines[i] ?? "";
        if (current.trim() === "") {
          const next = lines[i + 1] ?? "";
          const nextItem = LIST_ITEM.exec(next);
          if (next.trim() !== "" && (indentOf(next) > indent || (nextItem && (nextItem[1] ?? "").length === indent))) {
            loose = true;
            items[items.length - 1]?.push("");
            i += 1;
            continue;
          }
          break;
        }
        const match = LIST_ITEM.exec(current);
        if (match && (match[1] ?? "").length === indent && /\d/.test(match[2] ?? "") === ordered) {
          items.push([match[3] ?? ""]);
        } else if (indentOf(current) > indent && items.length > 0) {
          items[items.length - 1]?.push(current.slice(Math.min(indentOf(current), indent + 2)));
        } else {
          break;
        }
        i += 1;
      }
      const tag = ordered ? "ol" : "ul";
      const startAttr = ordered && start !== 1 ? ' start="' + start + '"' : "";
      const body = items
        .map((itemLines) => {
          let html = renderBlocks(itemLines.join("\n"), citations);
          if (!loose) html = html.replace(/^<p>([\s\S]*?)<\/p>/, "$1");
          return "<li>" + html + "</li>";
        })
        .join("");
      out.push("<" + tag + startAttr + ">" + body + "</" + tag + ">");
      continue;
    }
    /** @type {string[]} */
    const paragraph = [];
    while (i < lines.length) {
      const current = lines[i] ?? "";
      if (current.trim() === "" || (paragraph.length > 0 && (startsBlock(current) || isTableStart(lines, i)))) break;
      paragraph.push(current.trim());
      i += 1;
    }
    out.push("<p>" + renderInline(paragraph.join("\n"), citations) + "</p>");
  }
  return out.join("\n");
}

/**
 * @param {string} text
 * @param {Map<string, Card>} cards
 * @param {boolean} partial
 */
function renderAnswerHtml(text, cards, partial) {
  const { markdown, citations } = prepareAnswer(text, cards, partial);
  return renderBlocks(markdown, citations);
}

// ---------------------------------------------------------------------------------------------------------------
// Sending and consuming the NDJSON stream

function uuid() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  // crypto.randomUUID needs a secure context; the replica may be reached over plain http on a non-local host.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
}

/** Stand-in for the real page's time-bound anti-bot token: the replica only checks that one is present. */
function statsigId() {
  const bytes = crypto.getRandomValues(new Uint8Array(48));
  const stamp = Math.floor(Date.now() / 1000).toString(16);
  return btoa(String.fromCharCode(...bytes) + stamp);
}

/** @param {string} prompt */
function requestBody(prompt) {
  return {
    temporary: false,
    modeId,
    message: prompt,
    fileAttachments: [],
    imageAttachments: [],
    disableSearch: false,
    enableImageGeneration: true,
    returnImageBytes: false,
    returnRawGrokInXaiRequest: false,
    enableImageStreaming: true,
    imageGenerationCount: 2,
    forceConcise: false,
    enableSideBySide: true,
    sendFinalMetadata: true,
    disableTextFollowUps: false,
    responseMetadata: {},
    disableMemory: false,
    forceSideBySide: false,
    isAsyncChat: false,
    disableSelfHarmShortCircuit: false,
    collectionIds: [],
    disabledConnectorIds: [],
    deviceEnvInfo: {
      darkModeEnabled: matchMedia("(prefers-color-scheme: dark)").matches,
      devicePixelRatio: window.devicePixelRatio,
      screenWidth: screen.width,
      screenHeight: screen.height,
      viewportWidth: window.innerWidth,
      viewportHeight: window.innerHeight,
    },
  };
}

/** @param {string} prompt */
function appendUserRow(prompt) {
  const row = document.createElement("div");
  row.className = "message-row relative group flex flex-col justify-center w-full items-end";
  const bubble = document.createElement("div");
  bubble.className = "message-bubble user-bubble";
  const span = document.createElement("span");
  span.className = "whitespace-pre-wrap";
  span.textContent = prompt;
  bubble.append(span);
  row.append(bubble);
  thread.append(row);
}

function appendAssistantRow() {
  const row = document.createElement("div");
  row.className = "message-row relative group flex flex-col w-full items-start";
  row.innerHTML =
    '<div class="message-bubble assistant-bubble">' +
    '<div class="thinking-container" hidden><button type="button" class="thinking-toggle" aria-expanded="false">Thinking</button>' +
    '<div class="thinking-content"><div class="response-content-markdown markdown"></div></div></div>' +
    '<div class="response-content-markdown markdown"></div>' +
    '<div class="typing-indicator" aria-label="Grok is typing"><span></span><span></span><span></span></div>' +
    "</div>";
  thread.append(row);
  const thinkingToggle = row.querySelector(".thinking-toggle");
  thinkingToggle?.addEventListener("click", () => {
    const container = row.querySelector(".thinking-container");
    const open = container?.classList.toggle("open") ?? false;
    thinkingToggle.setAttribute("aria-expanded", String(open));
  });
  row.scrollIntoView({ block: "end" });
  return row;
}

/**
 * Everything the page has learned from the stream so far.
 * @typedef {{
 *   thinking: string, answer: string, finalMessage: string | null, cards: Map<string, Card>,
 *   followUps: string[], conversationId: string | null, title: string | null, error: string | null,
 *   startedAt: number, thinkingEndedAt: number | null
 * }} StreamState
 */

/** @returns {StreamState} */
function newStreamState() {
  return {
    thinking: "",
    answer: "",
    finalMessage: null,
    cards: new Map(),
    followUps: [],
    conversationId: null,
    title: null,
    error: null,
    startedAt: Date.now(),
    thinkingEndedAt: null,
  };
}

/**
 * @param {StreamState} state
 * @param {string} jsonData
 */
function addCard(state, jsonData) {
  try {
    const card = JSON.parse(jsonData);
    if (card && typeof card.id === "string" && typeof card.url === "string") {
      state.cards.set(card.id, { url: card.url, cardType: String(card.cardType ?? "") });
    }
  } catch {
    // A card that does not parse is simply not linkable.
  }
}

/**
 * Applies one NDJSON line. Unknown keys are ignored, as on the real site.
 * @param {StreamState} state
 * @param {string} line
 */
function applyLine(state, line) {
  if (line.trim() === "") return;
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return; // A broken line is skipped; the rest of the stream is still usable.
  }
  if (!value || typeof value !== "object") return;
  if (value.error) {
    state.error = String(value.error.message ?? "Something went wrong.");
    return;
  }
  const result = value.result;
  if (!result || typeof result !== "object") return;
  if (result.conversation) state.conversationId = String(result.conversation.conversationId ?? "");
  if (result.title && typeof result.title.newTitle === "string") {
    state.title = result.title.newTitle;
    document.title = result.title.newTitle + " - Grok";
  }
  // Older follow-up builds put the response fields directly under `result`.
  const response = result.response && typeof result.response === "object" ? result.response : result;
  if (response.error) state.error = String(response.error.message ?? "Something went wrong.");
  if (typeof response.token === "string") {
    if (response.isThinking === true) state.thinking += response.token;
    else if (response.messageTag === undefined || response.messageTag === "final") {
      if (state.thinkingEndedAt === null) state.thinkingEndedAt = Date.now();
      state.answer += response.token;
    }
  }
  if (response.cardAttachment && typeof response.cardAttachment.jsonData === "string") addCard(state, response.cardAttachment.jsonData);
  const suggestions = response.finalMetadata?.followUpSuggestions;
  if (Array.isArray(suggestions)) state.followUps = suggestions.map((s) => String(s?.label ?? "")).filter(Boolean);
  const model = response.modelResponse;
  if (model && typeof model === "object") {
    state.finalMessage = typeof model.message === "string" ? model.message : "";
    if (Array.isArray(model.cardAttachmentsJson)) {
      for (const json of model.cardAttachmentsJson) if (typeof json === "string") addCard(state, json);
    }
  }
}

/**
 * @param {HTMLElement} row
 * @param {StreamState} state
 * @param {boolean} partial
 */
function renderRow(row, state, partial) {
  const thinkingContainer = row.querySelector(".thinking-container");
  const thinkingBody = row.querySelector(".thinking-content .response-content-markdown");
  if (thinkingContainer instanceof HTMLElement && thinkingBody && state.thinking !== "") {
    thinkingContainer.hidden = false;
    thinkingBody.innerHTML = renderAnswerHtml(state.thinking, new Map(), partial);
    const toggle = thinkingContainer.querySelector(".thinking-toggle");
    const ended = state.thinkingEndedAt ?? (partial ? null : Date.now());
    if (toggle)
      toggle.textContent = ended === null ? "Thinking…" : "Thought for " + Math.max(1, Math.round((ended - state.startedAt) / 1000)) + "s";
  }
  const answerBody = row.querySelector(".message-bubble > .response-content-markdown");
  const text = state.finalMessage ?? state.answer;
  if (answerBody) answerBody.innerHTML = renderAnswerHtml(text, state.cards, partial && state.finalMessage === null);
}

/**
 * @param {HTMLElement} row
 * @param {StreamState} state
 */
function addActionButtons(row, state) {
  const actions = document.createElement("div");
  actions.className = "action-buttons flex flex-row items-center gap-1";
  actions.innerHTML =
    '<button type="button" aria-label="Copy" class="action-button">Copy</button>' +
    '<button type="button" aria-label="Regenerate" class="action-button">Regenerate</button>' +
    '<button type="button" aria-label="Like" class="action-button">Like</button>' +
    '<button type="button" aria-label="Dislike" class="action-button">Dislike</button>';
  actions.querySelector('[aria-label="Copy"]')?.addEventListener("click", () => {
    const markdown = row.querySelector(".message-bubble > .response-content-markdown");
    navigator.clipboard?.writeText(markdown instanceof HTMLElement ? markdown.innerText : "").catch(() => {});
  });
  row.append(actions);
  if (state.followUps.length > 0) {
    const followUps = document.createElement("div");
    followUps.className = "follow-up-suggestions";
    for (const label of state.followUps) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "follow-up-suggestion";
      button.textContent = label;
      button.addEventListener("click", () => {
        setComposerText(label);
        void send();
      });
      followUps.append(button);
    }
    row.append(followUps);
  }
}

/** @param {boolean} on */
function setStreaming(on) {
  streaming = on;
  submitButton.disabled = on;
  submitButton.hidden = on;
  stopButton.hidden = !on;
}

/**
 * @param {Response} response
 */
async function errorMessageOf(response) {
  try {
    const body = await response.json();
    const message = body?.error?.message ?? body?.message;
    if (typeof message === "string" && message !== "") return message;
  } catch {
    // Not JSON (e.g. an HTML challenge page): fall through to a generic message.
  }
  if (response.status === 429) return "You have reached your limit. Please try again later.";
  return "Something went wrong (HTTP " + response.status + "). Please try again.";
}

async function send() {
  const prompt = composerText();
  if (streaming || prompt === "") return;
  setMenuOpen(false);
  clearComposer();
  appendUserRow(prompt);
  const row = appendAssistantRow();
  const state = newStreamState();
  const controller = new AbortController();
  activeRequest = controller;
  setStreaming(true);

  let renderScheduled = false;
  const scheduleRender = () => {
    if (renderScheduled) return;
    renderScheduled = true;
    setTimeout(() => {
      renderScheduled = false;
      renderRow(row, state, true);
    }, 16);
  };

  let completed = false;
  let stopped = false;
  try {
    const response = await fetch(apiUrl, {
      method: "POST",
      credentials: "include",
      headers: { "content-type": "application/json", "x-xai-request-id": uuid(), "x-statsig-id": statsigId() },
      body: JSON.stringify(requestBody(prompt)),
      signal: controller.signal,
    });
    if (!response.ok || !response.body) {
      if (response.status === 401) showLoginWall();
      state.error = await errorMessageOf(response);
      showError(state.error, response.status);
    } else {
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffered = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // stream:true keeps a UTF-8 sequence split across chunks until its last byte arrives.
        buffered += decoder.decode(value, { stream: true });
        let newline = buffered.indexOf("\n");
        while (newline >= 0) {
          applyLine(state, buffered.slice(0, newline));
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf("\n");
        }
        scheduleRender();
      }
      buffered += decoder.decode();
      applyLine(state, buffered);
      if (state.error !== null) showError(state.error, response.status);
      else if (state.finalMessage === null) showError("The response ended unexpectedly. Please try again.", response.status);
      else completed = true;
    }
  } catch {
    if (controller.signal.aborted) stopped = true;
    else showError("Network error: the connection was interrupted. Please try again.", null);
  } finally {
    row.querySelector(".typing-indicator")?.remove();
    renderRow(row, state, !completed);
    if (completed || stopped) addActionButtons(row, state);
    activeRequest = null;
    setStreaming(false);
  }
}
