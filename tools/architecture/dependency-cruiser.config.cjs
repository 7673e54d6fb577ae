// The import rules of src/ (docs/architecture.md, "Layers"), checked by `npm run architecture` and `npm test`.
// Paths are relative to the repository root: the check runs from there (scripts/run-tests.sh, package.json).
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
    // The layers of src/, bottom up (docs/architecture.md, "Layers"): each rule names what a layer may import, so an
    // import that runs back up fails here. The layers above the providers are held by no-cycle-in-src only.
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
