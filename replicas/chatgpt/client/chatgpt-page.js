// Browser script of the ChatGPT replica's home page (inlined into the HTML by page.ts, after `const SETTINGS = {build,
// loginWall}`). It behaves like chatgpt.com's bundle where a scraper can observe it: the deep link `?q=` fills the
// composer and sends (`&hints=search` forces web search), the page calls the sentinel, then POSTs the conversation body
// of chatgpt.md §3 and consumes the `text/event-stream` answer with a stream reader (so network capture sees the same
// chunks), applying the v1 deltas (or the old snapshots) and rendering the answer incrementally; markers become
// citation pills. Plain JS on purpose: it runs in the page as-is, without a build step.
// @ts-check
"use strict";

/**
 * @typedef {{ apiRoot: string, conversationPath: string, sentinel: "single" | "split", conduit: boolean, offersV1: boolean,
 *   markup: { turnClass: string, wrappers: string[], messageClass: string, markdownClass: string, actionsClass: string,
 *   copyLabel: string, pill: "wrapped" | "bare", pillClass: string } }} Build
 * @typedef {{ [key: string]: any }} Json
 */

/**
 * @typedef {{ build: number, pillsLateMs: number | null, sourcesLateMs: number | null, panelBatches: number, model: string,
 *   hintsWithoutSearch: "empty" | "absent", historyField: boolean, userCopyButton: boolean, copyLabel: string | null }} Variant
 */

/** @type {{ build: Build, loginWall: boolean, variant?: Variant }} */
// @ts-expect-error SETTINGS is declared by the page right before this script.
const settings = SETTINGS;
const build = settings.build;
const markup = build.markup;
/** A fuzzed page load's own choices (replicas/chatgpt/variation.ts); null on an ordinary page. */
const variant = settings.variant ?? null;
const copyLabel = variant?.copyLabel ?? markup.copyLabel;
/** Whether the citation pills of the answer being shown may render (late_lists: they may come after the answer). */
let pillsShown = true;

// Resolved relative to the page, so the same script works at "/" (real origin) and "/chatgpt/" (replica).
const siteRoot = new URL("./", location.href);
const api = (/** @type {string} */ path) => new URL(`${build.apiRoot}/${path}`, siteRoot).toString();

const form = must("form.composer");
const sendButton = /** @type {HTMLButtonElement} */ (must('button[data-testid="send-button"]'));
const stopButton = /** @type {HTMLButtonElement} */ (must('button[data-testid="stop-button"]'));
const thread = must("#thread");
const proseMirror = document.getElementById("prompt-textarea");
const plainTextarea = /** @type {HTMLTextAreaElement | null} */ (
  document.querySelector('form.composer textarea[placeholder="Ask anything"]')
);

/** @param {string} selector */
function must(selector) {
  const el = document.querySelector(selector);
  if (!(el instanceof HTMLElement)) throw new Error(`chatgpt replica page: missing ${selector}`);
  return el;
}

let streaming = false;
let turnCount = 0;
let systemHints = /** @type {string[]} */ ([]);
/** @type {string | null} */
let conversationId = null;
/** @type {AbortController | null} */
let activeRequest = null;

// ---------------------------------------------------------------------------------------------------------------
// Composer

/** The composer the user types in: the ProseMirror div, or the textarea of builds without it. */
function usesProseMirror() {
  return proseMirror !== null && proseMirror.offsetParent !== null;
}

function composerText() {
  if (usesProseMirror() && proseMirror) return proseMirror.innerText.replace(/\u00a0/g, " ").trim();
  return (plainTextarea?.value ?? "").trim();
}

/** @param {string} text */
function setComposerText(text) {
  if (usesProseMirror() && proseMirror) {
    proseMirror.textContent = "";
    for (const lineText of text.split("\n")) {
      const p = document.createElement("p");
      p.textContent = lineText;
      proseMirror.append(p);
    }
  } else if (plainTextarea) {
    plainTextarea.value = text;
  }
  updateSendButton();
}

function clearComposer() {
  if (usesProseMirror() && proseMirror) {
    proseMirror.innerHTML = '<p data-placeholder="Ask anything" class="placeholder"><br class="ProseMirror-trailingBreak"></p>';
  } else if (plainTextarea) {
    plainTextarea.value = "";
  }
  updateSendButton();
}

