// Browser script of the Copilot replica's chat page (inlined into the HTML by page.ts after the layout's
// COPILOT_PAGE_CONFIG). It behaves like copilot.microsoft.com's bundle where a scraper can observe it: on the first
// message it creates a session (POST /c/api/user/sessions/temporary, POST /c/api/start), opens the chat WebSocket
// /c/api/chat?api-version=2&clientSessionId=…, sends `setOptions`, waits for `connected`, sends the `send` frame with
// the chosen mode, answers a hashcash challenge, and renders the answer incrementally from `appendText` /
// `replaceText` / `citation` events until `done` (copilot.md §3). Plain JS on purpose: it runs in the page as-is.
"use strict";

/* global COPILOT_PAGE_CONFIG */
const CONFIG = COPILOT_PAGE_CONFIG;
const TEXT = CONFIG.text;

// The app root: "/" on the real origin, "/copilot/" below the replica's mount; chat pages live at <root>chats/<id>.
const appRoot = new URL(location.pathname.replace(/chats\/[^/]*\/?$/, "").replace(/([^/])$/, "$1/"), location.href);

/** @param {string} selector */
function must(selector) {
  const element = document.querySelector(selector);
  if (!(element instanceof HTMLElement)) throw new Error(`copilot replica page: missing ${selector}`);
  return element;
}

const composer = /** @type {HTMLTextAreaElement} */ (must('textarea[data-testid="composer-input"]'));
const form = must("form");
const submitButton = /** @type {HTMLButtonElement} */ (must('[data-testid="submit-button"]'));
const stopButton = /** @type {HTMLButtonElement} */ (must('[data-testid="stop-button"]'));
const modeTrigger = must('button[data-testid*="chat-mode-"]');
const modeLabel = must('button[data-testid*="chat-mode-"] > span');
const modePanel = /** @type {HTMLElement} */ (modeTrigger.nextElementSibling);
const conversation = must('[data-content="conversation"]');
const toasts = must('[role="status"]');

let mode = CONFIG.siteDefaultMode;
/** @type {string | null} */
let conversationId = null;
/** @type {string | null} */
let sessionKey = null;
/** @type {Promise<WebSocket> | null} */
let socketReady = null;
/** @type {WebSocket | null} */
let socket = null;
/** @type {Turn | null} */
let turn = null;

// ---------------------------------------------------------------------------------------------------------------
// Composer, consent banner, mode menu

function updateSubmit() {
  submitButton.disabled = composer.value.trim() === "" || turn !== null;
}
composer.addEventListener("input", updateSubmit);
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
stopButton.addEventListener("click", () => {
  if (turn !== null) finishTurn(turn, "stopped");
});

for (const button of document.querySelectorAll('[role="dialog"][aria-label="Cookie consent"] button')) {
  button.addEventListener("click", () => button.closest('[role="dialog"]')?.remove());
}

function modeItems() {
  return Array.from(modePanel.children).filter((item) => item instanceof HTMLElement);
}

/** @param {boolean} open */
function setMenuOpen(open) {
  modePanel.hidden = !open;
  modeTrigger.setAttribute("aria-expanded", String(open));
}

function renderModes() {
  const index = CONFIG.modes.findIndex((/** @type {{wire: string}} */ option) => option.wire === mode);
  modeItems().forEach((item, itemIndex) => {
    const chosen = String(itemIndex === index);
    if (item.hasAttribute("aria-checked")) item.setAttribute("aria-checked", chosen);
    if (item.hasAttribute("aria-selected")) item.setAttribute("aria-selected", chosen);
  });
  modeLabel.textContent = CONFIG.modes[index]?.label ?? "";
}

