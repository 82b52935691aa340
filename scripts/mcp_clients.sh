#!/usr/bin/env bash
# scripts/mcp_clients.sh: the MCP clients fovea's `fovea mcp` tests talk to,
# from npm: the official TypeScript SDK (@modelcontextprotocol/sdk) and the
# MCP Inspector CLI (@modelcontextprotocol/inspector).
#
#   scripts/mcp_clients.sh install     npm install into .mcp-clients/ (once; git-ignored)
#   scripts/mcp_clients.sh dir         print the folder (node_modules is under it)
#
# Exit status: 0 installed, 3 the npm install could not run (no node/npm, or
# no registry): the tests report that as a skip (ctest SKIP_RETURN_CODE 77).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
home="${FOVEA_MCP_CLIENTS_HOME:-$root/.mcp-clients}"
sdk_version="1.32.2"
inspector_version="2.12.0"

install_clients() {
  if [ -f "$home/node_modules/@modelcontextprotocol/sdk/package.json" ] &&
     [ -f "$home/node_modules/@modelcontextprotocol/inspector/package.json" ]; then
    return 0
  fi
  command -v npm >/dev/null && command -v node >/dev/null || {
    echo "mcp_clients.sh: node and npm are needed for the MCP client tests" >&2; exit 3; }
  mkdir -p "$home"
  [ -f "$home/package.json" ] || echo '{"name":"fovea-mcp-clients","private":true,"type":"module"}' > "$home/package.json"
  echo "mcp_clients.sh: installing the MCP SDK and Inspector into $home (npm, once)" >&2
  if ! (cd "$home" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/sdk@$sdk_version" \
        "@modelcontextprotocol/inspector@$inspector_version" >"$home/npm.log" 2>&1); then
    tail -5 "$home/npm.log" >&2
    echo "mcp_clients.sh: npm install failed (log: $home/npm.log)" >&2
    exit 3
  fi
}

case "${1:-}" in
  install) install_clients ;;
  dir) echo "$home" ;;
  *) echo "usage: scripts/mcp_clients.sh install|dir" >&2; exit 2 ;;
esac