function updateSendButton() {
  sendButton.disabled = streaming || composerText() === "";
  if (usesProseMirror() && proseMirror) {
    const first = proseMirror.querySelector("p");
    if (first) first.classList.toggle("placeholder", composerText() === "");
  }
}

for (const input of [proseMirror, plainTextarea]) {
  if (!input) continue;
  input.addEventListener("input", updateSendButton);
  input.addEventListener("keydown", (event) => {
    if (!(event instanceof KeyboardEvent)) return;
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send(composerText());
    }
  });
}
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void send(composerText());
});
stopButton.addEventListener("click", () => activeRequest?.abort());

// ---------------------------------------------------------------------------------------------------------------
// Login modal, notices

function showLoginModal() {
  if (document.querySelector('[role="dialog"][aria-modal="true"]')) return;
  const template = document.getElementById("login-modal-template");
  if (template instanceof HTMLTemplateElement) document.body.append(template.content.cloneNode(true));
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown (enough for the replica's answers: fences, headings, lists, tables, quotes, emphasis, links, pills)

/** @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/**
 * @typedef {{ url: string, label: string, extra: number }} Pill
 */

/** @param {Pill} pill */
function pillHtml(pill) {
  const anchor =
    '<a href="' +
    escapeHtml(pill.url) +
    '" target="_blank" rel="noopener" class="' +
    escapeHtml(markup.pillClass) +
    '"><span class="max-w-[15ch] grow truncate overflow-hidden text-center">' +
    escapeHtml(pill.label) +
    "</span></a>";
  const extra = pill.extra > 0 ? `<span class="-ms-1 text-token-text-tertiary">+${pill.extra}</span>` : "";
  if (markup.pill === "bare") return anchor + extra;
  return (
    '<span class="" data-state="closed"><span class="ms-1 inline-flex max-w-full items-center relative">' +
    anchor +
    extra +
    "</span></span>"
  );
}

/**
 * @param {string} text
 * @param {Pill[]} pills
 */
function renderInline(text, pills) {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, index) => {
      if (index % 2 === 1) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      /** @type {string[]} */
      const links = [];
      let html = escapeHtml(part).replace(/\[([^\]]+)\]\((https?:\/\/[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)\)/g, (_m, label, href) => {
        links.push(`<a href="${href}" target="_blank" rel="noopener">${label}</a>`);
        return `\uE002${links.length - 1}\uE003`;
      });
      html = html
        .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
        .replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\*)/g, "$1<em>$2</em>")
        .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "<del>$1</del>");
      html = html.replace(/\uE002(\d+)\uE003/g, (_m, i) => links[Number(i)] ?? "");
      return html.replace(/\uE000(\d+)\uE001/g, (_m, i) => {
        const pill = pills[Number(i)];
        return pill ? pillHtml(pill) : "";
      });
    })
    .join("");
}

const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)\s*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

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
 * @param {Pill[]} pills
 * @returns {string}
 */