modeTrigger.addEventListener("click", (event) => {
  event.stopPropagation();
  setMenuOpen(modePanel.hidden);
});
modePanel.addEventListener("click", (event) => {
  const item = modeItems().find((candidate) => event.target instanceof Node && candidate.contains(event.target));
  if (item === undefined) return;
  event.stopPropagation();
  const option = CONFIG.modes[modeItems().indexOf(item)];
  if (option) mode = option.wire;
  renderModes();
  setMenuOpen(false);
  composer.focus();
});
document.addEventListener("click", (event) => {
  if (!modePanel.hidden && event.target instanceof Node && !modePanel.contains(event.target)) setMenuOpen(false);
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !modePanel.hidden) setMenuOpen(false);
});
renderModes();

// ---------------------------------------------------------------------------------------------------------------
// Notices: toasts, the sign-in prompt, the daily-limit banner, the Turnstile container

/** @param {string} message */
function toast(message) {
  const item = document.createElement("div");
  item.setAttribute("role", "alert");
  item.textContent = message;
  toasts.append(item);
  setTimeout(() => item.remove(), 8000);
}

/** @param {string} body */
function showSignInPrompt(body) {
  if (document.querySelector(".z2p") !== null) return;
  const overlay = document.createElement("div");
  overlay.className = "z2p";
  const dialog = document.createElement("div");
  dialog.setAttribute("role", "dialog");
  dialog.setAttribute("aria-modal", "true");
  dialog.setAttribute("aria-label", TEXT.signInTitle);
  const heading = document.createElement("h2");
  heading.textContent = TEXT.signInTitle;
  const paragraph = document.createElement("p");
  paragraph.textContent = body;
  const link = document.createElement("a");
  link.href = CONFIG.signInUrl;
  link.textContent = TEXT.signIn;
  dialog.append(heading, paragraph, link);
  overlay.append(dialog);
  document.body.append(overlay);
}

function showLimitBanner() {
  if (document.querySelector(".g6b") !== null) return;
  const banner = document.createElement("div");
  banner.className = "g6b";
  banner.setAttribute("role", "alert");
  banner.textContent = TEXT.limit;
  document.body.append(banner);
}

function showTurnstile() {
  if (document.getElementById("cf-turnstile") !== null) return;
  const container = document.createElement("div");
  container.id = "cf-turnstile";
  const frame = document.createElement("iframe");
  frame.title = "Widget containing a Cloudflare security challenge";
  frame.src = "about:blank";
  container.append(frame);
  document.body.append(container);
}

// ---------------------------------------------------------------------------------------------------------------
// A compact markdown renderer (paragraphs, headings, lists, tables, fenced code, links, emphasis, inline code)

/** @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const INLINE = /`([^`]+)`|\[([^\]]+)\]\(((?:[^()\s]|\([^()\s]*\))+)\)|<(https?:\/\/[^>\s]+)>|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*/g;

/** @param {string} url */
function safeHref(url) {
  return /^(https?:|mailto:)/i.test(url) ? url : null;
}

/** @param {string} text */
function renderInline(text) {
  let html = "";
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    html += escapeHtml(text.slice(last, match.index));
    last = (match.index ?? 0) + match[0].length;
    const [, code, linkText, linkUrl, autolink, strong, emphasis] = match;
    if (code !== undefined) html += `<code>${escapeHtml(code)}</code>`;
    else if (linkText !== undefined && linkUrl !== undefined) {
      const href = safeHref(linkUrl);
      html +=
        href === null ? escapeHtml(linkText) : `<a href="${escapeHtml(href)}" target="_blank" rel="noopener">${renderInline(linkText)}</a>`;
    } else if (autolink !== undefined)
      html += `<a href="${escapeHtml(autolink)}" target="_blank" rel="noopener">${escapeHtml(autolink)}</a>`;
    else if (strong !== undefined) html += `<strong>${renderInline(strong)}</strong>`;
    else if (emphasis !== undefined) html += `<em>${renderInline(emphasis)}</em>`;
  }
  return html + escapeHtml(text.slice(last));
}

const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+(.*)$/;

/** @param {string} line */
function tableCells(line) {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((cell) => cell.trim());
}

