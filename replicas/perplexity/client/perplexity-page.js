// Browser script of the Perplexity replica's page (inlined into the HTML by page.ts). It behaves like perplexity.ai's
// own bundle where a scraper can observe it: it POSTs the JSON body of perplexity.md §3 to /rest/sse/perplexity_ask,
// reads the text/event-stream with a fetch reader (so capture sees the same chunks), applies the snapshots (diff_block
// patches and materialized blocks) and renders the answer incrementally with citation pills. Plain JS on purpose: it
// runs in the page as-is, without a build step.
// @ts-check
"use strict";

// ---------------------------------------------------------------------------------------------------------------
// Page configuration and elements

/**
 * @typedef {{ mode: "with_answer" | "late" | "batches", delayMs: number, batches: number }} LateList
 * @typedef {{ skipSearchWithWeb: "false" | "true" | "absent", skipSearchWithoutWeb: "true" | "absent",
 *   focusWithoutWeb: string, diffBlocks: boolean, mode: string }} RequestAlternatives
 * @typedef {{ frontendContextUuid: string, pills: LateList | null, related: LateList | null,
 *   request: RequestAlternatives | null, answerWrapper: "prose" | "markdown-content" | null }} PageVariation
 */
/** @type {{ props?: { pageProps?: { layout?: string, variation?: PageVariation } } }} */
const nextData = JSON.parse(document.getElementById("__NEXT_DATA__")?.textContent || "{}");
const layout = nextData.props?.pageProps?.layout || "lexical-prose";
// page fuzzing (replicas/perplexity/variation.ts): absent on a plain page
const variation = nextData.props?.pageProps?.variation ?? null;
const answerInWrapper = variation?.answerWrapper ? variation.answerWrapper === "markdown-content" : layout === "textarea-markdown-content";

// The site root: "/" on the real origin, "/perplexity/" on the replica; thread pages live at <root>search/<slug>.
const rootPath = location.pathname.replace(/search(\/.*)?$/, "");
const rootUrl = new URL(rootPath, location.origin);
const askUrl = new URL("rest/sse/perplexity_ask", rootUrl).toString();
const terminateUrl = new URL("rest/sse/perplexity_terminate", rootUrl).toString();

/** @param {string} selector */
function must(selector) {
  const el = document.querySelector(selector);
  if (!(el instanceof HTMLElement)) throw new Error(`perplexity replica page: missing ${selector}`);
  return el;
}

const composer = must('#ask-input, textarea[placeholder*="Ask"]');
const submitButton = /** @type {HTMLButtonElement} */ (must('button[aria-label="Submit"]'));
const sourcesButton = /** @type {HTMLButtonElement} */ (must("button[aria-haspopup='menu']"));
const sourcesMenu = must('[role="menu"]');
const thread = must("main .thread");
const toaster = must("section[aria-live]");

/** Sources toggled on in the sources menu; "web" is the site default. */
const enabledSources = new Set(["web"]);
const frontendContextUuid = variation?.frontendContextUuid ?? uuid();
let streaming = false;
/** @type {AbortController | null} */
let activeRequest = null;
let answerCount = 0;

// ---------------------------------------------------------------------------------------------------------------
// Composer (Lexical contenteditable or the older textarea)

function composerText() {
  if (composer instanceof HTMLTextAreaElement) return composer.value.trim();
  return composer.innerText.replace(/\u00a0/g, " ").trim();
}

function clearComposer() {
  if (composer instanceof HTMLTextAreaElement) composer.value = "";
  else composer.innerHTML = "<p><br></p>";
  updateSubmit();
}

/** @param {string} text */
function setComposerText(text) {
  if (composer instanceof HTMLTextAreaElement) composer.value = text;
  else {
    composer.textContent = "";
    for (const line of text.split("\n")) {
      const p = document.createElement("p");
      p.textContent = line;
      composer.append(p);
    }
  }
  updateSubmit();
}

function updateSubmit() {
  submitButton.disabled = streaming || composerText() === "";
  const placeholder = document.querySelector(".composer-placeholder");
  if (placeholder instanceof HTMLElement) placeholder.hidden = composerText() !== "";
}

composer.addEventListener("input", updateSubmit);
composer.addEventListener("keydown", (event) => {
  if (!(event instanceof KeyboardEvent)) return;
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void send();
  }
});
submitButton.addEventListener("click", () => void send());
updateSubmit();

// ---------------------------------------------------------------------------------------------------------------
// Sources menu ("Web" on by default; switching it off asks for an answer without searching)