function renderBlocks(source, pills) {
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
      const lang = fence[2] ?? "";
      /** @type {string[]} */
      const code = [];
      i += 1;
      while (i < lines.length && !new RegExp(`^\\s*${marker[0]}{${marker.length},}\\s*$`).test(lines[i] ?? "")) {
        code.push(lines[i] ?? "");
        i += 1;
      }
      i += 1;
      // the site shows the language and a "Copy code" button above each block (they end up in innerText)
      out.push(
        '<pre class="overflow-visible!"><div class="contain-inline-size rounded-2xl relative"><div class="code-header"><span>' +
          escapeHtml(lang) +
          '</span><button type="button" class="copy-code">Copy code</button></div><div class="overflow-y-auto p-4" dir="ltr"><code class="whitespace-pre!' +
          (lang ? ` language-${escapeHtml(lang)}` : "") +
          '">' +
          escapeHtml(code.join("\n")) +
          "</code></div></div></pre>",
      );
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = (heading[1] ?? "#").length;
      out.push(`<h${level}>${renderInline(heading[2] ?? "", pills)}</h${level}>`);
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
      out.push(`<blockquote>${renderBlocks(quoted.join("\n"), pills)}</blockquote>`);
      continue;
    }
    if (isTableStart(lines, i)) {
      const header = tableCells(line);
      i += 2;
      /** @type {string[]} */
      const rows = [];
      while (i < lines.length && (lines[i] ?? "").includes("|") && (lines[i] ?? "").trim() !== "") {
        rows.push(
          "<tr>" +
            tableCells(lines[i] ?? "")
              .map((cell) => `<td>${renderInline(cell, pills)}</td>`)
              .join("") +
            "</tr>",
        );
        i += 1;
      }
      out.push(
        '<div class="_tableContainer_1rjym_1"><table class="min-w-full"><thead><tr>' +
          header.map((cell) => `<th>${renderInline(cell, pills)}</th>`).join("") +
          "</tr></thead><tbody>" +
          rows.join("") +
          "</tbody></table></div>",
      );
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2] ?? "");
      /** @type {string[]} */
      const items = [];
      while (i < lines.length) {
        const match = LIST_ITEM.exec(lines[i] ?? "");
        if (!match || /\d/.test(match[2] ?? "") !== ordered) break;
        items.push(`<li>${renderInline(match[3] ?? "", pills)}</li>`);
        i += 1;
      }
      out.push((ordered ? "<ol>" : "<ul>") + items.join("") + (ordered ? "</ol>" : "</ul>"));
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
    out.push(`<p>${renderInline(paragraph.join("\n"), pills)}</p>`);
  }
  return out.join("\n");
}

/**
 * The answer text with its markers resolved for display: citations become pills, other references their `alt`,
 * unknown or unfinished markers nothing.
 * @param {string} text
 * @param {Json[]} references
 * @param {boolean} partial
 */
function renderAnswerHtml(text, references, partial) {
  /** @type {Pill[]} */
  const pills = [];
  /** @type {Map<string, Json>} */
  const byMarker = new Map();
  for (const reference of references) {
    if (reference && typeof reference.matched_text === "string" && reference.matched_text.trim() !== "")
      byMarker.set(reference.matched_text, reference);
  }
  let markdown = text.replace(/\ue200[^\ue200\ue201]*\ue201/g, (marker) => {
    const reference = byMarker.get(marker);
    if (!reference) return "";
    const items = Array.isArray(reference.items) ? reference.items : [];
    if (reference.type === "grouped_webpages" && items.length > 0 && typeof items[0]?.url === "string") {
      if (!pillsShown) return "";
      pills.push({ url: items[0].url, label: String(items[0].attribution ?? items[0].title ?? ""), extra: items.length - 1 });
      return `\uE000${pills.length - 1}\uE001`;
    }
    return typeof reference.alt === "string" && reference.alt !== "" ? reference.alt : String(reference.prompt_text ?? "");
  });
  if (partial) markdown = markdown.replace(/\ue200[^\ue201]*$/, "");
  markdown = markdown.replace(/[\ue200-\ue206]/g, "");
  return renderBlocks(markdown, pills);
}

// ---------------------------------------------------------------------------------------------------------------
// Turns

/**
 * @param {"user" | "assistant"} role
 * @returns {{ section: HTMLElement, message: HTMLElement, column: HTMLElement }}
 */
function appendTurn(role) {
  turnCount += 1;
  const section = document.createElement("section");
  section.setAttribute("data-testid", `conversation-turn-${turnCount}`);
  section.setAttribute("data-turn", role);
  section.className = markup.turnClass;
  section.setAttribute("dir", "auto");
  const heading = document.createElement("h4");
  heading.className = "sr-only select-none";
  heading.textContent = role === "user" ? "You said:" : "ChatGPT said:";
  section.append(heading);
  let parent = /** @type {HTMLElement} */ (section);
  for (const wrapperClass of markup.wrappers) {
    const wrapper = document.createElement("div");
    wrapper.className = wrapperClass;
    parent.append(wrapper);
    parent = wrapper;
  }
  const message = document.createElement("div");
  message.setAttribute("data-message-author-role", role);
  message.className = markup.messageClass;
  parent.append(message);
  thread.append(section);
  return { section, message, column: parent };
}

/**
 * @param {HTMLElement} column
 * @param {string} prompt
 */
