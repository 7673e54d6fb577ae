/**
 * The HTML pages of the Google AI Mode replica other than the answer fragment: the `/search?udm=50` shell carrying the
 * session tokens of google_ai_mode.md §3 (the page's script, client/ai-mode-page.js, is inlined), the EU consent
 * dialog, the sign-in prompt, the `/sorry/index` unusual-traffic page, classic results for other `udm` values, the
 * empty `/ai` page and Google's plain error page.
 */
import { readFileSync } from "node:fs";
import { escapeText } from "./fragment";
import type { AiModeLayout } from "./layouts";
import type { AiModeVariant } from "./variation";

const CLIENT_SCRIPT = readFileSync(new URL("./client/ai-mode-page.js", import.meta.url), "utf8");
if (CLIENT_SCRIPT.includes("</script")) throw new Error("ai-mode-page.js must not contain a closing script tag");

const STYLE = `
html, body { margin: 0; background: #fff; color: #1f1f1f; font: 16px/1.6 Arial, sans-serif; }
header { display: flex; gap: 16px; align-items: center; padding: 16px 24px; border-bottom: 1px solid #ebebeb; }
header textarea { width: min(640px, 100%); height: 24px; resize: none; border: 1px solid #dfe1e5; border-radius: 24px; padding: 10px 16px; font: inherit; }
main { max-width: 760px; padding: 16px 24px 160px; }
h2, h3 { margin: 20px 0 8px; }
table { border-collapse: collapse; } th, td { border: 1px solid #dadce0; padding: 4px 10px; }
button[data-icl-uuid] { border: 1px solid #dadce0; border-radius: 12px; background: #f1f3f4; min-width: 24px; height: 20px; margin: 0 2px; vertical-align: middle; cursor: pointer; }
button[aria-label="Helpful"], button[aria-label="Not helpful"] { border: none; background: none; cursor: pointer; }
[role="dialog"] { position: fixed; inset: 10% 20%; background: #fff; border: 1px solid #dadce0; border-radius: 16px; padding: 24px; overflow: auto; box-shadow: 0 4px 24px rgba(0,0,0,.2); z-index: 10; }
[hidden] { display: none !important; }
.overlay { position: fixed; inset: 0; background: rgba(0,0,0,.5); z-index: 9; }
.composer { position: fixed; bottom: 16px; left: 24px; width: min(712px, 100% - 48px); }
.composer textarea { width: 100%; border: 1px solid #dfe1e5; border-radius: 28px; padding: 14px 20px; font: inherit; resize: none; }
`;

function page(options: { lang: string; title: string; body: string }): string {
  return `<!doctype html>
<html lang="${escapeText(options.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeText(options.title)}</title>
<style>${STYLE}</style>
</head>
<body>
${options.body}
</body>
</html>`;
}

/** The session tokens the shell carries (google_ai_mode.md §3); the folwr token is single-use. */
export interface ShellTokens {
  xsrfFolwr: string;
  garc: string;
  stkp: string;
  lroToken: string;
  lroSignature: string;
  ei: string;
}

export interface SearchShellOptions {
  layout: AiModeLayout;
  q: string;
  hl: string;
  gl: string;
  /** null: the shell cannot answer (consent dialog or sign-in prompt shown instead). */
  tokens: ShellTokens | null;
  /** Show the EU consent dialog ("Before you continue to Google"); its form posts to `consentAction`. */
  consent: { action: string; continueUrl: string } | null;
  /** Show the sign-in prompt over the page. */
  signIn: { continueUrl: string } | null;
  /** Layout drift (POST /__control/changed-page): the shell no longer starts the answer request. */
  changed?: boolean;
  /**
   * Page fuzzing (variation.ts): the provider's variant, played by the page's script, and the generic variation's
   * script tag, which goes after the page's own script. Null or absent: the page as the layout serves it.
   */
  fuzz?: { variant: AiModeVariant; generic: string } | null;
}

function searchHeader(q: string, hl: string, gl: string): string {
  return `<header>
<a href="./" aria-label="Go to Google Home">Google</a>
<form action="search" method="GET" role="search">
<textarea name="q" aria-label="Search" rows="1">${escapeText(q)}</textarea>
<input type="hidden" name="udm" value="50"><input type="hidden" name="hl" value="${escapeText(hl)}"><input type="hidden" name="gl" value="${escapeText(gl)}">
</form>
<a href="https://accounts.google.com/ServiceLogin?hl=${encodeURIComponent(hl)}">Sign in</a>
</header>`;
}

function consentDialog(consent: { action: string; continueUrl: string }): string {
  return `<div class="overlay"></div>
<div role="dialog" aria-modal="true" aria-label="Before you continue to Google">
<h1>Before you continue to Google</h1>
<p>We use cookies and data to deliver and maintain Google services, track outages and protect against spam, fraud and abuse.</p>
<form action="${escapeText(consent.action)}" method="POST">
<input type="hidden" name="continue" value="${escapeText(consent.continueUrl)}">
<button type="submit" name="set_eom" value="true">Reject all</button>
<button type="submit" id="L2AGLb" jsname="b3VHJd" name="set_eom" value="false">Accept all</button>
</form>
</div>`;
}

