/**
 * The "changed page" every replica can serve for a page load (POST /__control/changed-page): layout drift as a site
 * shows it after a redesign. It is a plain, sheet-legal page of the site (header, navigation, some text, footer) with
 * no composer, no answer and nothing a scraper reads as a block (no challenge, sign-in wall, rate limit or error
 * status): a scraper can only conclude that the page it knows is gone.
 *
 * Two replicas change their own page instead, because a plain page means something else there: on Amazon a store page
 * without the Rufus button is a marketplace without Rufus (permanent, not drift), so its changed page keeps the button
 * and loses the panel's question box; Google AI Mode takes the prompt from the URL and has no composer to lose, so its
 * changed page is the AI Mode shell that no longer starts the answer request.
 */

function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

export function renderChangedPage(siteName: string): string {
  const site = escapeHtml(siteName);
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${site}</title>
  </head>
  <body>
    <header>
      <a href="./">${site}</a>
      <nav><a href="./">Home</a> <a href="./about">About</a> <a href="./help">Help</a></nav>
    </header>
    <main>
      <h1>Discover what's new</h1>
      <p>Browse highlights, stories and updates from ${site}.</p>
      <ul>
        <li><a href="./about">Our story</a></li>
        <li><a href="./help">Help centre</a></li>
      </ul>
    </main>
    <footer><small>${site}</small></footer>
  </body>
</html>`;
}