function addActions(column, prompt) {
  const actions = document.createElement("div");
  actions.className = `${markup.actionsClass} turn-actions`;
  const copy = document.createElement("button");
  copy.type = "button";
  copy.setAttribute("data-testid", "copy-turn-action-button");
  copy.setAttribute("aria-label", copyLabel);
  copy.className = "text-token-text-secondary hover:bg-token-bg-secondary rounded-lg";
  copy.textContent = copyLabel;
  copy.addEventListener("click", () => navigator.clipboard?.writeText(prompt).catch(() => {}));
  actions.append(copy);
  column.append(actions);
}

/**
 * The footnote pill under a finished answer and the sources panel it opens.
 * @param {HTMLElement} column
 * @param {Json[]} references
 */
function addSources(column, references) {
  /** @type {Map<string, Json>} */
  const sources = new Map();
  for (const reference of references) {
    const items = reference?.type === "sources_footnote" ? reference.sources : reference?.items;
    for (const item of Array.isArray(items) ? items : []) if (typeof item?.url === "string") sources.set(item.url, item);
  }
  if (sources.size === 0) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "group/footnote flex w-fit items-center gap-1.5 rounded-3xl px-3 py-1.5";
  button.textContent = "Sources";
  column.append(button);
  button.addEventListener("click", () => {
    const open = document.querySelector('section[screen-anchor="top"]');
    if (open) {
      open.remove();
      return;
    }
    const panel = document.createElement("section");
    panel.setAttribute("screen-anchor", "top");
    panel.innerHTML = '<div slot="header"><h2>Sources</h2></div><div slot="content"></div>';
    const content = panel.querySelector('div[slot="content"]');
    const entries = [...sources.values()];
    const batches = Math.max(1, Math.min(variant?.panelBatches ?? 1, entries.length));
    const perBatch = Math.ceil(entries.length / batches);
    // late_lists: the panel may fill in batches, as a list that loads its favicons and snippets does
    for (let batch = 0; batch < batches; batch += 1) {
      const slice = entries.slice(batch * perBatch, (batch + 1) * perBatch);
      if (batch === 0) appendSourceLinks(content, slice);
      else setTimeout(() => appendSourceLinks(content, slice), batch * 400);
    }
    document.body.append(panel);
  });
}

/**
 * @param {Element | null} content
 * @param {Json[]} items
 */