/** @param {string} markdown */
function renderMarkdown(markdown) {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  const out = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    if (line.trim() === "") {
      index += 1;
      continue;
    }
    const fence = /^\s*(```|~~~)(.*)$/.exec(line);
    if (fence) {
      const code = [];
      index += 1;
      while (index < lines.length && !(lines[index] ?? "").trim().startsWith(fence[1] ?? "```")) code.push(lines[index++]);
      index += 1;
      out.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = (heading[1] ?? "#").length;
      out.push(`<h${level}>${renderInline(heading[2] ?? "")}</h${level}>`);
      index += 1;
      continue;
    }
    if (line.trim().startsWith("|") && /^\s*\|?\s*:?-{3,}/.test(lines[index + 1] ?? "")) {
      const header = tableCells(line);
      index += 2;
      const rows = [];
      while (index < lines.length && (lines[index] ?? "").trim().startsWith("|")) rows.push(tableCells(lines[index++] ?? ""));
      out.push(
        "<table><thead><tr>" +
          header.map((cell) => `<th>${renderInline(cell)}</th>`).join("") +
          "</tr></thead><tbody>" +
          rows.map((row) => `<tr>${row.map((cell) => `<td>${renderInline(cell)}</td>`).join("")}</tr>`).join("") +
          "</tbody></table>",
      );
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[1] ?? "");
      const items = [];
      while (index < lines.length) {
        const current = LIST_ITEM.exec(lines[index] ?? "");
        if (!current) break;
        items.push(`<li>${renderInline(current[2] ?? "")}</li>`);
        index += 1;
      }
      out.push((ordered ? "<ol>" : "<ul>") + items.join("") + (ordered ? "</ol>" : "</ul>"));
      continue;
    }
    const paragraph = [];
    while (
      index < lines.length &&
      (lines[index] ?? "").trim() !== "" &&
      !LIST_ITEM.test(lines[index] ?? "") &&
      !/^(#{1,6}\s|```|~~~)/.test(lines[index] ?? "")
    ) {
      paragraph.push((lines[index] ?? "").trim());
      index += 1;
    }
    out.push(`<p>${paragraph.map(renderInline).join("<br>")}</p>`);
  }
  return out.join("\n");
}

// ---------------------------------------------------------------------------------------------------------------
// Frames: one JSON event per frame is the norm; several objects per frame (concatenated or `\x1e`-separated) are
// accepted too, like the real bundle's defensive reader.

/** @param {string} text @returns {{events: any[], malformed: boolean}} */
function decodeFrame(text) {
  const events = [];
  let malformed = false;
  for (const record of text.split("\u001e")) {
    let depth = 0;
    let inString = false;
    let escaped = false;
    let start = -1;
    for (let at = 0; at < record.length; at += 1) {
      const char = record[at];
      if (inString) {
        if (escaped) escaped = false;
        else if (char === "\\") escaped = true;
        else if (char === '"') inString = false;
        continue;
      }
      if (char === '"') inString = true;
      else if (char === "{") {
        if (depth === 0) start = at;
        depth += 1;
      } else if (char === "}") {
        depth -= 1;
        if (depth === 0) {
          try {
            events.push(JSON.parse(record.slice(start, at + 1)));
          } catch {
            malformed = true;
          }
        }
      } else if (depth === 0 && char.trim() !== "") malformed = true;
    }
    if (depth !== 0 || inString) malformed = true;
  }
  return { events, malformed };
}

// ---------------------------------------------------------------------------------------------------------------
// Sending and the turn

/**
 * @typedef {{
 *   view: HTMLElement, body: HTMLElement, sources: HTMLElement, thoughts: HTMLElement, typing: HTMLElement,
 *   messageId: string | null, parts: Map<string, string>, citations: {url: string, title: string}[],
 *   thinking: string, followups: string[], renderScheduled: boolean, finished: boolean
 * }} Turn
 */

function uuid() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** @param {boolean} on */
function setStreaming(on) {
  stopButton.hidden = !on;
  submitButton.hidden = on;
  updateSubmit();
}

/** @param {string} prompt */
function appendUserMessage(prompt) {
  const message = document.createElement("div");
  message.setAttribute("data-content", "user-message");
  message.textContent = prompt;
  conversation.append(message);
}

