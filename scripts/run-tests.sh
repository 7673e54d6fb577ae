#!/usr/bin/env bash
# The whole test suite (`npm test`): type checks, the deploy bundle, unit and replica tests in Node and browser-free
# Workers-runtime tests (files in parallel), then everything that drives Chromium in lanes (scripts/run-chromium-lanes.ts:
# each end-to-end file in its own process with its own replicas, the dashboard in a real browser, the restart test).
# The levels and where each lives: test/README.md.
# Ends with one line "N passed, N failed" (", N skipped" when any test was skipped).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export XDG_CACHE_HOME="$root/.cache"
export WRANGLER_SEND_METRICS=false
# No fetch of workers.cloudflare.com/cf.json (offline it prints stack traces); the Worker never reads request.cf.
export CLOUDFLARE_CF_FETCH_ENABLED=false
# vitest loads its config through Vite; its notice about a future config loader is not about this project.
export VITE_CONFIG_NATIVE_IGNORE_WARNING=true

bash scripts/setup-local-browser.sh || exit 1

failed_checks=0
passed_checks=0
check() {
  local name="$1"; shift
  if "$@" >"$root/.cache/check-$name.log" 2>&1; then
    echo "✓ $name"; passed_checks=$((passed_checks + 1))
  else
    echo "✗ $name"; cat "$root/.cache/check-$name.log"; failed_checks=$((failed_checks + 1))
  fi
}
check lint-and-format biome check --assist-enabled=false .
# The TypeScript client has its own toolchain (its generator needs TypeScript 6; the project uses 7).
check client-install npm ci --prefix clients/typescript --no-audit --no-fund
check client-generated tsx clients/typescript/scripts/generate.ts --check
check openapi-lint redocly lint clients/typescript/openapi.json clients/typescript/openapi.operator.json
check typecheck-client tsc -p clients/typescript/tsconfig.json
check typecheck-client-scripts tsc -p clients/typescript/scripts/tsconfig.json
check typecheck-worker tsc -p tsconfig.json
check typecheck-node tsc -p tsconfig.node.json
# The import rules of src/ (docs/architecture.md, "Layers"): dependency-cruiser reads TypeScript through the
# TypeScript 5 JS API, which TypeScript 7 has no more, so it has its own toolchain like the client.
check architecture-install npm ci --prefix tools/architecture --no-audit --no-fund
check architecture tools/architecture/node_modules/.bin/depcruise --config tools/architecture/dependency-cruiser.config.cjs src
check deploy-dry-run wrangler deploy --dry-run --outdir "$root/.cache/dry-run"

statuses=()
run_vitest() {
  local name="$1"; shift
  local report="$root/.cache/vitest-$name.json"
  rm -f "$report"
  vitest run --passWithNoTests --reporter=default --reporter=json --outputFile.json="$report" "$@"
  echo "$?" >"$root/.cache/vitest-$name.status"
  statuses+=("$root/.cache/vitest-$name.status")
}
# The replica tests open a Chromium for a few short pages only (no wrangler dev, no pool): they stay in this parallel
# group, where they ran as part of `unit` before they had a project of their own.
run_vitest main --project unit --project replicas --project integration "$@"
# e2e files, the dashboard's browser project and the restart test, several at once; each leaves .cache/lanes/<task>.status
# (and <task>.json for vitest tasks).
tsx scripts/run-chromium-lanes.ts "$@"
statuses+=("$root"/.cache/lanes/*.status)

# The local Browser Rendering emulation starts each Chromium in its own process group and does not always stop it when
# a test file's runtime goes away: stop the orphans it left (parent gone, a miniflare profile), and nothing else.
ps -eo pid=,ppid=,args= | awk '$2 == 1 && /chromium/ && /--user-data-dir=\/tmp\/miniflare-/ { print $1 }' | xargs -r kill -9 2>/dev/null || true

node -e '
  const fs = require("fs");
  const [checksPassed, checksFailed, ...statusPaths] = process.argv.slice(1);
  let passed = Number(checksPassed), failed = Number(checksFailed), skipped = 0;
  for (const statusPath of statusPaths) {
    if (!fs.existsSync(statusPath)) {
      failed += 1;
      continue;
    }
    const status = Number(fs.readFileSync(statusPath, "utf8"));
    const reportPath = statusPath.replace(/\.status$/, ".json");
    if (!fs.existsSync(reportPath)) {
      // a task without a vitest report (the restart test, or a vitest run that died) counts as one check
      if (status === 0) passed += 1;
      else failed += 1;
      continue;
    }
    const report = JSON.parse(fs.readFileSync(reportPath, "utf8"));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
    // A file that failed to load has no failed tests but must still count as a failure.
    failed += report.testResults.filter((file) => file.status === "failed" && file.assertionResults.every((test) => test.status !== "failed")).length;
    if (status !== 0 && report.numFailedTests === 0 && report.testResults.every((file) => file.status !== "failed")) failed += 1;
  }
  console.log(`${passed} passed, ${failed} failed` + (skipped > 0 ? `, ${skipped} skipped` : ""));
  process.exit(failed > 0 ? 1 : 0);
' "$passed_checks" "$failed_checks" "${statuses[@]}"