function appendSourceLinks(content, items) {
  for (const item of items) {
    const link = document.createElement("a");
    link.href = item.url;
    link.target = "_blank";
    link.rel = "noopener";
    link.innerHTML =
      '<img alt="" width="16" height="16" src="data:,"> <span class="title">' +
      escapeHtml(String(item.title ?? "")) +
      '</span><span class="description">' +
      escapeHtml(String(item.snippet ?? item.attribution ?? "")) +
      "</span>";
    content?.append(link);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The conversation stream: v1 deltas and old snapshots, as the site's client applies them

/** @param {string} pointer */
function tokensOf(pointer) {
  return pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * @param {Json} document
 * @param {string} pointer
 * @param {(current: any) => any} update
 */
function updateAt(document, pointer, update) {
  const tokens = tokensOf(pointer);
  const last = tokens.pop();
  if (last === undefined) return update(document);
  let target = document;
  for (const token of tokens) {
    if (target[token] === undefined || target[token] === null) target[token] = {};
    target = target[token];
  }
  target[last] = update(target[last]);
  return document;
}

/**
 * @param {Json} document
 * @param {string} path
 * @param {string} op
 * @param {any} value
 * @returns {Json}
 */
function applyOp(document, path, op, value) {
  switch (op) {
    case "add":
    case "replace":
      return updateAt(document, path, () => value);
    case "append":
      return updateAt(document, path, (current) => {
        if (current === undefined || current === null) return value;
        if (typeof current === "string") return current + value;
        if (Array.isArray(current)) return current.concat(value);
        if (typeof current === "object") return Object.assign({}, current, value);
        return value;
      });
    case "truncate":
      return updateAt(document, path, (current) => (current && typeof current.slice === "function" ? current.slice(0, value) : current));
    case "patch":
      for (const entry of Array.isArray(value) ? value : []) document = applyOp(document, path + entry.p, entry.o, entry.v);
      return document;
    default:
      return document;
  }
}

function newStreamState() {
  return {
    /** @type {Json[]} */ documents: [],
    /** @type {number | null} */ current: null,
    path: "/message/content/parts/0",
    op: "append",
    /** @type {Map<number, number>} */ byIndex: new Map(),
    /** @type {Map<string, number>} */ byId: new Map(),
    /** @type {string | null} */ error: null,
    done: false,
    v1: false,
    title: /** @type {string | null} */ (null),
  };
}

/**
 * @param {ReturnType<typeof newStreamState>} state
 * @param {string | undefined} event
 * @param {string} data
 */
function applyFrame(state, event, data) {
  if (data === "[DONE]") {
    state.done = true;
    return;
  }
  let value;
  try {
    value = JSON.parse(data);
  } catch {
    return; // a broken frame is skipped
  }
  if (event === "delta_encoding" || value === "v1") state.v1 = true;
  if (!value || typeof value !== "object" || event === "delta_encoding") return;
  // chatgpt.md §3: the `event:` line is optional; in a v1 stream an untyped frame is a delta
  if (event === "delta" || (event === undefined && state.v1 && typeof value.type !== "string" && !value.message)) {
    const path = typeof value.p === "string" ? value.p : state.path;
    const op = typeof value.o === "string" ? value.o : state.op;
    state.path = path;
    state.op = op;
    if (path === "" && op === "add" && value.v?.message) {
      if (value.v.error) state.error = String(value.v.error);
      const known = typeof value.c === "number" ? state.byIndex.get(value.c) : undefined;
      const slot = known ?? state.documents.length;
      state.documents[slot] = value.v;
      if (typeof value.c === "number") state.byIndex.set(value.c, slot);
      state.current = slot;
      return;
    }
    if (state.current === null) return;
    state.documents[state.current] = applyOp(state.documents[state.current] ?? {}, path, op, value.v);
    return;
  }
  if (typeof value.type === "string") {
    if (value.type === "title_generation" && typeof value.title === "string") state.title = value.title;
    if (typeof value.conversation_id === "string") conversationId = value.conversation_id;
    return;
  }
  if (value.message && typeof value.message === "object") {
    const id = String(value.message.id ?? "");
    const slot = state.byId.get(id) ?? state.documents.length;
    state.documents[slot] = value;
    state.byId.set(id, slot);
    if (typeof value.conversation_id === "string") conversationId = value.conversation_id;
    return;
  }
  if (value.error) state.error = String(value.error);
}

/** @param {ReturnType<typeof newStreamState>} state */
function answerOf(state) {
  /** @type {Json | null} */
  let answer = null;
  for (const document of state.documents) {
    const message = document?.message;
    if (message?.author?.role !== "assistant") continue;
    if ((message.recipient ?? "all") !== "all" || (message.channel ?? "final") !== "final") continue;
    if ((message.content?.content_type ?? "text") !== "text") continue;
    answer = message;
  }
  return answer;
}

/** @param {ReturnType<typeof newStreamState>} state */
function recapOf(state) {
  for (const document of state.documents) {
    const content = document?.message?.content;
    if (content?.content_type === "reasoning_recap" && typeof content.content === "string") return content.content;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Sending

function uuid() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function deviceId() {
  const match = /(?:^|;\s*)oai-did=([^;]+)/.exec(document.cookie);
  return match?.[1] ?? "";
}

/** Stand-in for the proof-of-work answer: the replica requires no work (`proofofwork.required:false`). */
function proofToken() {
  return `gAAAAAB${btoa(JSON.stringify([navigator.hardwareConcurrency, Date.now(), navigator.language]))}`;
}

/**
 * @param {string} url
 * @param {Json} body
 * @param {Record<string, string>} [headers]
 */
async function postJson(url, body, headers = {}) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "include",
    headers: Object.assign(
      { "content-type": "application/json", "oai-device-id": deviceId(), "oai-language": navigator.language || "en-US" },
      headers,
    ),
    body: JSON.stringify(body),
  });
  if (!response.ok) throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status });
  return response.json();
}

/** The sentinel calls of this build; returns the requirements token. */
async function requirementsToken() {
  if (build.sentinel === "split") {
    const prepared = await postJson(api("sentinel/chat-requirements/prepare"), { p: proofToken() });
    const finalized = await postJson(api("sentinel/chat-requirements/finalize"), {
      prepare_token: prepared.prepare_token ?? "",
      proofofwork: proofToken(),
    });
    return String(finalized.token ?? "");
  }
  const requirements = await postJson(api("sentinel/chat-requirements"), { p: proofToken() });
  return String(requirements.token ?? "");
}