/** @returns {Turn} */
function appendAnswer() {
  const view = document.createElement("div");
  view.setAttribute("data-content", "ai-message");
  const thoughts = document.createElement("details");
  thoughts.className = "d6r";
  thoughts.hidden = true;
  thoughts.innerHTML = "<summary></summary><div></div>";
  const summary = thoughts.querySelector("summary");
  if (summary) summary.textContent = TEXT.thinking;
  const body = document.createElement("div");
  if (CONFIG.textBlock) body.className = "ac-textBlock";
  const sources = document.createElement("div");
  sources.className = "c4s";
  sources.setAttribute("aria-label", TEXT.sources);
  sources.hidden = true;
  const typing = document.createElement("div");
  typing.className = "t8y";
  typing.innerHTML = "<span></span><span></span><span></span>";
  view.append(thoughts, body, sources, typing);
  conversation.append(view);
  view.scrollIntoView({ block: "end" });
  return {
    view,
    body,
    sources,
    thoughts,
    typing,
    messageId: null,
    parts: new Map(),
    citations: [],
    thinking: "",
    followups: [],
    renderScheduled: false,
    finished: false,
  };
}

/** @param {Turn} current */
function render(current) {
  const text = Array.from(current.parts.values())
    .filter((part) => part.trim() !== "")
    .join("\n\n");
  current.body.innerHTML = renderMarkdown(text);
  if (current.thinking !== "") {
    current.thoughts.hidden = false;
    const target = current.thoughts.querySelector("div");
    if (target) target.textContent = current.thinking;
  }
  current.sources.hidden = current.citations.length === 0;
  current.sources.replaceChildren(
    ...current.citations.map((citation) => {
      const link = document.createElement("a");
      link.href = citation.url;
      link.target = "_blank";
      link.rel = "noopener";
      link.textContent = citation.title;
      return link;
    }),
  );
}

/** @param {Turn} current */
function scheduleRender(current) {
  if (current.renderScheduled) return;
  current.renderScheduled = true;
  setTimeout(() => {
    current.renderScheduled = false;
    if (!current.finished) render(current);
  }, 16);
}

/**
 * @param {Turn} current
 * @param {"done" | "failed" | "stopped"} outcome
 */
function finishTurn(current, outcome) {
  if (current.finished) return;
  current.finished = true;
  current.typing.remove();
  render(current);
  if (outcome !== "failed") {
    const actions = document.createElement("div");
    actions.className = "r5f";
    const like = document.createElement("button");
    like.type = "button";
    like.setAttribute("data-testid", CONFIG.thumbsUpTestId);
    like.setAttribute("aria-label", TEXT.like);
    like.textContent = "👍";
    const dislike = document.createElement("button");
    dislike.type = "button";
    dislike.setAttribute("aria-label", TEXT.dislike);
    dislike.textContent = "👎";
    const copy = document.createElement("button");
    copy.type = "button";
    copy.setAttribute("aria-label", TEXT.copy);
    copy.textContent = "⧉";
    copy.addEventListener("click", () => navigator.clipboard?.writeText(current.body.innerText).catch(() => {}));
    actions.append(like, dislike, copy);
    current.view.append(actions);
  }
  if (current.followups.length > 0) {
    const followups = document.createElement("div");
    followups.className = "f2u";
    for (const suggestion of current.followups) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = suggestion;
      button.addEventListener("click", () => {
        composer.value = suggestion;
        void send();
      });
      followups.append(button);
    }
    current.view.append(followups);
  }
  if (turn === current) turn = null;
  setStreaming(false);
}

/** Solves the hashcash challenge: a nonce whose SHA-256 with the parameter's hex starts with `difficulty` zeros. */
/** @param {unknown} parameter */
async function solveHashcash(parameter) {
  const [prefix = "", difficultyText = "1"] = String(parameter ?? "").split(":");
  const zeros = "0".repeat(Math.max(0, Math.min(4, Number.parseInt(difficultyText, 10) || 0)));
  if (!crypto.subtle) return "0"; // not a secure context: the replica accepts any token
  for (let nonce = 0; nonce < 1_000_000; nonce += 1) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(prefix + nonce)));
    const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
    if (hex.startsWith(zeros)) return String(nonce);
  }
  return "0";
}

