#!/usr/bin/env bash
# tests/mcp/run_clients.sh: runs tests/mcp/mcp_client.mjs (the official MCP
# SDK client and the Inspector CLI against `fovea mcp`) after installing the
# clients from npm on first use (scripts/mcp_clients.sh, into the git-ignored
# .mcp-clients/). Exit 77 (ctest: skipped) when npm cannot install them.
#
#   tests/mcp/run_clients.sh FOVEA_BINARY stdio|http|inspector
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fovea="$1"
mode="$2"
rc=0
"$root/scripts/mcp_clients.sh" install || rc=$?
if [ "$rc" -eq 3 ]; then
  echo "SKIP: the MCP clients could not be installed from npm (scripts/mcp_clients.sh)" >&2
  exit 77
elif [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
exec node "$root/tests/mcp/mcp_client.mjs" "$("$root/scripts/mcp_clients.sh" dir)" "$fovea" \
  "$root/tests/fixtures/pages" "$mode"