/** @param {boolean} open */
function setMenuOpen(open) {
  sourcesMenu.hidden = !open;
  sourcesButton.setAttribute("aria-expanded", String(open));
  sourcesButton.dataset.state = open ? "open" : "closed";
}

/** The menu lists the sources in this order (Web, Academic, Social). */
const SOURCE_IDS = ["web", "scholar", "social"];

function menuItems() {
  return Array.from(sourcesMenu.querySelectorAll('[role="menuitemcheckbox"]'));
}

function renderSourcesMenu() {
  menuItems().forEach((item, index) => {
    item.setAttribute("aria-checked", String(enabledSources.has(SOURCE_IDS[index] ?? "")));
  });
}

sourcesButton.addEventListener("click", (event) => {
  event.stopPropagation();
  setMenuOpen(sourcesMenu.hidden);
});
sourcesMenu.addEventListener("click", (event) => {
  const item = event.target instanceof Element ? event.target.closest('[role="menuitemcheckbox"]') : null;
  if (!(item instanceof HTMLElement)) return;
  event.stopPropagation();
  const source = SOURCE_IDS[menuItems().indexOf(item)] ?? "";
  if (enabledSources.has(source)) enabledSources.delete(source);
  else enabledSources.add(source);
  renderSourcesMenu();
});
document.addEventListener("click", (event) => {
  if (!sourcesMenu.hidden && event.target instanceof Node && !sourcesMenu.contains(event.target)) setMenuOpen(false);
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !sourcesMenu.hidden) setMenuOpen(false);
});
renderSourcesMenu();

// ---------------------------------------------------------------------------------------------------------------
// Notifications and sign-in modal

/** @param {string} message */
function showError(message) {
  const toast = document.createElement("div");
  toast.setAttribute("role", "alert");
  toast.className = "toast";
  toast.textContent = message;
  toaster.append(toast);
}

function showSignIn() {
  if (document.querySelector('[role="dialog"][aria-modal="true"]')) return;
  const template = document.querySelector("template");
  if (template instanceof HTMLTemplateElement) document.body.append(template.content.cloneNode(true));
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown with citation pills

/** @param {string} text */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/** @param {string} url */
function shortDomain(url) {
  try {
    const host = new URL(url).hostname.replace(/^www\./, "");
    const parts = host.split(".");
    return parts.length > 2 ? (parts.slice(-2, -1)[0] ?? host) : (parts[0] ?? host);
  } catch {
    return "source";
  }
}

/**
 * @typedef {{ name?: string, url?: string }} WebResult
 */

/**
 * A pill for a run of adjacent markers: the first source's domain, "+N" for the others.
 * @param {number[]} numbers
 * @param {WebResult[]} sources
 */
function citationPill(numbers, sources) {
  const known = numbers.map((n) => sources[n - 1]).filter((s) => s && typeof s.url === "string");
  const first = known[0];
  if (!first || typeof first.url !== "string") return "";
  const label = shortDomain(first.url) + (known.length > 1 ? ` +${known.length - 1}` : "");
  return (
    '<span class="citation inline-flex" data-pplx-citation="" data-pplx-citation-url="' +
    escapeHtml(first.url) +
    '"><a href="' +
    escapeHtml(first.url) +
    '" target="_blank" rel="noopener" aria-label="' +
    escapeHtml(first.name || first.url) +
    '"><span class="pill-label">' +
    escapeHtml(label) +
    "</span></a></span>"
  );
}

/**
 * @param {string} text
 * @param {WebResult[]} sources
 */
function renderInline(text, sources) {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, index) => {
      if (index % 2 === 1) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      /** @type {string[]} */
      const pills = [];
      let html = escapeHtml(part).replace(/(?:\[\d{1,4}\](?!\())+/g, (run) => {
        const numbers = Array.from(run.matchAll(/\d+/g), (m) => Number(m[0]));
        pills.push(citationPill(numbers, sources));
        return `\uE000${pills.length - 1}\uE001`;
      });
      html = html
        .replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, '<a href="$2" target="_blank" rel="noopener">$1</a>')
        .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, "<strong>$1</strong>")
        .replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\*)/g, "$1<em>$2</em>");
      return html.replace(/\uE000(\d+)\uE001/g, (_m, i) => pills[Number(i)] ?? "");
    })
    .join("");
}

const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)\s*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
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
 * Renders markdown into one HTML string per top-level block (layouts may group blocks into several `.prose`).
 * @param {string} source
 * @param {WebResult[]} sources
 * @returns {string[]}
 */
