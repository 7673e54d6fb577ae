// Browser script of the Rufus replica's store pages (inlined into the HTML by page.ts). Where a scraper can observe it,
// it behaves like the store's own Rufus bundle: the nav button opens the side panel, Enter in #rufus-text-area (or the
// round send button, or a pill) POSTs the JSON body of amazon_rufus.md §3 to /rufus/cl/streaming with the page's
// anti-csrftoken-a2z, reads the SSE-style answer with a stream reader (so network capture sees the same chunked body
// as on the real site), applies the JSON patches to the UI node tree of every group and renders the answer turn
// incrementally. Plain JS on purpose: it runs in the page as-is, without a build step.
// @ts-check
"use strict";

(() => {
  /** Set by the page before this script. @type {{domain: string, root: string, layout: string, priceStyle: string, csrfToken: string, asin: string | null}} */
  const boot = /** @type {any} */ (window).rufusBootstrap;
  const streamingUrl = new URL(`${boot.root}rufus/cl/streaming?tabId=tab-1&programId=NILE_CLASSIC%3Adesktop-cl`, location.href).toString();
  const obfuscated = boot.layout === "wrapped";
  const classes = {
    markdown: obfuscated ? "_rf9k2_text" : "rufus-markdown",
    card: obfuscated ? "_rf9k2_card" : "rufus-asin-card",
  };

  /** @param {string} selector */
  function must(selector) {
    const element = document.querySelector(selector);
    if (!(element instanceof HTMLElement)) throw new Error(`rufus replica page: missing ${selector}`);
    return element;
  }

  const navButton = must("#nav-rufus-disco, .nav-rufus-disco");
  const panel = must("#nav-flyout-rufus, #nav-rufus-content");
  const textArea = /** @type {HTMLTextAreaElement} */ (must("#rufus-text-area"));
  const sendButton = must("#rufus-container .rufus-send");
  const renderer = must("#rufus-react-renderer");
  const conversation = must("#rufus-conversation-container");
  const closeButton = must("#rufus-container .rufus-close");
  const alexaButton = document.querySelector("#nav-alexa");
  const alexaContainer = document.querySelector("#alexa-shopping-container");

  let streaming = false;
  let feedbackBoxes = document.querySelectorAll('textarea[id^="rufus-text-area-inner-"]').length;

  // -------------------------------------------------------------------------------------------------------------
  // Panel

  function openPanel() {
    panel.hidden = false;
    navButton.setAttribute("aria-expanded", "true");
    textArea.focus();
  }

  function closePanel() {
    panel.hidden = true;
    navButton.setAttribute("aria-expanded", "false");
  }

  navButton.addEventListener("click", (event) => {
    event.preventDefault();
    if (panel.hidden) openPanel();
    else closePanel();
  });
  navButton.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      openPanel();
    }
  });
  closeButton.addEventListener("click", closePanel);
  if (alexaButton instanceof HTMLElement && alexaContainer instanceof HTMLElement) {
    alexaButton.addEventListener("click", (event) => {
      event.preventDefault();
      alexaContainer.hidden = !alexaContainer.hidden;
    });
  }

  textArea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send(textArea.value);
    }
  });
  sendButton.addEventListener("click", () => void send(textArea.value));
  // starter pills of the greeting and follow-up pills of answers ask their label
  renderer.addEventListener("click", (event) => {
    const pill = event.target instanceof Element ? event.target.closest("button.rufus-pill") : null;
    if (pill instanceof HTMLElement) void send(pill.textContent || "");
  });

  // The product page's pills are hydrated late, like the real widget: clicks before that do nothing.
  const askPills = document.querySelectorAll("#dpx-nice-widget-container .ask-pill");
  if (askPills.length > 0) {
    setTimeout(() => {
      for (const pill of askPills) {
        pill.addEventListener("click", () => {
          openPanel();
          const label = (pill.textContent || "").trim();
          if (label !== "Ask Rufus") void send(label);
        });
      }
    }, 400);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Asking

  /** @param {string} raw */
  async function send(raw) {
    const query = raw.trim();
    if (query === "" || streaming) return;
    streaming = true;
    textArea.value = "";
    openPanel();

    const question = document.createElement("div");
    question.className = "rufus-dialog-customer";
    question.textContent = query;
    const turn = document.createElement("div");
    turn.className = "rufus-papyrus-turn rufus-papyrus-active-turn";
    const sections = document.createElement("div");
    const affordances = document.createElement("div");
    turn.append(sections, affordances);
    renderer.append(question, turn);
    conversation.scrollTop = conversation.scrollHeight;

    const answer = new AnswerTree();
    const targetPath = location.pathname.startsWith(boot.root) ? location.pathname.slice(boot.root.length) : "";
    const body = {
      queryContext: { query },
      pageContext: {
        targetUrl: `https://www.${boot.domain}/${targetPath}`,
        targetPageMetadata: boot.asin === null ? [] : [{ type: "ASIN", value: boot.asin }],
      },
    };
    try {
      const response = await fetch(streamingUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "*/*", "anti-csrftoken-a2z": boot.csrfToken },
        body: JSON.stringify(body),
        credentials: "same-origin",
      });
      if (response.redirected && new URL(response.url).pathname.includes("/ap/signin")) {
        showProblem(turn, "Please sign in to use Rufus.", true);
        return;
      }
      if (!response.ok || response.body === null) {
        showProblem(turn, "Sorry, Rufus is having trouble right now. Please try again later.", false);
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { done, value } = await reader.read();
        buffer += decoder.decode(value, { stream: !done });
        const blocks = buffer.split(/\r?\n\r?\n/);
        buffer = blocks.pop() || "";
        for (const block of blocks) handleBlock(block, answer, question, affordances);
        renderSections(sections, answer);
        conversation.scrollTop = conversation.scrollHeight;
        if (done) break;
      }
      if (!answer.hasContent()) showProblem(turn, "Sorry, I couldn't find an answer to that. Try asking another way.", false);
    } catch {
      showProblem(turn, "Sorry, Rufus is having trouble right now. Please try again later.", false);
    } finally {
      turn.classList.remove("rufus-papyrus-active-turn");
      feedbackBoxes += 1;
      const feedback = document.createElement("div");
      feedback.className = "rufus-feedback-form";
      feedback.hidden = true;
      const box = document.createElement("textarea");
      box.id = `rufus-text-area-inner-${feedbackBoxes}`;
      box.placeholder = "Add your feedback…";
      box.setAttribute("aria-label", "Add your feedback…");
      feedback.append(box);
      turn.append(feedback);
      streaming = false;
    }
  }

  /**
   * @param {HTMLElement} turn
   * @param {string} message
   * @param {boolean} signIn
   */
  function showProblem(turn, message, signIn) {
    const problem = document.createElement("div");
    problem.className = "rufus-error";
    problem.textContent = message;
    if (signIn) {
      const link = document.createElement("a");
      link.href = `${boot.root}ap/signin`;
      link.textContent = " Sign in";
      problem.append(link);
    }
    turn.append(problem);
  }

  /**
   * One SSE-style block: `id:`, `event:` and `data:` lines.
   * @param {string} block
   * @param {AnswerTree} answer
   * @param {HTMLElement} question
   * @param {HTMLElement} affordances
   */
  function handleBlock(block, answer, question, affordances) {
    let event = "message";
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    let payload;
    try {
      payload = JSON.parse(data.join("\n"));
    } catch {
      return;
    }
    if (event === "inference" && payload && Array.isArray(payload.patches)) {
      for (const patch of payload.patches) answer.apply(patch);
    } else if (event === "affordance" && payload && Array.isArray(payload.sections)) {
      for (const section of payload.sections) {
        const html = typeof section?.content?.data === "string" ? section.content.data : "";
        if (html.includes("rufus-customer-text-wrap")) question.innerHTML = html;
        else affordances.insertAdjacentHTML("beforeend", html);
      }
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // The answer's UI node trees, one per group, patched as they stream

  class AnswerTree {
    constructor() {
      /** @type {Map<string, any>} */
      this.groups = new Map();
      /** @type {string[]} */
      this.order = [];
    }

    /** @param {any} patch */
    apply(patch) {
      if (!patch || typeof patch.groupId !== "string") return;
      const { groupId, op, path } = patch;
      if (path === "/" || path === "" || path === undefined) {
        if (op === "remove") {
          this.groups.delete(groupId);
          return;
        }
        if (!this.order.includes(groupId)) this.order.push(groupId);
        this.groups.set(groupId, structuredClone(patch.value));
        return;
      }
      const document = this.groups.get(groupId);
      if (document === undefined) return;
      const tokens = String(path)
        .slice(1)
        .split("/")
        .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
      const last = tokens.pop();
      let parent = document;
      for (const token of tokens) parent = parent == null ? undefined : parent[token];
      if (parent == null || last === undefined) return;
      if (Array.isArray(parent)) {
        const index = last === "-" ? parent.length : Number(last);
        if (op === "add") parent.splice(index, 0, structuredClone(patch.value));
        else if (op === "replace") parent[index] = structuredClone(patch.value);
        else if (op === "remove") parent.splice(index, 1);
      } else if (op === "remove") delete parent[last];
      else parent[last] = structuredClone(patch.value);
    }

    hasContent() {
      return this.order.some((id) => {
        const value = this.groups.get(id);
        if (id.startsWith("markdown_processor")) return nodeText(value).trim() !== "";
        return id.startsWith("asin_cards") && !id.includes("asinFooter") && findCards(value).length > 0;
      });
    }
  }

  /** @param {any} node @returns {string} */
  function nodeText(node) {
    if (typeof node === "string") return node;
    if (!node || typeof node !== "object") return "";
    const children = Array.isArray(node.children) ? node.children : [];
    if (node.type === "text") return children.map(nodeText).join("");
    if (node.type === "box")
      return children
        .map(nodeText)
        .filter((text) => text !== "")
        .join("\n\n");
    return "";
  }

  /** Boxes that open a product page: one card each. @param {any} node @returns {any[]} */
  function findCards(node) {
    if (!node || typeof node !== "object") return [];
    if (node.type === "box" && node.onPress && typeof node.onPress.url === "string" && /\/dp\/[A-Z0-9]{10}/.test(node.onPress.url))
      return [node];
    const children = Array.isArray(node.children) ? node.children : [];
    return children.flatMap(findCards);
  }

  /** Nodes of a type, depth first. @param {any} node @param {string} type @returns {any[]} */
  function nodesOfType(node, type) {
    if (!node || typeof node !== "object") return [];
    const here = node.type === type ? [node] : [];
    const children = Array.isArray(node.children) ? node.children : [];
    return here.concat(children.flatMap((child) => nodesOfType(child, type)));
  }

  /** @param {any} price */
  function formatPrice(price) {
    const amount = price.fractionalValue
      ? `${price.wholeValue}${boot.priceStyle === "symbol-last-comma" ? "," : "."}${price.fractionalValue}`
      : price.wholeValue;
    return boot.priceStyle === "symbol-last-comma" ? `${amount} ${price.currencySymbol}` : `${price.currencySymbol}${amount}`;
  }

  /**
   * @param {HTMLElement} container
   * @param {AnswerTree} answer
   */
  function renderSections(container, answer) {
    container.textContent = "";
    for (const groupId of answer.order) {
      const value = answer.groups.get(groupId);
      if (value === undefined || groupId.includes("asinFooter")) continue;
      if (groupId.startsWith("markdown_processor")) {
        const prose = document.createElement("div");
        prose.className = classes.markdown;
        prose.textContent = nodeText(value);
        container.append(prose);
      } else if (groupId.startsWith("asin_cards")) {
        findCards(value).forEach((card, index) => {
          container.append(renderCard(card, footerOf(answer, groupId, card, index)));
        });
      }
    }
  }

  /**
   * @param {AnswerTree} answer
   * @param {string} groupId
   * @param {any} card
   * @param {number} index
   */
  function footerOf(answer, groupId, card, index) {
    const asin = (/\/dp\/([A-Z0-9]{10})/.exec(card.onPress.url) || [])[1] || "";
    const footer = answer.groups.get(`${groupId}_asinFooter_${asin}`) ?? answer.groups.get(`${groupId}_asinFooter_${index}`);
    return footer === undefined ? "" : nodeText(footer);
  }

  /**
   * @param {any} card
   * @param {string} footer
   */
  function renderCard(card, footer) {
    const asin = (/\/dp\/([A-Z0-9]{10})/.exec(card.onPress.url) || [])[1] || "";
    const element = document.createElement("div");
    element.className = classes.card;
    const link = document.createElement("a");
    link.href = `${boot.root}dp/${asin}`;
    const image = document.createElement("div");
    image.className = "card-image";
    const alt = nodesOfType(card, "image")[0];
    image.setAttribute("role", "img");
    image.setAttribute("aria-label", alt && typeof alt.altText === "string" ? alt.altText : "");
    const details = document.createElement("div");
    const texts = nodesOfType(card, "text");
    for (const text of texts) {
      const line = document.createElement("div");
      if (typeof text.lines === "number") {
        line.className = "card-title";
        line.textContent = nodeText(text);
      } else {
        line.className = "card-badge";
        line.textContent = nodeText(text);
      }
      details.append(line);
    }
    if (!texts.some((text) => typeof text.lines === "number") && alt && typeof alt.altText === "string") {
      const title = document.createElement("div");
      title.className = "card-title";
      title.textContent = alt.altText;
      details.append(title);
    }
    for (const rating of nodesOfType(card, "rating")) {
      const stars = document.createElement("div");
      stars.className = "card-stars";
      stars.textContent = `★ ${rating.valueString} (${rating.count})`;
      details.append(stars);
    }
    const prices = nodesOfType(card, "price");
    if (prices.length > 0) {
      const priceLine = document.createElement("div");
      for (const price of prices) {
        const amount = document.createElement("span");
        amount.className = price.strikethrough ? "card-price-list" : "card-price";
        amount.textContent = formatPrice(price);
        priceLine.append(amount);
      }
      details.append(priceLine);
    }
    link.append(image, details);
    element.append(link);
    if (footer !== "") {
      const footerLine = document.createElement("div");
      footerLine.className = "card-footer";
      footerLine.textContent = footer;
      element.append(footerLine);
    }
    return element;
  }
})();