/**
 * @param {string} prompt
 * @param {string} messageId
 */
function conversationBody(prompt, messageId) {
  /** @type {Json} */
  const body = {
    action: "next",
    messages: [
      {
        id: messageId,
        author: { role: "user" },
        create_time: Date.now() / 1000,
        content: { content_type: "text", parts: [prompt] },
        metadata: { selected_github_repos: [], selected_all_github_repos: false, serialization_metadata: { custom_symbol_offsets: [] } },
      },
    ],
    parent_message_id: "client-created-root",
    model: "auto",
    timezone_offset_min: new Date().getTimezoneOffset(),
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    conversation_mode: { kind: "primary_assistant" },
    enable_message_followups: true,
    system_hints: systemHints,
    supports_buffering: true,
    client_contextual_info: {
      is_dark_mode: matchMedia("(prefers-color-scheme: dark)").matches,
      time_since_loaded: Math.round(performance.now() / 1000),
      page_height: innerHeight,
      page_width: innerWidth,
      pixel_ratio: devicePixelRatio,
      screen_height: screen.height,
      screen_width: screen.width,
      app_name: "chatgpt.com",
    },
    paragen_cot_summary_display_override: "allow",
    force_parallel_switch: "auto",
  };
  if (build.offersV1) body.supported_encodings = ["v1"];
  if (systemHints.length === 0 && !build.sendsEmptyHints) delete body.system_hints;
  if (variant !== null) {
    // chatgpt.md §3: `model` ("auto" or a slug); `system_hints` named only when searching; optional history flag
    body.model = variant.model;
    if (systemHints.length === 0 && variant.hintsWithoutSearch === "absent") delete body.system_hints;
    if (variant.historyField) body.history_and_training_disabled = false;
  }
  return body;
}

/**
 * @param {number} status
 */
function errorText(status) {
  if (status === 429) return "You've reached our limit of messages per hour. Please try again later.";
  if (status === 403) return "Unusual activity has been detected from your device. Try again later.";
  return "Something went wrong while generating the response. If this issue persists please contact us through our help center at help.openai.com.";
}

/**
 * @param {HTMLElement} message
 * @param {string} text
 */
function showTurnError(message, text) {
  const error = document.createElement("div");
  error.className = "error-message text-token-text-error";
  error.textContent = text;
  message.append(error);
}

/** @param {boolean} on */
function setStreaming(on) {
  streaming = on;
  sendButton.hidden = on;
  stopButton.hidden = !on;
  updateSendButton();
}

