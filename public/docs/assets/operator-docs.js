/**
 * The operator reference at /admin/docs (src/http/docs.ts). The page itself holds nothing of the operator API: this
 * script asks for the admin token, fetches /admin/openapi.json with it (`Authorization: Bearer …`) and only on a 200
 * starts Swagger UI with that document, authorized with the same token (the document's `AdminToken` scheme), so
 * "Try it out" sends it too.
 * The token lives in memory only (this closure and Swagger UI's state): never in storage, a cookie or the URL, so
 * closing or reloading the tab forgets it. As on /docs: no validator badge, no `?url=` override, nothing persisted.
 */

window.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("operator-token-form");
  const input = document.getElementById("operator-token");
  const error = document.getElementById("operator-token-error");
  const container = document.getElementById("swagger-ui");
  if (form === null || input === null || error === null || container === null) return;

  function showError(message) {
    error.textContent = message;
    error.hidden = false;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.hidden = true;
    const token = input.value.trim();
    if (token === "") return;
    let response;
    try {
      response = await fetch("/admin/openapi.json", { headers: { Authorization: `Bearer ${token}` }, cache: "no-store" });
    } catch {
      showError("The deployment could not be reached. Try again.");
      return;
    }
    if (!response.ok) {
      // The API's own message ({detail, code}) says whether the token was wrong, throttled or not configured.
      const body = await response.json().catch(() => ({}));
      showError(typeof body.detail === "string" ? body.detail : `The operator document answered ${response.status}.`);
      return;
    }
    const spec = await response.json();
    input.value = "";
    form.hidden = true;
    if (typeof window.SwaggerUIBundle !== "function") return;
    window.ui = window.SwaggerUIBundle({
      ...window.SWAGGER_OPTIONS,
      spec,
      domNode: container,
      presets: [window.SwaggerUIBundle.presets.apis],
      // Works for the bearer scheme too: Authorize shows the token as applied, and every operation sends it.
      onComplete: () => window.ui.preauthorizeApiKey("AdminToken", token),
    });
  });
});
