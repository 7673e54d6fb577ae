// The import rules of src/ (docs/architecture.md, "Import rules"), checked by `npm run architecture` and `npm test`.
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
