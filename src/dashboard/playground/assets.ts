/**
 * Styles and script of the playground and the result viewer, appended to the dashboard's one stylesheet and script
 * (src/dashboard/assets.ts), so the Content-Security-Policy keeps forbidding every inline style and script. The pages
 * work without the script; it adds: only the chosen scraper's own parameters and countries, snippets
 * that follow the form, a live timer while a run waits, a pending job followed until it ends, and copy buttons.
 */

export const PLAYGROUND_CSS = `
.playground-grid { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); align-items: start; }
.playground-grid .field { margin-bottom: 14px; min-width: 0; }
textarea, select, input[type="number"] { font: inherit; padding: 9px 12px; min-height: 42px; border: 1px solid var(--border); border-radius: 8px;
  background: var(--surface); color: var(--text); width: 100%; }
textarea { resize: vertical; min-height: 96px; }
textarea:focus, select:focus, input[type="number"]:focus { outline: 2px solid var(--accent-soft); border-color: var(--accent); }
select option:disabled { color: var(--faint); }
fieldset { border: 1px solid var(--border); border-radius: 10px; padding: 12px 14px 2px; margin: 0 0 14px; min-width: 0; }
fieldset[hidden] { display: none; }
legend { font-weight: 600; font-size: .9rem; padding: 0 6px; }
.check { display: flex; align-items: center; gap: 8px; font-weight: 500; margin-bottom: 6px; flex-wrap: wrap; }
.check input { width: 18px; height: 18px; margin: 0; accent-color: var(--accent); }
.check-field .hint { margin: 0; }
.field .hint { margin: 0; }
.more-options { margin: 0 0 14px; }
.more-options summary { cursor: pointer; font-weight: 600; font-size: .9rem; margin-bottom: 10px; }
.credits-note { margin: 4px 0 14px; }
.run-row { display: flex; align-items: center; gap: 14px; flex-wrap: wrap; }
.run-status { display: flex; align-items: center; gap: 8px; color: var(--muted); font-variant-numeric: tabular-nums; }
.run-status[hidden] { display: none; }
.spinner { width: 16px; height: 16px; border-radius: 50%; border: 2px solid var(--accent-soft); border-top-color: var(--accent); animation: spin .8s linear infinite; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
.code-block + .code-block { margin-top: 14px; }
.code-head { display: flex; justify-content: space-between; align-items: center; gap: 8px; font-size: .85rem; color: var(--muted); font-weight: 600; margin-bottom: 6px; flex-wrap: wrap; }
.snippet.code { white-space: pre; overflow-x: auto; word-break: normal; max-height: 420px; overflow-y: auto; }
.head-actions { display: flex; gap: 8px; flex-wrap: wrap; }
.facts { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 14px 20px; margin: 0 0 16px; }
.fact dt { color: var(--muted); font-size: .8rem; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; }
.fact dd { margin: 2px 0 0; font-weight: 600; overflow-wrap: anywhere; }
.prompt-text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; font-size: 1rem; }
.answer { overflow-wrap: anywhere; line-height: 1.65; }
.answer.plain { white-space: pre-wrap; }
.answer > :first-child { margin-top: 0; }
.answer > :last-child { margin-bottom: 0; }
.answer h1, .answer h2, .answer h3, .answer h4 { margin: 18px 0 8px; line-height: 1.3; }
.answer h1 { font-size: 1.35rem; } .answer h2 { font-size: 1.2rem; } .answer h3 { font-size: 1.05rem; }
.answer p, .answer ul, .answer ol, .answer blockquote, .answer pre, .answer table { margin: 0 0 12px; }
.answer ul, .answer ol { padding-left: 24px; }
.answer pre { background: var(--bg); border: 1px solid var(--border); border-radius: 8px; padding: 12px; overflow-x: auto; }
.answer code { background: var(--bg); border-radius: 4px; padding: 1px 4px; }
.answer pre code { background: none; padding: 0; }
.answer blockquote { border-left: 3px solid var(--border); padding-left: 12px; color: var(--muted); }
.answer table { display: block; overflow-x: auto; font-size: .9rem; }
.answer th, .answer td { padding: 6px 10px; border: 1px solid var(--border); }
.answer th { text-transform: none; letter-spacing: 0; font-size: .85rem; }
.result-cards { list-style: none; padding: 0; margin: 0; display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 12px; }
.result-card { border: 1px solid var(--border); border-radius: 10px; padding: 12px 14px; min-width: 0; overflow-wrap: anywhere; }
.result-card h3 { font-size: .98rem; margin: 0 0 2px; }
.card-url { color: var(--ok); font-size: .8rem; margin: 0 0 6px; }
.card-text { margin: 6px 0; font-size: .92rem; }
.card-meta { color: var(--muted); font-size: .85rem; margin: 6px 0 0; }
.card-meta-label { color: var(--faint); font-weight: 600; }
.card-list ul { margin: 4px 0 0; padding-left: 20px; font-size: .9rem; }
.result-links { margin: 0; padding-left: 20px; overflow-wrap: anywhere; }
.chips { list-style: none; padding: 0; margin: 0; display: flex; gap: 8px; flex-wrap: wrap; }
.chips li { background: var(--accent-soft); color: var(--accent-dark); border-radius: 999px; padding: 4px 12px; font-size: .9rem; }
.details-list { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 6px 16px; margin: 0; }
.details-list div { display: contents; }
.details-list dt { color: var(--muted); font-weight: 600; }
.details-list dd { margin: 0; overflow-wrap: anywhere; }
.raw-json summary { cursor: pointer; font-weight: 700; }
.raw-json[open] summary { margin-bottom: 12px; }
/* The answer beside its evidence on a wide screen, stacked on a phone (below). */
.answer-grid { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); align-items: start; }
.evidence-shot { display: block; border: 1px solid var(--border); border-radius: 8px; overflow: hidden; background: var(--bg); }
/* A full-page screenshot can be many viewports tall: its top is shown, the link opens all of it. */
.evidence-shot img { display: block; width: 100%; height: auto; max-height: 640px; object-fit: cover; object-position: top; }
.evidence-files { list-style: none; padding: 0; margin: 12px 0 8px; display: grid; gap: 6px; }
.evidence-missing { margin: 8px 0 0; padding-left: 20px; color: var(--muted); font-size: .9rem; overflow-wrap: anywhere; }
/* The evidence checkboxes (overview card, playground): a long label wraps beside its box, never under it. */
#evidence .check, .evidence-choice .check { flex-wrap: nowrap; align-items: flex-start; margin-bottom: 8px; }
#evidence .check input, .evidence-choice .check input { flex: none; margin-top: 3px; }
.show-in-answer { font-family: inherit; font-size: .8rem; font-weight: 600; white-space: nowrap; }
/* "Show in answer" lands on the answer's link: it is scrolled clear of the top and marked. */
.answer a[id] { scroll-margin-top: 80px; }
.answer a:target { background: var(--warn-soft); outline: 2px solid var(--warn); outline-offset: 1px; border-radius: 3px; }
td .job-error { display: block; color: var(--bad); font-size: .85rem; margin-top: 4px; max-width: 360px; white-space: normal; }

@media (max-width: 860px) {
  .playground-grid, .answer-grid { grid-template-columns: minmax(0, 1fr); }
  .facts { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .result-cards { grid-template-columns: minmax(0, 1fr); }
}
`;

