// The import rules of src/ (docs/architecture.md, "Layers"), checked by `npm run architecture` and `npm test`.
// Paths are relative to the repository root: the check runs from there (scripts/run-tests.sh, package.json).

// The layers above the providers, as path regexes, named once so each rule below reads as "this layer never imports
// those". A folder of src/ names a topic and a layer names what a module calls, so three topic folders (jobs/, status/,
// capture-files/) keep their callers of the pipeline beside their records: those are listed by name (PIPELINE_CALLERS)
// rather than moved away from their topic.

/**
 * Callers of the pipeline: they run a scrape (or charge one) and are called only by the surfaces and the entry.
 * The job consumer runs queued scrapes; job submission (a single job and a batch) charges the request through the
 * pipeline's charge step and looks its provider up there, as the synchronous route does; the canaries run a scrape
 * per provider, and the cron handler (scheduled.ts) runs the canaries; the capture recording runs one scrape with a
 * recorder.
 */
const PIPELINE_CALLERS = [
  "^src/jobs/(consumer|submit|submit-batch)\\.ts$",
  "^src/status/(canaries|scheduled)\\.ts$",
  "^src/capture-files/record-capture\\.ts$",
];
/**
 * Records: what the service keeps and the rules that go with it (accounts, keys and failed admin-token attempts,
 * credits, the cache, limits, jobs, webhooks, monitors, provider accounts, the status page's outcomes and figures) and
 * the capture files' format, redaction and replay; the callers above excepted.
 */