function signInPrompt(continueUrl: string): string {
  return `<div class="overlay"></div>
<div role="dialog" aria-modal="true" aria-label="Sign in">
<h2>Sign in to continue</h2>
<p>Sign in to your Google Account to use AI Mode.</p>
<a role="button" href="https://accounts.google.com/ServiceLogin?continue=${encodeURIComponent(continueUrl)}">Sign in</a>
</div>`;
}

/** `GET /search?udm=50&q=…`: the shell. It holds no answer; its script fetches the folwr fragment. */
export function renderSearchShell(options: SearchShellOptions): string {
  const { layout, q, hl, gl, tokens } = options;
  const session =
    tokens === null
      ? ""
      : `<div data-xsrf-folwr-token="${tokens.xsrfFolwr}" data-garc="${tokens.garc}" data-stkp="${tokens.stkp}" data-lro-token="${tokens.lroToken}" data-lro-signature="${tokens.lroSignature}" data-ei="${tokens.ei}">
<div role="status" aria-live="polite"><span>Thinking</span></div>
<div></div>
</div>`;
  const fuzz = options.fuzz ?? null;
  const variant = fuzz === null ? "null" : JSON.stringify(fuzz.variant).replace(/</g, "\\u003c");
  const script =
    tokens === null || options.changed === true
      ? ""
      : `<script>${CLIENT_SCRIPT.replace("__TRANSPORT__", layout.transport).replace("null /*__VARIANT__*/", variant)}</script>`;
  const body = `${searchHeader(q, hl, gl)}
<main>
<div role="heading" aria-level="1">${escapeText(q)}</div>
${session}
</main>
<div class="composer"><textarea placeholder="Ask anything" aria-label="Ask anything" rows="1"></textarea></div>
${options.consent === null ? "" : consentDialog(options.consent)}
${options.signIn === null ? "" : signInPrompt(options.signIn.continueUrl)}
${script}${fuzz === null ? "" : fuzz.generic}`;
  return page({ lang: hl, title: `${q} - Google Search`, body });
}

/** `GET /search` without `udm=50`: classic results, no AI Mode session. */
export function renderClassicResults(q: string, hl: string, gl: string): string {
  const body = `${searchHeader(q, hl, gl)}
<main>
<h2>Web results</h2>
<div><a href="https://en.wikipedia.org/wiki/Special:Search?search=${encodeURIComponent(q)}"><h3>${escapeText(q)} - Wikipedia</h3></a></div>
</main>`;
  return page({ lang: hl, title: `${q} - Google Search`, body });
}

/** `GET /ai`: the empty AI Mode page; Enter in its textarea opens `/search?udm=50&q=…`. */
export function renderAiHome(hl: string, gl: string): string {
  const script = `(() => {
  const box = document.querySelector('textarea[placeholder="Ask anything"]');
  box.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey || box.value.trim() === "") return;
    event.preventDefault();
    const params = new URLSearchParams({ udm: "50", aep: "11", q: box.value, hl: ${JSON.stringify(hl)}, gl: ${JSON.stringify(gl)} });
    location.assign(location.pathname.replace(/ai$/, "search") + "?" + params.toString());
  });
})();`;
  const body = `<main><h1>AI Mode</h1><div class="composer"><textarea placeholder="Ask anything" aria-label="Ask anything" rows="1"></textarea></div></main>
<script>${script}</script>`;
  return page({ lang: hl, title: "Google AI Mode", body });
}

/** `GET /sorry/index?continue=…`: the unusual-traffic interstitial (served with HTTP 429). */
export function renderSorryPage(continueUrl: string, q: string): string {
  const body = `<div style="max-width:600px;margin:40px auto">
<form id="captcha-form" action="index" method="post">
<div class="g-recaptcha"></div>
<label><input type="checkbox"> I'm not a robot</label>
<input type="hidden" name="q" value="${escapeText(q)}"><input type="hidden" name="continue" value="${escapeText(continueUrl)}">
</form>
<hr>
<div><b>About this page</b><br><br>Our systems have detected unusual traffic from your computer network. This page checks to see if it's really you sending the requests, and not a robot.</div>
</div>`;
  return page({ lang: "en", title: "https://www.google.com/search", body });
}

/** Google's bare error page ("400. That’s an error."), as `/async/folwr` answers a replayed or broken URL. */
export function renderGoogleError(status: number, message: string): string {
  const body = `<a href="//www.google.com/"><span aria-label="Google">Google</span></a>
<p><b>${status}.</b> <ins>That’s an error.</ins></p>
<p>${escapeText(message)} <ins>That’s all we know.</ins></p>`;
  return page({ lang: "en", title: `Error ${status}`, body });
}
