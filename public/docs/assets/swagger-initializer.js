/**
 * Starts Swagger UI on the /docs page (src/http/docs.ts). A file of its own, not an inline script, so the page's
 * Content-Security-Policy can stay `script-src 'self'`. It reads /openapi.json of this deployment and nothing else, with
 * the options both references share (swagger-options.js). The code samples of each operation come from
 * code-samples.js; both files are loaded before this one.
 */

window.addEventListener("DOMContentLoaded", () => {
  const container = document.getElementById("swagger-ui");
  if (typeof window.SwaggerUIBundle !== "function" || container === null) return;
  window.ui = window.SwaggerUIBundle({
    ...window.SWAGGER_OPTIONS,
    url: "/openapi.json",
    domNode: container,
    presets: [window.SwaggerUIBundle.presets.apis],
    plugins: typeof window.CodeSamplesPlugin === "function" ? [window.CodeSamplesPlugin] : [],
  });
});
