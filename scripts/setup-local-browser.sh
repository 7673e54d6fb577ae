#!/usr/bin/env bash
# Makes miniflare's local Browser Rendering launch Debian's Chromium instead of downloading Chrome for Testing
# (these machines reach no download host). Idempotent: safe to run before every start and test run.
#
# miniflare looks for Chrome at ${XDG_CACHE_HOME}/.wrangler/chrome/linux-<version>/chrome-linux64/chrome and downloads
# it when absent. We place a shim there, for every Chrome version any installed miniflare copy pins, that runs the real
# Debian binary. XDG_CACHE_HOME points at the project's ignored .cache/ folder (the npm scripts set it), so nothing
# outside the project is touched.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_home="${XDG_CACHE_HOME:-$root/.cache}"
chromium_bin="/usr/lib/chromium/chromium"

if [ ! -x "$chromium_bin" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup-local-browser: installing Debian's chromium package" >&2
    (apt-get install -y -qq chromium >/dev/null 2>&1) || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)
  else
    echo "setup-local-browser: $chromium_bin is missing; install Debian's 'chromium' package (sudo apt-get install chromium)" >&2
    exit 1
  fi
fi

# The trailing slash makes find enter node_modules when it is a symbolic link (a worktree sharing another's install);
# `|| true` lets an empty result reach the message below instead of ending the script silently (set -e, pipefail).
versions="$(grep -hoE 'BROWSER_VERSION = "[0-9.]+"' \
  $(find "$root/node_modules/" -path '*miniflare/dist/src/index.js' 2>/dev/null) 2>/dev/null \
  | grep -oE '[0-9]+(\.[0-9]+)+' | sort -u || true)"
if [ -z "$versions" ]; then
  echo "setup-local-browser: no miniflare copy found under node_modules (run npm install first)" >&2
  exit 1
fi

for version in $versions; do
  install_dir="$cache_home/.wrangler/chrome/linux-$version"
  shim="$install_dir/chrome-linux64/chrome"
  mkdir -p "$(dirname "$shim")"
  cat >"$shim" <<SHIM
#!/bin/sh
# Shim written by scripts/setup-local-browser.sh: miniflare's Chrome $version is Debian's Chromium here.
exec "$chromium_bin" --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking \\
  --disable-component-update --disable-sync --no-first-run "\$@"
SHIM
  chmod +x "$shim"
  # Newer miniflare deletes an install folder whose first launch fails unless this marker says it is complete.
  touch "$install_dir/.miniflare-install-complete"
done
