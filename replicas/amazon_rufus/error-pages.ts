/**
 * The pages Amazon answers instead of the store when it blocks a session (amazon_rufus.md §5): the robot check
 * (CAPTCHA form posting to /errors/validateCaptcha), the sign-in page (/ap/signin) and the 503 "dogs" page.
 * `root` is the marketplace's path prefix on the replica ("/amazon_rufus/amazon.com/"), standing in for "/".
 */
import { escapeHtml } from "./stream";

const PAGE_STYLE = `body { font: 13px/19px Arial, sans-serif; color: #0f1111; margin: 0; }
.a-container { max-width: 640px; margin: 40px auto; padding: 0 20px; }
.a-box { border: 1px solid #d5d9d9; border-radius: 8px; padding: 20px 26px; }
.a-button-primary { background: #ffd814; border: 1px solid #fcd200; border-radius: 8px; padding: 6px 16px; cursor: pointer; }
input[type="text"], input[type="email"], input[type="password"] { width: 100%; box-sizing: border-box; padding: 6px; margin: 6px 0 12px; }`;

/** The robot check (sheet §5: served in place of the requested page, HTTP 200 or 503). */
export function renderCaptchaPage(root: string, domain: string, requestedPath: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Amazon.${escapeHtml(domain.replace(/^amazon\./, ""))}</title><style>${PAGE_STYLE}</style></head>
<body>
<div class="a-container">
  <div class="a-box">
    <h4>Enter the characters you see below</h4>
    <p>Sorry, we just need to make sure you're not a robot. For best results, please make sure your browser is accepting cookies.</p>
    <form method="get" action="${escapeHtml(root)}errors/validateCaptcha" name="">
      <input type="hidden" name="amzn" value="b3a8f0c2d1e4">
      <input type="hidden" name="amzn-r" value="${escapeHtml(requestedPath)}">
      <div class="a-row"><svg width="200" height="70" role="img" aria-label="captcha"><rect width="200" height="70" fill="#eee"/><text x="30" y="45" font-size="28" font-family="monospace" transform="skewX(-12)">XKCDMB</text></svg></div>
      <h4>Type the characters you see in this image:</h4>
      <input autocomplete="off" spellcheck="false" placeholder="Type characters" name="field-keywords" type="text">
      <button type="submit" class="a-button-primary">Continue shopping</button>
    </form>
  </div>
  <p>To discuss automated access to Amazon data please contact api-services-support@amazon.com.</p>
  <p>Conditions of Use &amp; Sale · Privacy Notice</p>
</div>
</body></html>`;
}

/**
 * The sign-in page the store redirects a session without valid sign-in cookies to (sheet §2, §5). The form posts an
 * email and a password (one step here; the real site asks for the password on a second page) and `openid.return_to`.
 */
export function renderSignInPage(root: string, returnTo = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Amazon Sign-In</title><style>${PAGE_STYLE}</style></head>
<body>
<div class="a-container">
  <a href="${escapeHtml(root)}" aria-label="Amazon">amazon</a>
  <div class="a-box">
    <h1>Sign in</h1>
    <form name="signIn" method="post" action="${escapeHtml(root)}ap/signin" novalidate>
      <label for="ap_email">Email or mobile phone number</label>
      <input type="email" id="ap_email" name="email" autocomplete="username">
      <label for="ap_password">Password</label>
      <input type="password" id="ap_password" name="password" autocomplete="current-password">
      <input type="hidden" name="openid.return_to" value="${escapeHtml(returnTo)}">
      <input type="submit" class="a-button-primary" value="Continue">
    </form>
    <p>By continuing, you agree to Amazon's Conditions of Use and Privacy Notice.</p>
  </div>
  <p>New to Amazon? <a href="${escapeHtml(root)}ap/register">Create your Amazon account</a></p>
</div>
</body></html>`;
}

/** The 503 page with the dogs of Amazon (sheet §5: rate limiting). */
export function renderDogsPage(root: string, domain: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>503 - Service Unavailable Error</title><style>${PAGE_STYLE}</style></head>
<body>
<div class="a-container" style="text-align:center">
  <a href="${escapeHtml(root)}"><h2>Sorry! Something went wrong!</h2></a>
  <svg width="240" height="160" role="img" aria-label="Dogs of Amazon"><circle cx="80" cy="90" r="50" fill="#c8a27a"/><circle cx="170" cy="95" r="45" fill="#8b5a2b"/></svg>
  <p><a href="${escapeHtml(root)}">Go to the ${escapeHtml(domain.replace(/^amazon/, "Amazon"))} homepage</a></p>
</div>
</body></html>`;
}

export function renderNotFoundPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Page Not Found</title></head>
<body><h2>Looking for something?</h2><p>We're sorry. The Web address you entered is not a functioning page on our site.</p></body></html>`;
}
