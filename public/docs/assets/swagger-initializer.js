/**
 * Starts Swagger UI on the /docs page (src/http/docs.ts). A file of its own, not an inline script, so the page's
 * Content-Security-Policy can stay `script-src 'self'`. It reads /openapi.json of this deployment and nothing else:
 * - `validatorUrl: null`: Swagger UI would otherwise send the document to validator.swagger.io for a badge;
 * - `queryConfigEnabled` stays off, so a crafted link (`/docs?url=…`) cannot make the page load another document;
 * - `persistAuthorization` stays off: a key typed into Authorize lives only as long as the tab.
 * The code samples of each operation come from code-samples.js, loaded before this file.
 */

window.addEventListener("DOMContentLoaded", () => {
  const container = document.getElementById("swagger-ui");
  if (typeof window.SwaggerUIBundle !== "function" || container === null) return;
  window.ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    domNode: container,
    presets: [window.SwaggerUIBundle.presets.apis],
    plugins: typeof window.CodeSamplesPlugin === "function" ? [window.CodeSamplesPlugin] : [],
    layout: "BaseLayout",
    // Links such as /docs#/Grok/scrapeGrok open that operation.
    deepLinking: true,
    validatorUrl: null,
    // Tags and operations in the document's own order: the scrapers first, then jobs, batches, results, account, status.
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 2,
    displayRequestDuration: true,
    displayOperationId: false,
    filter: true,
    showCommonExtensions: true,
    requestSnippetsEnabled: true,
    tryItOutEnabled: false,
    supportedSubmitMethods: ["get", "post", "put", "patch", "delete"],
  });
});