/** @param {string} prompt */
async function send(prompt) {
  if (streaming || prompt.trim() === "") return;
  clearComposer();
  const user = appendTurn("user");
  const messageId = uuid();
  user.message.setAttribute("data-message-id", messageId);
  const bubble = document.createElement("div");
  bubble.className = "whitespace-pre-wrap";
  bubble.textContent = prompt;
  user.message.append(bubble);
  if (variant === null || variant.userCopyButton) addActions(user.column, prompt);

  const assistant = appendTurn("assistant");
  const recap = document.createElement("button");
  recap.type = "button";
  recap.className = "thought-recap";
  recap.hidden = true;
  assistant.message.append(recap);
  const body = document.createElement("div");
  body.className = markup.markdownClass;
  assistant.message.append(body);

  const controller = new AbortController();
  activeRequest = controller;
  pillsShown = variant?.pillsLateMs === null || variant?.pillsLateMs === undefined;
  setStreaming(true);
  const state = newStreamState();
  let renderScheduled = false;
  const render = (/** @type {boolean} */ partial) => {
    const answer = answerOf(state);
    const recapText = recapOf(state);
    if (recapText) {
      recap.hidden = false;
      recap.textContent = recapText;
    }
    if (!answer) return;
    assistant.message.setAttribute("data-message-id", String(answer.id ?? ""));
    const slug = answer.metadata?.resolved_model_slug ?? answer.metadata?.model_slug;
    if (typeof slug === "string") assistant.message.setAttribute("data-message-model-slug", slug);
    const references = Array.isArray(answer.metadata?.content_references) ? answer.metadata.content_references : [];
    body.innerHTML = renderAnswerHtml(String(answer.content?.parts?.[0] ?? ""), references, partial);
  };
  const scheduleRender = () => {
    if (renderScheduled) return;
    renderScheduled = true;
    setTimeout(() => {
      renderScheduled = false;
      render(true);
    }, 16);
  };

  let completed = false;
  try {
    const token = await requirementsToken();
    /** @type {Record<string, string>} */
    const headers = {
      accept: "text/event-stream",
      "content-type": "application/json",
      "oai-device-id": deviceId(),
      "oai-language": navigator.language || "en-US",
      "openai-sentinel-chat-requirements-token": token,
      "openai-sentinel-proof-token": proofToken(),
    };
    if (variant !== null) headers["oai-client-build-number"] = String(variant.build);
    if (build.conduit) {
      const prepared = await postJson(api("f/conversation/prepare"), { action: "next", fork_from_shared_post: false, model: "auto" });
      headers["x-conduit-token"] = String(prepared.conduit_token ?? "");
    }
    const response = await fetch(api(build.conversationPath), {
      method: "POST",
      credentials: "include",
      headers,
      body: JSON.stringify(conversationBody(prompt, messageId)),
      signal: controller.signal,
    });
    if (!response.ok || !response.body) {
      if (response.status === 401) showLoginModal();
      else showTurnError(assistant.message, errorText(response.status));
    } else {
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffered = "";
      const drain = () => {
        for (let end = buffered.search(/\r?\n\r?\n/); end >= 0; end = buffered.search(/\r?\n\r?\n/)) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, "");
          /** @type {string | undefined} */
          let event;
          const data = [];
          for (const line of block.split(/\r?\n/)) {
            if (line.startsWith("event:")) event = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          }
          if (data.length > 0) applyFrame(state, event, data.join("\n"));
        }
      };
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // stream:true keeps a UTF-8 sequence split across chunks until its last byte arrives
        buffered += decoder.decode(value, { stream: true });
        drain();
        scheduleRender();
      }
      buffered += decoder.decode();
      drain();
      const answer = answerOf(state);
      if (state.error !== null) showTurnError(assistant.message, errorText(500));
      else if (!state.done || !answer) showTurnError(assistant.message, errorText(500));
      else completed = true;
      if (conversationId) history.replaceState(null, "", new URL(`c/${conversationId}`, siteRoot).pathname);
      if (state.title) document.title = state.title;
    }
  } catch (error) {
    const status = error && typeof error === "object" && "status" in error ? Number(error.status) : 0;
    if (!controller.signal.aborted) showTurnError(assistant.message, errorText(status));
  } finally {
    render(!completed);
    if (completed) {
      addActions(assistant.column, assistant.message.innerText);
      const answer = answerOf(state);
      const references = Array.isArray(answer?.metadata?.content_references) ? answer.metadata.content_references : [];
      // late_lists: the pills and the sources button may come after the answer (chatgpt.md §2: the panel opens from it)
      if (!pillsShown)
        setTimeout(() => {
          pillsShown = true;
          render(false);
        }, variant?.pillsLateMs ?? 0);
      if (variant?.sourcesLateMs === null || variant?.sourcesLateMs === undefined) addSources(assistant.column, references);
      else setTimeout(() => addSources(assistant.column, references), variant.sourcesLateMs);
    }
    activeRequest = null;
    setStreaming(false);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Deep link: `?q=` fills the composer and sends; `&hints=search` forces the web-search tool for that turn

const params = new URLSearchParams(location.search);
const deepLinkPrompt = params.get("q");
systemHints = (params.get("hints") ?? "")
  .split(",")
  .map((hint) => hint.trim())
  .filter((hint) => hint !== "");
updateSendButton();
if (settings.loginWall) {
  // a session that must log in gets the modal instead of an answer
  if (deepLinkPrompt) setComposerText(deepLinkPrompt);
} else if (deepLinkPrompt) {
  setComposerText(deepLinkPrompt);
  // the site sends once its bundle has hydrated (a fuzzed page may mount its composer seconds later)
  const sendWhenHydrated = () => {
    if (form.isConnected) void send(deepLinkPrompt);
    else setTimeout(sendWhenHydrated, 50);
  };
  setTimeout(sendWhenHydrated, 50);
}
