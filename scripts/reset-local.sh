#!/usr/bin/env bash
# `npm run reset`: forget all local state of `npm start` — the local D1/KV/Queues/Durable Object data, the dev key, the
# admin token and the generated .dev.vars. The next `npm start` begins from scratch with a new dev key.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if pgrep -f "scripts/start-local.ts" >/dev/null 2>&1; then
  echo "npm start is still running: stop it (Ctrl-C) first." >&2
  exit 1
fi
rm -rf .wrangler/state .local .dev.vars
echo "Local state removed (.wrangler/state, .local, .dev.vars). The next npm start begins from scratch."