/**
 * One server event. Events of a turn that already finished (stopped) are ignored, as are unknown events.
 * @param {any} event
 */
function handleEvent(event) {
  if (!event || typeof event !== "object") return;
  const current = turn;
  switch (event.event) {
    case "challenge":
      if (event.method === "hashcash") {
        void solveHashcash(event.parameter).then((token) =>
          socket?.send(JSON.stringify({ event: "challengeResponse", token, method: "hashcash" })),
        );
      } else if (event.method === "cloudflare" || event.method === "copilot") {
        showTurnstile();
      } else if (current) {
        toast(TEXT.invalidResponse);
        finishTurn(current, "failed");
      }
      return;
    case "titleUpdate":
      if (typeof event.title === "string") document.title = `${event.title} | Microsoft Copilot`;
      return;
    case "banned":
      showSignInPrompt(TEXT.blockedBody);
      if (current) finishTurn(current, "failed");
      return;
    default:
      break;
  }
  if (!current || current.finished) {
    if (event.event === "suggestedFollowups") appendLateFollowups(event.suggestions);
    return;
  }
  switch (event.event) {
    case "startMessage":
      current.messageId = typeof event.messageId === "string" ? event.messageId : null;
      break;
    case "appendText":
      if (typeof event.text === "string") {
        const partId = String(event.partId ?? "");
        current.parts.set(partId, (current.parts.get(partId) ?? "") + event.text);
        scheduleRender(current);
      }
      break;
    case "replaceText":
      if (typeof event.text === "string") {
        current.parts.set(String(event.partId ?? ""), event.text);
        scheduleRender(current);
      }
      break;
    case "citation":
      if (typeof event.url === "string" && !current.citations.some((citation) => citation.url === event.url)) {
        const title = typeof event.title === "string" && event.title.trim() !== "" ? event.title : new URL(event.url).hostname;
        current.citations.push({ url: event.url, title });
        scheduleRender(current);
      }
      break;
    case "chainOfThought":
      if (typeof event.text === "string") {
        current.thinking += event.text;
        scheduleRender(current);
      }
      break;
    case "suggestedFollowups":
      if (Array.isArray(event.suggestions)) current.followups = event.suggestions.map(String);
      break;
    case "done":
      finishTurn(current, "done");
      socket?.send(JSON.stringify({ event: "ping" }));
      break;
    case "error":
    case "chatMessageError":
      toast(typeof event.message === "string" && event.message !== "" ? event.message : TEXT.genericError);
      finishTurn(current, "failed");
      break;
    default:
      break;
  }
}

/**
 * Follow-ups usually arrive after `done`: they are added under the last answer.
 * @param {unknown} suggestions
 */
function appendLateFollowups(suggestions) {
  const answers = conversation.querySelectorAll('[data-content="ai-message"]');
  const last = answers[answers.length - 1];
  if (!(last instanceof HTMLElement) || !Array.isArray(suggestions) || suggestions.length === 0) return;
  const followups = document.createElement("div");
  followups.className = "f2u";
  for (const suggestion of suggestions) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = String(suggestion);
    button.addEventListener("click", () => {
      composer.value = String(suggestion);
      void send();
    });
    followups.append(button);
  }
  last.append(followups);
}

function socketUrl() {
  const url = new URL("c/api/chat", appRoot);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("api-version", "2");
  url.searchParams.set("clientSessionId", uuid());
  if (sessionKey !== null) url.searchParams.set("temporarySessionKey", sessionKey);
  const region = (navigator.language.split("-")[1] ?? "").toUpperCase();
  if (region !== "") url.searchParams.set("countryCode", region);
  return url;
}