function renderBlocks(source, sources) {
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
      /** @type {string[]} */
      const code = [];
      i += 1;
      while (i < lines.length && !(lines[i] ?? "").trim().startsWith(marker)) {
        code.push(lines[i] ?? "");
        i += 1;
      }
      i += 1;
      const lang = fence[2] ? ` class="language-${escapeHtml(fence[2])}"` : "";
      out.push(`<pre><code${lang}>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = (heading[1] ?? "#").length;
      out.push(`<h${level}>${renderInline(heading[2] ?? "", sources)}</h${level}>`);
      i += 1;
      continue;
    }
    if (line.includes("|") && TABLE_DIVIDER.test(lines[i + 1] ?? "") && (lines[i + 1] ?? "").includes("-")) {
      const head = tableCells(line)
        .map((cell) => `<th>${renderInline(cell, sources)}</th>`)
        .join("");
      i += 2;
      /** @type {string[]} */
      const rows = [];
      while (i < lines.length && (lines[i] ?? "").includes("|") && (lines[i] ?? "").trim() !== "") {
        rows.push(
          "<tr>" +
            tableCells(lines[i] ?? "")
              .map((cell) => `<td>${renderInline(cell, sources)}</td>`)
              .join("") +
            "</tr>",
        );
        i += 1;
      }
      out.push(`<table><thead><tr>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>`);
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2] ?? "");
      /** @type {string[]} */
      const items = [];
      while (i < lines.length) {
        const current = lines[i] ?? "";
        const match = LIST_ITEM.exec(current);
        if (match && (match[1] ?? "").length === 0) items.push(renderInline(match[3] ?? "", sources));
        else if (current.trim() !== "" && /^\s+/.test(current) && items.length > 0) {
          items[items.length - 1] += `<br>${renderInline(current.trim().replace(/^[-*+]\s+/, ""), sources)}`;
        } else break;
        i += 1;
      }
      const tag = ordered ? "ol" : "ul";
      out.push(`<${tag}>${items.map((html) => `<li>${html}</li>`).join("")}</${tag}>`);
      continue;
    }
    /** @type {string[]} */
    const paragraph = [];
    while (i < lines.length) {
      const current = lines[i] ?? "";
      if (current.trim() === "" || (paragraph.length > 0 && (FENCE.test(current) || HEADING.test(current) || LIST_ITEM.test(current))))
        break;
      paragraph.push(current.trim());
      i += 1;
    }
    out.push(`<p>${renderInline(paragraph.join("\n"), sources)}</p>`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Snapshots: materialized blocks and diff_block patches (RFC 6902 add / replace / remove)

/** @param {string} pointer */
function pointerTokens(pointer) {
  return pointer
    .split("/")
    .slice(1)
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * @param {any} document
 * @param {{ op: string, path: string, value?: unknown }} operation
 */
function applyOperation(document, operation) {
  if (operation.path === "") return operation.op === "remove" ? undefined : structuredClone(operation.value);
  const tokens = pointerTokens(operation.path);
  const last = tokens.pop() ?? "";
  let parent = document;
  for (const token of tokens) {
    if (parent === null || typeof parent !== "object") return document;
    parent = parent[token];
  }
  if (parent === null || typeof parent !== "object") return document;
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : Number(last);
    if (operation.op === "add") parent.splice(index, 0, structuredClone(operation.value));
    else if (operation.op === "replace") parent[index] = structuredClone(operation.value);
    else if (operation.op === "remove") parent.splice(index, 1);
  } else if (operation.op === "remove") delete parent[last];
  else parent[last] = structuredClone(operation.value);
  return document;
}

/**
 * @typedef {{ document: any, chunks: string[] }} BlockState
 * @typedef {{
 *   blocks: Map<string, BlockState>, completed: boolean, slug: string | null, related: string[], error: string | null,
 *   pillLimit: number
 * }} StreamState
 */

/**
 * @param {BlockState} state
 * @param {any} document
 */
function setDocument(state, document) {
  state.document = document;
  if (document && Array.isArray(document.chunks)) {
    const offset = typeof document.chunk_starting_offset === "number" ? document.chunk_starting_offset : 0;
    state.chunks = state.chunks.slice(0, offset).concat(document.chunks.filter((c) => typeof c === "string"));
  }
}

/**
 * @param {StreamState} state
 * @param {any} envelope
 */
function applySnapshot(state, envelope) {
  if (!envelope || typeof envelope !== "object") return;
  if (envelope.error_code || envelope.error_message) state.error = "Something went wrong. Please try again.";
  if (typeof envelope.thread_url_slug === "string" && state.slug === null) {
    state.slug = envelope.thread_url_slug;
    history.pushState({}, "", new URL(`search/${encodeURIComponent(state.slug)}`, rootUrl));
  }
  if (typeof envelope.thread_title === "string") document.title = `${envelope.thread_title} | Perplexity`;
  if (Array.isArray(envelope.related_query_items)) state.related = envelope.related_query_items.map((i) => String(i?.text ?? ""));
  else if (Array.isArray(envelope.related_queries)) state.related = envelope.related_queries.map(String);
  if (!Array.isArray(envelope.blocks)) return;
  for (const block of envelope.blocks) {
    if (!block || typeof block !== "object") continue;
    const usage = String(block.intended_usage ?? "");
    /** @param {string} field */
    const stateOf = (field) => {
      const key = `${usage}|${field}`;
      let found = state.blocks.get(key);
      if (!found) {
        found = { document: undefined, chunks: [] };
        state.blocks.set(key, found);
      }
      return found;
    };
    if (block.diff_block && typeof block.diff_block.field === "string" && Array.isArray(block.diff_block.patches)) {
      const target = stateOf(block.diff_block.field);
      let document = target.document === undefined ? {} : structuredClone(target.document);
      for (const operation of block.diff_block.patches) document = applyOperation(document, operation);
      setDocument(target, document);
    }
    for (const [key, value] of Object.entries(block)) {
      if (key !== "diff_block" && key.endsWith("_block") && value && typeof value === "object") setDocument(stateOf(key), value);
    }
  }
  if (envelope.final_sse_message === true && envelope.status === "COMPLETED") state.completed = true;
}

/** @param {StreamState} state */
function answerOf(state) {
  const block = state.blocks.get("ask_text|markdown_block");
  if (!block) return "";
  if (block.document && typeof block.document.answer === "string" && block.document.answer !== "") return block.document.answer;
  return block.chunks.join("");
}

/**
 * @param {StreamState} state
 * @returns {WebResult[]}
 */
function sourcesOf(state) {
  const block = state.blocks.get("web_results|web_result_block");
  return block?.document && Array.isArray(block.document.web_results) ? block.document.web_results : [];
}

// ---------------------------------------------------------------------------------------------------------------
// Thread rendering (markup per layout, perplexity.md §2)

/** @param {string} prompt */
function appendEntry(prompt) {
  thread.hidden = false;
  const entry = document.createElement("div");
  entry.className = layout === "lexical-split-prose" ? "x8f2k1 q9zz0p" : "thread-entry";
  const query = document.createElement("h1");
  query.className = "query-title";
  query.textContent = prompt;
  entry.append(query);
  const answer = document.createElement("div");
  answer.className = "answer-section";
  if (answerInWrapper) {
    const wrapper = document.createElement("div");
    wrapper.id = `markdown-content-${answerCount}`;
    wrapper.className = "markdown-content";
    answer.append(wrapper);
  }
  answerCount += 1;
  entry.append(answer);
  const stop = document.createElement("button");
  stop.type = "button";
  stop.dataset.testid = "stop-generating-response-button";
  stop.setAttribute("aria-label", "Stop generating response");
  stop.className = "stop-button";
  stop.textContent = "Stop";
  stop.addEventListener("click", () => {
    activeRequest?.abort();
    void fetch(terminateUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).catch(() => {});
  });
  entry.append(stop);
  thread.append(entry);
  return entry;
}

/**
 * @param {HTMLElement} entry
 * @param {StreamState} state
 */
function renderAnswer(entry, state) {
  // late pills (page fuzzing): only the first `pillLimit` sources have pills yet
  const blocks = renderBlocks(answerOf(state), sourcesOf(state).slice(0, state.pillLimit));
  const host = entry.querySelector('[id^="markdown-content-"]') ?? entry.querySelector(".answer-section");
  if (!(host instanceof HTMLElement)) return;
  // the newest layout splits the answer into several inline `.prose` blocks (a table or code gets its own)
  /** @type {string[][]} */
  const groups = [[]];
  for (const html of blocks) {
    const standalone = layout === "lexical-split-prose" && /^<(table|pre)/.test(html);
    if (standalone) groups.push([html], []);
    else groups[groups.length - 1]?.push(html);
  }
  host.innerHTML = groups
    .filter((group) => group.length > 0)
    .map((group) => `<div dir="auto" class="prose dark:prose-invert inline leading-relaxed break-words">${group.join("")}</div>`)
    .join("");
}

/**
 * Plays a late list (page fuzzing): `show(count)` with the number of entries visible, all of them at once without a
 * variation, else after `delayMs`, or in batches spread over it.
 * @param {LateList | null} plan
 * @param {number} total
 * @param {(count: number) => void} show
 */
function playLateList(plan, total, show) {
  if (plan === null || plan.mode === "with_answer" || total === 0) {
    show(total);
    return;
  }
  if (plan.mode === "late") {
    setTimeout(() => show(total), plan.delayMs);
    return;
  }
  const steps = Math.max(2, plan.batches);
  for (let step = 1; step <= steps; step += 1) {
    setTimeout(() => show(Math.ceil((total * step) / steps)), Math.round((plan.delayMs * (step - 1)) / (steps - 1)));
  }
}

/**
 * @param {HTMLElement} entry
 * @param {StreamState} state
 * @param {number} [count]
 */
function renderRelated(entry, state, count = state.related.length) {
  entry.querySelector(".related-section")?.remove();
  if (state.related.length === 0 || count === 0) return;
  const related = document.createElement("div");
  related.className = "related-section";
  const title = document.createElement("div");
  title.className = "related-title";
  title.textContent = "Related";
  related.append(title);
  for (const text of state.related.slice(0, count)) {
    const row = document.createElement("div");
    row.className = "related-row";
    row.setAttribute("role", "button");
    row.tabIndex = 0;
    row.textContent = text;
    row.addEventListener("click", () => {
      setComposerText(text);
      void send();
    });
    related.append(row);
  }
  entry.append(related);
}

// ---------------------------------------------------------------------------------------------------------------
// Sending and streaming

function uuid() {
  // crypto.randomUUID needs a secure context; the replica is served over plain http on a non-local host.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const SUPPORTED_BLOCK_USE_CASES = [
  "answer_modes",
  "media_items",
  "knowledge_cards",
  "inline_entity_cards",
  "place_widgets",
  "finance_widgets",
  "sports_widgets",
  "flight_status_widgets",
  "shopping_widgets",
  "jobs_widgets",
  "search_result_widgets",
  "clarification_responses",
  "inline_images",
  "inline_assets",
  "inline_finance_widgets",
  "placeholder_cards",
  "diff_blocks",
  "inline_knowledge_cards",
  "entity_group_v2",
  "refinement_filters",
  "canvas_mode",
  "maps_preview",
  "answer_tabs",
  "price_comparison_widgets",
  "preserve_latex",
  "in_context_suggestions",
  "pending_followups",
  "inline_claims",
  "unified_assets",
];

/** @param {string} prompt */
function requestBody(prompt) {
  const sources = SOURCE_IDS.filter((source) => enabledSources.has(source));
  const body = {
    query_str: prompt,
    params: {
      attachments: [],
      language: navigator.language || "en-US",
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      search_focus: "internet",
      sources,
      search_recency_filter: null,
      frontend_uuid: uuid(),
      mode: "copilot",
      model_preference: "turbo",
      is_related_query: false,
      is_sponsored: false,
      frontend_context_uuid: frontendContextUuid,
      prompt_source: "user",
      query_source: "home",
      is_incognito: false,
      time_from_first_type: 1200,
      local_search_enabled: false,
      use_schematized_api: true,
      send_back_text_in_streaming_api: false,
      supported_block_use_cases: SUPPORTED_BLOCK_USE_CASES,
      client_coordinates: null,
      mentions: [],
      skip_search_enabled: !sources.includes("web"),
      is_nav_suggestions_disabled: false,
      dsl_query: prompt,
      version: "2.18",
    },
  };
  const alternatives = variation?.request;
  if (alternatives) {
    /** @type {Record<string, unknown>} */
    const params = body.params;
    const web = sources.includes("web");
    const skip = web ? alternatives.skipSearchWithWeb : alternatives.skipSearchWithoutWeb;
    if (skip === "absent") delete params.skip_search_enabled;
    else params.skip_search_enabled = skip === "true";
    if (!web) params.search_focus = alternatives.focusWithoutWeb;
    params.mode = alternatives.mode;
    if (!alternatives.diffBlocks) params.supported_block_use_cases = SUPPORTED_BLOCK_USE_CASES.filter((name) => name !== "diff_blocks");
  }
  return body;
}

/** Test instrumentation (not the site's): the controls' state as the page sends, read by tests through the replica. */
function reportPageState() {
  const web = menuItems()[0];
  const state = {
    sources: [...enabledSources],
    web_item_checked: web ? web.getAttribute("aria-checked") : null,
    frontend_context_uuid: frontendContextUuid,
  };
  navigator.sendBeacon(new URL("__replica/page-state", rootUrl), JSON.stringify(state));
}

/**
 * Splits buffered SSE text into complete events; returns the unconsumed rest.
 * @param {string} buffered
 * @param {(name: string, data: string) => void} onEvent
 */
function drainEvents(buffered, onEvent) {
  // a trailing "\r" may be the first half of "\r\n": keep it until the next chunk says
  const heldCr = buffered.endsWith("\r");
  const text = (heldCr ? buffered.slice(0, -1) : buffered).replace(/\r\n?/g, "\n");
  let end = text.indexOf("\n\n");
  let start = 0;
  while (end >= 0) {
    let name = "message";
    /** @type {string[]} */
    const data = [];
    for (const line of text.slice(start, end).split("\n")) {
      if (line.startsWith("event:")) name = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0) onEvent(name, data.join("\n"));
    start = end + 2;
    end = text.indexOf("\n\n", start);
  }
  return text.slice(start) + (heldCr ? "\r" : "");
}

/** @param {Response} response */
async function errorMessageOf(response) {
  if (response.status === 429) return "You have reached the limit of searches. Please try again later.";
  if (response.status === 401) return "Please sign in to continue.";
  if (response.status === 403) return "Something went wrong. Please refresh the page.";
  return `Something went wrong (HTTP ${response.status}). Please try again.`;
}

async function send() {
  const prompt = composerText();
  if (streaming || prompt === "") return;
  setMenuOpen(false);
  clearComposer();
  reportPageState();
  const entry = appendEntry(prompt);
  /** @type {StreamState} */
  const state = { blocks: new Map(), completed: false, slug: null, related: [], error: null, pillLimit: variation?.pills ? 0 : Infinity };
  const controller = new AbortController();
  activeRequest = controller;
  streaming = true;
  updateSubmit();

  let renderScheduled = false;
  const scheduleRender = () => {
    if (renderScheduled) return;
    renderScheduled = true;
    setTimeout(() => {
      renderScheduled = false;
      renderAnswer(entry, state);
    }, 16);
  };

  try {
    const response = await fetch(askUrl, {
      method: "POST",
      credentials: "include",
      headers: {
        accept: "text/event-stream",
        "content-type": "application/json",
        "x-perplexity-request-reason": "perplexity-query-state-provider",
        "x-request-id": uuid(),
      },
      body: JSON.stringify(requestBody(prompt)),
      signal: controller.signal,
    });
    if (!response.ok || !response.body) {
      if (response.status === 401) showSignIn();
      showError(await errorMessageOf(response));
    } else {
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffered = "";
      /** @type {(name: string, data: string) => void} */
      const onEvent = (name, data) => {
        if (name !== "message") return;
        try {
          applySnapshot(state, JSON.parse(data));
        } catch {
          // an unreadable snapshot is skipped; the next one repeats the envelope
        }
      };
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // stream:true keeps a UTF-8 sequence split across chunks until its last byte arrives
        buffered = drainEvents(buffered + decoder.decode(value, { stream: true }), onEvent);
        scheduleRender();
      }
      drainEvents(`${buffered + decoder.decode()}\n\n`, onEvent);
      if (state.error !== null) showError(state.error);
      else if (!state.completed) showError("The answer was interrupted. Please try again.");
    }
  } catch {
    if (!controller.signal.aborted) showError("Network error: the connection was interrupted. Please try again.");
  } finally {
    renderAnswer(entry, state);
    entry.querySelector('[data-testid="stop-generating-response-button"]')?.remove();
    playLateList(variation?.pills ?? null, sourcesOf(state).length, (count) => {
      state.pillLimit = count;
      renderAnswer(entry, state);
    });
    if (state.completed) playLateList(variation?.related ?? null, state.related.length, (count) => renderRelated(entry, state, count));
    activeRequest = null;
    streaming = false;
    updateSubmit();
  }
}

// Deep link: <root>search?q=<prompt> starts a search on load (used by browser search-engine integrations).
const deepLinkPrompt = location.pathname.endsWith("/search") ? new URLSearchParams(location.search).get("q") : null;
if (deepLinkPrompt) {
  setComposerText(deepLinkPrompt);
  void send();
}
void fetch(new URL("api/auth/session", rootUrl), { credentials: "include" }).catch(() => {});