const RECORDS = "^src/(accounts|auth|cache|capture-files|credits|evidence|jobs|limits|monitors|provider-accounts|status|webhooks)/";
const PIPELINE = "^src/pipeline/";
/** What a client talks to: the HTTP routes and their middleware (with the rendered status page), MCP, the dashboard. */
const SURFACES = "^src/(http|mcp|dashboard)/";
const ENTRY = "^src/(app|index)\\.ts$";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycle-in-src",
      comment:
        "A module cycle in src/ means two modules that cannot be understood, tested or moved apart. Cut it by moving " +
        "what both need down into a module of its own; an `import type` does not cut it (type-only imports count).",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "no-src-import-of-tooling",
      comment: "The Worker ships src/ only: tests, scripts, replicas and the bench may import from src/, never the other way.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|scripts|replicas|bench)/" },
    },
    // The layers of src/, bottom up (docs/architecture.md, "Layers"): each rule names what a layer may import (or, above
    // the providers, where everything below is allowed, what it may not), so an import that runs back up fails here.
    {
      name: "util-imports-nothing-of-src",
      comment: "src/util/ is the floor: helpers every layer may use, so it may use none of them.",
      severity: "error",
      from: { path: "^src/util/" },
      to: { path: "^src/", pathNot: "^src/util/" },
    },
    {
      name: "errors-import-only-util",
      comment: "src/errors.ts (the error hierarchy) is thrown from every layer: it may import src/util/ only.",
      severity: "error",
      from: { path: "^src/errors\\.ts$" },
      to: { path: "^src/", pathNot: "^src/util/" },
    },
    {
      name: "params-and-schemas-import-only-below",
      comment:
        "src/params/ and src/schemas/ (request parameters, shared zod schemas) are read by the providers and by every " +
        "route: they may import each other, src/errors.ts and src/util/ only.",
      severity: "error",
      from: { path: "^src/(params|schemas)/" },
      to: { path: "^src/", pathNot: "^src/(params/|schemas/|errors\\.ts$|util/)" },
    },
    {
      name: "browser-page-imports-only-below",
      comment:
        "src/browser/page/ (the page session with its step log and hot-page state, capture/, navigation/) is the page " +
        "machinery the providers drive, below the rest of src/browser/ (pool, leases, sessions, hot and warm page " +
        "preparation), which hands it a page: it may import itself, src/errors.ts and src/util/ only, never the browser " +
        "layer that drives it.",
      severity: "error",
      from: { path: "^src/browser/page/" },
      to: { path: "^src/", pathNot: "^src/(browser/page/|errors\\.ts$|util/)" },
    },
    {
      name: "browser-imports-only-below",
      comment:
        "src/browser/ (the pool, sessions, pages and the page machinery the providers drive: browser/page/) is below " +
        "the providers: it never imports src/scrapers/ nor anything above it, only itself, src/errors.ts and src/util/.",
      severity: "error",
      from: { path: "^src/browser/" },
      to: { path: "^src/", pathNot: "^src/(browser/|errors\\.ts$|util/)" },
    },
    {
      name: "scrapers-shared-is-pure-decoding",
      comment:
        "src/scrapers/shared/ decodes captured bytes (lines, NDJSON, SSE, JSON Patch, HTML, markdown): no page, no " +
        "browser, no provider. It may import src/errors.ts and src/util/ only.",
      severity: "error",
      from: { path: "^src/scrapers/shared/" },
      to: { path: "^src/", pathNot: "^src/(scrapers/shared/|errors\\.ts$|util/)" },
    },
    {
      name: "provider-imports-no-other-provider",
      comment:
        "A provider folder (src/scrapers/<id>/) is one site: what two providers share moves down (src/scrapers/shared/, " +
        "src/browser/page/), never sideways into the other provider's folder.",
      severity: "error",
      from: { path: "^src/scrapers/([^/]+)/", pathNot: "^src/scrapers/shared/" },
      to: { path: "^src/scrapers/[^/]+/", pathNot: "^src/scrapers/($1|shared)/" },
    },
    {
      name: "provider-imports-only-below",
      comment:
        "A provider folder drives a page and decodes what it captured: it may import the provider contract " +
        "(src/scrapers/provider-contract.ts), src/scrapers/shared/, src/browser/, src/params/, src/schemas/, src/errors.ts and " +
        "src/util/, never the pipeline, the routes, jobs or accounts above it.",
      severity: "error",
      from: { path: "^src/scrapers/([^/]+)/", pathNot: "^src/scrapers/shared/" },
      to: {
        path: "^src/",
        pathNot: "^src/(scrapers/[^/]+/|scrapers/provider-contract\\.ts$|browser/|params/|schemas/|errors\\.ts$|util/)",
      },
    },
    {
      name: "provider-contract-imports-only-below",
      comment:
        "Every provider imports its contract (src/scrapers/provider-contract.ts), so the contract is below the providers: " +
        "it names the page session and the recorder (src/browser/), the parameters and schemas, and nothing above.",
      severity: "error",
      from: { path: "^src/scrapers/provider-contract\\.ts$" },
      to: { path: "^src/", pathNot: "^src/(browser/|params/|schemas/|errors\\.ts$|util/)" },
    },
    {
      name: "provider-registry-imports-only-providers-and-below",
      comment:
        "The modules beside the provider folders (src/scrapers/provider-list.ts, registry.ts, drift-log.ts) are the first " +
        "layer above the providers: the list of providers and what derives from it. Every layer above reads providers " +
        "through them, so they import src/scrapers/, src/browser/, src/params/, src/schemas/, src/errors.ts and src/util/ " +
        "only: never the records, the pipeline, its callers or the surfaces.",
      severity: "error",
      from: { path: "^src/scrapers/[^/]+$" },
      to: { path: "^src/", pathNot: "^src/(scrapers/|browser/|params/|schemas/|errors\\.ts$|util/)" },
    },
    {
      name: "records-import-no-pipeline-nor-above",
      comment:
        "The records (accounts/, auth/, credits/, cache/, limits/, jobs/, webhooks/, monitors/, provider-accounts/, " +
        "capture-files/, status/) are what the pipeline and the routes read and write: they may import each other and " +
        "everything below (the provider registry, providers, browser/, params/, schemas/), never the pipeline, a caller of " +
        "it, a surface or the entry. A record that needs to run or charge a scrape is a caller (PIPELINE_CALLERS above), not a record.",
      severity: "error",
      from: { path: RECORDS, pathNot: PIPELINE_CALLERS },
      to: { path: [PIPELINE, ...PIPELINE_CALLERS, SURFACES, ENTRY] },
    },
    {
      name: "pipeline-imports-no-caller-nor-surface",
      comment:
        "src/pipeline/ (cache look-up, page, provider, answer check; the charge step and the synchronous caller) runs on " +
        "records and below. It never imports the job consumer, submission, the canaries, the capture recording, a surface " +
        "or the entry: they call it, so a scrape never depends on who asked for it.",
      severity: "error",
      from: { path: PIPELINE },
      to: { path: [...PIPELINE_CALLERS, SURFACES, ENTRY] },
    },
    {
      name: "pipeline-callers-import-no-surface",
      comment:
        "The callers of the pipeline (PIPELINE_CALLERS above) run without an HTTP request (the queue, the cron) or are " +
        "called by a route: they may import the pipeline and everything below it, and each other, never a surface " +
        "(http/, mcp/, dashboard/) nor the entry.",
      severity: "error",
      from: { path: PIPELINE_CALLERS },
      to: { path: [SURFACES, ENTRY] },
    },
    {
      name: "surfaces-import-no-entry",
      comment:
        "The surfaces (src/http/, src/mcp/, src/dashboard/) may import every layer below them, never src/app.ts nor " +
        "src/index.ts, which assemble them.",
      severity: "error",
      from: { path: SURFACES },
      to: { path: ENTRY },
    },
    {
      name: "http-imports-neither-mcp-nor-dashboard",
      comment:
        "src/http/ is the surfaces' base: the app's environment type, the request context, the API-key middleware, body " +
        "caps and the OpenAPI document that MCP and the dashboard build on. It never imports either of them.",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: "^src/(mcp|dashboard)/" },
    },
    {
      name: "mcp-and-dashboard-import-not-each-other",
      comment: "MCP and the dashboard are two surfaces side by side on src/http/: what both need moves down, never across.",
      severity: "error",
      from: { path: "^src/(mcp|dashboard)/" },
      to: { path: "^src/(mcp|dashboard)/", pathNot: "^src/$1/" },
    },
    {
      name: "every-src-module-is-in-a-layer",
      comment:
        "A module outside every layer named here is checked by no rule above: a new folder of src/ is placed in a layer " +
        "(this file and docs/architecture.md) before it imports anything of src/.",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: ["^src/(util|params|schemas|browser|scrapers|pipeline)/", "^src/errors\\.ts$", RECORDS, SURFACES, ENTRY],
      },
      to: { path: "^src/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports are dependencies too: a cycle held together by types still ties the two modules together.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["workerd", "worker", "import", "types", "default"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json", ".d.ts"],
    },
  },
};
