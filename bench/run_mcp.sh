#!/usr/bin/env bash
# bench/run_mcp.sh: fovea mcp against Playwright MCP and Chrome DevTools MCP,
# in one run, with the official MCP SDK client (bench/mcp_compare.mjs).
#   bench/run_mcp.sh [BUILD_DIR]      (default: build; REPS=7 per latency)
# Installs, once, the SDK (scripts/mcp_clients.sh, .mcp-clients/) and the two
# anchors (npm, into the git-ignored .mcp-bench/; their code is not
# committed). Every server runs Debian's Chromium headless, no sandbox (root).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build}"
cd "$root"
[ -x "$build/tools/fovea" ] || cmake --build "$build" -j2 --target fovea
scripts/mcp_clients.sh install
anchors="$root/.mcp-bench"
if [ ! -f "$anchors/node_modules/@playwright/mcp/cli.js" ] ||
   [ ! -f "$anchors/node_modules/chrome-devtools-mcp/package.json" ]; then
  mkdir -p "$anchors"
  [ -f "$anchors/package.json" ] || echo '{"name":"fovea-mcp-bench","private":true}' > "$anchors/package.json"
  (cd "$anchors" && PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit \
     --no-fund --loglevel=error @playwright/mcp@0.0.83 chrome-devtools-mcp@1.11.0)
fi
cat /proc/loadavg >&2
node bench/mcp_compare.mjs "$("$root/scripts/mcp_clients.sh" dir)" "$anchors" "$root/$build/tools/fovea" "${REPS:-7}"
