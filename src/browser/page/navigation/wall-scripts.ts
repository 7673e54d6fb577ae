/**
 * The wall checks that run inside the page, as source text: which dialogs are shown, whether one asks the user to sign
 * in, which is an interruption (consent, survey, promo), what covers a control, and the one-call block check. The
 * decisions taken on their results are in walls.ts.
 */
import { IS_VISIBLE } from "./in-page";

/**
 * In-page `(dialog) => boolean`: whether a dialog asks the user to sign in (a password field, a sign-in control or
 * heading, a link to a sign-in page). A consent dialog (Reject all / Accept all) is consent even with a sign-in link.
 */
const SIGN_IN_DIALOG = `(dialog) => {
  const words = (element) => ((element.getAttribute("aria-label") || "") + " " + (element.textContent || "")).replace(/\\s+/g, " ");
  const controls = Array.from(dialog.querySelectorAll("button, a, [role=button], [role=link], h1, h2, h3, [role=heading]"));
  if (controls.some((element) => /^\\s*(reject all|accept all|alle ablehnen|alle akzeptieren|tout refuser|tout accepter|rechazar todo|aceptar todo|i agree)\\s*$/i.test(words(element)))) return false;
  if (dialog.querySelector('input[type="password" i]')) return true;
  const signIn = /\\b(sign[ -]?in|log[ -]?in|sign[ -]?up|create (an |your )?account|continue with (google|apple|microsoft|email|phone))\\b|anmelden|se connecter|connexion|iniciar sesi[oó]n|accedi|entrar|ログイン|登录|登入/i;
  if (controls.some((element) => signIn.test(words(element)))) return true;
  return Array.from(dialog.querySelectorAll("a[href]")).some((link) => /(^|[./])(login|signin|sign-in|accounts)[./]|\\/(login|signin|sign-in|ServiceLogin)\\b/i.test(link.href));
}`;

/** In-page: visible, modal-looking dialogs (role dialog/alertdialog, aria-modal, an open <dialog>), in document order. */
const SHOWN_DIALOGS = `Array.from(document.querySelectorAll('[role="dialog"], [role="alertdialog"], [aria-modal="true"], dialog[open]')).filter((dialog) => {
  const style = getComputedStyle(dialog);
  return style.visibility !== "hidden" && style.display !== "none" && dialog.getClientRects().length > 0 && !dialog.parentElement?.closest('[role="dialog"], [role="alertdialog"], [aria-modal="true"], dialog[open]');
})`;

/** In-page `this` = a dialog: still shown. */
export const IS_SHOWN_DIALOG = `function () {
  if (!this.isConnected) return false;
  const style = getComputedStyle(this);
  return style.visibility !== "hidden" && style.display !== "none" && this.getClientRects().length > 0;
}`;

/** In-page: the first shown modal dialog that is an interruption (no sign-in, no challenge evidence), or null. */
export const INTERRUPTION_DIALOG = `() => {
  const signIn = ${SIGN_IN_DIALOG};
  return ${SHOWN_DIALOGS}.find((dialog) => !signIn(dialog) && !dialog.querySelector('iframe[src*="captcha" i], iframe[src*="challenge" i], iframe[src*="turnstile" i], form[action*="captcha" i]')) || null;
}`;

/**
 * In-page `this` = a control: what covers its centre. "none"; "signin" (a sign-in dialog); "dialog" (another dialog
 * or its backdrop while a dialog is shown); "loading" (a progressbar or busy shell); "other".
 */
export const COVER_OF = `function () {
  const rect = this.getBoundingClientRect();
  const top = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
  if (top === null || this === top || this.contains(top) || top.contains(this)) return "none";
  const signIn = ${SIGN_IN_DIALOG};
  const dialogs = ${SHOWN_DIALOGS};
  const over = top.closest('[role="dialog"], [role="alertdialog"], [aria-modal="true"], dialog[open]');
  if (over !== null) return signIn(over) ? "signin" : "dialog";
  if (dialogs.length > 0) return dialogs.some(signIn) ? "signin" : "dialog";
  if (top.closest('[role="progressbar"], [aria-busy="true"]') !== null) return "loading";
  return "other";
}`;

/**
 * In-page `(composer, withText) => …`: the block the page shows, checked in this order: a visible challenge element
 * ("challenge"), a visible sign-in modal ("login_wall"), a modal over the composer ("login_wall"); else, when `withText`,
 * `{ text }` (title and body text, matched against the challenge texts outside the page), else null.
 */
export function blockCheckFunction(challengeSelectors: readonly string[], modalSelectors: readonly string[], textWanted: boolean): string {
  return `(composer, withText) => {
  const isVisible = ${IS_VISIBLE};
  const anyVisible = (selectors) => selectors.some((selector) => {
    try {
      return [...document.querySelectorAll(selector)].some((element) => isVisible.call(element));
    } catch {
      return false;
    }
  });
  if (anyVisible(${JSON.stringify(challengeSelectors)})) return "challenge";
  if (anyVisible(${JSON.stringify(modalSelectors)})) return "login_wall";
  if (composer !== null && (${COVER_OF}).call(composer) === "signin") return "login_wall";
  if (withText && ${textWanted}) return { text: document.title + "\\n" + (document.body ? document.body.innerText : "") };
  return null;
}`;
}
