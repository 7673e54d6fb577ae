/**
 * The Swagger UI options both references share (/docs: swagger-initializer.js; /admin/docs: operator-docs.js), loaded
 * before either, so the two pages look and behave alike and a setting is changed in one place. What each page adds:
 * its document (`url` or `spec`), its plugins and, for the operator, the token.
 * - `validatorUrl: null`: Swagger UI would otherwise send the document to validator.swagger.io for a badge;
 * - `queryConfigEnabled` stays off, so a crafted link (`/docs?url=…`) cannot make a page load another document;
 * - `persistAuthorization` stays off: a key or token typed into Authorize lives only as long as the tab.
 */
window.SWAGGER_OPTIONS = {
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
};