export const PLAYGROUND_JS = `
(function () {
  // Copy buttons for code: data-copy-text names the element whose text is copied.
  document.querySelectorAll("[data-copy-text]").forEach(function (button) {
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-copy-text"));
      if (!source) return;
      var label = button.textContent;
      function done(text) { button.textContent = text; setTimeout(function () { button.textContent = label; }, 2000); }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(source.textContent).then(function () { done("Copied"); }, function () { done("Select and copy"); });
      } else {
        var range = document.createRange(); range.selectNodeContents(source);
        var selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
        done("Press Ctrl+C");
      }
    });
  });

  function seconds(milliseconds) {
    var value = milliseconds / 1000;
    if (value < 60) return value.toFixed(1) + " s";
    return Math.floor(value / 60) + " min " + Math.floor(value % 60) + " s";
  }

  var form = document.querySelector("[data-playground-form]");
  if (form) {
    var scraperSelect = form.querySelector("[data-scraper-select]");
    var countrySelect = form.querySelector("[data-country-select]");
    var countryHint = form.querySelector("[data-country-hint]");

    function words(value) { return value ? value.split(" ") : null; }

    // The country list offers the chosen scraper's countries (its declaration, in the scraper option's data-refused /
    // data-allowed), plus the chosen country whatever it is: a country the scraper does not serve is never swapped for
    // another one behind the visitor's back; the hint says a run with it is refused, and the server refuses it.
    function offerCountries() {
      var option = scraperSelect.selectedOptions[0];
      var refused = words(option.getAttribute("data-refused"));
      var allowed = words(option.getAttribute("data-allowed"));
      function serves(code) {
        var unassigned = Array.prototype.some.call(countrySelect.options, function (country) {
          return country.value === code && country.hasAttribute("data-unassigned");
        });
        return !unassigned && !(refused !== null && refused.indexOf(code) >= 0) && !(allowed !== null && allowed.indexOf(code) < 0);
      }
      var chosen = countrySelect.value;
      Array.prototype.forEach.call(countrySelect.options, function (country) {
        var offered = country.value === chosen || serves(country.value);
        country.hidden = !offered;
        country.disabled = !offered;
      });
      countryHint.textContent = serves(chosen)
        ? countryHint.getAttribute("data-default-hint")
        : countryHint.getAttribute("data-unserved-hint")
            .replace("{scraper}", option.textContent.split(" — ")[0])
            .replace("{country}", chosen);
    }

    // Only the chosen scraper's own parameters are shown and sent; the others' fieldsets are disabled.
    function showScraper() {
      var id = scraperSelect.value;
      form.querySelectorAll("[data-for-scraper]").forEach(function (node) {
        var chosen = node.getAttribute("data-for-scraper") === id;
        node.hidden = !chosen;
        if (node.tagName === "FIELDSET") node.disabled = !chosen;
      });
      offerCountries();
    }

    // The snippets follow the form: the server writes them (one implementation), asked as you type.
    var snippetTimer = null;
    var snippetRequest = 0;
    function refreshSnippets() {
      clearTimeout(snippetTimer);
      snippetTimer = setTimeout(function () {
        var data = new URLSearchParams(new FormData(form));
        data.delete("_csrf");
        var request = ++snippetRequest;
        fetch("/dashboard/playground/snippets?" + data.toString(), { credentials: "same-origin" })
          .then(function (response) { return response.ok ? response.json() : null; })
          .then(function (snippets) {
            if (!snippets || request !== snippetRequest) return;
            ["curl", "python", "javascript"].forEach(function (name) {
              var node = document.querySelector('[data-snippet="' + name + '"]');
              if (node && typeof snippets[name] === "string") node.textContent = snippets[name];
            });
          })
          .catch(function () {});
      }, 200);
    }

    scraperSelect.addEventListener("change", showScraper);
    countrySelect.addEventListener("change", offerCountries);
    form.addEventListener("change", refreshSnippets);
    form.addEventListener("input", refreshSnippets);
    showScraper();

    // A run that waits shows a live timer until the result page arrives; a second click sends nothing.
    var running = false;
    var runTimer = null;
    var status = form.querySelector("[data-run-status]");
    var button = form.querySelector("[data-run-button]");
    form.addEventListener("submit", function (event) {
      if (running) { event.preventDefault(); return; }
      running = true;
      var job = form.querySelector('input[name="run"]:checked');
      var waits = !job || job.value !== "job";
      var started = Date.now();
      var elapsed = status.querySelector("[data-elapsed]");
      status.querySelector("[data-run-label]").textContent = waits ? "Waiting for " + scraperSelect.value + "…" : "Submitting the job…";
      status.hidden = false;
      button.setAttribute("aria-disabled", "true");
      button.classList.add("busy");
      elapsed.textContent = seconds(0);
      runTimer = setInterval(function () { elapsed.textContent = seconds(Date.now() - started); }, 100);
    });
    // Back from the result page: the form is ready again.
    window.addEventListener("pageshow", function (event) {
      if (!event.persisted) return;
      running = false;
      clearInterval(runTimer);
      status.hidden = true;
      button.removeAttribute("aria-disabled");
      button.classList.remove("busy");
    });
  }

  // A pending job: a live timer since submission, and a reload as soon as GET /jobs/{id} says it ended.
  var pending = document.querySelector("[data-job-poll]");
  if (pending) {
    var jobId = pending.getAttribute("data-job-poll");
    var createdAt = new Date(pending.getAttribute("data-created-at")).getTime();
    var clock = pending.querySelector("[data-elapsed]");
    function tick() { if (!isNaN(createdAt)) clock.textContent = seconds(Math.max(0, Date.now() - createdAt)); }
    tick();
    setInterval(tick, 100);
    function poll() {
      fetch("/jobs/" + encodeURIComponent(jobId), { credentials: "omit" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (job) {
          if (job && job.status !== "pending") location.reload();
          else setTimeout(poll, 2000);
        })
        .catch(function () { setTimeout(poll, 4000); });
    }
    setTimeout(poll, 1000);
  }
})();
`;