/** @returns {Promise<WebSocket>} */
function openSocket() {
  if (socketReady !== null) return socketReady;
  socketReady = new Promise((resolve, reject) => {
    const ws = new WebSocket(socketUrl());
    let connected = false;
    ws.addEventListener("open", () => {
      ws.send(
        JSON.stringify({
          event: "setOptions",
          supportedFeatures: ["partial-generated-images"],
          supportedCards: ["weather", "local", "image", "sports", "video", "finance"],
          ads: { supportedTypes: ["text", "product"] },
        }),
      );
    });
    ws.addEventListener("message", (message) => {
      if (typeof message.data !== "string") return;
      const { events, malformed } = decodeFrame(message.data);
      for (const event of events) {
        if (event && event.event === "connected" && !connected) {
          connected = true;
          socket = ws;
          resolve(ws);
        } else handleEvent(event);
      }
      if (malformed && turn !== null) {
        toast(TEXT.genericError);
        finishTurn(turn, "failed");
      }
    });
    ws.addEventListener("close", () => {
      socketReady = null;
      socket = null;
      if (!connected) reject(new Error("the chat connection could not be opened"));
      else if (turn !== null) {
        toast(TEXT.connectionLost);
        finishTurn(turn, "failed");
      }
    });
  });
  return socketReady;
}

/** Creates the anonymous session and the conversation; false (with the page's notice shown) when it may not chat. */
async function startConversation() {
  try {
    const temporary = await fetch(new URL("c/api/user/sessions/temporary", appRoot), { method: "POST", credentials: "include" });
    if (temporary.ok) {
      const body = await temporary.json();
      if (body && typeof body.sessionKey === "string") sessionKey = body.sessionKey;
    }
  } catch {
    // Older builds have no temporary sessions; the anonymous cookie is enough.
  }
  const response = await fetch(new URL("c/api/start", appRoot), {
    method: "POST",
    credentials: "include",
    headers: { "content-type": "application/json", "X-Search-UILang": navigator.language },
    body: JSON.stringify({
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      startNewConversation: true,
      teenSupportEnabled: true,
      correctPersonalizationSetting: true,
      performUserMerge: true,
      deferredDataUseCapable: true,
    }),
  });
  if (response.status === 401) {
    showSignInPrompt(TEXT.signInBody);
    return false;
  }
  if (response.status === 429) {
    showLimitBanner();
    return false;
  }
  if (!response.ok) {
    toast(TEXT.genericError);
    return false;
  }
  const body = await response.json();
  if (body.isBlocked === true) {
    showSignInPrompt(TEXT.blockedBody);
    return false;
  }
  if (body.remainingTurns === 0) {
    showLimitBanner();
    return false;
  }
  conversationId = String(body.currentConversationId);
  history.pushState(null, "", new URL(`chats/${encodeURIComponent(conversationId)}`, appRoot));
  return true;
}

async function send() {
  const prompt = composer.value.trim();
  if (prompt === "" || turn !== null) return;
  setMenuOpen(false);
  composer.value = "";
  appendUserMessage(prompt);
  const current = appendAnswer();
  turn = current;
  setStreaming(true);
  try {
    if (conversationId === null && !(await startConversation())) {
      finishTurn(current, "failed");
      return;
    }
    const ws = await openSocket();
    ws.send(JSON.stringify({ event: "send", conversationId, content: [{ type: "text", text: prompt }], mode, context: {} }));
  } catch {
    toast(TEXT.genericError);
    finishTurn(current, "failed");
  }
}

setInterval(() => {
  if (socket !== null && socket.readyState === WebSocket.OPEN && turn === null) socket.send(JSON.stringify({ event: "ping" }));
}, 30_000);

// Deep link: ?q= (or ?prompt=) submits the prompt on load (copilot.md §1).
const deepLink = new URLSearchParams(location.search);
const deepLinkPrompt = deepLink.get("q") ?? deepLink.get("prompt");
if (deepLinkPrompt) {
  composer.value = deepLinkPrompt;
  updateSubmit();
  void send();
}
