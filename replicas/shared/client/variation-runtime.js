// The generic page variation of replicas/shared/page-variation.ts, applied in the provider's page after its own
// script built it. One function expression, called with { variation, profile }; it touches only elements the
// provider's profile names, and only in ways any web page may behave (see VARIATION_GROUNDS).
// biome-ignore lint/correctness/noUnusedVariables: page-variation.ts inlines this function into the page and calls it
function applyPageVariation({ variation, profile }) {
  const started = performance.now();
  const matchesAny = (element, selectors) =>
    selectors.some((selector) => {
      try {
        return element.closest(selector) !== null;
      } catch {
        return false;
      }
    });
  const all = (selectors) =>
    selectors.flatMap((selector) => {
      try {
        return Array.from(document.querySelectorAll(selector));
      } catch {
        return [];
      }
    });
  const later = (ms, action) => setTimeout(action, Math.max(0, ms - (performance.now() - started)));

  // hydration: controls inserted late, or present but deaf until hydrated; a loading shell; a late load event
  const hydration = variation.hydration;
  let hydrated = hydration === null || hydration.delayMs === 0;
  if (hydration !== null && !hydrated) {
    const guarded = [...profile.hydrating, ...profile.composer];
    for (const type of ["pointerdown", "mousedown", "mouseup", "click", "keydown", "keypress", "beforeinput", "paste"]) {
      window.addEventListener(
        type,
        (event) => {
          if (hydrated || !(event.target instanceof Element) || !matchesAny(event.target, guarded)) return;
          event.preventDefault();
          event.stopImmediatePropagation();
        },
        true,
      );
    }
    const detached = [];
    if (hydration.mode === "late") {
      for (const element of all(profile.hydrating)) {
        if (detached.some((entry) => entry.element.contains(element))) continue;
        const marker = document.createComment("hydrating");
        element.replaceWith(marker);
        detached.push({ element, marker });
      }
    }
    let shell = null;
    if (hydration.shell) {
      shell = document.createElement("div");
      shell.setAttribute("role", "progressbar");
      shell.setAttribute("aria-label", "Loading");
      shell.style.cssText =
        "position:fixed;inset:0;z-index:2147483000;background:rgba(128,128,128,.35);display:flex;align-items:center;justify-content:center;";
      shell.innerHTML = '<div style="width:40px;height:40px;border-radius:50%;border:4px solid #999;border-top-color:transparent"></div>';
      document.body.append(shell);
    }
    later(hydration.delayMs, () => {
      for (const { element, marker } of detached) if (marker.isConnected) marker.replaceWith(element);
      shell?.remove();
      hydrated = true;
    });
  }
  if (hydration !== null && hydration.lateLoadMs > 0) {
    const image = document.createElement("img");
    image.alt = "";
    image.width = 1;
    image.height = 1;
    image.style.cssText = "position:absolute;left:-10px;top:-10px;";
    image.src = `${location.origin}/__variation/slow-asset?ms=${hydration.lateLoadMs}`;
    document.body.append(image);
  }

  // controlled inputs: read-only while initialising, scripted values ignored, key input only
  const controlled = variation.controlledInput;
  if (controlled !== null) {
    const composers = () => all(profile.composer);
    if (controlled.readOnlyMs > 0) {
      const restore = [];
      const locked = new WeakSet();
      const lock = (element) => {
        if (locked.has(element)) return;
        locked.add(element);
        if (element instanceof HTMLTextAreaElement || element instanceof HTMLInputElement) {
          const was = element.readOnly;
          element.readOnly = true;
          restore.push(() => {
            element.readOnly = was;
          });
        } else if (element.isContentEditable || element.hasAttribute("contenteditable")) {
          const was = element.getAttribute("contenteditable");
          element.setAttribute("contenteditable", "false");
          restore.push(() => element.setAttribute("contenteditable", was ?? "true"));
        }
      };
      for (const element of composers()) lock(element);
      // a composer that hydrates late is locked from the moment it mounts
      const observer = new MutationObserver(() => {
        for (const element of composers()) lock(element);
      });
      observer.observe(document.documentElement, { childList: true, subtree: true });
      const unlockAfter = (hydration?.delayMs ?? 0) + controlled.readOnlyMs;
      later(unlockAfter, () => {
        observer.disconnect();
        for (const undo of restore) undo();
      });
    }
    if (controlled.ignoreScriptedValue) {
      const ignore = (element) => {
        if (!(element instanceof HTMLTextAreaElement || element instanceof HTMLInputElement)) return;
        const prototype = Object.getPrototypeOf(element);
        const native = Object.getOwnPropertyDescriptor(prototype, "value");
        if (native === undefined || Object.hasOwn(element, "value")) return;
        Object.defineProperty(element, "value", {
          configurable: true,
          get() {
            return native.get.call(this);
          },
          // clearing is the page's own reset after sending; any other value set by script is not the app's state
          set(value) {
            if (value === "") native.set.call(this, value);
          },
        });
      };
      for (const element of composers()) ignore(element);
      new MutationObserver(() => {
        for (const element of composers()) ignore(element);
      }).observe(document.documentElement, { childList: true, subtree: true });
    }
    if (controlled.keyEventsOnly) {
      let lastKeyAt = -1;
      window.addEventListener(
        "keydown",
        (event) => {
          if (event.isTrusted) lastKeyAt = performance.now();
        },
        true,
      );
      window.addEventListener(
        "beforeinput",
        (event) => {
          if (!(event.target instanceof Element) || !matchesAny(event.target, profile.composer)) return;
          if (!["insertText", "insertFromPaste", "insertReplacementText", "insertFromDrop"].includes(event.inputType)) return;
          if (performance.now() - lastKeyAt < 50) return;
          event.preventDefault();
          event.stopImmediatePropagation();
        },
        true,
      );
    }
  }

  // decoration: label case and padding, badges, wrappers, rotated class names
  const decoration = variation.decoration;
  if (decoration !== null) {
    const restyle = (label) => {
      const cased = decoration.labelCase === "upper" ? label.toUpperCase() : decoration.labelCase === "lower" ? label.toLowerCase() : label;
      return decoration.pad ? `\u00a0 ${cased}\u00a0 ` : cased;
    };
    const done = { decorated: new WeakSet(), rotated: new WeakSet(), wrapped: new WeakSet() };
    const decorate = (element) => {
      if (done.decorated.has(element)) return;
      done.decorated.add(element);
      const label = element.getAttribute("aria-label");
      if (label !== null) element.setAttribute("aria-label", restyle(label));
      if (decoration.badge && label === null && element.textContent.trim() !== "") {
        const badge = document.createElement("span");
        badge.textContent = " New";
        badge.style.cssText = "font-size:10px;margin-left:4px;padding:0 4px;border-radius:4px;background:#3a6;color:#fff;";
        element.append(badge);
      }
    };
    let salt = decoration.salt;
    const rotate = (element) => {
      if (done.rotated.has(element)) return;
      done.rotated.add(element);
      for (const name of Array.from(element.classList)) if (!profile.keepClasses.includes(name)) element.classList.remove(name);
      salt = (salt * 1103515245 + 12345) & 0xffffff;
      element.classList.add(`css-${salt.toString(36)}`);
    };
    const wrap = (element) => {
      if (done.wrapped.has(element) || element.parentNode === null) return;
      done.wrapped.add(element);
      for (let level = 0; level < decoration.wrappers; level += 1) {
        const wrapper = document.createElement(
          element.tagName === "LI" || element.tagName === "TR" || element.tagName === "TD" ? "span" : "div",
        );
        if (wrapper.tagName === "SPAN") break;
        wrapper.style.display = "contents";
        element.replaceWith(wrapper);
        wrapper.append(element);
      }
    };
    const apply = () => {
      for (const element of all(profile.labelled)) decorate(element);
      if (decoration.rotateClasses) for (const element of all(profile.rotatable)) rotate(element);
      if (decoration.wrappers > 0) for (const element of all(profile.wrappable)) wrap(element);
    };
    apply();
    // controls and lists rendered later (answers, menus, sources) are decorated as they mount
    let scheduled = false;
    new MutationObserver(() => {
      if (scheduled) return;
      scheduled = true;
      queueMicrotask(() => {
        scheduled = false;
        apply();
      });
    }).observe(document.documentElement, { childList: true, subtree: true });
  }

  // rollout siblings: a newer feature's control before the real one
  if (variation.sibling !== null) {
    const sibling = profile.siblings[variation.sibling];
    const place = () => {
      const anchor = all([sibling.before])[0];
      if (anchor === undefined || anchor.parentNode === null) return false;
      const holder = document.createElement("template");
      holder.innerHTML = sibling.html;
      anchor.before(...holder.content.childNodes);
      return true;
    };
    if (!place()) {
      const observer = new MutationObserver(() => {
        if (place()) observer.disconnect();
      });
      observer.observe(document.documentElement, { childList: true, subtree: true });
      setTimeout(() => observer.disconnect(), 15000);
    }
  }

  // interruptions that are not sign-in walls: consent, survey, promo (modal); toast, update banner (not modal)
  const interruption = variation.interruption;
  if (interruption !== null) {
    const texts = {
      consent: [
        ["Before you continue", "We use cookies and data to deliver and maintain our services.", ["Reject all", "Accept all"]],
        ["We value your privacy", "Choose how we use cookies on this site.", ["Accept all", "Reject all"]],
        ["Cookie settings", "Cookies help us improve your experience.", ["Reject all", "Accept all"]],
      ],
      survey: [
        ["How are we doing?", "Tell us about your experience in two minutes.", ["Not now"]],
        ["Quick question", "Would you recommend us to a friend?", ["Not now"]],
        ["Help us improve", "Take a short survey.", ["Not now"]],
      ],
      promo: [
        ["Try the new experience", "Faster answers, now for everyone.", ["Dismiss"]],
        ["Introducing voice mode", "Talk instead of typing.", ["Maybe later"]],
        ["Get the app", "Answers on the go.", ["Not now"]],
      ],
    };
    const show = () => {
      if (interruption.kind === "toast") {
        const toast = document.createElement("div");
        toast.setAttribute("role", "status");
        toast.textContent = ["Link copied", "You're back online", "Settings saved"][interruption.wording] ?? "Saved";
        toast.style.cssText =
          "position:fixed;bottom:90px;left:16px;z-index:2147483001;background:#333;color:#fff;padding:8px 14px;border-radius:8px;";
        document.body.append(toast);
        setTimeout(() => toast.remove(), 4000);
        return;
      }
      if (interruption.kind === "update_banner") {
        const banner = document.createElement("div");
        banner.setAttribute("role", "region");
        banner.setAttribute("aria-label", "Update available");
        banner.style.cssText =
          "position:fixed;top:0;left:0;right:0;z-index:2147483001;background:#234;color:#fff;padding:8px 16px;display:flex;gap:12px;align-items:center;";
        banner.innerHTML =
          '<span>A new version is available.</span><button type="button">Reload</button><button type="button" aria-label="Dismiss">\u00d7</button>';
        const [reload, dismiss] = banner.querySelectorAll("button");
        reload.addEventListener("click", () => location.reload());
        dismiss.addEventListener("click", () => banner.remove());
        document.body.append(banner);
        return;
      }
      const [title, body, actions] = texts[interruption.kind][interruption.wording] ?? texts[interruption.kind][0];
      const backdrop = document.createElement("div");
      backdrop.style.cssText = "position:fixed;inset:0;z-index:2147483002;background:rgba(0,0,0,.55);";
      const dialog = document.createElement("div");
      const titleId = `dialog-title-${Math.floor(Math.random() * 1e9)}`;
      dialog.setAttribute("role", "dialog");
      dialog.setAttribute("aria-modal", "true");
      dialog.setAttribute("aria-labelledby", titleId);
      dialog.style.cssText =
        "position:fixed;z-index:2147483003;top:50%;left:50%;transform:translate(-50%,-50%);background:#fff;color:#111;padding:24px;border-radius:16px;width:min(420px,90vw);";
      const heading = document.createElement("h2");
      heading.id = titleId;
      heading.textContent = title;
      const text = document.createElement("p");
      text.textContent = body;
      const row = document.createElement("div");
      row.style.cssText = "display:flex;gap:8px;justify-content:flex-end;";
      const close = () => {
        backdrop.remove();
        dialog.remove();
      };
      for (const name of actions) {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = name;
        button.addEventListener("click", close);
        row.append(button);
      }
      if (interruption.kind !== "consent") {
        const x = document.createElement("button");
        x.type = "button";
        x.setAttribute("aria-label", "Close");
        x.textContent = "\u00d7";
        x.style.cssText = "position:absolute;top:8px;right:8px;";
        x.addEventListener("click", close);
        dialog.append(x);
      }
      dialog.append(heading, text, row);
      document.body.append(backdrop, dialog);
    };
    if (interruption.trigger === "load") later(interruption.atMs, show);
    else {
      let fired = false;
      const fire = () => {
        if (fired) return;
        fired = true;
        setTimeout(show, interruption.atMs);
      };
      const originalFetch = window.fetch;
      window.fetch = function (...args) {
        const [input, init] = args;
        const method =
          init !== undefined && typeof init.method === "string" ? init.method : input instanceof Request ? input.method : "GET";
        if (method.toUpperCase() === "POST") fire();
        return originalFetch.apply(this, args);
      };
      const originalSend = XMLHttpRequest.prototype.send;
      XMLHttpRequest.prototype.send = function (...args) {
        fire();
        return originalSend.apply(this, args);
      };
      const originalSocketSend = WebSocket.prototype.send;
      WebSocket.prototype.send = function (...args) {
        fire();
        return originalSocketSend.apply(this, args);
      };
    }
  }
}
